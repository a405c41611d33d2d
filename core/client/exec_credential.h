/* A kubeconfig user's exec credential plugin, run as client-go's
 * plugin/pkg/client/auth/exec runs it: the command with its args, the
 * process environment plus the configured env and KUBERNETES_EXEC_INFO
 * (an ExecCredential whose spec says whether the plugin may prompt and,
 * with provideClusterInfo, which cluster it is for); the answer on stdout
 * is an ExecCredential of the same apiVersion whose status holds a bearer
 * token and/or a client certificate and key, cached until its
 * expirationTimestamp. A 401 answer to a request made with the current
 * credentials makes the next request run the plugin again.
 *
 * Unlike client-go, which lets the plugin write to the terminal, a plugin
 * that may not prompt has its stderr kept and shown in the error when it
 * fails: moonsched runs unattended and the error is what gets logged.
 *
 * Thread-safe and reference counted: the clients of one process that use
 * the same kubeconfig share one (client-go keeps one authenticator per
 * configuration), so that the plugin runs once for all of them and a
 * 401 seen by one renews the credentials of all. The plugin runs under
 * the object's lock, so concurrent requests wait for one run instead of
 * starting several (an interactive plugin prompts once). */
#ifndef MOONSCHED_CLIENT_EXEC_CREDENTIAL_H
#define MOONSCHED_CLIENT_EXEC_CREDENTIAL_H

#include <stdint.h>

#include "base/rate_limiter.h"
#include "client/kubeconfig.h"
#include "moonsched/error.h"
#include "moonsched/log.h"

typedef struct ms_exec_credential ms_exec_credential;

typedef struct ms_exec_credential_options {
    const ms_kubeconfig *config;   /* config->exec must be set; copied */
    const ms_logger *log;          /* NULL: ms_log_default; must outlive the object */
    ms_clock_fn wall;              /* seconds since the epoch; NULL: ms_clock_wall */
    void *wall_ctx;
    int stdin_fd;                  /* the terminal an interactive plugin reads; 0: stdin */
} ms_exec_credential_options;

/* Checks nothing by running: the plugin first runs on the first get.
 * The caller holds the one reference. */
ms_rc ms_exec_credential_new(const ms_exec_credential_options *o, ms_exec_credential **out, ms_error *err);
/* Another reference; returns ec. */
ms_exec_credential *ms_exec_credential_ref(ms_exec_credential *ec);
/* Drops a reference; the last one frees (NULL: nothing). */
void ms_exec_credential_free(ms_exec_credential *ec);

/* One request's copy of the credentials (free with ms_exec_creds_free). */
typedef struct ms_exec_creds {
    char *token;                   /* NULL: none */
    char *cert, *key;              /* PEM, NULL: none (both or neither) */
    size_t cert_len, key_len;
    uint64_t generation;           /* which plugin run they came from */
} ms_exec_creds;

/* The cached credentials, or those of a new run of the plugin when there
 * are none, they expired, or a 401 invalidated them. Errors read as
 * client-go's ("getting credentials: exec: executable aws failed with exit
 * code 255"), with the plugin's stderr appended. */
ms_rc ms_exec_credential_get(ms_exec_credential *ec, ms_exec_creds *out, ms_error *err);
void ms_exec_creds_free(ms_exec_creds *c);

/* The server refused credentials of that generation (401): unless the
 * plugin has run again since, the next get runs it. */
void ms_exec_credential_invalidate(ms_exec_credential *ec, uint64_t generation);

/* Runs of the plugin so far, successful or not. */
uint64_t ms_exec_credential_runs(ms_exec_credential *ec);

#endif
