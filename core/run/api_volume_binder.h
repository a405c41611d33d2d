/* `run`'s volume binder (framework/volume_binder.h): the API writes of
 * VolumeBinding's PreBind, as upstream's bindAPIUpdate makes them. For a
 * static binding, the PV gets spec.claimRef (the claim's reference with
 * its uid) and, unless it was already bound to that claim, the annotation
 * pv.kubernetes.io/bound-by-controller; the PV controller then binds the
 * claim (spec.volumeName, pv.kubernetes.io/bind-completed, phase Bound).
 * For a claim to provision, the claim gets the annotation
 * volume.kubernetes.io/selected-node; the external provisioner creates the
 * PV there and the PV controller binds them.
 *
 * Each write is a JSON merge patch carrying the resourceVersion the
 * scheduler saw, so that it fails with 409 when the object changed
 * meanwhile, as upstream's Update of the cached object does. A pod's
 * writes go one after the other, PVs first, and stop at the first failure
 * (upstream's order). They are sent by an async client and answered on its
 * thread; a failure waits in a queue for the scheduler thread (a readable
 * fd wakes its loop), which hands it to the scheduler: the binding cycle
 * then fails with the API server's message. Successes need no word: the
 * informers bring the PV and claim updates that end PreBind's wait. */
#ifndef MOONSCHED_API_VOLUME_BINDER_H
#define MOONSCHED_API_VOLUME_BINDER_H

#include <stdint.h>

#include "client/kube_client.h"
#include "run/api_metrics.h"
#include "framework/volume_binder.h"
#include "moonsched/error.h"
#include "moonsched/intern.h"
#include "moonsched/log.h"
#include "moonsched/pod.h"

typedef struct ms_api_volume_binder ms_api_volume_binder;

/* in: the scheduler thread's interner; metrics (API request counts) and
 * log may be NULL. */
ms_rc ms_api_volume_binder_new(ms_kube_client *c, const ms_interner *in, ms_api_metrics *metrics,
                               const ms_logger *log, ms_api_volume_binder **out, ms_error *err);
/* Stops the client's engine: writes not answered by now are dropped. */
void ms_api_volume_binder_stop(ms_api_volume_binder *b);
void ms_api_volume_binder_free(ms_api_volume_binder *b);

/* The vtable the scheduler calls (its ctx is b). */
ms_volume_binder ms_api_volume_binder_vtable(ms_api_volume_binder *b);

/* Readable while answered writes wait (an eventfd). */
int ms_api_volume_binder_fd(const ms_api_volume_binder *b);
/* Hands each pod whose writes failed to `failed` (scheduler thread), with
 * the message the binding cycle fails with, and frees what is done. */
void ms_api_volume_binder_drain(ms_api_volume_binder *b,
                                void (*failed)(void *ctx, const ms_pod *pod, const char *message),
                                void *ctx);

#endif
