/* `moonsched explain NS/NAME`: asks a running scheduler's secure port
 * (/debug/explain) why a pod is where it is, and prints the answer as
 * text (cmd/explain_text.h) or as the JSON it came in. */
#ifndef MOONSCHED_CMD_EXPLAIN_REMOTE_H
#define MOONSCHED_CMD_EXPLAIN_REMOTE_H

#include <stdbool.h>
#include <stdio.h>

#include "moonsched/error.h"

typedef struct ms_explain_remote_options {
    const char *server;            /* "https://HOST:PORT"; NULL: https://127.0.0.1:10259 */
    const char *ca_file;           /* PEM of the CA that signed the serving certificate */
    bool insecure;                 /* do not verify the serving certificate */
    const char *token;             /* bearer token; NULL: token_file, else anonymous */
    const char *token_file;
    const char *pod;               /* "NAMESPACE/NAME" */
    bool json;
    double timeout;                /* seconds; 0: 30 */
} ms_explain_remote_options;

/* MS_ENOENT when the scheduler knows no such pod, MS_EIO when it could not
 * be reached or refused (err has its answer), MS_EINVAL for bad options. */
ms_rc ms_explain_remote(const ms_explain_remote_options *o, FILE *out, ms_error *err);

#endif
