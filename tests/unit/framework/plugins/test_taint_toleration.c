#include "testutil.h"

#include "api/toleration.h"
#include "backend/queue.h"
#include "moonsched/plugin.h"

/* Tolerations and taints written as upstream's test tables: strings, NULL
 * for absent. */
typedef struct tol_spec {
    const char *key, *op, *value, *effect;
} tol_spec;
typedef struct taint_spec {
    const char *key, *value, *effect;
} taint_spec;

#define MAXT 4

static ms_interner *in;

static ms_str S(const char *s) { return s ? ms_intern_cstr(in, s) : MS_STR_NONE; }

static uint8_t effect_of(const char *e) {
    if (!e || !*e) return MS_EFFECT_NONE;
    if (strcmp(e, "NoSchedule") == 0) return MS_EFFECT_NO_SCHEDULE;
    if (strcmp(e, "PreferNoSchedule") == 0) return MS_EFFECT_PREFER_NO_SCHEDULE;
    if (strcmp(e, "NoExecute") == 0) return MS_EFFECT_NO_EXECUTE;
    fail_msg("effect %s", e);
    return 0;
}

static ms_toleration make_tol(const tol_spec *t) {
    ms_toleration r = {0};
    r.key = S(t->key);
    r.value = S(t->value);
    r.op = t->op && strcmp(t->op, "Exists") == 0 ? MS_TOL_EXISTS : MS_TOL_EQUAL;
    r.effect = effect_of(t->effect);
    return r;
}

/* With the reason text the decoder builds: "{key: value}". */
static ms_taint make_taint(ms_arena *a, const taint_spec *t) {
    ms_taint r = {0};
    r.key = S(t->key);
    r.value = S(t->value);
    r.effect = effect_of(t->effect);
    char buf[256];
    snprintf(buf, sizeof buf, "node(s) had untolerated taint {%s: %s}", t->key,
             t->value ? t->value : "");
    r.reason = ms_arena_strdup(a, buf);
    return r;
}

static ms_pod *pod_with(const tol_spec *tols) {
    ms_pod *p = ms_pod_alloc();
    uint32_t n = 0;
    while (tols && n < MAXT && (tols[n].key || tols[n].op || tols[n].effect)) n++;
    p->ntolerations = n;
    p->tolerations = n ? MS_ARENA_NEW(&p->arena, ms_toleration, n) : NULL;
    for (uint32_t i = 0; i < n; i++) p->tolerations[i] = make_tol(&tols[i]);
    return p;
}

static ms_node *node_with(const char *name, const taint_spec *taints) {
    ms_node *n = ms_node_alloc();
    n->meta.name = S(name);
    uint32_t k = 0;
    while (taints && k < MAXT && taints[k].key) k++;
    n->ntaints = k;
    n->taints = k ? MS_ARENA_NEW(&n->arena, ms_taint, k) : NULL;
    for (uint32_t i = 0; i < k; i++) n->taints[i] = make_taint(&n->arena, &taints[i]);
    return n;
}

/* A plugin instance and a cycle around one pod. */
typedef struct harness {
    const ms_plugin_ops *ops;
    void *self;
    ms_handle h;
    ms_arena arena;
    void *slots[1];
    ms_cycle c;
} harness;

static void harness_init(harness *hx, const char *plugin, ms_pod *pod) {
    memset(hx, 0, sizeof *hx);
    hx->ops = ms_plugin_lookup(plugin);
    assert_non_null(hx->ops);
    hx->h.in = in;
    hx->h.wildcard_ip = S("0.0.0.0");
    if (hx->ops->create) {
        ms_error err = {0};
        assert_int_equal(hx->ops->create(NULL, &hx->h, &hx->self, &err), MS_OK);
    }
    ms_arena_init(&hx->arena, 1024);
    hx->c.pod = pod;
    hx->c.arena = &hx->arena;
    hx->c.state = hx->slots;
    hx->c.h = &hx->h;
}

