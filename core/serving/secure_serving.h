/* HTTPS for /metrics, /healthz, /livez and /readyz, as kube-scheduler
 * serves them on --secure-port (k8s.io/apiserver's secure serving with
 * delegated authentication and authorization): TLS with the given
 * certificate or one generated at start (serving/serving_cert.h); each
 * request authenticated (a client certificate verified against
 * --client-ca-file, serving/client_ca.h; else a bearer token reviewed by the
 * API server, serving/authenticator.h, its failures limited per address,
 * serving/auth_failures.h; else anonymous), then authorized (serving/authorizer.h:
 * /healthz, /livez and /readyz always, anything else by a
 * SubjectAccessReview), then served by the handler. Refusals are
 * upstream's: 401 with a Status "Unauthorized" for a token that is not
 * valid or could not be reviewed, 403 with a Status "forbidden: User
 * \"NAME\" cannot VERB path \"PATH\"" for a user the review denies, 500
 * "Internal Server Error: ..." when the access review itself failed.
 *
 * Threads: one per connection (libmicrohttpd's), so a review waiting on
 * the API server (10 s at most) holds up only its own request; never the
 * scheduler thread. Stopping fires a cancel that ends reviews in flight. */
#ifndef MOONSCHED_SERVING_SECURE_SERVING_H
#define MOONSCHED_SERVING_SECURE_SERVING_H

#include <stdint.h>

#include "client/kubeconfig.h"
#include "serving/http_server.h"
#include "serving/authn_metrics.h"
#include "moonsched/error.h"
#include "moonsched/log.h"

typedef struct ms_secure_serving ms_secure_serving;

typedef struct ms_secure_serving_options {
    /* An IP address; NULL, "", "0.0.0.0" or "::": every address, IPv6
     * and IPv4 (IPv4 only where the host has no IPv6). */
    const char *bind_address;
    uint16_t port;                 /* 0: the kernel picks one (ms_secure_serving_port) */
    const char *cert_file, *key_file;   /* both, or neither: self-signed */
    /* --tls-min-version and --tls-cipher-suites (serving/tls_config.h);
     * NULL: TLS 1.2 and up, GnuTLS's default suites. */
    const char *tls_min_version, *tls_cipher_suites;
    /* Who reviews tokens and access: copied; the same pointer twice
     * shares one client. */
    const ms_kubeconfig *authn_config, *authz_config;
    /* --client-ca-file: client certificates it verifies authenticate
     * their requests (serving/client_ca.h); NULL: none asked for. */
    const char *client_ca_file;
    /* How long a TokenReview's answer is cached, seconds; 0: 10;
     * negative: nothing cached (serving/authenticator.h). */
    double authn_cache_ttl;
    /* Failed authentications per client address before its tokens are
     * refused without a review, and the window (serving/auth_failures.h);
     * 0: MS_AUTH_FAILURES_MAX, MS_AUTH_FAILURES_WINDOW. */
    uint32_t auth_failure_max;
    double auth_failure_window;
    ms_authn_metrics *metrics;     /* moonsched_authentication_attempts_total; NULL: not counted */
    /* Paths served without a review (copied); NULL: MS_ALWAYS_ALLOW_PATHS. */
    const char *const *always_allow_paths;
    uint32_t nalways_allow_paths;
    ms_http_handler handler;
    void *ctx;
    const ms_logger *log;          /* NULL: ms_log_default */
} ms_secure_serving_options;

/* MS_EINVAL for a bind address that is not an IP, a certificate without
 * its key or a pair that does not match, an unknown TLS version or suite; MS_EIO when the port cannot be
 * bound. */
ms_rc ms_secure_serving_start(const ms_secure_serving_options *o, ms_secure_serving **out, ms_error *err);
uint16_t ms_secure_serving_port(const ms_secure_serving *s);
/* NULL is fine. */
void ms_secure_serving_stop(ms_secure_serving *s);

/* The refusals' bodies, exactly as upstream writes them (for tests):
 * into out (status, body, content type). */
void ms_secure_serving_unauthorized(ms_http_answer *out);
void ms_secure_serving_forbidden(ms_http_answer *out, const char *user, const char *verb, const char *path,
                                 const char *reason);
void ms_secure_serving_internal_error(ms_http_answer *out, const char *uri, const char *why);

#endif
