/* `moonsched explain NS/NAME`: asks a running scheduler's secure port
 * (/debug/explain) why a pod is where it is, and returns the JSON answer
 * (the command prints it as text, simulate/explain_text.h, or as it came
 * in). With --server it
 * asks that address; otherwise it goes the way kubectl users expect:
 * the kubeconfig's API server, the leader found from the Lease (or the
 * pod --scheduler names), and the API server's pod proxy subresource to
 * the pod's secure port. */
#ifndef MOONSCHED_CLIENT_EXPLAIN_REMOTE_H
#define MOONSCHED_CLIENT_EXPLAIN_REMOTE_H

#include <stdbool.h>

#include "client/kube_client.h"
#include "moonsched/error.h"

typedef struct ms_explain_remote_options {
    const char *server;            /* "https://HOST:PORT"; NULL: through the API server */
    const char *ca_file;           /* PEM of the CA that signed the serving certificate */
    bool insecure;                 /* do not verify the serving certificate */
    const char *token;             /* bearer token; NULL: token_file, else anonymous */
    const char *token_file;
    const char *pod;               /* "NAMESPACE/NAME" */
    double timeout;                /* seconds; 0: 30 */
    /* Through the API server (no server): the kubeconfig (NULL: as
     * kubectl and kube-scheduler find one) and its context; the
     * scheduler's pod, "NS/NAME" or NAME in the Lease's namespace (NULL:
     * the Lease holder's); the Lease, "NS/NAME" (NULL:
     * kube-system/kube-scheduler, run's default); the secure port (0:
     * 10259). */
    const char *kubeconfig, *context, *scheduler, *lease;
    int port;
} ms_explain_remote_options;

/* The scheduler's answer (status 200) into `answer`, which the caller
 * frees (ms_kube_response_free). MS_ENOENT when the scheduler knows no
 * such pod, MS_EIO when it could not be reached or refused (err has its
 * answer), MS_EINVAL for bad options. */
ms_rc ms_explain_remote(const ms_explain_remote_options *o, ms_kube_response *answer, ms_error *err);

#endif
