/* Where DynamicResources' PreBind sends its API writes (upstream's
 * bindClaim: the ResourceClaim's status.allocation and status.reservedFor,
 * an UpdateStatus retried on conflict). The scheduler gets one through
 * ms_scheduler_options.claim_writer and hands it to plugins in
 * ms_handle.claim_writer: `run` writes to the API server
 * (run/api_claim_writer); without one (simulate) the plugin writes the
 * claims into the scheduler's DRA store itself.
 *
 * The contract:
 * - write is called on the scheduler thread, from PreBind, once per
 *   binding cycle with claims. It must not block.
 * - each claim is written as `status` holds it: status.allocation (when
 *   `allocate`: the claim must still be unallocated on the server, and
 *   it gets upstream's finalizer resource.kubernetes.io/delete-protection
 *   first) and
 *   status.reservedFor with the pod; with the resourceVersion the
 *   scheduler saw, so that a claim changed meanwhile is refused (409).
 *   On a conflict the writer reads the claim again and retries on what it
 *   read, as upstream's retry.RetryOnConflict does: a claim deleted or
 *   allocated elsewhere meanwhile fails the write.
 * - the outcome is not reported on success: PreBind waits until the DRA
 *   store (fed by the informers) shows every claim reserved for the pod.
 *   A write that failed is reported with ms_scheduler_claim_write_failed
 *   (scheduler/dra_events.h) on the scheduler thread: the binding cycle
 *   then fails (Unreserve, back to the queue with backoff).
 * - unreserve: the binding cycle failed after PreBind's writes (Unreserve):
 *   the pod is to be removed from the status.reservedFor of these claims,
 *   as upstream's Unreserve does with a strategic merge patch deleting its
 *   entry by uid; the claims' allocation stays (the resourceclaim
 *   controller deallocates a claim no one reserves). Fire and forget:
 *   failures are logged. Optional.
 * - deallocate: PostFilter found the pod's allocated claim unavailable on
 *   some node and held by no other pod: its status.allocation and
 *   status.reservedFor are cleared on the server (upstream's UpdateStatus
 *   with both nil, with the resourceVersion seen). Fire and forget:
 *   failures are logged; the informers bring the update, which moves the
 *   pod. Optional: without it, PostFilter deallocates nothing. */
#ifndef MOONSCHED_CLAIM_WRITER_H
#define MOONSCHED_CLAIM_WRITER_H

#include <stdbool.h>
#include <stdint.h>

#include "api/dra.h"
#include "moonsched/error.h"
#include "moonsched/pod.h"

typedef struct ms_claim_write {
    const ms_dra_object *claim;    /* as the store has it (name, resourceVersion) */
    const ms_dra_object *status;   /* the claim with the status to write */
    bool allocate;                 /* status.allocation comes from this cycle's Reserve */
} ms_claim_write;

typedef struct ms_claim_writer {
    void *ctx;
    /* Starts the writes for `pod` (assumed on its node). MS_OK: sent or
     * queued; any other rc fails PreBind with err's message. */
    ms_rc (*write)(void *ctx, const ms_pod *pod, const ms_claim_write *w, uint32_t n, ms_error *err);
    void (*unreserve)(void *ctx, const ms_pod *pod, const ms_dra_object *const *claims, uint32_t n);
    void (*deallocate)(void *ctx, const ms_pod *pod, const ms_dra_object *claim);
} ms_claim_writer;

#endif