static void harness_free(harness *hx) {
    if (hx->ops->destroy) hx->ops->destroy(hx->self);
    ms_arena_free(&hx->arena);
}

static ms_code run_filter(harness *hx, ms_node *node, ms_status *st) {
    ms_node_info ni = {0};
    ni.name = node ? node->meta.name : S("unknown");
    ni.node = node;
    ms_status_ok(st);
    return hx->ops->filter(hx->self, &hx->c, &ni, st);
}

static int setup(void **state) {
    (void)state;
    in = ms_interner_new();
    return 0;
}

static int teardown(void **state) {
    (void)state;
    ms_interner_free(in);
    return 0;
}

/* ---- toleration matching (upstream TestTolerationToleratesTaint and edges) ---- */

static void test_toleration_tolerates_taint(void **state) {
    (void)state;
    static const struct {
        const char *name;
        tol_spec tol;
        taint_spec taint;
        bool want;
    } cases[] = {
        {"same key and effect, Exists, taint without value",
         {"foo", "Exists", NULL, "NoSchedule"}, {"foo", NULL, "NoSchedule"}, true},
        {"same key and effect, Exists, taint with a value",
         {"foo", "Exists", NULL, "NoSchedule"}, {"foo", "bar", "NoSchedule"}, true},
        {"empty key with Exists matches every key",
         {"", "Exists", NULL, "NoSchedule"}, {"foo", "bar", "NoSchedule"}, true},
        {"same key, value and effect, Equal",
         {"foo", "Equal", "bar", "NoSchedule"}, {"foo", "bar", "NoSchedule"}, true},
        {"different values, Equal",
         {"foo", "Equal", "value1", "NoSchedule"}, {"foo", "value2", "NoSchedule"}, false},
        {"different effects",
         {"foo", "Equal", "bar", "NoSchedule"}, {"foo", "bar", "NoExecute"}, false},
        {"empty operator means Equal",
         {"foo", NULL, "bar", "NoSchedule"}, {"foo", "bar", "NoSchedule"}, true},
        {"empty effect matches every effect",
         {"foo", "Equal", "bar", NULL}, {"foo", "bar", "PreferNoSchedule"}, true},
        {"empty key, Exists, empty effect tolerates everything",
         {NULL, "Exists", NULL, NULL}, {"anything", "x", "NoExecute"}, true},
        {"empty key with Exists still checks the effect",
         {NULL, "Exists", NULL, "NoSchedule"}, {"foo", "bar", "NoExecute"}, false},
        {"different keys",
         {"foo", "Exists", NULL, NULL}, {"bar", NULL, "NoSchedule"}, false},
        {"Equal with no value matches a taint with no value",
         {"foo", "Equal", NULL, "NoSchedule"}, {"foo", NULL, "NoSchedule"}, true},
        {"Equal with an empty value matches a taint with no value",
         {"foo", "Equal", "", "NoSchedule"}, {"foo", NULL, "NoSchedule"}, true},
        {"Equal with a value does not match a taint with no value",
         {"foo", "Equal", "bar", "NoSchedule"}, {"foo", NULL, "NoSchedule"}, false},
        {"Exists ignores the toleration's value",
         {"foo", "Exists", "other", "NoSchedule"}, {"foo", "bar", "NoSchedule"}, true},
        {"empty key with Equal compares values only",
         {NULL, "Equal", "bar", NULL}, {"foo", "bar", "NoSchedule"}, true},
    };
    ms_arena a;
    ms_arena_init(&a, 1024);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_toleration t = make_tol(&cases[i].tol);
        ms_taint taint = make_taint(&a, &cases[i].taint);
        if (ms_toleration_tolerates_taint(&t, &taint) != cases[i].want)
            fail_msg("%s: want %d", cases[i].name, cases[i].want);
        assert_int_equal(ms_tolerations_tolerate_taint(&t, 1, &taint), cases[i].want);
    }
    ms_arena_free(&a);
}

