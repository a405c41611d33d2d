/* moonsched_authentication_attempts_total{result}: how the secure port
 * authenticated each request (as the API server's
 * authentication_attempts), recorded by serving/secure_serving.c on the
 * HTTPS threads and rendered through the command's registry. Atomic
 * counters: no lock. */
#ifndef MOONSCHED_SERVING_AUTHN_METRICS_H
#define MOONSCHED_SERVING_AUTHN_METRICS_H

#include "base/buf.h"

typedef struct ms_authn_metrics ms_authn_metrics;

/* How the secure port authenticated a request. */
typedef enum ms_authn_result {
    MS_AUTHN_SUCCESS = 0,          /* a user (anonymous included) */
    MS_AUTHN_FAILURE,              /* a token or certificate refused: 401 */
    MS_AUTHN_ERROR,                /* the TokenReview failed: 401 */
    MS_AUTHN_THROTTLED,            /* too many failures from the address: 401 without a review */
    MS_AUTHN_NRESULTS,
} ms_authn_result;

/* NULL when out of memory. */
ms_authn_metrics *ms_authn_metrics_new(void);
void ms_authn_metrics_free(ms_authn_metrics *m);
/* m NULL: not counted. */
void ms_authn_metrics_attempt(ms_authn_metrics *m, ms_authn_result result);
/* ms_metrics_collector (ctx: the metrics). */
void ms_authn_metrics_collect(void *ctx, ms_buf *b);

#endif
