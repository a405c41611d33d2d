/* The scheduler driven through its public API with a fake binder and
 * reporter. Profiles are built by hand from built-in plugins and a few test
 * plugins below, so that each test controls which nodes fit and how they
 * score. */
#include "testutil.h"

#include <cjson/cJSON.h>

#include "backend/cache.h"
#include "backend/queue.h"
#include "base/rng.h"
#include "moonsched/config.h"
#include "moonsched/decode.h"
#include "moonsched/namespaces.h"
#include "moonsched/pdb.h"
#include "moonsched/scheduler.h"
#include "scheduler/scheduler_priv.h"

/* ---- test plugins ---------------------------------------------------- */

typedef struct test_plugin {
    ms_interner *in;
    ms_str key;          /* a node label the plugin reads */
    uint32_t filter_calls;
} test_plugin;

static ms_rc tp_create(const char *label, const ms_handle *h, void **self, ms_error *err) {
    test_plugin *p = calloc(1, sizeof *p);
    if (!p) return ms_error_set(err, MS_ENOMEM, "out of memory");
    p->in = h->in;
    p->key = ms_intern_cstr(h->in, label);
    *self = p;
    return MS_OK;
}

static void tp_destroy(void *self) { free(self); }

/* TestFit: cpu requests against allocatable cpu, as NodeResourcesFit does. */
static ms_rc fit_create(const cJSON *args, const ms_handle *h, void **self, ms_error *err) {
    (void)args;
    return tp_create("unused", h, self, err);
}

