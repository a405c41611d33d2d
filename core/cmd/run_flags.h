/* The command line of `moonsched run`: moonsched's own flags and
 * kube-scheduler's (v1.20), read as kube-scheduler's pflag reads them, so
 * that a kube-scheduler manifest (kubeadm's static Pod) runs moonsched
 * with only the image and the command changed.
 *
 * "--flag=value" and "--flag value"; booleans are true when bare, else
 * "--flag=B" with B one of Go's strconv.ParseBool words (1 t T TRUE true
 * True, 0 f F FALSE false False) and never take the next argument.
 * kube-scheduler's flags that mean nothing here are accepted with a
 * warning that names them (docs/run.md lists them). */
#ifndef MOONSCHED_CMD_RUN_FLAGS_H
#define MOONSCHED_CMD_RUN_FLAGS_H

#include "moonsched/error.h"
#include "moonsched/log.h"
#include "moonsched/run.h"

typedef enum ms_run_flags_action {
    MS_RUN_FLAGS_RUN = 0,
    MS_RUN_FLAGS_HELP,             /* --help, -h */
    MS_RUN_FLAGS_VERSION,          /* --version[=true|raw] */
} ms_run_flags_action;

typedef struct ms_run_flags {
    ms_run_options *o;             /* filled in; ms_run_options_default first */
    ms_logger *log;                /* --v, --log-format, --logging-format */
    const char **policies;         /* room for argc entries; o->policy_files points here */
    /* A flag accepted without effect, or ignored as kube-scheduler would
     * ignore it. May be NULL. */
    void (*warn)(void *ctx, const char *msg);
    void *warn_ctx;
    ms_run_flags_action action;
    char metrics_address[300];     /* --address/--port, as metrics_bind_address */
} ms_run_flags;

/* Parses argv (the arguments after `run`, or after the program's name when
 * the word is left out). MS_EINVAL with a message naming the flag for a
 * usage error. */
ms_rc ms_run_flags_parse(int argc, char **argv, ms_run_flags *f, ms_error *err);

#endif
