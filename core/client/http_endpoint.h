/* The client's HTTP endpoint for callers below it (base/http_call.h): one
 * libcurl multi handle whose connections are kept alive across calls and
 * whose calls run at once, and the TLS set-up the API client shares. */
#ifndef MOONSCHED_HTTP_ENDPOINT_H
#define MOONSCHED_HTTP_ENDPOINT_H

#include <curl/curl.h>
#include <stdbool.h>

#include "base/http_call.h"
#include "moonsched/error.h"

typedef struct ms_http_endpoint ms_http_endpoint;

ms_rc ms_http_endpoint_new(ms_http_endpoint **out, ms_error *err);
void ms_http_endpoint_free(ms_http_endpoint *ep);
/* The interface over ep (valid while ep lives). Calls are made on the
 * calling thread; one thread at a time. */
ms_http_caller ms_http_endpoint_caller(ms_http_endpoint *ep);

/* client-go's TLS settings on a handle: no certificate check when
 * insecure, else the CA; the client certificate and key. Parts not given
 * are left as they are. copy: libcurl keeps its own copy of the PEM data
 * (which may then go before the transfer ends). server_name is not read:
 * it changes the URL (ms_http_endpoint does it). */
CURLcode ms_http_tls_apply(CURL *h, const ms_http_tls *t, bool copy);

#endif
