/* The environment of the scheduler's unit tests: a scheduler driven
 * through its public API with a fake binder, evictor and reporter, and
 * profiles built by hand from built-in plugins and the test plugins below,
 * so that each test controls which nodes fit and how they score. */
#ifndef MOONSCHED_TEST_SCHEDULER_ENV_H
#define MOONSCHED_TEST_SCHEDULER_ENV_H

#include "testutil.h"

#include <cjson/cJSON.h>

#include "backend/cache.h"
#include "backend/volume_store.h"
#include "moonsched/config.h"
#include "moonsched/decode.h"
#include "moonsched/namespaces.h"
#include "moonsched/pdb.h"
#include "moonsched/scheduler.h"

#define SCHED_ENV_UNUSED __attribute__((unused))

/* ---- test plugins ---------------------------------------------------- */

typedef struct test_plugin {
    ms_interner *in;
    ms_str key;          /* a node label the plugin reads */
    uint32_t filter_calls;
} test_plugin;

static SCHED_ENV_UNUSED ms_rc tp_create(const char *label, const ms_handle *h, void **self, ms_error *err) {
    test_plugin *p = calloc(1, sizeof *p);
    if (!p) return ms_error_set(err, MS_ENOMEM, "out of memory");
    p->in = h->in;
    p->key = ms_intern_cstr(h->in, label);
    *self = p;
    return MS_OK;
}

static SCHED_ENV_UNUSED void tp_destroy(void *self) { free(self); }

/* TestFit: cpu requests against allocatable cpu, as NodeResourcesFit does. */
static SCHED_ENV_UNUSED ms_rc fit_create(const cJSON *args, const ms_handle *h, void **self, ms_error *err) {
    (void)args;
    return tp_create("unused", h, self, err);
}

static SCHED_ENV_UNUSED ms_code fit_filter(void *self, ms_cycle *c, const ms_node_info *ni, ms_status *st) {
    test_plugin *p = self;
    p->filter_calls++;
    if (ni->requested.v[MS_RES_CPU] + c->pod->requests.v[MS_RES_CPU] >
        ni->node->allocatable.v[MS_RES_CPU])
        return ms_status_set(st, MS_UNSCHEDULABLE, "Insufficient cpu");
    return MS_SUCCESS;
}

static const ms_plugin_ops test_fit = {
    .name = "TestFit",
    .events = MS_EV_NODE_ADD | MS_EV_NODE_ALLOCATABLE | MS_EV_ASSIGNED_POD_DELETE,
    .create = fit_create,
    .destroy = tp_destroy,
    .filter = fit_filter,
};

/* TestHalf: nodes labelled half=no do not fit. */
static SCHED_ENV_UNUSED ms_rc half_create(const cJSON *args, const ms_handle *h, void **self, ms_error *err) {
    (void)args;
    return tp_create("half", h, self, err);
}

static SCHED_ENV_UNUSED ms_code half_filter(void *self, ms_cycle *c, const ms_node_info *ni, ms_status *st) {
    (void)c;
    test_plugin *p = self;
    p->filter_calls++;
    ms_str v = ms_labels_get(&ni->node->meta.labels, p->key);
    if (v != MS_STR_NONE && strcmp(ms_str_get(p->in, v), "no") == 0)
        return ms_status_set(st, MS_UNSCHEDULABLE, "node(s) were labelled half=no");
    return MS_SUCCESS;
}

static const ms_plugin_ops test_half = {
    .name = "TestHalf",
    .events = MS_EV_NODE_LABEL,
    .create = half_create,
    .destroy = tp_destroy,
    .filter = half_filter,
};

/* TestScore: the node's "score" label, 0 without one. */
static SCHED_ENV_UNUSED ms_rc score_create(const cJSON *args, const ms_handle *h, void **self, ms_error *err) {
    (void)args;
    return tp_create("score", h, self, err);
}

static SCHED_ENV_UNUSED ms_code score_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                           int64_t *scores, ms_status *st) {
    (void)c;
    (void)st;
    test_plugin *p = self;
    for (uint32_t i = 0; i < n; i++) {
        ms_str v = ms_labels_get(&nodes[i]->node->meta.labels, p->key);
        scores[i] = v ? atoi(ms_str_get(p->in, v)) : 0;
    }
    return MS_SUCCESS;
}

static const ms_plugin_ops test_score = {
    .name = "TestScore",
    .create = score_create,
    .destroy = tp_destroy,
    .score = score_score,
};