static void test_find_untolerated_taint(void **state) {
    (void)state;
    ms_arena a;
    ms_arena_init(&a, 1024);
    taint_spec specs[] = {
        {"soft", "x", "PreferNoSchedule"},
        {"ok", "y", "NoSchedule"},
        {"evict", NULL, "NoExecute"},
        {"hard", "z", "NoSchedule"},
    };
    ms_taint taints[4];
    for (int i = 0; i < 4; i++) taints[i] = make_taint(&a, &specs[i]);
    ms_toleration tols[] = {make_tol(&(tol_spec){"ok", "Exists", NULL, NULL})};
    /* PreferNoSchedule is not considered; the first untolerated one is returned. */
    assert_ptr_equal(ms_find_untolerated_taint(taints, 4, tols, 1, MS_DO_NOT_SCHEDULE_EFFECTS), &taints[2]);
    assert_ptr_equal(ms_find_untolerated_taint(taints, 4, tols, 1,
                                               MS_EFFECT_BIT(MS_EFFECT_NO_SCHEDULE)), &taints[3]);
    assert_ptr_equal(ms_find_untolerated_taint(taints, 4, NULL, 0,
                                               MS_EFFECT_BIT(MS_EFFECT_PREFER_NO_SCHEDULE)), &taints[0]);
    ms_toleration all = make_tol(&(tol_spec){NULL, "Exists", NULL, NULL});
    assert_null(ms_find_untolerated_taint(taints, 4, &all, 1, MS_DO_NOT_SCHEDULE_EFFECTS));
    assert_null(ms_find_untolerated_taint(NULL, 0, NULL, 0, MS_DO_NOT_SCHEDULE_EFFECTS));
    ms_arena_free(&a);
}

/* ---- TaintToleration ---- */

