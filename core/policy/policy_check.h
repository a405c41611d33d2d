/* `moonsched policy check FILE [--cluster FILE...] [--args JSON]
 * [--pods GLOB] [--nodes GLOB] [--max-nodes N] [--budget MS]
 * [--init-budget MS]`: checks a Lua policy offline. The file is loaded
 * as the scheduler would load it (syntax, the sandbox, the returned
 * table, init with the args); with a cluster, every hook the policy
 * defines runs over the cluster's pending pods and its nodes, in the
 * order of a scheduling cycle, and each call's failure and time are
 * reported. The reference is docs/policies.md. */
#ifndef MOONSCHED_POLICY_CHECK_H
#define MOONSCHED_POLICY_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "moonsched/error.h"

typedef struct ms_policy_check_options {
    const char *file;
    const char *const *cluster_files;   /* Nodes and Pods, as simulate reads them; "-": stdin */
    uint32_t ncluster_files;
    const char *args_json;              /* the policy's init args (a JSON object), or NULL */
    /* What the verdict listing shows (every hook still runs over every
     * pod and node): pods whose NS/NAME, and nodes whose name, match the
     * fnmatch(3) patterns (NULL: all), and at most max_nodes node rows per
     * pod, the rest counted (0: all). */
    const char *pods, *nodes;
    uint32_t max_nodes;
    double budget;                      /* seconds per call; 0: the default (50 ms) */
    double init_budget;                 /* seconds for the load; 0: the default (ms_lua_limits) */
    size_t memory;                      /* bytes; 0: the default (64 MiB) */
} ms_policy_check_options;

typedef struct ms_policy_check_result {
    bool loaded;                        /* file, sandbox and init passed */
    uint32_t hooks;                     /* MS_LUA_HOOK_* bits */
    uint32_t pods, nodes;               /* pending pods and nodes of the dry run */
    uint64_t calls, failures;           /* over the dry run */
} ms_policy_check_result;

/* Prints the report on `out`. MS_OK when the policy loaded and no call
 * failed; MS_EINVAL when it did not load or a call failed (the report says
 * which, err says what); MS_EIO / MS_EINVAL with err naming the file for
 * input that cannot be read. `r` may be NULL. */
ms_rc ms_policy_check(const ms_policy_check_options *o, FILE *out, ms_policy_check_result *r,
                      ms_error *err);

#endif