/* TestGate: PreFilter rejects pods named reject-*. */
static SCHED_ENV_UNUSED ms_rc gate_create(const cJSON *args, const ms_handle *h, void **self, ms_error *err) {
    (void)args;
    return tp_create("unused", h, self, err);
}

static SCHED_ENV_UNUSED ms_code gate_pre_filter(void *self, ms_cycle *c, ms_status *st) {
    test_plugin *p = self;
    if (strncmp(ms_str_get(p->in, c->pod->meta.name), "reject-", 7) == 0)
        return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE,
                             "pod has unbound immediate PersistentVolumeClaims");
    return MS_SUCCESS;
}

static const ms_plugin_ops test_gate = {
    .name = "TestGate",
    .create = gate_create,
    .destroy = tp_destroy,
    .pre_filter = gate_pre_filter,
};

/* TestWait: Permit makes pods named wait-* wait 5 seconds. */
static SCHED_ENV_UNUSED ms_code wait_permit(void *self, ms_cycle *c, ms_str node, double *timeout, ms_status *st) {
    (void)node;
    (void)st;
    test_plugin *p = self;
    if (strncmp(ms_str_get(p->in, c->pod->meta.name), "wait-", 5) != 0) return MS_SUCCESS;
    *timeout = 5;
    return MS_WAIT;
}

static const ms_plugin_ops test_wait = {
    .name = "TestWait",
    .create = gate_create,
    .destroy = tp_destroy,
    .permit = wait_permit,
};

/* TestVolumeWait: PreBind of a pod named vol-NAME waits (30 s) until the
 * claim default/NAME in the volume store is Bound, as VolumeBinding waits
 * for the PV controller; a claim gone fails it, and so does the deadline. */
static SCHED_ENV_UNUSED ms_code volwait_pre_bind(void *self, ms_cycle *c, ms_str node, double *timeout,
                                                 ms_status *st) {
    (void)node;
    test_plugin *p = self;
    const char *name = ms_str_get(p->in, c->pod->meta.name);
    if (strncmp(name, "vol-", 4) != 0) return MS_SUCCESS;
    const ms_storage_object *pvc = ms_volume_store_get(c->h->volumes, MS_SK_PVC, c->pod->meta.namespace_,
                                                       ms_intern_cstr(p->in, name + 4));
    if (!pvc) return ms_status_set(st, MS_ERROR, "claim gone");
    if (pvc->u.pvc.phase == MS_CLAIM_BOUND) return MS_SUCCESS;
    if (*timeout < 0) return ms_status_set(st, MS_ERROR, "timed out waiting for the condition");
    *timeout = 30;
    return ms_status_set(st, MS_WAIT, "waiting for the claim");
}

static const ms_plugin_ops test_volume_wait = {
    .name = "TestVolumeWait",
    .events = MS_EV_PVC_ADD | MS_EV_PVC_UPDATE,
    .create = gate_create,
    .destroy = tp_destroy,
    .pre_bind = volwait_pre_bind,
};

static SCHED_ENV_UNUSED const ms_plugin_ops *const test_plugins[] = {&test_fit, &test_half, &test_score, &test_gate,
                                                    &test_wait, &test_volume_wait};

/* ---- environment ----------------------------------------------------- */

typedef struct bind_call {
    ms_pod *pod;
    ms_str node;
} bind_call;

typedef struct env {
    ms_interner *in;
    ms_decoder dec;
    ms_config cfg;
    ms_scheduler *s;
    bind_call binds[64];
    uint32_t nbinds;
    bool complete_at_once;       /* the binder calls bind_done from inside bind */
    uint32_t observed[6];        /* calls of each cycle observer hook (test_cycle_observer) */
    uint32_t nscheduled, nunschedulable, nbind_failed;
    ms_str last_node;
    char last_message[1024];
    uint32_t last_nplugins, last_feasible, last_evaluated, last_all;
    int64_t last_total, last_scores[8];
    ms_pod *objects[512];        /* everything created, released at the end */
    uint32_t nobjects;
    /* preemption */
    bool evict_at_once;          /* the evictor deletes the victim (as simulate does) */
    bool evict_fails;            /* the evictor answers MS_EIO */
    double now;                  /* passed to the delete */
    ms_pod *evicted[64];         /* referenced */
    uint32_t nevicted, npreempted_reports, nnominated, ncleared;
    ms_str evicted_on, nominated_to;
    /* the metrics hooks */
    uint32_t nerrors, npost_filter, nunschedulable_at_error;
    ms_str post_nominated;
    /* PreEnqueue refusals */
    uint32_t ngated;
    char gated_plugin[64], gated_reason[256];
    /* binding failures reported for a pod that is retried */
    uint32_t nbinding_errors;
    char binding_error[1024];
} env;