static ms_code fit_filter(void *self, ms_cycle *c, const ms_node_info *ni, ms_status *st) {
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
static ms_rc half_create(const cJSON *args, const ms_handle *h, void **self, ms_error *err) {
    (void)args;
    return tp_create("half", h, self, err);
}

static ms_code half_filter(void *self, ms_cycle *c, const ms_node_info *ni, ms_status *st) {
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
static ms_rc score_create(const cJSON *args, const ms_handle *h, void **self, ms_error *err) {
    (void)args;
    return tp_create("score", h, self, err);
}

static ms_code score_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
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
static ms_rc gate_create(const cJSON *args, const ms_handle *h, void **self, ms_error *err) {
    (void)args;
    return tp_create("unused", h, self, err);
}

static ms_code gate_pre_filter(void *self, ms_cycle *c, ms_status *st) {
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
static ms_code wait_permit(void *self, ms_cycle *c, ms_str node, double *timeout, ms_status *st) {
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

static const ms_plugin_ops *const test_plugins[] = {&test_fit, &test_half, &test_score, &test_gate,
                                                    &test_wait};

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
} env;

static ms_rc fake_evict(void *ctx, const ms_pod *victim, const ms_pod *preemptor, ms_str node) {
    (void)preemptor;
    env *e = ctx;
    if (e->evict_fails) return MS_EIO;
    assert_true(e->nevicted < 64);
    e->evicted[e->nevicted++] = ms_pod_ref((ms_pod *)victim);
    e->evicted_on = node;
    if (e->evict_at_once) ms_scheduler_pod_delete(e->s, victim, e->now);
    return MS_OK;
}

static void fake_set_nomination(void *ctx, const ms_pod *pod, ms_str node) {
    (void)pod;
    env *e = ctx;
    if (node == MS_STR_NONE) e->ncleared++;
}

static void on_nominated(void *ctx, const ms_pod *pod, ms_str node) {
    (void)pod;
    env *e = ctx;
    e->nnominated++;
    e->nominated_to = node;
}

static void on_preempted(void *ctx, const ms_pod *victim, const ms_pod *preemptor, ms_str node) {
    (void)victim;
    (void)preemptor;
    (void)node;
    env *e = ctx;
    e->npreempted_reports++;
}

static ms_rc fake_bind(void *ctx, const ms_pod *pod, ms_str node) {
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

static void on_scheduled(void *ctx, const ms_pod *pod, ms_str node, const ms_score_report *r) {
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

static void on_unschedulable(void *ctx, const ms_pod *pod, const char *msg, uint32_t attempts) {
    (void)pod;
    (void)attempts;
    env *e = ctx;
    e->nunschedulable++;
    e->last_node = MS_STR_NONE;
    snprintf(e->last_message, sizeof e->last_message, "%s", msg);
}

static void on_error(void *ctx, const ms_pod *pod, const char *msg) {
    (void)pod;
    (void)msg;
    env *e = ctx;
    e->nerrors++;
    e->nunschedulable_at_error = e->nunschedulable;
}

static void on_post_filter(void *ctx, const ms_pod *pod, ms_str nominated) {
    (void)pod;
    env *e = ctx;
    e->npost_filter++;
    e->post_nominated = nominated;
}

static void on_bind_failed(void *ctx, const ms_pod *pod, ms_str node, const char *msg) {
    (void)pod;
    (void)node;
    env *e = ctx;
    e->nbind_failed++;
    snprintf(e->last_message, sizeof e->last_message, "%s", msg);
}

/* A profile of the named plugins, each enabled where it implements
 * something (the framework keeps only implemented points). */
static void set_profile(ms_profile_config *pc, const char *name, const char *const *plugins,
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

static const char *const basic_plugins[] = {"PrioritySort", "NodeUnschedulable", "TaintToleration",
                                            "TestFit", "TestHalf", "TestScore", "TestGate",
                                            "TestWait", "DefaultBinder", NULL};

static env *env_new_profile(int32_t pct, uint64_t seed, bool permit_timeout_allows,
                            const char *const *plugins) {
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
                     on_error, on_post_filter},
        .evictor = {e, fake_evict, fake_set_nomination},
        .seed = seed,
        .out_of_tree = test_plugins,
        .n_out_of_tree = 5,
        .permit_timeout_allows = permit_timeout_allows,
    };
    ms_error err = {0};
    ms_rc rc = ms_scheduler_new(&o, &e->s, &err);
    if (rc != MS_OK) fail_msg("ms_scheduler_new: %s", err.msg);
    return e;
}

static env *env_new_with(int32_t pct, uint64_t seed, bool permit_timeout_allows) {
    return env_new_profile(pct, seed, permit_timeout_allows, basic_plugins);
}

static env *env_new(int32_t pct, uint64_t seed) { return env_new_with(pct, seed, false); }

static void env_free(env *e) {
    for (uint32_t i = 0; i < e->nevicted; i++) ms_pod_unref(e->evicted[i]);
    for (uint32_t i = 0; i < e->nbinds; i++) ms_pod_unref(e->binds[i].pod);
    ms_scheduler_free(e->s);
    for (uint32_t i = 0; i < e->nobjects; i++) ms_pod_unref(e->objects[i]);
    ms_config_free(&e->cfg);
    ms_interner_free(e->in);
    free(e);
}

static cJSON *parse(const char *text) {
    cJSON *j = NULL;
    ms_error err = {0};
    if (ms_json_parse(text, strlen(text), &j, &err) != MS_OK) fail_msg("%s: %s", err.msg, text);
    return j;
}

/* labels: JSON object text; spec: JSON object text. */
static ms_node *mknode(env *e, const char *name, const char *cpu, const char *labels,
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

static void add_node(env *e, const char *name, const char *cpu, const char *labels,
                     const char *spec) {
    ms_node *n = mknode(e, name, cpu, labels, spec);
    ms_scheduler_node_add(e->s, n, 0);
    ms_node_unref(n);
}

/* extra: more spec fields, starting with a comma, or "". */
static ms_pod *mkpod(env *e, const char *name, const char *cpu, const char *extra) {
    char buf[2048];
    snprintf(buf, sizeof buf,
             "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\",\"namespace\":\"default\"},"
             "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"pause\",\"resources\":"
             "{\"requests\":{\"cpu\":\"%s\",\"memory\":\"100Mi\"}}}]%s}}",
             name, cpu, extra ? extra : "");
    cJSON *j = parse(buf);
    ms_pod *p = NULL;
    ms_error err = {0};
    if (ms_pod_decode(&e->dec, j, &p, &err) != MS_OK) fail_msg("%s", err.msg);
    cJSON_Delete(j);
    assert_true(e->nobjects < 512);
    e->objects[e->nobjects++] = p;
    return p;
}

static ms_pod *add_pod(env *e, const char *name, const char *cpu, const char *extra) {
    ms_pod *p = mkpod(e, name, cpu, extra);
    ms_scheduler_pod_add(e->s, p, 0);
    return p;
}

static const char *node_of_last(env *e) { return ms_str_get(e->in, e->last_node); }

static int64_t requested_cpu(env *e, const char *node) {
    const ms_node_info *ni =
        ms_cache_node_info(ms_scheduler_cache(e->s), ms_intern_cstr(e->in, node));
    assert_non_null(ni);
    return ni->requested.v[MS_RES_CPU];
}

static void complete_binds(env *e, bool ok, bool gone, double now) {
    for (uint32_t i = 0; i < e->nbinds; i++) {
        ms_scheduler_bind_done(e->s, e->binds[i].pod, ok, gone, ok ? NULL : "conflict", now);
        ms_pod_unref(e->binds[i].pod);
    }
    e->nbinds = 0;
}

/* ---- tests ----------------------------------------------------------- */

static void test_num_feasible_nodes_to_find(void **state) {
    (void)state;
    /* upstream's TestNumFeasibleNodesToFind cases, plus the brief's sizes */
    static const struct { int32_t pct; uint32_t nodes, want; } cases[] = {
        {0, 10, 10},       {40, 10, 10},       {0, 1000, 420},   {40, 1000, 400},
        {0, 6000, 300},    {40, 6000, 2400},   {0, 50, 50},      {0, 99, 99},
        {0, 100, 100},     {0, 500, 230},      {0, 5000, 500},   {30, 500, 150},
        {10, 500, 100},    {100, 5000, 5000},  {150, 500, 500},  {5, 5000, 250},
        {0, 10000, 500},   {1, 5000, 100},     {-1, 5000, 500},  {0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint32_t got = ms_num_feasible_nodes_to_find(cases[i].pct, cases[i].nodes);
        if (got != cases[i].want)
            fail_msg("pct %d, %u nodes: got %u, want %u", cases[i].pct, cases[i].nodes, got,
                     cases[i].want);
    }
}

static void test_select_host(void **state) {
    (void)state;
    ms_rng a, b;
    ms_rng_seed(&a, 7);
    ms_rng_seed(&b, 7);
    static const int64_t single_max[] = {1, 9, 3, 8};
    assert_int_equal(ms_select_host(&a, single_max, 4), 1);
    assert_int_equal(ms_select_host(&a, single_max, 1), 0);

    /* Ties among indexes 1, 2 and 4: each chosen about a third of the time,
     * the others never; the same seed gives the same sequence. */
    static const int64_t ties[] = {5, 7, 7, 3, 7};
    uint32_t count[5] = {0};
    for (int i = 0; i < 30000; i++) {
        uint32_t x = ms_select_host(&a, ties, 5), y = ms_select_host(&b, ties, 5);
        assert_int_equal(x, y);
        count[x]++;
    }
    assert_int_equal(count[0], 0);
    assert_int_equal(count[3], 0);
    for (int k = 1; k <= 4; k += (k == 2 ? 2 : 1))
        if (count[k] < 9500 || count[k] > 10500) fail_msg("index %d chosen %u times", k, count[k]);

    ms_rng c;
    ms_rng_seed(&c, 8);
    int differ = 0;
    ms_rng_seed(&a, 7);
    for (int i = 0; i < 100; i++) differ += ms_select_host(&a, ties, 5) != ms_select_host(&c, ties, 5);
    assert_true(differ > 0);
}

static void test_rotation_of_start_index(void **state) {
    (void)state;
    /* 500 nodes that all fit, adaptive percentage: 230 per cycle. */
    env *e = env_new(0, 1);
    char name[32];
    for (int i = 0; i < 500; i++) {
        snprintf(name, sizeof name, "n%03d", i);
        add_node(e, name, "100", NULL, NULL);
    }
    e->complete_at_once = true;
    static const uint32_t want[] = {230, 460, 190, 420, 150};
    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof name, "p%d", i);
        add_pod(e, name, "10m", NULL);
        assert_true(ms_scheduler_schedule_one(e->s, 0));
        assert_int_equal(e->last_feasible, 230);
        assert_int_equal(e->last_evaluated, 230);
        assert_int_equal(e->last_all, 500);
        assert_int_equal(ms_scheduler_next_start_index(e->s), want[i]);
    }
    env_free(e);

    /* Every other node rejected: 300 nodes, 144 feasible wanted (48%),
     * found among the first 287 nodes. */
    e = env_new(0, 1);
    for (int i = 0; i < 300; i++) {
        snprintf(name, sizeof name, "n%03d", i);
        add_node(e, name, "100", i % 2 ? "{\"half\":\"no\"}" : NULL, NULL);
    }
    e->complete_at_once = true;
    add_pod(e, "p", "10m", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->last_feasible, 144);
    assert_int_equal(e->last_evaluated, 287);
    assert_int_equal(ms_scheduler_next_start_index(e->s), 287);
    env_free(e);

    /* percentageOfNodesToScore 100: every node, start index back to 0. */
    e = env_new(100, 1);
    for (int i = 0; i < 150; i++) {
        snprintf(name, sizeof name, "n%03d", i);
        add_node(e, name, "100", NULL, NULL);
    }
    e->complete_at_once = true;
    add_pod(e, "p", "10m", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->last_feasible, 150);
    assert_int_equal(ms_scheduler_next_start_index(e->s), 0);
    env_free(e);
}

static void test_highest_score_wins_and_report(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    add_node(e, "a", "4", "{\"score\":\"10\"}", NULL);
    add_node(e, "b", "4", "{\"score\":\"90\"}", NULL);
    add_node(e, "c", "4", "{\"score\":\"40\"}", NULL);
    add_pod(e, "web", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->nscheduled, 1);
    assert_string_equal(node_of_last(e), "b");
    assert_int_equal(e->last_feasible, 3);
    /* TaintToleration scores 100 on every untainted node, TestScore 90. */
    assert_int_equal(e->last_nplugins, 2);
    assert_int_equal(e->last_scores[0], 100);
    assert_int_equal(e->last_scores[1], 90);
    assert_int_equal(e->last_total, 190);
    assert_int_equal(e->nbinds, 1);
    assert_string_equal(ms_str_get(e->in, e->binds[0].node), "b");
    env_free(e);
}

static void test_single_feasible_node_not_scored(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    add_node(e, "a", "4", "{\"score\":\"10\"}", NULL);
    add_node(e, "b", "4", "{\"half\":\"no\",\"score\":\"90\"}", NULL);
    add_pod(e, "web", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_string_equal(node_of_last(e), "a");
    assert_int_equal(e->last_nplugins, 0);
    assert_int_equal(e->last_feasible, 1);
    assert_int_equal(e->last_evaluated, 2);
    env_free(e);
}

/* Equal scores: the choice is spread over the tied nodes and repeatable
 * for a seed. */
static void test_ties_uniform_and_seeded(void **state) {
    (void)state;
    uint32_t count[4] = {0};
    char first[64][8];
    for (uint64_t seed = 0; seed < 400; seed++) {
        env *e = env_new(0, seed);
        add_node(e, "n0", "4", NULL, NULL);
        add_node(e, "n1", "4", NULL, NULL);
        add_node(e, "n2", "4", NULL, NULL);
        add_node(e, "n3", "4", NULL, NULL);
        add_pod(e, "p", "1", NULL);
        assert_true(ms_scheduler_schedule_one(e->s, 0));
        const char *n = node_of_last(e);
        count[n[1] - '0']++;
        if (seed < 64) snprintf(first[seed], sizeof first[seed], "%s", n);
        env_free(e);
    }
    for (int k = 0; k < 4; k++)
        if (count[k] < 60 || count[k] > 140) fail_msg("n%d chosen %u times of 400", k, count[k]);
    for (uint64_t seed = 0; seed < 64; seed++) {
        env *e = env_new(0, seed);
        add_node(e, "n0", "4", NULL, NULL);
        add_node(e, "n1", "4", NULL, NULL);
        add_node(e, "n2", "4", NULL, NULL);
        add_node(e, "n3", "4", NULL, NULL);
        add_pod(e, "p", "1", NULL);
        assert_true(ms_scheduler_schedule_one(e->s, 0));
        assert_string_equal(node_of_last(e), first[seed]);
        env_free(e);
    }
}

static void test_unschedulable_message(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    add_node(e, "cordoned", "4", NULL, "{\"unschedulable\":true}");
    add_node(e, "gpu-1", "4", NULL,
             "{\"taints\":[{\"key\":\"dedicated\",\"value\":\"gpu\",\"effect\":\"NoSchedule\"}]}");
    add_node(e, "gpu-2", "4", NULL,
             "{\"taints\":[{\"key\":\"dedicated\",\"value\":\"gpu\",\"effect\":\"NoSchedule\"}]}");
    add_node(e, "small-1", "1", NULL, NULL);
    add_node(e, "small-2", "1", NULL, NULL);
    add_node(e, "odd", "8", "{\"half\":\"no\"}", NULL);
    add_pod(e, "big", "2", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->nunschedulable, 1);
    assert_int_equal(e->nscheduled, 0);
    assert_string_equal(e->last_message,
                        "0/6 nodes are available: 1 node(s) were labelled half=no, "
                        "1 node(s) were unschedulable, 2 Insufficient cpu, "
                        "2 node(s) had untolerated taint {dedicated: gpu}.");
    ms_queue *q = ms_scheduler_queue(e->s);
    assert_int_equal(ms_queue_len_unschedulable(q), 1);
    assert_int_equal(ms_queue_len_active(q), 0);
    assert_int_equal(ms_queue_len_backoff(q), 0);
    assert_false(ms_scheduler_schedule_one(e->s, 0));

    /* PreFilter rejection: one reason for the whole cluster. */
    add_pod(e, "reject-me", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_string_equal(e->last_message, "0/6 nodes are available: pod has unbound immediate "
                                         "PersistentVolumeClaims.");
    env_free(e);
}

static void test_no_nodes(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    add_pod(e, "p", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_string_equal(e->last_message, "no nodes available to schedule pods");
    assert_int_equal(ms_queue_len_unschedulable(ms_scheduler_queue(e->s)), 1);
    /* A node arriving brings it back. */
    add_node(e, "a", "4", NULL, NULL);
    ms_queue *q = ms_scheduler_queue(e->s);
    assert_int_equal(ms_queue_len_unschedulable(q), 0);
    assert_int_equal(ms_queue_len_active(q) + ms_queue_len_backoff(q), 1);
    ms_scheduler_tick(e->s, 100);
    assert_true(ms_scheduler_schedule_one(e->s, 100));
    assert_string_equal(node_of_last(e), "a");
    env_free(e);
}

static void test_node_add_moves_unschedulable_pod(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    add_node(e, "small", "1", NULL, NULL);
    add_pod(e, "big", "2", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->nunschedulable, 1);
    ms_queue *q = ms_scheduler_queue(e->s);
    assert_int_equal(ms_queue_len_unschedulable(q), 1);

    /* A label change interests only TestHalf, which did not reject it. */
    ms_node *relabelled = mknode(e, "small", "1", "{\"x\":\"y\"}", NULL);
    ms_scheduler_node_update(e->s, relabelled, 1);
    ms_node_unref(relabelled);
    assert_int_equal(ms_queue_len_unschedulable(q), 1);

    add_node(e, "large", "4", NULL, NULL);
    assert_int_equal(ms_queue_len_unschedulable(q), 0);
    assert_int_equal(ms_queue_len_active(q) + ms_queue_len_backoff(q), 1);
    ms_scheduler_tick(e->s, 100);
    assert_true(ms_scheduler_schedule_one(e->s, 100));
    assert_string_equal(node_of_last(e), "large");

    /* An allocatable change on a node also helps a pod TestFit rejected. */
    add_pod(e, "bigger", "8", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 100));
    assert_int_equal(ms_queue_len_unschedulable(q), 1);
    ms_node *grown = mknode(e, "small", "16", "{\"x\":\"y\"}", NULL);
    ms_scheduler_node_update(e->s, grown, 101);
    ms_node_unref(grown);
    assert_int_equal(ms_queue_len_unschedulable(q), 0);
    ms_scheduler_tick(e->s, 200);
    assert_true(ms_scheduler_schedule_one(e->s, 200));
    assert_string_equal(node_of_last(e), "small");
    env_free(e);
}

/* ---- namespaces ------------------------------------------------------- */

static ms_pod *decode_pod_json(env *e, const char *text) {
    cJSON *j = parse(text);
    ms_pod *p = NULL;
    ms_error err = {0};
    if (ms_pod_decode(&e->dec, j, &p, &err) != MS_OK) fail_msg("%s", err.msg);
    cJSON_Delete(j);
    assert_true(e->nobjects < 512);
    e->objects[e->nobjects++] = p;
    return p;
}

static void set_namespace(env *e, const char *name, const char *labels, double now) {
    char buf[512];
    snprintf(buf, sizeof buf, "{\"kind\":\"Namespace\",\"metadata\":{\"name\":\"%s\",\"labels\":%s}}", name,
             labels);
    cJSON *j = parse(buf);
    ms_namespace *ns = NULL;
    ms_error err = {0};
    if (ms_namespace_decode(&e->dec, j, &ns, &err) != MS_OK) fail_msg("%s", err.msg);
    cJSON_Delete(j);
    ms_scheduler_namespace_add(e->s, ns, now);
    ms_namespace_unref(ns);
}

/* A pod whose required pod affinity selects its peers' namespace by label
 * (namespaceSelector team=a) waits while no namespace carries the label;
 * labelling the peers' namespace (what the namespace informer delivers in
 * `run`) moves it out of the unschedulable pods at once, and it lands
 * next to its peer. */
static void test_namespace_label_moves_pod_affinity_pod(void **state) {
    (void)state;
    static const char *const plugins[] = {"PrioritySort", "InterPodAffinity", "DefaultBinder", NULL};
    env *e = env_new_profile(0, 1, false, plugins);
    add_node(e, "n1", "4", "{\"kubernetes.io/hostname\":\"n1\"}", NULL);
    add_node(e, "n2", "4", "{\"kubernetes.io/hostname\":\"n2\"}", NULL);
    set_namespace(e, "db", "{\"team\":\"b\"}", 0);
    ms_pod *peer = decode_pod_json(
        e, "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"db-0\",\"namespace\":\"db\",\"labels\":{\"app\":\"db\"}},"
           "\"spec\":{\"nodeName\":\"n2\",\"containers\":[{\"name\":\"c\",\"image\":\"pause\"}]}}");
    ms_scheduler_pod_add(e->s, peer, 0);
    add_pod(e, "web", "100m",
            ",\"affinity\":{\"podAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":[{"
            "\"labelSelector\":{\"matchLabels\":{\"app\":\"db\"}},\"namespaceSelector\":{\"matchLabels\":"
            "{\"team\":\"a\"}},\"topologyKey\":\"kubernetes.io/hostname\"}]}}");
    ms_queue *q = ms_scheduler_queue(e->s);
    assert_true(ms_scheduler_schedule_one(e->s, 1));
    assert_int_equal(e->nunschedulable, 1);
    assert_int_equal(e->nscheduled, 0);
    assert_int_equal(ms_queue_len_unschedulable(q), 1);

    /* the same labels again: no change, the pod stays where it is */
    set_namespace(e, "db", "{\"team\":\"b\"}", 2);
    assert_int_equal(ms_queue_len_unschedulable(q), 1);

    set_namespace(e, "db", "{\"team\":\"a\"}", 3);
    assert_int_equal(ms_queue_len_unschedulable(q), 0);
    assert_int_equal(ms_queue_len_active(q) + ms_queue_len_backoff(q), 1);
    ms_scheduler_tick(e->s, 100);
    assert_true(ms_scheduler_schedule_one(e->s, 100));
    assert_int_equal(e->nscheduled, 1);
    assert_string_equal(node_of_last(e), "n2");
    env_free(e);
}

static void test_other_schedulers_ignored(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    add_node(e, "a", "4", NULL, NULL);
    add_pod(e, "theirs", "1", ",\"schedulerName\":\"batch-scheduler\"");
    ms_queue *q = ms_scheduler_queue(e->s);
    assert_int_equal(ms_queue_len_active(q), 0);
    assert_false(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(ms_scheduler_profile_index(e->s, ms_intern_cstr(e->in, "batch-scheduler")), -1);
    assert_int_equal(ms_scheduler_profile_index(e->s, ms_intern_cstr(e->in, "default-scheduler")), 0);
    /* Bound by their scheduler: counted in the cache all the same. */
    ms_pod *bound = add_pod(e, "theirs-bound", "1500m",
                            ",\"schedulerName\":\"batch-scheduler\",\"nodeName\":\"a\"");
    (void)bound;
    assert_int_equal(requested_cpu(e, "a"), 1500);
    env_free(e);
}

static void test_assumed_resources_counted_before_bind(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    add_node(e, "a", "1", NULL, NULL);
    ms_pod *p1 = add_pod(e, "p1", "600m", NULL);
    add_pod(e, "p2", "600m", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_string_equal(node_of_last(e), "a");
    assert_int_equal(ms_scheduler_binding_count(e->s), 1);
    assert_int_equal(requested_cpu(e, "a"), 600);
    assert_true(ms_cache_is_assumed(ms_scheduler_cache(e->s),
                                    ms_cache_get_pod(ms_scheduler_cache(e->s), p1->meta.uid_hash)));
    /* The second pod sees the first one's request although its bind has
     * not completed. */
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->nunschedulable, 1);
    assert_string_equal(e->last_message, "0/1 nodes are available: 1 Insufficient cpu.");
    complete_binds(e, true, false, 1);
    assert_int_equal(ms_scheduler_binding_count(e->s), 0);
    assert_int_equal(requested_cpu(e, "a"), 600);
    /* The informer confirms the binding. */
    ms_pod *bound = mkpod(e, "p1", "600m", ",\"nodeName\":\"a\"");
    ms_scheduler_pod_update(e->s, bound, 2);
    assert_false(ms_cache_is_assumed(ms_scheduler_cache(e->s), bound));
    assert_int_equal(requested_cpu(e, "a"), 600);
    /* It finishes: its resources go, and p2 is moved back. */
    ms_pod *done = mkpod(e, "p1", "600m", ",\"nodeName\":\"a\"}, \"status\":{\"phase\":\"Succeeded\"");
    ms_scheduler_pod_update(e->s, done, 3);
    assert_int_equal(requested_cpu(e, "a"), 0);
    ms_queue *q = ms_scheduler_queue(e->s);
    assert_int_equal(ms_queue_len_unschedulable(q), 0);
    ms_scheduler_tick(e->s, 100);
    assert_true(ms_scheduler_schedule_one(e->s, 100));
    assert_string_equal(node_of_last(e), "a");
    env_free(e);
}

static void test_bind_failure_requeues_with_backoff(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    add_node(e, "a", "4", NULL, NULL);
    add_pod(e, "p", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 10));
    assert_int_equal(requested_cpu(e, "a"), 1000);
    complete_binds(e, false, false, 10);
    assert_int_equal(e->nbind_failed, 1);
    assert_string_equal(e->last_message, "conflict");
    assert_int_equal(requested_cpu(e, "a"), 0);
    assert_int_equal(ms_scheduler_binding_count(e->s), 0);
    ms_queue *q = ms_scheduler_queue(e->s);
    assert_int_equal(ms_queue_len_backoff(q), 1);
    assert_int_equal(ms_queue_len_active(q), 0);
    double next = ms_queue_next_backoff(q);
    assert_true(next > 10);
    ms_scheduler_tick(e->s, next - 0.001);
    assert_int_equal(ms_queue_len_active(q), 0);
    ms_scheduler_tick(e->s, next);
    assert_int_equal(ms_queue_len_active(q), 1);
    assert_true(ms_scheduler_schedule_one(e->s, next));
    assert_int_equal(e->nscheduled, 2);
    complete_binds(e, true, false, next);
    assert_int_equal(requested_cpu(e, "a"), 1000);
    env_free(e);
}

static void test_gone_pod_not_requeued(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    add_node(e, "a", "4", NULL, NULL);
    add_pod(e, "p", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    complete_binds(e, false, true, 0);
    ms_queue *q = ms_scheduler_queue(e->s);
    assert_int_equal(ms_queue_len_active(q) + ms_queue_len_backoff(q) + ms_queue_len_unschedulable(q),
                     0);
    assert_int_equal(requested_cpu(e, "a"), 0);

    /* Deleted while its bind was in flight: not requeued either. */
    ms_pod *p2 = add_pod(e, "p2", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    ms_scheduler_pod_delete(e->s, p2, 0);
    complete_binds(e, false, false, 0);
    assert_int_equal(ms_queue_len_active(q) + ms_queue_len_backoff(q) + ms_queue_len_unschedulable(q),
                     0);
    env_free(e);
}

static void test_deleted_pending_pod_leaves_queue(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    add_node(e, "a", "4", NULL, NULL);
    ms_pod *p = add_pod(e, "p", "1", NULL);
    assert_int_equal(ms_queue_len_active(ms_scheduler_queue(e->s)), 1);
    ms_scheduler_pod_delete(e->s, p, 0);
    assert_int_equal(ms_queue_len_active(ms_scheduler_queue(e->s)), 0);
    assert_false(ms_scheduler_schedule_one(e->s, 0));

    /* Bound by someone else while queued: leaves the queue, enters the cache. */
    add_pod(e, "q", "1", NULL);
    add_pod(e, "q", "1", ",\"nodeName\":\"a\"");
    assert_int_equal(ms_queue_len_active(ms_scheduler_queue(e->s)), 0);
    assert_int_equal(requested_cpu(e, "a"), 1000);
    /* Deleting the bound pod frees its resources. */
    ms_pod *qb = mkpod(e, "q", "1", ",\"nodeName\":\"a\"");
    ms_scheduler_pod_delete(e->s, qb, 0);
    assert_int_equal(requested_cpu(e, "a"), 0);
    env_free(e);
}

static void test_binder_answering_at_once(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    e->complete_at_once = true;
    add_node(e, "a", "4", NULL, NULL);
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "p%d", i);
        add_pod(e, name, "1", NULL);
    }
    while (ms_scheduler_schedule_one(e->s, 0)) {}
    assert_int_equal(e->nscheduled, 3);
    assert_int_equal(ms_scheduler_binding_count(e->s), 0);
    assert_int_equal(requested_cpu(e, "a"), 3000);
    env_free(e);
}

static void test_priority_order(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    e->complete_at_once = true;
    add_node(e, "a", "1", NULL, NULL);
    add_pod(e, "low", "1", NULL);
    add_pod(e, "high", "1", ",\"priority\":100");
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->nscheduled, 1);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->nunschedulable, 1);
    const ms_pod *p = ms_cache_get_pod(ms_scheduler_cache(e->s),
                                       e->objects[1]->meta.uid_hash);
    assert_non_null(p);   /* "high" got the node */
    env_free(e);
}

static void test_permit_wait(void **state) {
    (void)state;
    /* Upstream: the wait times out, the pod is rejected and unreserved. */
    env *e = env_new(0, 1);
    add_node(e, "a", "4", NULL, NULL);
    add_pod(e, "wait-1", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 10));
    assert_int_equal(ms_scheduler_waiting_count(e->s), 1);
    assert_int_equal(ms_scheduler_binding_count(e->s), 1);
    assert_true(ms_scheduler_next_permit_deadline(e->s) == 15);
    assert_int_equal(requested_cpu(e, "a"), 1000);
    assert_int_equal(e->nscheduled, 0);
    ms_scheduler_tick(e->s, 14.9);
    assert_int_equal(ms_scheduler_waiting_count(e->s), 1);
    ms_scheduler_tick(e->s, 15);
    assert_int_equal(ms_scheduler_waiting_count(e->s), 0);
    assert_int_equal(ms_scheduler_binding_count(e->s), 0);
    assert_int_equal(requested_cpu(e, "a"), 0);
    assert_int_equal(e->nunschedulable, 1);
    assert_string_equal(e->last_message, "rejected due to timeout after waiting at Permit");
    assert_int_equal(e->nbinds, 0);
    ms_queue *q = ms_scheduler_queue(e->s);
    assert_int_equal(ms_queue_len_unschedulable(q) + ms_queue_len_backoff(q), 1);
    env_free(e);

    /* simulate's rule: let through when the wait ends. */
    e = env_new_with(0, 1, true);
    add_node(e, "a", "4", NULL, NULL);
    add_pod(e, "wait-1", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 10));
    assert_int_equal(e->nscheduled, 0);
    ms_scheduler_tick(e->s, 15);
    assert_int_equal(e->nscheduled, 1);
    assert_string_equal(node_of_last(e), "a");
    assert_int_equal(e->nbinds, 1);
    complete_binds(e, true, false, 15);
    assert_int_equal(ms_scheduler_binding_count(e->s), 0);
    assert_int_equal(requested_cpu(e, "a"), 1000);

    /* Deleted while waiting: released at once, not requeued. */
    ms_pod *w2 = add_pod(e, "wait-2", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 20));
    assert_int_equal(requested_cpu(e, "a"), 2000);
    ms_scheduler_pod_delete(e->s, w2, 21);
    assert_int_equal(ms_scheduler_waiting_count(e->s), 0);
    assert_int_equal(requested_cpu(e, "a"), 1000);
    q = ms_scheduler_queue(e->s);
    assert_int_equal(ms_queue_len_active(q) + ms_queue_len_backoff(q) + ms_queue_len_unschedulable(q),
                     0);
    env_free(e);
}

/* Namespaces reach the plugins: pod affinity's namespaceSelector matches
 * the labels of the namespaces the scheduler was given, as they are when
 * the pod is scheduled. */
static void namespace_event(env *e, const char *name, const char *labels) {
    char buf[256];
    snprintf(buf, sizeof buf, "{\"kind\":\"Namespace\",\"metadata\":{\"name\":\"%s\",\"labels\":%s}}",
             name, labels);
    cJSON *j = parse(buf);
    ms_namespace *ns = NULL;
    ms_error err = {0};
    if (ms_namespace_decode(&e->dec, j, &ns, &err) != MS_OK) fail_msg("%s", err.msg);
    cJSON_Delete(j);
    ms_scheduler_namespace_add(e->s, ns, 0);
    ms_namespace_unref(ns);
}

static ms_pod *ns_pod(env *e, const char *name, const char *ns, const char *app, const char *spec) {
    char buf[2048];
    snprintf(buf, sizeof buf,
             "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\",\"namespace\":\"%s\","
             "\"labels\":{\"app\":\"%s\"}},\"spec\":{\"containers\":[{\"name\":\"c\"}]%s}}",
             name, ns, app, spec);
    cJSON *j = parse(buf);
    ms_pod *p = NULL;
    ms_error err = {0};
    if (ms_pod_decode(&e->dec, j, &p, &err) != MS_OK) fail_msg("%s", err.msg);
    cJSON_Delete(j);
    assert_true(e->nobjects < 512);
    e->objects[e->nobjects++] = p;
    return p;
}

static void test_namespace_selector_through_the_scheduler(void **state) {
    (void)state;
    static const char *const plugins[] = {"PrioritySort", "InterPodAffinity", "DefaultBinder", NULL};
    env *e = env_new_profile(-1, 1, false, plugins);
    e->complete_at_once = true;
    add_node(e, "n1", "4", "{\"zone\":\"a\"}", NULL);
    add_node(e, "n2", "4", "{\"zone\":\"b\"}", NULL);
    add_node(e, "n3", "4", "{\"zone\":\"c\"}", NULL);
    namespace_event(e, "team-a", "{\"team\":\"a\"}");
    namespace_event(e, "team-b", "{\"team\":\"b\"}");
    ms_scheduler_pod_add(e->s, ns_pod(e, "web", "team-b", "web", ",\"nodeName\":\"n2\""), 0);
    static const char *const affinity =
        ",\"affinity\":{\"podAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":[{"
        "\"labelSelector\":{\"matchLabels\":{\"app\":\"web\"}},"
        "\"namespaceSelector\":{\"matchLabels\":{\"team\":\"b\"}},\"topologyKey\":\"zone\"}]}}";
    ms_scheduler_pod_add(e->s, ns_pod(e, "api-1", "team-a", "api", affinity), 0);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->nscheduled, 1);
    assert_string_equal(node_of_last(e), "n2");

    /* team-b no longer has the label: nothing is selected any more. */
    namespace_event(e, "team-b", "{\"team\":\"x\"}");
    ms_scheduler_pod_add(e->s, ns_pod(e, "api-2", "team-a", "api", affinity), 0);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->nunschedulable, 1);
    assert_string_equal(e->last_message,
                        "0/3 nodes are available: 3 node(s) didn't match pod affinity rules.");

    namespace_event(e, "team-b", "{\"team\":\"b\"}");
    ms_scheduler_namespace_delete(e->s, ms_intern_cstr(e->in, "team-b"), 0);
    ms_scheduler_pod_add(e->s, ns_pod(e, "api-3", "team-a", "api", affinity), 0);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->nunschedulable, 2);
    env_free(e);
}

/* ---- priority and preemption ---------------------------------------- */

static const char *const preempt_plugins[] = {"PrioritySort", "TestFit", "DefaultPreemption",
                                              "DefaultBinder", NULL};

static env *preempt_env(void) {
    env *e = env_new_profile(0, 1, false, preempt_plugins);
    e->complete_at_once = true;
    e->evict_at_once = true;
    return e;
}

/* A pod with an app label and a cpu request; extra: more spec fields. */
static ms_pod *lpod(env *e, const char *name, const char *app, const char *cpu, const char *extra) {
    char buf[2048];
    snprintf(buf, sizeof buf,
             "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\",\"namespace\":\"default\","
             "\"uid\":\"uid-%s\",\"labels\":{\"app\":\"%s\"}},"
             "\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":"
             "{\"requests\":{\"cpu\":\"%s\"}}}]%s}}",
             name, name, app, cpu, extra ? extra : "");
    cJSON *j = parse(buf);
    ms_pod *p = NULL;
    ms_error err = {0};
    if (ms_pod_decode(&e->dec, j, &p, &err) != MS_OK) fail_msg("%s", err.msg);
    cJSON_Delete(j);
    assert_true(e->nobjects < 512);
    e->objects[e->nobjects++] = p;
    ms_scheduler_pod_add(e->s, p, e->now);
    return p;
}

static bool was_evicted(const env *e, const ms_pod *p) {
    for (uint32_t i = 0; i < e->nevicted; i++)
        if (e->evicted[i]->meta.uid_hash == p->meta.uid_hash) return true;
    return false;
}

static void test_preemption_end_to_end(void **state) {
    (void)state;
    env *e = preempt_env();
    add_node(e, "a", "4", NULL, NULL);
    /* Four 1-cpu pods of priority 0 fill the node; the preemptor needs 2. */
    ms_pod *low[4];
    low[0] = lpod(e, "low-0", "batch", "1", ",\"nodeName\":\"a\"");
    low[1] = lpod(e, "low-1", "batch", "1", ",\"nodeName\":\"a\"");
    low[2] = lpod(e, "low-2", "batch", "1", ",\"nodeName\":\"a\"");
    low[3] = lpod(e, "low-3", "batch", "1", ",\"nodeName\":\"a\"");
    ms_pod *high = lpod(e, "high", "web", "2", ",\"priority\":1000");
    assert_int_equal(requested_cpu(e, "a"), 4000);

    assert_true(ms_scheduler_schedule_one(e->s, 0));
    /* No more victims than needed: two of the four. */
    assert_int_equal(e->nevicted, 2);
    assert_int_equal(e->npreempted_reports, 2);
    assert_string_equal(ms_str_get(e->in, e->evicted_on), "a");
    assert_int_equal(e->nscheduled, 0);
    assert_int_equal(e->nunschedulable, 1);
    assert_int_equal(e->nnominated, 1);
    assert_string_equal(ms_str_get(e->in, e->nominated_to), "a");
    ms_queue *q = ms_scheduler_queue(e->s);
    assert_string_equal(ms_str_get(e->in, ms_queue_nominated_node(q, high->meta.uid_hash)), "a");
    /* The victims are gone from the cache at once; the preemptor waits out
     * its backoff (the deletion moved it), not for another event. */
    assert_int_equal(requested_cpu(e, "a"), 2000);
    assert_int_equal(ms_queue_len_backoff(q), 1);
    uint32_t kept = 0;
    for (int i = 0; i < 4; i++) kept += !was_evicted(e, low[i]);
    assert_int_equal(kept, 2);

    /* A later cycle places it on the nominated node. */
    assert_false(ms_scheduler_schedule_one(e->s, 0.5));
    ms_scheduler_tick(e->s, 2);
    assert_true(ms_scheduler_schedule_one(e->s, 2));
    assert_int_equal(e->nscheduled, 1);
    assert_string_equal(node_of_last(e), "a");
    assert_int_equal(e->nevicted, 2);
    assert_int_equal(requested_cpu(e, "a"), 4000);
    assert_int_equal(ms_queue_nominated_node(q, high->meta.uid_hash), MS_STR_NONE);
    env_free(e);
}

static void test_preemption_policy_never(void **state) {
    (void)state;
    env *e = preempt_env();
    add_node(e, "a", "2", NULL, NULL);
    lpod(e, "low", "batch", "2", ",\"nodeName\":\"a\"");
    lpod(e, "polite", "web", "2", ",\"priority\":1000,\"preemptionPolicy\":\"Never\"");
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->nevicted, 0);
    assert_int_equal(e->nnominated, 0);
    assert_int_equal(e->nunschedulable, 1);
    assert_string_equal(e->last_message,
                        "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible "
                        "due to preemptionPolicy=Never.");
    assert_int_equal(requested_cpu(e, "a"), 2000);
    env_free(e);
}

static void add_pdb(env *e, const char *text) {
    cJSON *j = parse(text);
    ms_pdb *pdb = NULL;
    ms_error err = {0};
    if (ms_pdb_decode(&e->dec, j, &pdb, &err) != MS_OK) fail_msg("%s", err.msg);
    cJSON_Delete(j);
    ms_scheduler_pdb_add(e->s, pdb, 0);
    ms_pdb_unref(pdb);
}

static void test_preemption_respects_pdb(void **state) {
    (void)state;
    /* Two equal choices; a PDB with no disruption left protects db. The
     * default search looks at both (fewer than 100 candidates wanted). */
    for (int round = 0; round < 2; round++) {
        env *e = preempt_env();
        add_node(e, "a", "2", NULL, NULL);
        add_node(e, "b", "2", NULL, NULL);
        ms_pod *db = lpod(e, "db", "db", "2", ",\"nodeName\":\"a\"");
        ms_pod *web = lpod(e, "web", "web", "2", ",\"nodeName\":\"b\"");
        if (round == 0)
            add_pdb(e, "{\"kind\":\"PodDisruptionBudget\",\"apiVersion\":\"policy/v1\","
                       "\"metadata\":{\"name\":\"db\",\"namespace\":\"default\"},"
                       "\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"db\"}}},"
                       "\"status\":{\"disruptionsAllowed\":0}}");
        else
            add_pdb(e, "{\"kind\":\"PodDisruptionBudget\",\"apiVersion\":\"policy/v1\","
                       "\"metadata\":{\"name\":\"web\",\"namespace\":\"default\"},"
                       "\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"web\"}}},"
                       "\"status\":{\"disruptionsAllowed\":0}}");
        assert_int_equal(ms_scheduler_pdb_count(e->s), 1);
        lpod(e, "critical", "api", "2", ",\"priority\":1000");
        assert_true(ms_scheduler_schedule_one(e->s, 0));
        assert_int_equal(e->nevicted, 1);
        assert_true(was_evicted(e, round == 0 ? web : db));
        assert_string_equal(ms_str_get(e->in, e->nominated_to), round == 0 ? "b" : "a");
        env_free(e);
    }
}

/* A preemptor nominated to a node holds it against pods its required
 * anti-affinity selects, even when those pods have no terms of their own
 * (upstream counts the nominated pod's terms in the pass with nominated
 * pods). web prefers node a and fits there with the guard beside it, but
 * the guard would not accept it. */
static void test_nominated_anti_affinity_holds_the_node(void **state) {
    (void)state;
    static const char *const plugins[] = {"PrioritySort", "InterPodAffinity", "TestFit", "TestScore",
                                          "DefaultPreemption", "DefaultBinder", NULL};
    for (int selects_web = 0; selects_web < 2; selects_web++) {
        env *e = env_new_profile(0, 1, false, plugins);
        e->complete_at_once = true;
        e->evict_at_once = true;
        add_node(e, "a", "4", "{\"kubernetes.io/hostname\":\"a\",\"score\":\"10\"}", NULL);
        add_node(e, "b", "4", "{\"kubernetes.io/hostname\":\"b\"}", NULL);
        ms_pod *low = lpod(e, "low", "batch", "3", ",\"nodeName\":\"a\"");
        lpod(e, "keeper", "batch", "2", ",\"nodeName\":\"b\",\"priority\":2000");
        char guard_spec[512];
        snprintf(guard_spec, sizeof guard_spec,
                 ",\"priority\":1000,\"affinity\":{\"podAntiAffinity\":{"
                 "\"requiredDuringSchedulingIgnoredDuringExecution\":[{\"labelSelector\":"
                 "{\"matchLabels\":{\"app\":\"%s\"}},\"topologyKey\":\"kubernetes.io/hostname\"}]}}",
                 selects_web ? "web" : "db");
        ms_pod *guard = lpod(e, "guard", "guard", "3", guard_spec);
        assert_true(ms_scheduler_schedule_one(e->s, 0));
        assert_int_equal(e->nevicted, 1);
        assert_true(was_evicted(e, low));
        ms_queue *q = ms_scheduler_queue(e->s);
        assert_string_equal(ms_str_get(e->in, ms_queue_nominated_node(q, guard->meta.uid_hash)), "a");

        /* The guard backs off; web comes first. */
        lpod(e, "web", "web", "1", "");
        assert_true(ms_scheduler_schedule_one(e->s, 0));
        assert_int_equal(e->nscheduled, 1);
        assert_string_equal(node_of_last(e), selects_web ? "b" : "a");
        env_free(e);
    }
}

static void test_two_preemptors_one_node(void **state) {
    (void)state;
    /* Both preemptors need the whole node. The first evicts and is
     * nominated; the second must leave room for it (the nominated pod has
     * the same priority) and evicts nothing. */
    for (int at_once = 0; at_once < 2; at_once++) {
        env *e = preempt_env();
        e->evict_at_once = at_once;
        add_node(e, "a", "2", NULL, NULL);
        lpod(e, "low", "batch", "2", ",\"nodeName\":\"a\"");
        ms_pod *p1 = lpod(e, "p1", "web", "2", ",\"priority\":1000");
        ms_pod *p2 = lpod(e, "p2", "web", "2", ",\"priority\":1000");
        assert_true(ms_scheduler_schedule_one(e->s, 0));
        assert_int_equal(e->nevicted, 1);
        assert_true(ms_scheduler_schedule_one(e->s, 0));
        assert_int_equal(e->nevicted, 1);
        assert_int_equal(e->nnominated, 1);
        ms_queue *q = ms_scheduler_queue(e->s);
        assert_string_equal(ms_str_get(e->in, ms_queue_nominated_node(q, p1->meta.uid_hash)), "a");
        assert_int_equal(ms_queue_nominated_node(q, p2->meta.uid_hash), MS_STR_NONE);
        if (at_once) {
            /* p1 gets the node once its backoff ends. */
            ms_scheduler_tick(e->s, 2);
            while (ms_scheduler_schedule_one(e->s, 2)) {}
            assert_int_equal(e->nscheduled, 1);
            assert_non_null(ms_cache_get_pod(ms_scheduler_cache(e->s), p1->meta.uid_hash));
            assert_null(ms_cache_get_pod(ms_scheduler_cache(e->s), p2->meta.uid_hash));
            assert_int_equal(e->nevicted, 1);
        }
        env_free(e);
    }
}

/* The hooks behind run's metrics: PostFilter runs (upstream's preemption
 * attempts) with the nominated node or none, and errors told apart from
 * rejections, before the unschedulable report. */
static void test_reporter_error_and_post_filter(void **state) {
    (void)state;
    env *e = preempt_env();
    add_node(e, "a", "2", NULL, NULL);
    lpod(e, "low", "batch", "2", ",\"nodeName\":\"a\"");
    lpod(e, "high", "web", "2", ",\"priority\":1000");
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->npost_filter, 1);
    assert_string_equal(ms_str_get(e->in, e->post_nominated), "a");
    assert_int_equal(e->npreempted_reports, 1);
    assert_int_equal(e->nerrors, 0);
    assert_int_equal(e->nunschedulable, 1);
    env_free(e);

    e = preempt_env();
    add_node(e, "a", "2", NULL, NULL);
    lpod(e, "low", "batch", "2", ",\"nodeName\":\"a\"");
    lpod(e, "polite", "web", "2", ",\"priority\":1000,\"preemptionPolicy\":\"Never\"");
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->npost_filter, 1);
    assert_int_equal(e->post_nominated, MS_STR_NONE);
    assert_int_equal(e->nerrors, 0);
    /* a pod that fits runs no PostFilter */
    lpod(e, "small", "web", "0", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->nscheduled, 1);
    assert_int_equal(e->npost_filter, 1);
    env_free(e);

    e = preempt_env();
    e->evict_fails = true;
    add_node(e, "a", "2", NULL, NULL);
    lpod(e, "low", "batch", "2", ",\"nodeName\":\"a\"");
    lpod(e, "high", "web", "2", ",\"priority\":1000");
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->npost_filter, 1);
    assert_int_equal(e->post_nominated, MS_STR_NONE);
    assert_int_equal(e->nerrors, 1);
    assert_int_equal(e->nunschedulable_at_error, 0);   /* error first */
    assert_int_equal(e->nunschedulable, 1);
    env_free(e);
}