static void test_taint_toleration_filter(void **state) {
    (void)state;
    static const struct {
        const char *name;
        tol_spec tols[MAXT];
        taint_spec taints[MAXT];
        const char *want;   /* NULL: fits */
    } cases[] = {
        {"no tolerations, a NoSchedule taint", {{0}}, {{"dedicated", "user1", "NoSchedule"}},
         "node(s) had untolerated taint {dedicated: user1}"},
        {"tolerated dedicated node", {{"dedicated", NULL, "user1", "NoSchedule"}},
         {{"dedicated", "user1", "NoSchedule"}}, NULL},
        {"toleration for another user", {{"dedicated", "Equal", "user2", "NoSchedule"}},
         {{"dedicated", "user1", "NoSchedule"}}, "node(s) had untolerated taint {dedicated: user1}"},
        {"Exists tolerates the taint", {{"foo", "Exists", NULL, "NoSchedule"}},
         {{"foo", "bar", "NoSchedule"}}, NULL},
        {"every taint tolerated",
         {{"dedicated", "Equal", "user2", "NoSchedule"}, {"foo", "Exists", NULL, "NoSchedule"}},
         {{"dedicated", "user2", "NoSchedule"}, {"foo", "bar", "NoSchedule"}}, NULL},
        {"key and value match but the effect does not",
         {{"foo", "Equal", "bar", "PreferNoSchedule"}}, {{"foo", "bar", "NoSchedule"}},
         "node(s) had untolerated taint {foo: bar}"},
        {"empty toleration effect", {{"foo", "Equal", "bar", NULL}}, {{"foo", "bar", "NoSchedule"}}, NULL},
        {"PreferNoSchedule taints do not filter", {{"dedicated", "Equal", "user2", "NoSchedule"}},
         {{"dedicated", "user1", "PreferNoSchedule"}}, NULL},
        {"no tolerations, PreferNoSchedule only", {{0}}, {{"dedicated", "user1", "PreferNoSchedule"}}, NULL},
        {"NoExecute taints filter too", {{"a", "Exists", NULL, "NoSchedule"}},
         {{"a", NULL, "NoSchedule"}, {"b", NULL, "NoExecute"}}, "node(s) had untolerated taint {b: }"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_pod *pod = pod_with(cases[i].tols);
        ms_node *node = node_with("nodeA", cases[i].taints);
        harness hx;
        harness_init(&hx, "TaintToleration", pod);
        ms_status st;
        ms_code code = run_filter(&hx, node, &st);
        if (cases[i].want) {
            if (code != MS_UNSCHEDULABLE_AND_UNRESOLVABLE) fail_msg("%s: code %d", cases[i].name, code);
            assert_int_equal(st.nreasons, 1);
            assert_string_equal(st.reasons[0], cases[i].want);
        } else if (code != MS_SUCCESS) {
            fail_msg("%s: code %d", cases[i].name, code);
        }
        harness_free(&hx);
        ms_node_unref(node);
        ms_pod_unref(pod);
    }
}

static void test_taint_toleration_score(void **state) {
    (void)state;
    static const struct {
        const char *name;
        tol_spec tols[MAXT];
        taint_spec taints[3][MAXT];
        int64_t want[3];
        uint32_t nnodes;
    } cases[] = {
        {"tolerated taints score higher than intolerable ones",
         {{"foo", "Equal", "bar", "PreferNoSchedule"}},
         {{{"foo", "bar", "PreferNoSchedule"}}, {{"foo", "blah", "PreferNoSchedule"}}},
         {100, 0}, 2},
        {"the number of tolerated taints does not matter",
         {{"cpu-type", "Equal", "arm64", "PreferNoSchedule"}, {"disk-type", "Equal", "ssd", "PreferNoSchedule"}},
         {{{0}}, {{"cpu-type", "arm64", "PreferNoSchedule"}},
          {{"cpu-type", "arm64", "PreferNoSchedule"}, {"disk-type", "ssd", "PreferNoSchedule"}}},
         {100, 100, 100}, 3},
        {"more intolerable taints, lower score",
         {{"foo", "Equal", "bar", "PreferNoSchedule"}},
         {{{0}}, {{"cpu-type", "arm64", "PreferNoSchedule"}},
          {{"cpu-type", "arm64", "PreferNoSchedule"}, {"disk-type", "ssd", "PreferNoSchedule"}}},
         {100, 50, 0}, 3},
        {"only PreferNoSchedule taints and tolerations count",
         {{"cpu-type", "Equal", "arm64", "NoSchedule"}, {"disk-type", "Equal", "ssd", "NoSchedule"}},
         {{{0}}, {{"cpu-type", "arm64", "NoSchedule"}},
          {{"cpu-type", "arm64", "PreferNoSchedule"}, {"disk-type", "ssd", "PreferNoSchedule"}}},
         {100, 100, 0}, 3},
        {"no taints and no tolerations", {{0}},
         {{{0}}, {{"cpu-type", "arm64", "PreferNoSchedule"}}}, {100, 0}, 2},
        {"a toleration with an empty effect counts",
         {{"cpu-type", "Exists", NULL, NULL}},
         {{{"cpu-type", "arm64", "PreferNoSchedule"}}, {{"gpu", NULL, "PreferNoSchedule"}}},
         {100, 0}, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_pod *pod = pod_with(cases[i].tols);
        harness hx;
        harness_init(&hx, "TaintToleration", pod);
        ms_node *nodes[3] = {0};
        ms_node_info infos[3] = {{0}};
        ms_node_info *list[3];
        for (uint32_t k = 0; k < cases[i].nnodes; k++) {
            nodes[k] = node_with("n", cases[i].taints[k]);
            infos[k].node = nodes[k];
            list[k] = &infos[k];
        }
        ms_status st;
        int64_t scores[3] = {-1, -1, -1};
        assert_int_equal(hx.ops->pre_score(hx.self, &hx.c, list, cases[i].nnodes, &st), MS_SUCCESS);
        assert_int_equal(hx.ops->score(hx.self, &hx.c, list, cases[i].nnodes, scores, &st), MS_SUCCESS);
        assert_int_equal(hx.ops->normalize_score(hx.self, &hx.c, scores, cases[i].nnodes, &st), MS_SUCCESS);
        for (uint32_t k = 0; k < cases[i].nnodes; k++)
            if (scores[k] != cases[i].want[k])
                fail_msg("%s: node %u scored %lld, want %lld", cases[i].name, k,
                         (long long)scores[k], (long long)cases[i].want[k]);
        for (uint32_t k = 0; k < cases[i].nnodes; k++) ms_node_unref(nodes[k]);
        harness_free(&hx);
        ms_pod_unref(pod);
    }
}

static void test_taint_toleration_score_without_pre_score(void **state) {
    (void)state;
    ms_pod *pod = pod_with(NULL);
    harness hx;
    harness_init(&hx, "TaintToleration", pod);
    ms_status st;
    int64_t s[1];
    ms_node_info ni = {0};
    ms_node_info *list[] = {&ni};
    assert_int_equal(hx.ops->score(hx.self, &hx.c, list, 1, s, &st), MS_ERROR);
    harness_free(&hx);
    ms_pod_unref(pod);
}

/* ---- NodeUnschedulable ---- */

static void test_node_unschedulable(void **state) {
    (void)state;
    static const struct {
        const char *name;
        bool unschedulable;
        tol_spec tols[MAXT];
        bool fits;
    } cases[] = {
        {"unschedulable node", true, {{0}}, false},
        {"normal node", false, {{0}}, true},
        {"pod tolerates the unschedulable taint", true,
         {{"node.kubernetes.io/unschedulable", NULL, NULL, "NoSchedule"}}, true},
        {"Exists toleration for every taint", true, {{NULL, "Exists", NULL, NULL}}, true},
        {"toleration for another effect", true,
         {{"node.kubernetes.io/unschedulable", "Exists", NULL, "NoExecute"}}, false},
        {"toleration for another key", true, {{"node.kubernetes.io/not-ready", "Exists", NULL, NULL}}, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_pod *pod = pod_with(cases[i].tols);
        ms_node *node = node_with("n", NULL);
        node->unschedulable = cases[i].unschedulable;
        harness hx;
        harness_init(&hx, "NodeUnschedulable", pod);
        ms_status st;
        ms_code code = run_filter(&hx, node, &st);
        if (cases[i].fits != (code == MS_SUCCESS)) fail_msg("%s: code %d", cases[i].name, code);
        if (!cases[i].fits) {
            assert_int_equal(code, MS_UNSCHEDULABLE_AND_UNRESOLVABLE);
            assert_string_equal(st.reasons[0], "node(s) were unschedulable");
        }
        harness_free(&hx);
        ms_node_unref(node);
        ms_pod_unref(pod);
    }
}

/* ---- NodeName ---- */

static void test_node_name(void **state) {
    (void)state;
    static const struct {
        const char *name, *pod_node, *node;
        bool fits;
    } cases[] = {
        {"no host specified", NULL, "foo", true},
        {"host matches", "foo", "foo", true},
        {"host doesn't match", "bar", "foo", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_pod *pod = pod_with(NULL);
        pod->node_name = S(cases[i].pod_node);
        ms_node *node = node_with(cases[i].node, NULL);
        harness hx;
        harness_init(&hx, "NodeName", pod);
        ms_status st;
        ms_code code = run_filter(&hx, node, &st);
        if (cases[i].fits) {
            assert_int_equal(code, MS_SUCCESS);
        } else {
            assert_int_equal(code, MS_UNSCHEDULABLE_AND_UNRESOLVABLE);
            assert_string_equal(st.reasons[0], "node(s) didn't match the requested node name");
        }
        harness_free(&hx);
        ms_node_unref(node);
        ms_pod_unref(pod);
    }
}

/* ---- NodePorts (upstream TestNodePorts) ---- */

#define MAXP 3
typedef struct port_spec {
    const char *proto, *ip;
    int32_t port;
} port_spec;

static uint8_t proto_of(const char *p) {
    return strcmp(p, "UDP") == 0 ? MS_PROTO_UDP : strcmp(p, "SCTP") == 0 ? MS_PROTO_SCTP : MS_PROTO_TCP;
}

static void test_node_ports(void **state) {
    (void)state;
    static const struct {
        const char *name;
        port_spec want[MAXP], used[MAXP];
        bool fits;
    } cases[] = {
        {"other port", {{"UDP", "127.0.0.1", 8080}}, {{"UDP", "127.0.0.1", 9090}}, true},
        {"same udp port", {{"UDP", "127.0.0.1", 8080}}, {{"UDP", "127.0.0.1", 8080}}, false},
        {"same tcp port", {{"TCP", "127.0.0.1", 8080}}, {{"TCP", "127.0.0.1", 8080}}, false},
        {"different host ip", {{"TCP", "127.0.0.1", 8080}}, {{"TCP", "127.0.0.2", 8080}}, true},
        {"different protocol", {{"UDP", "127.0.0.1", 8080}}, {{"TCP", "127.0.0.1", 8080}}, true},
        {"second udp port conflict", {{"UDP", "127.0.0.1", 8000}, {"UDP", "127.0.0.1", 8080}},
         {{"UDP", "127.0.0.1", 8080}}, false},
        {"first tcp port conflict", {{"TCP", "127.0.0.1", 8001}, {"UDP", "127.0.0.1", 8080}},
         {{"TCP", "127.0.0.1", 8001}, {"UDP", "127.0.0.1", 8081}}, false},
        {"first tcp port conflict due to 0.0.0.0 hostIP", {{"TCP", "0.0.0.0", 8001}},
         {{"TCP", "127.0.0.1", 8001}}, false},
        {"TCP hostPort conflict due to 0.0.0.0 hostIP", {{"TCP", "10.0.10.10", 8001}, {"TCP", "0.0.0.0", 8001}},
         {{"TCP", "127.0.0.1", 8001}}, false},
        {"second tcp port conflict to 0.0.0.0 hostIP", {{"TCP", "127.0.0.1", 8001}},
         {{"TCP", "0.0.0.0", 8001}}, false},
        {"second different protocol", {{"UDP", "127.0.0.1", 8001}}, {{"TCP", "0.0.0.0", 8001}}, true},
        {"UDP hostPort conflict due to 0.0.0.0 hostIP", {{"UDP", "127.0.0.1", 8001}},
         {{"TCP", "0.0.0.0", 8001}, {"UDP", "0.0.0.0", 8001}}, false},
        {"no hostIP means every address", {{"TCP", NULL, 8001}}, {{"TCP", "127.0.0.1", 8001}}, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_pod *pod = pod_with(NULL);
        uint32_t nw = 0, nu = 0;
        while (nw < MAXP && cases[i].want[nw].port) nw++;
        while (nu < MAXP && cases[i].used[nu].port) nu++;
        pod->nhost_ports = nw;
        pod->host_ports = MS_ARENA_NEW(&pod->arena, ms_host_port, nw);
        for (uint32_t k = 0; k < nw; k++)
            pod->host_ports[k] = (ms_host_port){S(cases[i].want[k].ip), cases[i].want[k].port,
                                                proto_of(cases[i].want[k].proto)};
        ms_used_port used[MAXP];
        for (uint32_t k = 0; k < nu; k++)
            used[k] = (ms_used_port){S(cases[i].used[k].ip), proto_of(cases[i].used[k].proto),
                                     cases[i].used[k].port, 1};
        ms_node *node = node_with("n", NULL);
        ms_node_info ni = {.name = node->meta.name, .node = node, .nports = nu, .ports = used};
        harness hx;
        harness_init(&hx, "NodePorts", pod);
        ms_status st;
        ms_status_ok(&st);
        assert_int_equal(hx.ops->pre_filter(hx.self, &hx.c, &st), MS_SUCCESS);
        ms_code code = hx.ops->filter(hx.self, &hx.c, &ni, &st);
        if (cases[i].fits != (code == MS_SUCCESS)) fail_msg("%s: code %d", cases[i].name, code);
        if (!cases[i].fits) {
            assert_int_equal(code, MS_UNSCHEDULABLE);
            assert_string_equal(st.reasons[0], "node(s) didn't have free ports for the requested pod ports");
        }
        harness_free(&hx);
        ms_node_unref(node);
        ms_pod_unref(pod);
    }
}

/* A pod without host ports has nothing to check: PreFilter skips Filter. */
static void test_node_ports_skip_without_ports(void **state) {
    (void)state;
    ms_pod *pod = pod_with(NULL);
    harness hx;
    harness_init(&hx, "NodePorts", pod);
    ms_status st;
    assert_int_equal(hx.ops->pre_filter(hx.self, &hx.c, &st), MS_SKIP);
    harness_free(&hx);
    ms_pod_unref(pod);
}

/* ---- PrioritySort (upstream TestLess) ---- */

static void test_priority_sort(void **state) {
    (void)state;
    static const struct {
        const char *name;
        int32_t p1, p2;
        double t1, t2;
        bool want;
    } cases[] = {
        {"p1.priority less than p2.priority", 100, 1000, 0, 0, false},
        {"p1.priority greater than p2.priority", 1000, 100, 0, 0, true},
        {"equal priority, p1 added earlier", 1000, 1000, 1, 2, true},
        {"equal priority, p2 added earlier", 1000, 1000, 2, 1, false},
        {"equal priority and time", 5, 5, 1, 1, false},
        {"negative priorities", -10, -5, 0, 0, false},
    };
    const ms_plugin_ops *ops = ms_plugin_lookup("PrioritySort");
    assert_non_null(ops);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_pod a = {0}, b = {0};
        a.priority = cases[i].p1;
        b.priority = cases[i].p2;
        ms_queued_pod q1 = {.pod = &a, .timestamp = cases[i].t1}, q2 = {.pod = &b, .timestamp = cases[i].t2};
        if (ops->less(NULL, &q1, &q2) != cases[i].want) fail_msg("%s", cases[i].name);
    }
}

/* Every plugin that can reject a pod says which events may help it, so that
 * the pod is not retried on every event. */
static void test_rejecting_plugins_declare_events(void **state) {
    (void)state;
    for (uint32_t i = 0; ms_plugin_at(i); i++) {
        const ms_plugin_ops *o = ms_plugin_at(i);
        if (o->filter || o->pre_filter) assert_int_not_equal(o->events, 0);
    }
    assert_true(ms_plugin_lookup("NodePorts")->events & MS_EV_ASSIGNED_POD_DELETE);
    assert_true(ms_plugin_lookup("TaintToleration")->events & MS_EV_NODE_TAINT);
    assert_true(ms_plugin_lookup("NodeUnschedulable")->events & MS_EV_NODE_UNSCHEDULABLE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_toleration_tolerates_taint),
        cmocka_unit_test(test_find_untolerated_taint),
        cmocka_unit_test(test_taint_toleration_filter),
        cmocka_unit_test(test_taint_toleration_score),
        cmocka_unit_test(test_taint_toleration_score_without_pre_score),
        cmocka_unit_test(test_node_unschedulable),
        cmocka_unit_test(test_node_name),
        cmocka_unit_test(test_node_ports),
        cmocka_unit_test(test_node_ports_skip_without_ports),
        cmocka_unit_test(test_priority_sort),
        cmocka_unit_test(test_rejecting_plugins_declare_events),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