static SCHED_ENV_UNUSED ms_rc fake_evict(void *ctx, const ms_pod *victim, const ms_pod *preemptor, ms_str node) {
    (void)preemptor;
    env *e = ctx;
    if (e->evict_fails) return MS_EIO;
    assert_true(e->nevicted < 64);
    e->evicted[e->nevicted++] = ms_pod_ref((ms_pod *)victim);
    e->evicted_on = node;
    if (e->evict_at_once) ms_scheduler_pod_delete(e->s, victim, e->now);
    return MS_OK;
}

static SCHED_ENV_UNUSED void fake_set_nomination(void *ctx, const ms_pod *pod, ms_str node) {
    (void)pod;
    env *e = ctx;
    if (node == MS_STR_NONE) e->ncleared++;
}

static SCHED_ENV_UNUSED void on_nominated(void *ctx, const ms_pod *pod, ms_str node) {
    (void)pod;
    env *e = ctx;
    e->nnominated++;
    e->nominated_to = node;
}

static SCHED_ENV_UNUSED void on_preempted(void *ctx, const ms_pod *victim, const ms_pod *preemptor, ms_str node) {
    (void)victim;
    (void)preemptor;
    (void)node;
    env *e = ctx;
    e->npreempted_reports++;
}

static SCHED_ENV_UNUSED ms_rc fake_bind(void *ctx, const ms_pod *pod, ms_str node) {
    env *e = ctx;
    if (e->complete_at_once) {
        ms_scheduler_bind_done(e->s, pod, true, false, NULL, 0);
        return MS_OK;
    }
    assert_true(e->nbinds < 64);
    e->binds[e->nbinds].pod = ms_pod_ref((ms_pod *)pod);
    e->binds[e->nbinds].node = node;
    e->nbinds++;
    return MS_OK;
}

static SCHED_ENV_UNUSED void on_scheduled(void *ctx, const ms_pod *pod, ms_str node, const ms_score_report *r) {
    (void)pod;
    env *e = ctx;
    e->nscheduled++;
    e->last_node = node;
    e->last_nplugins = r->nplugins;
    e->last_feasible = r->feasible;
    e->last_evaluated = r->evaluated;
    e->last_all = r->num_all_nodes;
    e->last_total = r->total;
    for (uint32_t k = 0; k < r->nplugins && k < 8; k++) e->last_scores[k] = r->scores[k];
}

static SCHED_ENV_UNUSED void on_unschedulable(void *ctx, const ms_pod *pod, const char *msg, uint32_t attempts) {
    (void)pod;
    (void)attempts;
    env *e = ctx;
    e->nunschedulable++;
    e->last_node = MS_STR_NONE;
    snprintf(e->last_message, sizeof e->last_message, "%s", msg);
}

static SCHED_ENV_UNUSED void on_error(void *ctx, const ms_pod *pod, const char *msg) {
    (void)pod;
    (void)msg;
    env *e = ctx;
    e->nerrors++;
    e->nunschedulable_at_error = e->nunschedulable;
}

static SCHED_ENV_UNUSED void on_post_filter(void *ctx, const ms_pod *pod, ms_str nominated) {
    (void)pod;
    env *e = ctx;
    e->npost_filter++;
    e->post_nominated = nominated;
}

static SCHED_ENV_UNUSED void on_gated(void *ctx, const ms_pod *pod, const char *plugin, const char *reason) {
    (void)pod;
    env *e = ctx;
    e->ngated++;
    snprintf(e->gated_plugin, sizeof e->gated_plugin, "%s", plugin);
    snprintf(e->gated_reason, sizeof e->gated_reason, "%s", reason);
}

static SCHED_ENV_UNUSED void on_binding_error(void *ctx, const ms_pod *pod, const char *msg) {
    (void)pod;
    env *e = ctx;
    e->nbinding_errors++;
    snprintf(e->binding_error, sizeof e->binding_error, "%s", msg);
}

static SCHED_ENV_UNUSED void on_bind_failed(void *ctx, const ms_pod *pod, ms_str node, const char *msg) {
    (void)pod;
    (void)node;
    env *e = ctx;
    e->nbind_failed++;
    snprintf(e->last_message, sizeof e->last_message, "%s", msg);
}

/* A profile of the named plugins, each enabled where it implements
 * something (the framework keeps only implemented points). */