/* An eviction that fails is the scheduler's error, not the pod's: back off
 * and retry, with no nomination. */
static void test_preemption_error_backs_off(void **state) {
    (void)state;
    env *e = preempt_env();
    e->evict_fails = true;
    add_node(e, "a", "2", NULL, NULL);
    lpod(e, "low", "batch", "2", ",\"nodeName\":\"a\"");
    lpod(e, "high", "web", "2", ",\"priority\":1000");
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    ms_queue *q = ms_scheduler_queue(e->s);
    assert_int_equal(ms_queue_len_backoff(q), 1);
    assert_int_equal(ms_queue_len_unschedulable(q), 0);
    assert_int_equal(e->nnominated, 0);
    assert_int_equal(e->npreempted_reports, 0);
    assert_true(strstr(e->last_message, "running PostFilter plugin \"DefaultPreemption\": "
                                        "preemption: evicting pod default/low: ") != NULL);
    /* The retry succeeds once the evictor works. */
    e->evict_fails = false;
    ms_scheduler_tick(e->s, 2);
    assert_true(ms_scheduler_schedule_one(e->s, 2));
    assert_int_equal(e->nevicted, 1);
    assert_int_equal(e->nnominated, 1);
    env_free(e);
}

/* A victim waiting on Permit is rejected, not passed to the evictor. */
static void test_preemption_rejects_waiting_victim(void **state) {
    (void)state;
    static const char *const plugins[] = {"PrioritySort", "TestFit", "TestWait",
                                          "DefaultPreemption", "DefaultBinder", NULL};
    env *e = env_new_profile(0, 1, false, plugins);
    e->complete_at_once = true;
    e->evict_at_once = true;
    add_node(e, "a", "2", NULL, NULL);
    lpod(e, "wait-low", "batch", "2", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(ms_scheduler_waiting_count(e->s), 1);
    assert_int_equal(requested_cpu(e, "a"), 2000);
    lpod(e, "high", "web", "2", ",\"priority\":1000");
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->nevicted, 0);                 /* not through the evictor */
    assert_int_equal(e->npreempted_reports, 1);
    assert_int_equal(ms_scheduler_waiting_count(e->s), 0);
    assert_int_equal(requested_cpu(e, "a"), 0);
    assert_int_equal(e->nnominated, 1);
    env_free(e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_num_feasible_nodes_to_find),
        cmocka_unit_test(test_select_host),
        cmocka_unit_test(test_rotation_of_start_index),
        cmocka_unit_test(test_highest_score_wins_and_report),
        cmocka_unit_test(test_single_feasible_node_not_scored),
        cmocka_unit_test(test_ties_uniform_and_seeded),
        cmocka_unit_test(test_unschedulable_message),
        cmocka_unit_test(test_no_nodes),
        cmocka_unit_test(test_node_add_moves_unschedulable_pod),
        cmocka_unit_test(test_namespace_label_moves_pod_affinity_pod),
        cmocka_unit_test(test_other_schedulers_ignored),
        cmocka_unit_test(test_assumed_resources_counted_before_bind),
        cmocka_unit_test(test_bind_failure_requeues_with_backoff),
        cmocka_unit_test(test_gone_pod_not_requeued),
        cmocka_unit_test(test_deleted_pending_pod_leaves_queue),
        cmocka_unit_test(test_binder_answering_at_once),
        cmocka_unit_test(test_priority_order),
        cmocka_unit_test(test_permit_wait),
        cmocka_unit_test(test_namespace_selector_through_the_scheduler),
        cmocka_unit_test(test_preemption_end_to_end),
        cmocka_unit_test(test_preemption_policy_never),
        cmocka_unit_test(test_preemption_respects_pdb),
        cmocka_unit_test(test_two_preemptors_one_node),
        cmocka_unit_test(test_nominated_anti_affinity_holds_the_node),
        cmocka_unit_test(test_preemption_rejects_waiting_victim),
        cmocka_unit_test(test_preemption_error_backs_off),
        cmocka_unit_test(test_reporter_error_and_post_filter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
