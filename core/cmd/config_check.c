/* `moonsched config check`: load, validate as the scheduler would (its
 * plugins and extenders are built), and describe the effective
 * configuration (scheduler/config_describe.h). */
#include "cmd/config_check.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "moonsched/config.h"
#include "client/http_endpoint.h"
#include "moonsched/policy_set.h"
#include "moonsched/scheduler.h"
#include "scheduler/config_describe.h"

static ms_rc refuse_binds(void *ctx, const ms_pod *pod, ms_str node) {
    (void)ctx;
    (void)pod;
    (void)node;
    return MS_ESTATE;
}

/* Configurations that would fight kube-scheduler in the same cluster:
 * both scheduling default-scheduler's pods, or both electing their leader
 * through kube-system/kube-scheduler (they would take turns, and while
 * moonsched holds it kube-scheduler schedules nothing). */
static void warn_beside_kube_scheduler(const ms_config *c, void (*warn)(void *ctx, const char *msg), void *ctx) {
    if (!warn) return;
    const ms_leader_election *le = &c->leader_election;
    bool default_profile = false;
    for (uint32_t i = 0; i < c->nprofiles; i++)
        if (strcmp(c->profiles[i].scheduler_name, MS_DEFAULT_SCHEDULER_NAME) == 0) default_profile = true;
    bool upstream_lease = strcmp(le->resource_name, "kube-scheduler") == 0 &&
                          strcmp(le->resource_namespace, "kube-system") == 0;
    char msg[768];
    /* without election, nothing is shared: replacing kube-scheduler by a
     * single replica is a deployment matter */
    if (!le->leader_elect) return;
    if (default_profile && !upstream_lease) {
        snprintf(msg, sizeof msg,
                 "a profile is default-scheduler but the Lease is %s/%s, not kube-system/kube-scheduler: if "
                 "kube-scheduler runs, both schedule the same pods (replace kube-scheduler through its Lease, "
                 "or give the profile a schedulerName of its own)",
                 le->resource_namespace, le->resource_name);
        warn(ctx, msg);
    } else if (!default_profile && upstream_lease) {
        warn(ctx, "the Lease is kube-system/kube-scheduler but no profile is default-scheduler: moonsched and "
                  "kube-scheduler would take turns holding it, and while moonsched holds it kube-scheduler "
                  "schedules nothing (leave leaderElection.resourceName unset, or name a Lease of its own)");
    }
}

ms_rc ms_config_check(const char *path, void (*warn)(void *ctx, const char *msg), void *warn_ctx,
                      cJSON **effective, ms_error *err) {
    *effective = NULL;
    ms_config c;
    ms_rc rc = ms_config_load_file(&c, path, warn, warn_ctx, err);
    if (rc != MS_OK) return rc;
    warn_beside_kube_scheduler(&c, warn, warn_ctx);
    ms_interner *in = ms_interner_new();
    ms_scheduler *s = NULL;
    ms_policy_set *policies = NULL;
    ms_http_endpoint *http = NULL;
    if (!in) {
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        goto out;
    }
    /* Lua policies are loaded (file, sandbox, init) as the scheduler would;
     * not watched. */
    if (ms_config_has_policies(&c)) {
        ms_policy_set_options po;
        ms_policy_set_options_default(&po);
        po.watch = false;
        if ((rc = ms_policy_set_new(&c, &po, in, &policies, err)) != MS_OK) {
            ms_error_prefix(err, "%s", strcmp(path, "-") == 0 ? "<stdin>" : path);
            goto out;
        }
    }
    if ((rc = ms_http_endpoint_new(&http, err)) != MS_OK) goto out;
    ms_http_caller caller = ms_http_endpoint_caller(http);
    ms_scheduler_options o = {
        .config = &c,
        .in = in,
        .http = &caller,
        .binder = {NULL, refuse_binds},
        .seed = 1,
        .profile_out_of_tree = policies ? ms_policy_set_profile_plugins(policies) : NULL,
        .n_profile_out_of_tree = policies ? ms_policy_set_profile_counts(policies) : NULL,
    };
    if ((rc = ms_scheduler_new(&o, &s, err)) != MS_OK) {
        if (rc == MS_EINVAL) ms_error_prefix(err, "%s", strcmp(path, "-") == 0 ? "<stdin>" : path);
        goto out;
    }
    if (!(*effective = ms_config_describe(&c, s, err))) rc = err->rc;
out:
    if (s) ms_scheduler_free(s);
    ms_http_endpoint_free(http);
    ms_policy_set_free(policies);
    if (in) ms_interner_free(in);
    ms_config_free(&c);
    return rc;
}