static SCHED_ENV_UNUSED void set_profile(ms_profile_config *pc, const char *name, const char *const *plugins,
                        int32_t pct) {
    memset(pc, 0, sizeof *pc);
    snprintf(pc->scheduler_name, sizeof pc->scheduler_name, "%s", name);
    pc->percentage_of_nodes_to_score = pct;
    for (uint32_t i = 0; plugins[i]; i++) {
        ms_plugin_config *p = &pc->plugins[pc->nplugins++];
        snprintf(p->name, sizeof p->name, "%s", plugins[i]);
        p->points = (1u << MS_EP_COUNT) - 1;
        p->weight = 1;
    }
}

static SCHED_ENV_UNUSED const char *const basic_plugins[] = {"PrioritySort", "NodeUnschedulable", "TaintToleration",
                                            "TestFit", "TestHalf", "TestScore", "TestGate",
                                            "TestWait", "DefaultBinder", NULL};

/* claim_writer: where DynamicResources' PreBind writes (run's path); NULL:
 * into the scheduler's store (simulate's). */
static SCHED_ENV_UNUSED env *env_new_writer(int32_t pct, uint64_t seed, bool permit_timeout_allows,
                                            const char *const *plugins, bool record_metrics,
                                            const struct ms_claim_writer *claim_writer) {
    env *e = calloc(1, sizeof *e);
    assert_non_null(e);
    e->in = ms_interner_new();
    ms_decoder_init(&e->dec, e->in);
    assert_int_equal(ms_config_default(&e->cfg), MS_OK);
    for (uint32_t k = 0; k < e->cfg.profiles[0].nplugins; k++)
        cJSON_Delete(e->cfg.profiles[0].plugins[k].args);
    set_profile(&e->cfg.profiles[0], "default-scheduler", plugins, -1);
    e->cfg.percentage_of_nodes_to_score = pct;
    ms_scheduler_options o = {
        .config = &e->cfg,
        .in = e->in,
        .binder = {e, fake_bind},
        .reporter = {e, on_scheduled, on_unschedulable, on_bind_failed, on_nominated, on_preempted,
                     on_error, on_post_filter, on_gated, on_binding_error},
        .evictor = {e, fake_evict, fake_set_nomination},
        .seed = seed,
        .out_of_tree = test_plugins,
        .n_out_of_tree = 6,
        .permit_timeout_allows = permit_timeout_allows,
        .record_metrics = record_metrics,
        .claim_writer = claim_writer,
    };
    ms_error err = {0};
    ms_rc rc = ms_scheduler_new(&o, &e->s, &err);
    if (rc != MS_OK) fail_msg("ms_scheduler_new: %s", err.msg);
    return e;
}

static SCHED_ENV_UNUSED env *env_new_opts(int32_t pct, uint64_t seed, bool permit_timeout_allows,
                                          const char *const *plugins, bool record_metrics) {
    return env_new_writer(pct, seed, permit_timeout_allows, plugins, record_metrics, NULL);
}

static SCHED_ENV_UNUSED env *env_new_profile(int32_t pct, uint64_t seed, bool permit_timeout_allows,
                                             const char *const *plugins) {
    return env_new_opts(pct, seed, permit_timeout_allows, plugins, false);
}

static SCHED_ENV_UNUSED env *env_new_with(int32_t pct, uint64_t seed, bool permit_timeout_allows) {
    return env_new_profile(pct, seed, permit_timeout_allows, basic_plugins);
}

static SCHED_ENV_UNUSED env *env_new(int32_t pct, uint64_t seed) { return env_new_with(pct, seed, false); }

static SCHED_ENV_UNUSED void env_free(env *e) {
    for (uint32_t i = 0; i < e->nevicted; i++) ms_pod_unref(e->evicted[i]);
    for (uint32_t i = 0; i < e->nbinds; i++) ms_pod_unref(e->binds[i].pod);
    ms_scheduler_free(e->s);
    for (uint32_t i = 0; i < e->nobjects; i++) ms_pod_unref(e->objects[i]);
    ms_config_free(&e->cfg);
    ms_interner_free(e->in);
    free(e);
}

static SCHED_ENV_UNUSED cJSON *parse(const char *text) {
    cJSON *j = NULL;
    ms_error err = {0};
    if (ms_json_parse(text, strlen(text), &j, &err) != MS_OK) fail_msg("%s: %s", err.msg, text);
    return j;
}

