/* A fake API server (fake_http.h) and a kube client pointed at it: the
 * set-up of the tests of what talks to the API server. Include after
 * "testutil.h".
 *
 *   fa_api api; fa_start(&api, handler, ctx, &log);
 *   ... api.c is the client, api.srv the server ...
 *   fa_stop(&api);
 */
#ifndef MOONSCHED_TEST_FAKE_API_H
#define MOONSCHED_TEST_FAKE_API_H

#include "client/kube_client.h"
#include "fake_http.h"

typedef struct fa_api {
    fake_http *srv;
    ms_kubeconfig kc;
    ms_kube_client *c;
} fa_api;

/* The client does not retry, so that what the handler answers reaches the
 * code under test as it was sent. */
static inline void fa_start(fa_api *a, bool (*handler)(fake_http *, int, const fh_request *, void *), void *ctx,
                            const ms_logger *log) {
    a->srv = fh_start(handler, ctx);
    assert_non_null(a->srv);
    a->kc.server = strdup(a->srv->url);
    ms_kube_client_options co = {.config = &a->kc, .max_retries = -1, .log = log};
    ms_error err = {0};
    if (ms_kube_client_new(&co, &a->c, &err) != MS_OK) fail_msg("client: %s", err.msg);
}

static inline void fa_stop(fa_api *a) {
    ms_kube_client_free(a->c);
    fh_stop(a->srv);
    ms_kubeconfig_free(&a->kc);
}

#endif
