/* `run`'s claim writer (framework/claim_writer.h): DynamicResources'
 * PreBind writes, as upstream's bindClaim makes them. A claim to allocate
 * first gets the finalizer resource.kubernetes.io/delete-protection (a
 * strategic merge patch of the claim, which adds to its finalizers, with
 * the resourceVersion seen; the status subresource takes no metadata).
 * Each claim then gets a JSON merge patch of its status subresource
 * (resourceclaims/NAME/status): status.allocation when Reserve allocated
 * it, and status.reservedFor with the pod added, carrying the
 * resourceVersion the scheduler saw (or the finalizer's answer had), so
 * that a claim changed meanwhile is refused with 409 Conflict. On a conflict the claim is read again (GET)
 * and the patch made anew on what was read, at most 5 times in all
 * (upstream's retry.DefaultRetry): a claim being deleted, or allocated
 * elsewhere when this one allocates it, fails the write at once, in
 * upstream's words ("claim ml/gpu got allocated elsewhere in the
 * meantime").
 *
 * A pod's claims go one after the other and stop at the first failure.
 * Writes are sent by an async client and answered on its thread; a
 * failure waits in a queue for the scheduler thread (a readable fd wakes
 * its loop), which hands it to the scheduler: the binding cycle then fails
 * with the message (Unreserve, the pod back in the queue with backoff).
 * Successes need no word: the informers bring the claims' updates that end
 * PreBind's wait. Unreserve's removals of the pod from reservedFor
 * (strategic merge patches deleting its entry by uid) and PostFilter's
 * deallocations (a JSON merge patch of the status setting allocation and
 * reservedFor to null, with the resourceVersion seen) are sent the same
 * way; their failures are only logged. */
#ifndef MOONSCHED_API_CLAIM_WRITER_H
#define MOONSCHED_API_CLAIM_WRITER_H

#include "client/kube_client.h"
#include "run/api_metrics.h"
#include "framework/claim_writer.h"
#include "moonsched/error.h"
#include "moonsched/intern.h"
#include "moonsched/log.h"
#include "moonsched/pod.h"

typedef struct ms_api_claim_writer ms_api_claim_writer;

/* in: the scheduler thread's interner; metrics (API request counts) and
 * log may be NULL. */
ms_rc ms_api_claim_writer_new(ms_kube_client *c, const ms_interner *in, ms_api_metrics *metrics, const ms_logger *log,
                              ms_api_claim_writer **out, ms_error *err);
/* Stops the client's engine: writes not answered by now are dropped. */
void ms_api_claim_writer_stop(ms_api_claim_writer *w);
void ms_api_claim_writer_free(ms_api_claim_writer *w);

/* The vtable the scheduler calls (its ctx is w). */
ms_claim_writer ms_api_claim_writer_vtable(ms_api_claim_writer *w);

/* Readable while answered writes wait (an eventfd). */
int ms_api_claim_writer_fd(const ms_api_claim_writer *w);
/* Hands each pod whose writes failed to `failed` (scheduler thread), with
 * the message the binding cycle fails with, and frees what is done. */
void ms_api_claim_writer_drain(ms_api_claim_writer *w,
                               void (*failed)(void *ctx, const ms_pod *pod, const char *message), void *ctx);

#endif