/* labels: JSON object text; spec: JSON object text. */
static SCHED_ENV_UNUSED ms_node *mknode(env *e, const char *name, const char *cpu, const char *labels,
                       const char *spec) {
    char buf[2048];
    snprintf(buf, sizeof buf,
             "{\"kind\":\"Node\",\"metadata\":{\"name\":\"%s\",\"labels\":%s},\"spec\":%s,"
             "\"status\":{\"allocatable\":{\"cpu\":\"%s\",\"memory\":\"8Gi\",\"pods\":\"110\"},"
             "\"capacity\":{\"cpu\":\"%s\",\"memory\":\"8Gi\",\"pods\":\"110\"}}}",
             name, labels ? labels : "{}", spec ? spec : "{}", cpu, cpu);
    cJSON *j = parse(buf);
    ms_node *n = NULL;
    ms_error err = {0};
    if (ms_node_decode(&e->dec, j, &n, &err) != MS_OK) fail_msg("%s", err.msg);
    cJSON_Delete(j);
    return n;
}

static SCHED_ENV_UNUSED void add_node(env *e, const char *name, const char *cpu, const char *labels,
                     const char *spec) {
    ms_node *n = mknode(e, name, cpu, labels, spec);
    ms_scheduler_node_add(e->s, n, 0);
    ms_node_unref(n);
}

/* A pod from its JSON text, as the informer would deliver it (not added;
 * released with the environment). */
static SCHED_ENV_UNUSED ms_pod *decode_pod(env *e, const char *text) {
    cJSON *j = parse(text);
    ms_pod *p = NULL;
    ms_error err = {0};
    if (ms_pod_decode(&e->dec, j, &p, &err) != MS_OK) fail_msg("%s", err.msg);
    cJSON_Delete(j);
    assert_true(e->nobjects < 512);
    e->objects[e->nobjects++] = p;
    return p;
}

/* extra: more spec fields, starting with a comma, or "". */
static SCHED_ENV_UNUSED ms_pod *mkpod(env *e, const char *name, const char *cpu, const char *extra) {
    char buf[2048];
    snprintf(buf, sizeof buf,
             "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\",\"namespace\":\"default\"},"
             "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"pause\",\"resources\":"
             "{\"requests\":{\"cpu\":\"%s\",\"memory\":\"100Mi\"}}}]%s}}",
             name, cpu, extra ? extra : "");
    return decode_pod(e, buf);
}

static SCHED_ENV_UNUSED ms_pod *add_pod(env *e, const char *name, const char *cpu, const char *extra) {
    ms_pod *p = mkpod(e, name, cpu, extra);
    ms_scheduler_pod_add(e->s, p, 0);
    return p;
}

static SCHED_ENV_UNUSED const char *node_of_last(env *e) { return ms_str_get(e->in, e->last_node); }

static SCHED_ENV_UNUSED int64_t requested_cpu(env *e, const char *node) {
    const ms_node_info *ni =
        ms_cache_node_info(ms_scheduler_cache(e->s), ms_intern_cstr(e->in, node));
    assert_non_null(ni);
    return ni->requested.v[MS_RES_CPU];
}

static SCHED_ENV_UNUSED void complete_binds(env *e, bool ok, bool gone, double now) {
    for (uint32_t i = 0; i < e->nbinds; i++) {
        ms_scheduler_bind_done(e->s, e->binds[i].pod, ok, gone, ok ? NULL : "conflict", now);
        ms_pod_unref(e->binds[i].pod);
    }
    e->nbinds = 0;
}

static SCHED_ENV_UNUSED const char *const preempt_plugins[] = {"PrioritySort", "TestFit", "DefaultPreemption",
                                              "DefaultBinder", NULL};

static SCHED_ENV_UNUSED env *preempt_env(void) {
    env *e = env_new_profile(0, 1, false, preempt_plugins);
    e->complete_at_once = true;
    e->evict_at_once = true;
    return e;
}

/* A pod with an app label and a cpu request; extra: more spec fields. */
static SCHED_ENV_UNUSED ms_pod *lpod(env *e, const char *name, const char *app, const char *cpu, const char *extra) {
    char buf[2048];
    snprintf(buf, sizeof buf,
             "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\",\"namespace\":\"default\","
             "\"uid\":\"uid-%s\",\"labels\":{\"app\":\"%s\"}},"
             "\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":"
             "{\"requests\":{\"cpu\":\"%s\"}}}]%s}}",
             name, name, app, cpu, extra ? extra : "");
    ms_pod *p = decode_pod(e, buf);
    ms_scheduler_pod_add(e->s, p, e->now);
    return p;
}

#endif
