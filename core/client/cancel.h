/* The cancel token's hook into libcurl transfer loops: a loop registers
 * its multi handle, and a fired cancel wakes it with curl_multi_wakeup
 * instead of leaving it asleep until its poll timeout. The token itself
 * (ms_kube_cancel_*) is declared in kube_client.h. */
#ifndef MOONSCHED_CLIENT_CANCEL_H
#define MOONSCHED_CLIENT_CANCEL_H

#include <curl/curl.h>

#include "client/kube_client.h"

typedef struct ms_kube_cancel_waiter {
    CURLM *multi;
    struct ms_kube_cancel_waiter *next;
} ms_kube_cancel_waiter;

/* Both accept c == NULL (a request that cannot be cancelled). */
void ms_kube_cancel_register(ms_kube_cancel *c, ms_kube_cancel_waiter *w);
void ms_kube_cancel_unregister(ms_kube_cancel *c, ms_kube_cancel_waiter *w);

#endif
