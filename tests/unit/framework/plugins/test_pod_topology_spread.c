/* PodTopologySpread with upstream's worked examples (filtering_test.go,
 * scoring_test.go): pods and nodes decoded from text, NodeInfos from the
 * real cache and snapshot, the plugin called through its ops.
 *
 * Nodes and existing pods are written compactly:
 *   node: "NAME key=value ... [taint]"  (taint: node.kubernetes.io/unschedulable:NoSchedule)
 *   pod:  "NAME NODE key=value ... [@NAMESPACE] [term] [rs|ss]"
 *         (term: being deleted; rs / ss: controlled by a ReplicaSet / StatefulSet)
 * The incoming pod is YAML (see the macros). */
#include "testutil.h"

#include "fixtures.h"
#include "api/workload_set.h"
#include "base/array.h"
#include "backend/cache.h"
#include "backend/cache_snapshot.h"
#include "framework/plugins/builtin.h"
#include "framework/plugins/pod_topology_spread.h"

/* Table rows leave trailing fields (arguments, expectations) out. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

static const ms_plugin_ops *const OPS = &ms_plugin_pod_topology_spread;

#define H "kubernetes.io/hostname"
#define ZONE "topology.kubernetes.io/zone"
#define FOO "{matchExpressions: [{key: foo, operator: Exists}]}"
#define BAR "{matchExpressions: [{key: bar, operator: Exists}]}"
#define SEL(s) ", labelSelector: " s
#define SPREAD(skew, key, when, rest) \
    "{maxSkew: " #skew ", topologyKey: '" key "', whenUnsatisfiable: " when rest "}"
#define HARD(skew, key, s) SPREAD(skew, key, "DoNotSchedule", SEL(s))
#define SOFT(skew, key, s) SPREAD(skew, key, "ScheduleAnyway", SEL(s))
#define TSC(...) "topologySpreadConstraints: [" JOIN(__VA_ARGS__) "]"
#define JOIN(...) PICK(__VA_ARGS__, J4, J3, J2, J1, unused)(__VA_ARGS__)
#define PICK(a, b, c, d, name, ...) name
#define J1(a) a
#define J2(a, b) a ", " b
#define J3(a, b, c) a ", " b ", " c
#define J4(a, b, c, d) a ", " b ", " c ", " d
#define POD(labels, spec) "metadata: {name: p, uid: p, labels: {" labels "}}\nspec: {" spec "}"
#define FOO_L "foo: ''"
#define NODE_AFFINITY(key, op, values)                                                           \
    "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: " \
    "[{matchExpressions: [{key: " key ", operator: " op ", values: " values "}]}]}}}, "
#define LIST_ARGS "{\"defaultingType\": \"List\"}"

#define N4_ITEMS "node-a zone=zone1 node=node-a", "node-b zone=zone1 node=node-b", \
                 "node-x zone=zone2 node=node-x", "node-y zone=zone2 node=node-y"
#define N4 {N4_ITEMS}
#define MAXN 8
#define MAXP 16

typedef struct fx {
    fx_env env;
    ms_handle h;
    ms_cache *cache;
    ms_snapshot snap;
    ms_arena arena;
    void *slots[1];
    ms_cycle c;
    void *pl;
    ms_workload_set *workloads;
} fx;

static void fx_start(fx *f) {
    memset(f, 0, sizeof *f);
    fx_env_init(&f->env);
    f->h.in = f->env.in;
    f->h.rn = &f->env.d.rn;
    f->cache = ms_cache_new(f->env.in, 0);
    ms_snapshot_init(&f->snap);
    ms_arena_init(&f->arena, 4096);
}

static void fx_stop(fx *f) {
    if (f->pl) OPS->destroy(f->pl);
    ms_workload_set_free(f->workloads);
    ms_arena_free(&f->arena);
    ms_cache_free(f->cache);
    ms_snapshot_free(&f->snap);
    fx_env_free(&f->env);
}

static ms_str S(fx *f, const char *s) { return ms_intern_cstr(f->env.in, s); }

/* Splits spec into tokens (modifies buf). */
static int tokens(char *buf, char **tok, int max) {
    int n = 0;
    for (char *t = strtok(buf, " "); t && n < max; t = strtok(NULL, " ")) tok[n++] = t;
    return n;
}

static void add_label(cJSON *labels, const char *kv) {
    const char *eq = strchr(kv, '=');
    if (!eq) fail_msg("label without '=': %s", kv);
    char key[128];
    snprintf(key, sizeof key, "%.*s", (int)(eq - kv), kv);
    cJSON_AddStringToObject(labels, key, eq + 1);
}

static ms_node *make_node(fx *f, const char *spec) {
    char buf[256], *tok[16] = {0};
    snprintf(buf, sizeof buf, "%s", spec);
    int n = tokens(buf, tok, 16);
    assert_true(n >= 1);
    cJSON *o = cJSON_CreateObject();
    cJSON *meta = cJSON_AddObjectToObject(o, "metadata");
    cJSON_AddStringToObject(meta, "name", tok[0]);
    cJSON *labels = cJSON_AddObjectToObject(meta, "labels");
    for (int i = 1; i < n; i++) {
        if (strcmp(tok[i], "taint") == 0) {
            cJSON *t = cJSON_CreateObject();
            cJSON_AddStringToObject(t, "key", "node.kubernetes.io/unschedulable");
            cJSON_AddStringToObject(t, "effect", "NoSchedule");
            cJSON *taints = cJSON_AddArrayToObject(cJSON_AddObjectToObject(o, "spec"), "taints");
            cJSON_AddItemToArray(taints, t);
        } else {
            add_label(labels, tok[i]);
        }
    }
    char *text = cJSON_PrintUnformatted(o);
    ms_node *node = fx_node(&f->env.d, text);
    free(text);
    cJSON_Delete(o);
    return node;
}

static ms_pod *make_pod(fx *f, const char *spec) {
    char buf[256], *tok[16] = {0};
    snprintf(buf, sizeof buf, "%s", spec);
    int n = tokens(buf, tok, 16);
    assert_true(n >= 1);
    cJSON *o = cJSON_CreateObject();
    cJSON *meta = cJSON_AddObjectToObject(o, "metadata");
    cJSON_AddStringToObject(meta, "name", tok[0]);
    cJSON *labels = cJSON_AddObjectToObject(meta, "labels");
    cJSON *spec_o = cJSON_AddObjectToObject(o, "spec");
    if (strcmp(tok[1], "-") != 0) cJSON_AddStringToObject(spec_o, "nodeName", tok[1]);
    for (int i = 2; i < n; i++) {
        if (tok[i][0] == '@') {
            cJSON_AddStringToObject(meta, "namespace", tok[i] + 1);
        } else if (strcmp(tok[i], "term") == 0) {
            cJSON_AddStringToObject(meta, "deletionTimestamp", "2024-01-01T00:00:00Z");
        } else if (strcmp(tok[i], "rs") == 0 || strcmp(tok[i], "ss") == 0) {
            cJSON *owners = cJSON_AddArrayToObject(meta, "ownerReferences");
            cJSON *r = cJSON_CreateObject();
            cJSON_AddStringToObject(r, "apiVersion", "apps/v1");
            cJSON_AddStringToObject(r, "kind", tok[i][0] == 'r' ? "ReplicaSet" : "StatefulSet");
            cJSON_AddStringToObject(r, "name", "owner");
            cJSON_AddStringToObject(r, "uid", "owner-uid");
            cJSON_AddBoolToObject(r, "controller", true);
            cJSON_AddItemToArray(owners, r);
        } else {
            add_label(labels, tok[i]);
        }
    }
    char *text = cJSON_PrintUnformatted(o);
    ms_pod *pod = fx_pod(&f->env.d, text);
    free(text);
    cJSON_Delete(o);
    return pod;
}

static void add_nodes(fx *f, const char *const *specs) {
    for (int i = 0; i < MAXN && specs[i]; i++) {
        ms_node *n = make_node(f, specs[i]);
        assert_int_equal(ms_cache_add_node(f->cache, n), MS_OK);
        ms_node_unref(n);
    }
}

static void add_pods(fx *f, const char *const *specs) {
    for (int i = 0; i < MAXP && specs[i]; i++) {
        ms_pod *p = make_pod(f, specs[i]);
        assert_int_equal(ms_cache_add_pod(f->cache, p), MS_OK);
        ms_pod_unref(p);
    }
}

/* Services, ReplicationControllers, ReplicaSets, StatefulSets (YAML with
 * their kind) into the set the plugin reads; before create. */
static void add_workloads(fx *f, const char *const *texts) {
    for (int i = 0; i < 4 && texts[i]; i++) {
        if (!f->workloads) assert_non_null(f->workloads = ms_workload_set_new());
        ms_workload *w = fx_workload(&f->env.d, -1, texts[i]);
        assert_int_equal(ms_workload_set_update(f->workloads, w), MS_OK);
        ms_workload_unref(w);
        f->h.workloads = f->workloads;
    }
}

static void update(fx *f) { assert_int_equal(ms_cache_update_snapshot(f->cache, &f->snap), MS_OK); }

static ms_rc create(fx *f, const char *args, ms_error *err) {
    cJSON *j = args ? cJSON_Parse(args) : NULL;
    if (args) assert_non_null(j);
    ms_rc rc = OPS->create(j, &f->h, &f->pl, err);
    cJSON_Delete(j);
    return rc;
}

static void create_ok(fx *f, const char *args) {
    ms_error err = {0};
    if (create(f, args, &err) != MS_OK) fail_msg("create: %s", err.msg);
}

static void begin(fx *f, ms_pod *pod) {
    ms_arena_reset(&f->arena);
    f->slots[0] = NULL;
    f->c = (ms_cycle){.pod = pod, .snap = &f->snap, .arena = &f->arena, .state = f->slots,
                      .current = 0, .h = &f->h};
}

static ms_node_info *node_info(fx *f, const char *spec) {
    char name[64];
    snprintf(name, sizeof name, "%s", spec);
    char *sp = strchr(name, ' ');
    if (sp) *sp = 0;
    ms_node_info *ni = ms_snapshot_get(&f->snap, S(f, name));
    if (!ni) fail_msg("no node %s in the snapshot", name);
    return ni;
}

static char code_letter(ms_code c) {
    switch (c) {
    case MS_SUCCESS: return 'S';
    case MS_UNSCHEDULABLE: return 'U';
    case MS_UNSCHEDULABLE_AND_UNRESOLVABLE: return 'X';
    case MS_SKIP: return 'K';
    default: return 'E';
    }
}

/* ---- Filter ---- */

typedef struct filter_case {
    const char *name;
    const char *pod;
    const char *nodes[MAXN];
    const char *pods[MAXP];
    /* One letter per node: S Success, U Unschedulable, X UnschedulableAndUnresolvable. */
    const char *want;
} filter_case;

/* Filter of every node, as letters. */
static void filter_all(fx *f, const filter_case *tc, ms_pod *pod, char *got) {
    ms_status st;
    int i = 0;
    for (; i < MAXN && tc->nodes[i]; i++) {
        ms_status_ok(&st);
        ms_code code = OPS->filter(f->pl, &f->c, node_info(f, tc->nodes[i]), &st);
        got[i] = code_letter(code);
        if (code == MS_UNSCHEDULABLE)
            assert_string_equal(st.reasons[0], "node(s) didn't match pod topology spread constraints");
        if (code == MS_UNSCHEDULABLE_AND_UNRESOLVABLE)
            assert_string_equal(st.reasons[0], "node(s) didn't match pod topology spread constraints "
                                               "(missing required label)");
    }
    got[i] = 0;
    (void)pod;
}

static void run_filter_cases(const filter_case *cases, size_t n) {
    for (size_t k = 0; k < n; k++) {
        const filter_case *tc = &cases[k];
        fx f;
        fx_start(&f);
        add_nodes(&f, tc->nodes);
        add_pods(&f, tc->pods);
        update(&f);
        create_ok(&f, LIST_ARGS);
        ms_pod *pod = fx_pod(&f.env.d, tc->pod);
        begin(&f, pod);
        ms_status st;
        ms_status_ok(&st);
        ms_code code = OPS->pre_filter(f.pl, &f.c, &st);
        if (code != MS_SUCCESS) fail_msg("%s: PreFilter returned %c", tc->name, code_letter(code));
        char got[MAXN + 1];
        filter_all(&f, tc, pod, got);
        if (strcmp(got, tc->want) != 0) fail_msg("%s: got %s, want %s", tc->name, got, tc->want);
        ms_pod_unref(pod);
        fx_stop(&f);
    }
}

/* filtering_test.go TestSingleConstraint. */
static void test_filter_single_constraint(void **state) {
    (void)state;
    static const filter_case cases[] = {
        {"no existing pods", POD(FOO_L, TSC(HARD(1, "zone", FOO))), N4, {0}, "SSSS"},
        {"no existing pods, incoming pod doesn't match itself", POD(FOO_L, TSC(HARD(1, "zone", BAR))),
         N4, {0}, "SSSS"},
        {"existing pods in a different namespace do not count", POD(FOO_L, TSC(HARD(1, "zone", FOO))),
         N4, {"p-a1 node-a foo= @ns1", "p-b1 node-a foo= @ns2", "p-x1 node-x foo=", "p-y1 node-y foo="},
         "SSUU"},
        {"existing pods do not match null selector",
         POD(FOO_L, TSC(SPREAD(1, "zone", "DoNotSchedule", ""))), N4,
         {"p-x1 node-x foo=", "p-y1 node-y foo="}, "SSSS"},
        {"pods spread across zones as 3/3, all nodes fit", POD(FOO_L, TSC(HARD(1, "zone", FOO))), N4,
         {"p-a1 node-a foo=", "p-a2 node-a foo=", "p-b1 node-b foo=", "p-y1 node-y foo=",
          "p-y2 node-y foo=", "p-y3 node-y foo="},
         "SSSS"},
        {"pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
         POD(FOO_L, TSC(HARD(1, "zone", FOO))),
         {"node-a zone=zone1 node=node-a", "node-b zon=zone1 node=node-b",
          "node-x zone=zone2 node=node-x", "node-y zone=zone2 node=node-y"},
         {"p-a1 node-a foo=", "p-b1 node-b foo=", "p-x1 node-x foo=", "p-y1 node-y foo="},
         "SXUU"},
        {"pod cannot be scheduled as all nodes don't have label 'rack'",
         POD(FOO_L, TSC(HARD(1, "rack", FOO))),
         {"node-a zone=zone1 node=node-a", "node-x zone=zone2 node=node-x"}, {0}, "XX"},
        {"pods spread across nodes as 2/1/0/3, only node-x fits", POD(FOO_L, TSC(HARD(1, "node", FOO))),
         N4,
         {"p-a1 node-a foo=", "p-a2 node-a foo=", "p-b1 node-b foo=", "p-y1 node-y foo=",
          "p-y2 node-y foo=", "p-y3 node-y foo="},
         "UUSU"},
        {"pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
         POD(FOO_L, TSC(HARD(2, "node", FOO))), N4,
         {"p-a1 node-a foo=", "p-a2 node-a foo=", "p-b1 node-b foo=", "p-y1 node-y foo=",
          "p-y2 node-y foo=", "p-y3 node-y foo="},
         "USSU"},
        {"pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
         POD("bar: ''", TSC(HARD(1, "node", FOO))), N4,
         {"p-a1 node-a foo=", "p-a2 node-a foo=", "p-b1 node-b foo=", "p-y1 node-y foo=",
          "p-y2 node-y foo=", "p-y3 node-y foo="},
         "USSU"},
        {"incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
         POD(FOO_L, NODE_AFFINITY("node", "In", "[node-a, node-y]") TSC(HARD(1, "node", FOO))), N4,
         {"p-a1 node-a foo=", "p-a2 node-a foo=", "p-b1 node-b foo=", "p-y1 node-y foo=",
          "p-y2 node-y foo=", "p-y3 node-y foo="},
         "SSSU"},
        {"terminating Pods should be excluded", POD(FOO_L, TSC(HARD(1, "node", FOO))),
         {"node-a node=node-a", "node-b node=node-b"}, {"p-a node-a foo= term", "p-b node-b foo="},
         "SU"},
        {"incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits",
         POD(FOO_L, NODE_AFFINITY("node", "NotIn", "[node-b]") TSC(HARD(1, "zone", FOO))), N4,
         {"p-b1 node-b foo=", "p-b2 node-b foo=", "p-y1 node-y foo="}, "SSUU"},
        {"pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains < minDomains",
         POD(FOO_L, TSC(SPREAD(2, "node", "DoNotSchedule", SEL(FOO) ", minDomains: 4"))),
         {"node-a node=node-a", "node-b node=node-b", "node-c node=node-c"},
         {"p-a1 node-a foo=", "p-a2 node-a foo=", "p-b1 node-b foo=", "p-b2 node-b foo=",
          "p-c1 node-c foo="},
         "UUS"},
        {"pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains > minDomains",
         POD(FOO_L, TSC(SPREAD(2, "node", "DoNotSchedule", SEL(FOO) ", minDomains: 2"))),
         {"node-a node=node-a", "node-b node=node-b", "node-c node=node-c"},
         {"p-a1 node-a foo=", "p-a2 node-a foo=", "p-b1 node-b foo=", "p-b2 node-b foo=",
          "p-c1 node-c foo="},
         "SSS"},
        {"pods spread across zone as 2/1, maxSkew is 2 and the number of domains < minDomains",
         POD(FOO_L, TSC(SPREAD(2, "zone", "DoNotSchedule", SEL(FOO) ", minDomains: 3"))), N4,
         {"p-b1 node-a foo=", "p-b2 node-b foo=", "p-y1 node-y foo="}, "UUSS"},
        {"pods spread across zone as 2/1, maxSkew is 2 and the number of domains > minDomains",
         POD(FOO_L, TSC(SPREAD(2, "zone", "DoNotSchedule", SEL(FOO) ", minDomains: 1"))), N4,
         {"p-b1 node-a foo=", "p-b2 node-b foo=", "p-y1 node-y foo="}, "SSSS"},
        {"NodeAffinityPolicy honored with labelSelectors",
         POD(FOO_L, "nodeSelector: {foo: ''}, " TSC(HARD(1, "node", FOO))),
         {"node-a node=node-a foo=", "node-b node=node-b foo=", "node-x node=node-x foo=",
          "node-y node=node-y"},
         {"p-b1 node-a foo=", "p-b2 node-b foo=", "p-y1 node-y foo="}, "UUSS"},
        {"NodeAffinityPolicy ignored with labelSelectors",
         POD(FOO_L, "nodeSelector: {foo: ''}, "
                    TSC(SPREAD(1, "node", "DoNotSchedule", SEL(FOO) ", nodeAffinityPolicy: Ignore"))),
         {"node-a node=node-a foo=", "node-b node=node-b foo=", "node-x node=node-x foo=",
          "node-y node=node-y"},
         {"p-b1 node-a foo=", "p-b2 node-b foo=", "p-y1 node-y foo="}, "UUSU"},
        {"NodeAffinityPolicy honored with nodeAffinity",
         POD(FOO_L, NODE_AFFINITY("foo", "In", "['']") TSC(HARD(1, "node", FOO))),
         {"node-a node=node-a foo=", "node-b node=node-b foo=", "node-x node=node-x foo=",
          "node-y node=node-y"},
         {"p-b1 node-a foo=", "p-b2 node-b foo=", "p-y1 node-y foo="}, "UUSS"},
        {"NodeAffinityPolicy ignored with nodeAffinity",
         POD(FOO_L, NODE_AFFINITY("foo", "In", "['']")
                        TSC(SPREAD(1, "node", "DoNotSchedule", SEL(FOO) ", nodeAffinityPolicy: Ignore"))),
         {"node-a node=node-a foo=", "node-b node=node-b foo=", "node-x node=node-x foo=",
          "node-y node=node-y"},
         {"p-b1 node-a foo=", "p-b2 node-b foo=", "p-y1 node-y foo="}, "UUSU"},
        {"NodeTaintsPolicy honored",
         POD(FOO_L, TSC(SPREAD(1, "node", "DoNotSchedule", SEL(FOO) ", nodeTaintsPolicy: Honor"))),
         {"node-a node=node-a foo=", "node-b node=node-b foo=", "node-x node=node-x foo=",
          "node-y node=node-y taint"},
         {"p-b1 node-a foo=", "p-b2 node-b foo=", "p-y1 node-y foo="}, "UUSS"},
        {"NodeTaintsPolicy ignored", POD(FOO_L, TSC(HARD(1, "node", FOO))),
         {"node-a node=node-a foo=", "node-b node=node-b foo=", "node-x node=node-x foo=",
          "node-y node=node-y taint"},
         {"p-b1 node-a foo=", "p-b2 node-b foo=", "p-y1 node-y foo="}, "UUSU"},
    };
    run_filter_cases(cases, sizeof cases / sizeof cases[0]);
}

/* filtering_test.go TestMultipleConstraints. */
static void test_filter_multiple_constraints(void **state) {
    (void)state;
    static const filter_case cases[] = {
        {"two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
         POD(FOO_L, TSC(HARD(1, "zone", FOO), HARD(1, "node", FOO))), N4,
         {"p-a1 node-a foo=", "p-a2 node-a foo=", "p-b1 node-b foo=", "p-y1 node-y foo=",
          "p-y2 node-y foo=", "p-y3 node-y foo="},
         "UUSU"},
        {"two Constraints on zone and node, spreads = [3/4, 2/1/0/4]",
         POD(FOO_L, TSC(HARD(1, "zone", FOO), HARD(1, "node", FOO))), N4,
         {"p-a1 node-a foo=", "p-a2 node-a foo=", "p-b1 node-b foo=", "p-y1 node-y foo=",
          "p-y2 node-y foo=", "p-y3 node-y foo=", "p-y4 node-y foo="},
         "UUUU"},
        {"Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]",
         POD(FOO_L ", bar: ''", TSC(HARD(1, "zone", FOO), HARD(1, "node", BAR))), N4,
         {"p-a1 node-a foo=", "p-y1 node-y bar="}, "UUSU"},
        {"Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]",
         POD(FOO_L ", bar: ''", TSC(HARD(1, "zone", FOO), HARD(1, "node", BAR))), N4,
         {"p-a1 node-a foo=", "p-x1 node-x bar=", "p-y1 node-y bar="}, "UUUU"},
        {"Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]",
         POD(FOO_L ", bar: ''", TSC(HARD(1, "zone", FOO), HARD(1, "node", BAR))), N4,
         {"p-a1 node-a foo=", "p-a2 node-a foo= bar=", "p-y1 node-y foo=", "p-y2 node-y foo= bar=",
          "p-y3 node-y foo="},
         "USUU"},
        {"Constraints hold different labelSelectors but pod doesn't match itself on 'zone' constraint",
         POD("bar: ''", TSC(HARD(1, "zone", FOO), HARD(1, "node", BAR))), N4,
         {"p-a1 node-a foo=", "p-x1 node-x bar=", "p-y1 node-y bar="}, "SSUU"},
        {"two Constraints on zone and node, absence of label 'node' on node-x, spreads = [1/1, 1/0/0/1]",
         POD(FOO_L, TSC(HARD(1, "zone", FOO), HARD(1, "node", FOO))),
         {"node-a zone=zone1 node=node-a", "node-b zone=zone1 node=node-b", "node-x zone=zone2",
          "node-y zone=zone2 node=node-y"},
         {"p-a1 node-a foo=", "p-y3 node-y foo="}, "USXU"},
        {"two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
         POD(FOO_L, "nodeSelector: {foo: ''}, "
                    TSC(HARD(1, "zone", FOO),
                        SPREAD(1, "node", "DoNotSchedule", SEL(FOO) ", nodeAffinityPolicy: Ignore"))),
         {"node-a zone=zone1 node=node-a foo=", "node-b zone=zone1 node=node-b foo=",
          "node-x zone=zone2 node=node-x foo=", "node-y zone=zone2 node=node-y"},
         {"p-a1 node-a foo=", "p-b1 node-b foo=", "p-y1 node-y foo="}, "UUSU"},
        {"two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
         POD(FOO_L, TSC(SPREAD(1, "zone", "DoNotSchedule", SEL(FOO) ", nodeTaintsPolicy: Honor"),
                        HARD(1, "node", FOO))),
         {"node-a zone=zone1 node=node-a foo=", "node-b zone=zone1 node=node-b foo=",
          "node-x zone=zone2 node=node-x foo=", "node-y zone=zone2 node=node-y taint"},
         {"p-a1 node-a foo=", "p-b1 node-b foo=", "p-y1 node-y foo="}, "UUSU"},
        {"two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
         POD(FOO_L, "nodeSelector: {foo: ''}, " TSC(HARD(1, "zone", FOO), HARD(1, "node", FOO))),
         {"node-a zone=zone1 node=node-a foo=", "node-b zone=zone1 node=node-b",
          "node-x zone=zone2 node=node-x foo=", "node-y zone=zone2 node=node-y foo= taint"},
         {"p-a1 node-a foo=", "p-b1 node-b foo=", "p-y1 node-y foo="}, "USSU"},
        {"two node inclusion Constraints, zone: honor/honor, node: ignore/ignore",
         POD(FOO_L, "nodeSelector: {foo: ''}, "
                    TSC(SPREAD(1, "zone", "DoNotSchedule", SEL(FOO) ", nodeTaintsPolicy: Honor"),
                        SPREAD(1, "node", "DoNotSchedule", SEL(FOO) ", nodeAffinityPolicy: Ignore"))),
         {"node-a zone=zone1 node=node-a foo=", "node-b zone=zone1 node=node-b",
          "node-x zone=zone2 node=node-x foo=", "node-y zone=zone2 node=node-y foo= taint"},
         {"p-a1 node-a foo=", "p-b1 node-b foo=", "p-y1 node-y foo="}, "UUSU"},
    };
    run_filter_cases(cases, sizeof cases / sizeof cases[0]);
}

/* ---- PreFilter's counts ---- */

typedef struct state_case {
    const char *name;
    const char *pod;
    const char *nodes[MAXN];
    const char *pods[MAXP];
    /* Per DoNotSchedule constraint: every domain and its count. */
    const char *want[3];
    const char *args;
} state_case;

/* "v=n v=n" for constraint k of the table, in the order of `want` (the
 * domains must be exactly those). */
static void check_domains(fx *f, pts_table *t, uint32_t k, const char *want, const char *name) {
    char buf[256], *tok[16];
    snprintf(buf, sizeof buf, "%s", want);
    int n = tokens(buf, tok, 16);
    assert_int_equal(t->dom[k].live, (uint32_t)n);
    int64_t min = INT32_MAX;
    for (int i = 0; i < n; i++) {
        char *eq = strchr(tok[i], '=');
        *eq = 0;
        int32_t d = pts_domain(t, k, S(f, tok[i]));
        if (d < 0 || !t->dom[k].nodes[d]) fail_msg("%s: constraint %u: no domain %s", name, k, tok[i]);
        int64_t want_count = atoi(eq + 1);
        if (t->dom[k].count[d] != want_count)
            fail_msg("%s: constraint %u: %s counts %lld, want %lld", name, k, tok[i],
                     (long long)t->dom[k].count[d], (long long)want_count);
        if (want_count < min) min = want_count;
    }
    assert_int_equal(pts_min(t, k), min);
}

static void run_state_cases(const state_case *cases, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const state_case *tc = &cases[i];
        fx f;
        fx_start(&f);
        add_nodes(&f, tc->nodes);
        add_pods(&f, tc->pods);
        update(&f);
        create_ok(&f, tc->args ? tc->args : LIST_ARGS);
        ms_pod *pod = fx_pod(&f.env.d, tc->pod);
        begin(&f, pod);
        ms_status st;
        ms_code code = OPS->pre_filter(f.pl, &f.c, &st);
        if (!tc->want[0]) {
            if (code != MS_SKIP) fail_msg("%s: PreFilter returned %c, want Skip", tc->name, code_letter(code));
        } else {
            if (code != MS_SUCCESS) fail_msg("%s: PreFilter returned %c", tc->name, code_letter(code));
            pts_set s;
            assert_true(pts_constraints(f.pl, &f.arena, pod, MS_DO_NOT_SCHEDULE, &s));
            pts_table *t = pts_tables_sync(&((pts_plugin *)f.pl)->tables, &s, &f.snap, f.env.in);
            assert_non_null(t);
            uint32_t k = 0;
            for (; k < 3 && tc->want[k]; k++) check_domains(&f, t, k, tc->want[k], tc->name);
            assert_int_equal(s.n, k);
            /* PreFilter found the same table: one per signature. */
            assert_int_equal(((pts_plugin *)f.pl)->tables.n, 1);
        }
        ms_pod_unref(pod);
        fx_stop(&f);
    }
}

#define PODS_5 {"p-a1 node-a foo=", "p-a2 node-a foo=", "p-b1 node-b foo=", "p-y1 node-y foo=", "p-y2 node-y foo="}
#define PODS_5A {"p-a1 node-a foo=a", "p-a2 node-a foo=a", "p-b1 node-b foo=a", "p-y1 node-y foo=a", \
                 "p-y2 node-y foo=a"}

/* filtering_test.go TestPreFilterState, and current upstream's selectors. */
static void test_pre_filter_state(void **state) {
    (void)state;
    static const state_case cases[] = {
        {"clean cluster with one spreadConstraint",
         POD(FOO_L, TSC(HARD(5, "zone", "{matchLabels: {foo: bar}}"))), N4, {0},
         {"zone1=0 zone2=0"}},
        {"normal case with one spreadConstraint", POD(FOO_L, TSC(HARD(1, "zone", FOO))), N4, PODS_5,
         {"zone1=3 zone2=2"}},
        {"normal case with null label selector", POD(FOO_L, TSC(SPREAD(1, "zone", "DoNotSchedule", ""))),
         N4, PODS_5, {"zone1=0 zone2=0"}},
        {"normal case with one spreadConstraint, on a 3-zone cluster",
         POD(FOO_L, TSC(HARD(1, "zone", FOO))),
         {"node-a zone=zone1 node=node-a", "node-b zone=zone1 node=node-b",
          "node-x zone=zone2 node=node-x", "node-y zone=zone2 node=node-y",
          "node-o zone=zone3 node=node-o", "node-p zone=zone3 node=node-p"},
         PODS_5, {"zone1=3 zone2=2 zone3=0"}},
        {"namespace mismatch doesn't count", POD(FOO_L, TSC(HARD(1, "zone", FOO))), N4,
         {"p-a1 node-a foo=", "p-a2 node-a foo= @ns1", "p-b1 node-b foo=", "p-y1 node-y foo= @ns2",
          "p-y2 node-y foo="},
         {"zone1=2 zone2=1"}},
        {"normal case with two spreadConstraints",
         POD(FOO_L, TSC(HARD(1, "zone", FOO), HARD(1, "node", FOO))), N4,
         {"p-a1 node-a foo=", "p-a2 node-a foo=", "p-b1 node-b foo=", "p-y1 node-y foo=",
          "p-y2 node-y foo=", "p-y3 node-y foo=", "p-y4 node-y foo="},
         {"zone1=3 zone2=4", "node-a=2 node-b=1 node-x=0 node-y=4"}},
        {"soft spreadConstraints should be bypassed",
         POD(FOO_L, TSC(SOFT(1, "zone", FOO), HARD(1, "zone", FOO), SOFT(1, "node", FOO),
                        HARD(1, "node", FOO))),
         {"node-a zone=zone1 node=node-a", "node-b zone=zone1 node=node-b",
          "node-y zone=zone2 node=node-y"},
         {"p-a1 node-a foo=", "p-a2 node-a foo=", "p-b1 node-b foo=", "p-y1 node-y foo=",
          "p-y2 node-y foo=", "p-y3 node-y foo=", "p-y4 node-y foo="},
         {"zone1=3 zone2=4", "node-a=2 node-b=1 node-y=4"}},
        {"different labelSelectors - simple version",
         POD(FOO_L ", bar: ''", TSC(HARD(1, "zone", FOO), HARD(1, "node", BAR))),
         {"node-a zone=zone1 node=node-a", "node-b zone=zone1 node=node-b",
          "node-y zone=zone2 node=node-y"},
         {"p-a node-a foo=", "p-b node-b bar="}, {"zone1=1 zone2=0", "node-a=0 node-b=1 node-y=0"}},
        {"different labelSelectors - complex pods",
         POD(FOO_L ", bar: ''", TSC(HARD(1, "zone", FOO), HARD(1, "node", BAR))),
         {"node-a zone=zone1 node=node-a", "node-b zone=zone1 node=node-b",
          "node-y zone=zone2 node=node-y"},
         {"p-a1 node-a foo=", "p-a2 node-a foo= bar=", "p-b1 node-b foo=", "p-y1 node-y foo=",
          "p-y2 node-y foo= bar=", "p-y3 node-y foo=", "p-y4 node-y foo= bar="},
         {"zone1=3 zone2=4", "node-a=1 node-b=0 node-y=2"}},
        {"NodeAffinityPolicy honored with nodeAffinity",
         POD(FOO_L, NODE_AFFINITY("foo", "In", "['']") TSC(HARD(1, "node", BAR))),
         {"node-a node=node-a foo=", "node-b node=node-b foo=", "node-c node=node-c bar="},
         {"p-a node-a bar=", "p-c node-b bar=", "p-d node-b bar=", "p-e node-c"},
         {"node-a=1 node-b=2"}},
        {"NodeAffinityPolicy ignored with nodeAffinity",
         POD(FOO_L, NODE_AFFINITY("foo", "In", "['']")
                        TSC(SPREAD(1, "node", "DoNotSchedule", SEL(BAR) ", nodeAffinityPolicy: Ignore"))),
         {"node-a node=node-a foo=", "node-b node=node-b foo=", "node-c node=node-c bar="},
         {"p-a node-a bar=", "p-b node-b bar=", "p-c node-b bar=", "p-d node-c"},
         {"node-a=1 node-b=2 node-c=0"}},
        {"NodeTaintsPolicy ignored", POD(FOO_L, TSC(HARD(1, "node", BAR))),
         {"node-a node=node-a", "node-b node=node-b", "node-c node=node-c taint bar="},
         {"p-a node-a bar=", "p-b node-b bar=", "p-c node-b bar=", "p-d node-c"},
         {"node-a=1 node-b=2 node-c=0"}},
        {"NodeTaintsPolicy honored",
         POD(FOO_L, TSC(SPREAD(1, "node", "DoNotSchedule", SEL(BAR) ", nodeTaintsPolicy: Honor"))),
         {"node-a node=node-a", "node-b node=node-b", "node-c node=node-c taint bar="},
         {"p-a node-a bar=", "p-b node-b bar=", "p-c node-b bar=", "p-d node-c"},
         {"node-a=1 node-b=2"}},
        {"NodeTaintsPolicy honored with tolerated taints",
         POD(FOO_L, "tolerations: [{key: node.kubernetes.io/unschedulable, operator: Exists}], "
                    TSC(SPREAD(1, "node", "DoNotSchedule", SEL(BAR) ", nodeTaintsPolicy: Honor"))),
         {"node-a node=node-a", "node-b node=node-b", "node-c node=node-c taint bar="},
         {"p-a node-a bar=", "p-b node-b bar=", "p-c node-b bar=", "p-d node-c"},
         {"node-a=1 node-b=2 node-c=0"}},
        {"two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
         POD(FOO_L, "nodeSelector: {foo: ''}, "
                    TSC(HARD(1, "zone", FOO),
                        SPREAD(1, "node", "DoNotSchedule", SEL(FOO) ", nodeAffinityPolicy: Ignore"))),
         {"node-a zone=zone1 node=node-a foo=", "node-b zone=zone1 node=node-b",
          "node-x zone=zone2 node=node-x foo="},
         {"p-b1 node-b foo=", "p-b2 node-b foo=", "p-x1 node-x foo="},
         {"zone1=0 zone2=1", "node-a=0 node-b=2 node-x=1"}},
        {"two node inclusion Constraints, zone: ignore/ignore, node: honor/honor",
         POD(FOO_L, "nodeSelector: {foo: ''}, "
                    TSC(SPREAD(1, "zone", "DoNotSchedule", SEL(FOO) ", nodeAffinityPolicy: Ignore"),
                        SPREAD(1, "node", "DoNotSchedule", SEL(FOO) ", nodeTaintsPolicy: Honor"))),
         {"node-a zone=zone1 node=node-a", "node-b zone=zone1 node=node-b foo= taint",
          "node-x zone=zone2 node=node-x foo=", "node-y zone=zone2 node=node-y foo="},
         {"p-a1 node-a foo=", "p-a2 node-a foo=", "p-x1 node-x foo=", "p-x2 node-x foo=",
          "p-y1 node-y foo="},
         {"zone1=2 zone2=3", "node-x=2 node-y=1"}},
        {"matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
         POD(FOO_L ", bar: a", TSC(SPREAD(1, "zone", "DoNotSchedule", SEL(FOO) ", matchLabelKeys: [bar]"))),
         N4,
         {"p-a1 node-a foo=", "p-a2 node-a foo= bar=a", "p-b1 node-b foo=", "p-y1 node-y foo= bar=a",
          "p-y2 node-y bar="},
         {"zone1=1 zone2=1"}},
        {"matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
         POD("foo: a", TSC(SPREAD(1, "zone", "DoNotSchedule", SEL("{}") ", matchLabelKeys: [foo]"))), N4,
         PODS_5A, {"zone1=3 zone2=2"}},
        {"key in matchLabelKeys is ignored when LabelSelector is nil",
         POD(FOO_L, TSC(SPREAD(1, "zone", "DoNotSchedule", ", matchLabelKeys: [bar]"))), N4, PODS_5A,
         {"zone1=0 zone2=0"}},
        {"key in matchLabelKeys is ignored when it isn't exist in pod.labels",
         POD(FOO_L, TSC(SPREAD(1, "zone", "DoNotSchedule", SEL(FOO) ", matchLabelKeys: [bar]"))), N4,
         PODS_5A, {"zone1=3 zone2=2"}},
        /* kubernetes#141340: an empty selector selects every pod of the namespace. */
        {"empty labelSelector counts every pod of the namespace",
         POD(FOO_L, TSC(HARD(1, "zone", "{}"))), N4,
         {"p-a1 node-a foo=", "p-b1 node-b", "p-y1 node-y bar=", "p-y2 node-y @other"},
         {"zone1=2 zone2=1"}},
        {"skip if not specified", POD(FOO_L, ""), {"node-a zone=zone1 node=node-a"}, {0}, {0}},
        {"skip with only soft constraints", POD(FOO_L, TSC(SOFT(1, "zone", FOO))),
         {"node-a zone=zone1 node=node-a"}, {0}, {0}},
        /* List defaulting: a pod without constraints gets the DoNotSchedule
         * defaults, selecting pods by the labels of its controller's pods. */
        {"default constraints and a replica set",
         "metadata: {name: p, uid: p, labels: {foo: ''}, ownerReferences: [{apiVersion: apps/v1, "
         "kind: ReplicaSet, name: rs, uid: rs1, controller: true}]}",
         N4, {"p-a1 node-a foo=", "p-a2 node-a foo=", "p-x1 node-x foo=", "p-x2 node-x bar="},
         {"node-a=2 node-b=0 node-x=1 node-y=0"},
         "{\"defaultingType\": \"List\", \"defaultConstraints\": [{\"maxSkew\": 1, \"topologyKey\": "
         "\"node\", \"whenUnsatisfiable\": \"DoNotSchedule\"}, {\"maxSkew\": 2, \"topologyKey\": "
         "\"zone\", \"whenUnsatisfiable\": \"ScheduleAnyway\"}]}"},
        {"default constraints and a pod without a controller", POD(FOO_L, ""), N4, PODS_5, {0},
         "{\"defaultingType\": \"List\", \"defaultConstraints\": [{\"maxSkew\": 1, \"topologyKey\": "
         "\"node\", \"whenUnsatisfiable\": \"DoNotSchedule\"}]}"},
        {"default constraints and a replica set, but pod has constraints",
         "metadata: {name: p, uid: p, labels: {foo: '', bar: ''}, ownerReferences: [{apiVersion: "
         "apps/v1, kind: ReplicaSet, name: rs, uid: rs1, controller: true}]}\nspec: {"
         TSC(HARD(1, "zone", BAR)) "}",
         N4, {"p-a1 node-a foo=", "p-x1 node-x bar="}, {"zone1=0 zone2=1"},
         "{\"defaultingType\": \"List\", \"defaultConstraints\": [{\"maxSkew\": 1, \"topologyKey\": "
         "\"node\", \"whenUnsatisfiable\": \"DoNotSchedule\"}]}"},
    };
    run_state_cases(cases, sizeof cases / sizeof cases[0]);
}

/* ---- Score ---- */

typedef struct score_case {
    const char *name;
    const char *pod;
    const char *nodes[MAXN];       /* candidates */
    const char *failed[MAXN];      /* in the cluster, not candidates */
    const char *pods[MAXP];
    int64_t want[MAXN];
    const char *args;              /* NULL: System defaulting */
    const char *workloads[4];      /* Services, RCs, ReplicaSets, StatefulSets */
} score_case;

static void run_score_cases(const score_case *cases, size_t n) {
    for (size_t k = 0; k < n; k++) {
        const score_case *tc = &cases[k];
        fx f;
        fx_start(&f);
        add_nodes(&f, tc->nodes);
        add_nodes(&f, tc->failed);
        add_pods(&f, tc->pods);
        add_workloads(&f, tc->workloads);
        update(&f);
        create_ok(&f, tc->args);
        ms_pod *pod = fx_pod(&f.env.d, tc->pod);
        ms_node_info *nis[MAXN];
        uint32_t nn = 0;
        for (; nn < MAXN && tc->nodes[nn]; nn++) nis[nn] = node_info(&f, tc->nodes[nn]);
        begin(&f, pod);
        ms_status st;
        ms_code code = OPS->pre_score(f.pl, &f.c, nis, nn, &st);
        if (code != MS_SUCCESS) fail_msg("%s: PreScore returned %c", tc->name, code_letter(code));
        int64_t scores[MAXN];
        assert_int_equal(OPS->score(f.pl, &f.c, nis, nn, scores, &st), MS_SUCCESS);
        assert_int_equal(OPS->normalize_score(f.pl, &f.c, scores, nn, &st), MS_SUCCESS);
        for (uint32_t i = 0; i < nn; i++)
            if (scores[i] != tc->want[i])
                fail_msg("%s: node %s scores %lld, want %lld", tc->name, tc->nodes[i],
                         (long long)scores[i], (long long)tc->want[i]);
        ms_pod_unref(pod);
        fx_stop(&f);
    }
}

#define HN(n) "node-" n " " H "=node-" n
#define PODS_4321 {"p-a1 node-a foo=", "p-a2 node-a foo=", "p-a3 node-a foo=", "p-a4 node-a foo=",   \
                   "p-b1 node-b foo=", "p-b2 node-b foo=", "p-b3 node-b foo=", "p-c1 node-c foo=",   \
                   "p-c2 node-c foo=", "p-d1 node-d foo="}
#define PODS_2103 {"p-a1 node-a foo=", "p-a2 node-a foo=", "p-b1 node-b foo=", "p-d1 node-d foo=",   \
                   "p-d2 node-d foo=", "p-d3 node-d foo="}
#define PODS_4213 {"p-a1 node-a foo=", "p-a2 node-a foo=", "p-a3 node-a foo=", "p-a4 node-a foo=",   \
                   "p-b1 node-b foo=", "p-b2 node-b foo=", "p-x1 node-x foo=", "p-y1 node-y foo=",   \
                   "p-y2 node-y foo=", "p-y3 node-y foo="}
#define ZH(n, z) "node-" n " zone=" z " " H "=node-" n
#define SERVICE_FOO "kind: Service\nmetadata: {name: s}\nspec: {selector: {foo: ''}}"

/* scoring_test.go TestPodTopologySpreadScore. */
static void test_score(void **state) {
    (void)state;
    static const score_case cases[] = {
        {"one constraint on node, no existing pods", POD(FOO_L, TSC(SOFT(1, H, FOO))),
         {HN("a"), HN("b")}, {0}, {0}, {100, 100}},
        {"one constraint on node, only one node is candidate", POD(FOO_L, TSC(SOFT(1, H, FOO))),
         {HN("a")}, {HN("b")}, {"p-a1 node-a foo=", "p-a2 node-a foo=", "p-b1 node-b foo="}, {100}},
        {"one constraint on node, all nodes have the same number of matching pods",
         POD(FOO_L, TSC(SOFT(1, H, FOO))), {HN("a"), HN("b")}, {0},
         {"p-a1 node-a foo=", "p-b1 node-b foo="}, {100, 100}},
        {"one constraint on node, all 4 nodes are candidates", POD(FOO_L, TSC(SOFT(1, H, FOO))),
         {HN("a"), HN("b"), HN("c"), HN("d")}, {0}, PODS_2103, {20, 60, 100, 0}},
        {"one constraint on node, null selector", POD(FOO_L, TSC(SPREAD(1, H, "ScheduleAnyway", ""))),
         {HN("a"), HN("b"), HN("c"), HN("d")}, {0}, PODS_2103, {100, 100, 100, 100}},
        {"one constraint on node, all 4 nodes are candidates, maxSkew=2",
         POD(FOO_L, TSC(SOFT(2, H, FOO))), {HN("a"), HN("b"), HN("c"), HN("d")}, {0}, PODS_2103,
         {33, 66, 100, 16}},
        {"one constraint on node, all 4 nodes are candidates, maxSkew=3",
         POD(FOO_L, TSC(SOFT(3, H, FOO))), {HN("a"), HN("b"), HN("c"), HN("d")}, {0}, PODS_4321,
         {44, 66, 77, 100}},
        {"system defaulting, nodes don't have zone, pods match service", "metadata: {name: p, uid: p, labels: {foo: ''}}",
         {HN("a"), HN("b"), HN("c"), HN("d")}, {0}, PODS_4321, {44, 66, 77, 100}, NULL,
         {SERVICE_FOO}},
        {"one constraint on node, 3 out of 4 nodes are candidates", POD(FOO_L, TSC(SOFT(1, H, FOO))),
         {HN("a"), HN("b"), HN("x")}, {HN("y")}, PODS_4213, {33, 83, 100}},
        {"one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology key",
         POD(FOO_L, TSC(SOFT(1, H, FOO))), {HN("a"), "node-b n=node-b", HN("x")}, {HN("y")}, PODS_4213,
         {16, 0, 100}},
        {"one constraint on zone, 3 out of 4 nodes are candidates", POD(FOO_L, TSC(SOFT(1, "zone", FOO))),
         {ZH("a", "zone1"), ZH("b", "zone1"), ZH("x", "zone2")}, {ZH("y", "zone2")}, PODS_4213,
         {75, 75, 100}},
        {"two Constraints on zone and node, 2 out of 4 nodes are candidates",
         POD(FOO_L, TSC(SOFT(1, "zone", FOO), SOFT(1, H, FOO))), {ZH("a", "zone1"), ZH("x", "zone2")},
         {ZH("b", "zone1"), ZH("y", "zone2")},
         {"p-a1 node-a foo=", "p-a2 node-a foo=", "p-b1 node-b foo=", "p-x1 node-x foo=",
          "p-x2 node-x foo=", "p-y1 node-y foo=", "p-y2 node-y foo=", "p-y3 node-y foo=",
          "p-y4 node-y foo="},
         {100, 63}},
        {"two Constraints on zone and node, with different labelSelectors",
         POD(FOO_L ", bar: ''", TSC(SOFT(1, "zone", FOO), SOFT(1, H, BAR))),
         {ZH("a", "zone1"), ZH("b", "zone1"), ZH("x", "zone2"), ZH("y", "zone2")}, {0},
         {"p-a1 node-a foo=", "p-b1 node-b foo= bar=", "p-y1 node-y foo=", "p-y2 node-y bar="},
         {60, 20, 100, 60}},
        {"two Constraints on zone and node, with different labelSelectors, some nodes have 0 pods",
         POD(FOO_L ", bar: ''", TSC(SOFT(1, "zone", FOO), SOFT(1, H, BAR))),
         {ZH("a", "zone1"), ZH("b", "zone1"), ZH("x", "zone2"), ZH("y", "zone2")}, {0},
         {"p-b1 node-b bar=", "p-x1 node-x foo=", "p-y1 node-y foo= bar="}, {100, 60, 40, 0}},
        {"two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes are candidates",
         POD(FOO_L ", bar: ''", TSC(SOFT(1, "zone", FOO), SOFT(1, H, BAR))),
         {ZH("a", "zone1"), ZH("b", "zone1"), ZH("x", "zone2")}, {ZH("y", "zone2")},
         {"p-a1 node-a foo=", "p-b1 node-b foo= bar=", "p-y1 node-y foo=", "p-y2 node-y bar="},
         {50, 25, 100}},
        {"existing pods in a different namespace do not count", POD(FOO_L, TSC(SOFT(1, H, FOO))),
         {HN("a"), HN("b")}, {0},
         {"p-a1 node-a foo= @ns1", "p-a2 node-a foo=", "p-b1 node-b foo=", "p-b2 node-b foo="},
         {100, 33}},
        {"terminating Pods should be excluded", POD(FOO_L, TSC(SOFT(1, H, FOO))), {HN("a"), HN("b")},
         {0}, {"p-a node-a foo= term", "p-b node-b foo="}, {100, 0}},
        {"minDomains has no effect when ScheduleAnyway",
         POD(FOO_L, TSC(SPREAD(2, "node", "ScheduleAnyway", SEL(FOO) ", minDomains: 10"))),
         {"node-a node=node-a", "node-b node=node-b", "node-c node=node-c"}, {0},
         {"p-a1 node-a foo=", "p-a2 node-a foo=", "p-b1 node-b foo=", "p-b2 node-b foo=",
          "p-c1 node-c foo="},
         {75, 75, 100}},
        {"NodeAffinityPolicy honored with labelSelectors",
         POD(FOO_L, "nodeSelector: {foo: ''}, " TSC(SOFT(1, "node", FOO))),
         {"node-a node=node-a foo=", "node-b node=node-b foo=", "node-c node=node-c"}, {0},
         {"p-a1 node-a foo=", "p-a2 node-a foo=", "p-b1 node-b foo=", "p-c1 node-c foo="},
         {0, 33, 100}},
        {"NodeAffinityPolicy ignored with labelSelectors",
         POD(FOO_L, "nodeSelector: {foo: ''}, "
                    TSC(SPREAD(1, "node", "ScheduleAnyway", SEL(FOO) ", nodeAffinityPolicy: Ignore"))),
         {"node-a node=node-a foo=", "node-b node=node-b foo=", "node-c node=node-c"}, {0},
         {"p-a1 node-a foo=", "p-a2 node-a foo=", "p-b1 node-b foo=", "p-c1 node-c foo="},
         {66, 100, 100}},
        {"NodeAffinityPolicy honored with nodeAffinity",
         POD(FOO_L, NODE_AFFINITY("foo", "In", "['']") TSC(SOFT(1, "node", FOO))),
         {"node-a node=node-a foo=", "node-b node=node-b foo=", "node-c node=node-c"}, {0},
         {"p-a1 node-a foo=", "p-a2 node-a foo=", "p-b1 node-b foo=", "p-c1 node-c foo="},
         {0, 33, 100}},
        {"NodeAffinityPolicy ignored with nodeAffinity",
         POD(FOO_L, NODE_AFFINITY("foo", "In", "['']")
                        TSC(SPREAD(1, "node", "ScheduleAnyway", SEL(FOO) ", nodeAffinityPolicy: Ignore"))),
         {"node-a node=node-a foo=", "node-b node=node-b foo=", "node-c node=node-c"}, {0},
         {"p-a1 node-a foo=", "p-a2 node-a foo=", "p-b1 node-b foo=", "p-c1 node-c foo="},
         {66, 100, 100}},
        {"NodeTaintsPolicy honored",
         POD(FOO_L, TSC(SPREAD(1, "node", "ScheduleAnyway", SEL(FOO) ", nodeTaintsPolicy: Honor"))),
         {"node-a node=node-a", "node-b node=node-b", "node-c node=node-c taint"}, {0},
         {"p-a1 node-a foo=", "p-a2 node-a foo=", "p-b1 node-b foo=", "p-c1 node-c foo="},
         {0, 33, 100}},
        {"NodeTaintsPolicy ignored", POD(FOO_L, TSC(SOFT(1, "node", FOO))),
         {"node-a node=node-a", "node-b node=node-b", "node-c node=node-c taint"}, {0},
         {"p-a1 node-a foo=", "p-a2 node-a foo=", "p-b1 node-b foo=", "p-c1 node-c foo="},
         {66, 100, 100}},
        {"matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
         POD(FOO_L ", bar: ''",
             TSC(SPREAD(1, "zone", "ScheduleAnyway", SEL("{}") ", matchLabelKeys: [foo]"),
                 SPREAD(1, H, "ScheduleAnyway", SEL("{}") ", matchLabelKeys: [bar]"))),
         {ZH("a", "zone1"), ZH("b", "zone1"), ZH("c", "zone2"), ZH("d", "zone2")}, {0},
         {"p-a1 node-a foo=", "p-b1 node-b foo= bar=", "p-y1 node-c foo=", "p-y2 node-c bar="},
         {60, 20, 60, 100}},
        {"matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
         POD(FOO_L ", bar: '', baz: ''",
             TSC(SOFT(1, "zone", FOO), SPREAD(1, H, "ScheduleAnyway", SEL(BAR) ", matchLabelKeys: [baz]"))),
         {ZH("a", "zone1"), ZH("b", "zone1"), ZH("c", "zone2"), ZH("d", "zone2")}, {0},
         {"p-a1 node-a foo=", "p-b1 node-b foo= bar= baz=", "p-c1 node-c foo=", "p-c2 node-c bar=",
          "p-d3 node-c bar= baz="},
         {60, 20, 60, 100}},
    };
    run_score_cases(cases, sizeof cases / sizeof cases[0]);
}

/* System defaults (hostname maxSkew 3, zone maxSkew 5, ScheduleAnyway) for
 * pods controlled by a ReplicaSet or StatefulSet; nodes without a zone are
 * not left out but count as one more zone (upstream's missing label is
 * ""), which changes the zone weight to log(2 + 2). */
static void test_score_system_defaults(void **state) {
    (void)state;
    static const score_case cases[] = {
        /* node-a: 3 * log 6 + 2 + 3 * log 4 + 4 = 15.53 -> 16; node-b: 2 +
         * 3 * log 4 + 4 = 10.16 -> 10; node-c, node-d: log 6 + 2 = 3.79 -> 4. */
        {"system default constraints and a replica set",
         "metadata: {name: p, uid: p, labels: {foo: tar, baz: sup}, ownerReferences: [{apiVersion: "
         "apps/v1, kind: ReplicaSet, name: rs, uid: rs1, controller: true}]}",
         {"node-a " H "=node-a " ZONE "=mars", "node-b " H "=node-b " ZONE "=mars", HN("c"), HN("d")},
         {0},
         {"p-a1 node-a foo=tar baz=sup", "p-a2 node-a foo=tar baz=sup", "p-a3 node-a foo=tar baz=sup",
          "p-c1 node-c foo=tar baz=sup", "p-d1 node-d foo=tar baz=sup", "p-x node-b foo=tar"},
         {25, 62, 100, 100}},
        /* The StatefulSet's per-pod labels stay out of the selector: web-1
         * counts as web-0's sibling. */
        {"system default constraints and a stateful set",
         "metadata: {name: web-0, uid: w0, labels: {app: web, controller-revision-hash: r1, "
         "statefulset.kubernetes.io/pod-name: web-0}, ownerReferences: [{apiVersion: apps/v1, "
         "kind: StatefulSet, name: web, uid: ss1, controller: true}]}",
         {HN("a"), HN("b")}, {0},
         {"web-1 node-a app=web controller-revision-hash=r1 statefulset.kubernetes.io/pod-name=web-1 ss"},
         {66, 100}},
        /* List defaulting needs every key on a node: node-c without a zone
         * is left out (0). */
        {"list defaulting and a replica set",
         "metadata: {name: p, uid: p, labels: {foo: tar}, ownerReferences: [{apiVersion: apps/v1, "
         "kind: ReplicaSet, name: rs, uid: rs1, controller: true}]}",
         {"node-a " H "=node-a " ZONE "=mars", "node-b " H "=node-b " ZONE "=venus", HN("c")}, {0},
         {"p-a1 node-a foo=tar", "p-c1 node-c foo=tar"}, {0, 100, 0},
         "{\"defaultingType\": \"List\", \"defaultConstraints\": [{\"maxSkew\": 1, \"topologyKey\": \"" H
         "\", \"whenUnsatisfiable\": \"ScheduleAnyway\"}, {\"maxSkew\": 1, \"topologyKey\": \"" ZONE
         "\", \"whenUnsatisfiable\": \"ScheduleAnyway\"}]}"},
    };
    run_score_cases(cases, sizeof cases / sizeof cases[0]);
}

static int cmp_text(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The default constraints' selector as "key op v1|v2, ..." sorted, or
 * "none" when the pod gets no default constraints. */
static void default_selector_text(fx *f, const char *pod_text, char *out, size_t cap) {
    static const char *const ops[] = {"in", "notin", "exists", "!exists", "gt", "lt", "=", "!="};
    ms_pod *pod = fx_pod(&f->env.d, pod_text);
    begin(f, pod);
    pts_set set;
    assert_true(pts_constraints(f->pl, &f->arena, pod, MS_SCHEDULE_ANYWAY, &set));
    if (set.n == 0) {
        snprintf(out, cap, "none");
        ms_pod_unref(pod);
        return;
    }
    assert_int_equal(set.n, 2);
    const ms_label_selector *sel = &set.c[0].sel;
    char *items[16];
    assert_true(sel->n <= 16);
    for (uint32_t i = 0; i < sel->n; i++) {
        char buf[128];
        int len = snprintf(buf, sizeof buf, "%s %s", ms_str_get(f->env.in, sel->reqs[i].key), ops[sel->reqs[i].op]);
        for (uint32_t v = 0; v < sel->reqs[i].nvalues; v++)
            len += snprintf(buf + len, sizeof buf - (size_t)len, "%s%s", v ? "|" : " ",
                            ms_str_get(f->env.in, sel->reqs[i].values[v]));
        items[i] = strdup(buf);
    }
    qsort(items, sel->n, sizeof *items, cmp_text);
    size_t n = 0;
    out[0] = 0;
    for (uint32_t i = 0; i < sel->n; i++) {
        n += (size_t)snprintf(out + n, cap - n, "%s%s", i ? ", " : "", items[i]);
        free(items[i]);
    }
    ms_pod_unref(pod);
}

#define WL_SVC(name, ns, sel) "kind: Service\nmetadata: {name: " name ", namespace: " ns "}\nspec: {selector: " sel "}"
#define WL_RC(name, sel) "kind: ReplicationController\nmetadata: {name: " name "}\nspec: {selector: " sel "}"
#define WL_RS(name, sel) "kind: ReplicaSet\nmetadata: {name: " name "}\nspec: {selector: " sel "}"
#define WL_SS(name, sel) "kind: StatefulSet\nmetadata: {name: " name "}\nspec: {selector: " sel "}"
#define RS_OWNED(labels)                                                                               \
    "metadata: {name: p, uid: p, labels: {" labels "}, ownerReferences: [{apiVersion: apps/v1, kind: " \
    "ReplicaSet, name: rs, uid: rs1, controller: true}]}"

/* upstream 1.20's helper.DefaultSelector: the maps of the Services and
 * ReplicationControllers that select the pod merged, the ReplicaSets' and
 * StatefulSets' requirements added; the owner stands in only when the
 * pod's namespace has none of these objects. */
static void test_default_selector(void **state) {
    (void)state;
    static const struct {
        const char *name;
        const char *workloads[4];
        const char *pod;
        const char *want;
    } cases[] = {
        {"no objects, no owner", {0}, "metadata: {name: p, labels: {app: web}}", "none"},
        {"no objects: the ReplicaSet owner stands in", {0}, RS_OWNED("app: web, tier: front"),
         "app in web, tier in front"},
        {"a Service selects the pod", {WL_SVC("s", "default", "{app: web}")},
         "metadata: {name: p, labels: {app: web, tier: front}}", "app in web"},
        {"objects in the namespace, none selecting the pod: no owner stand-in",
         {WL_SVC("s", "default", "{app: db}")}, RS_OWNED("app: web"), "none"},
        {"objects of another namespace: the owner stands in", {WL_SVC("s", "other", "{app: web}")},
         RS_OWNED("app: web"), "app in web"},
        {"a Service and a ReplicationController merge into one label set",
         {WL_SVC("s", "default", "{app: web}"), WL_RC("rc", "{app: web, tier: front}")},
         "metadata: {name: p, labels: {app: web, tier: front, x: y}}", "app in web, tier in front"},
        {"a ReplicaSet's requirements are added to the Service's",
         {WL_SVC("s", "default", "{app: web}"),
          WL_RS("rs", "{matchLabels: {app: web}, matchExpressions: [{key: track, operator: NotIn, values: [canary]}]}")},
         "metadata: {name: p, labels: {app: web}}", "app = web, app in web, track notin canary"},
        {"a StatefulSet alone", {WL_SS("db", "{matchExpressions: [{key: app, operator: Exists}]}")},
         "metadata: {name: p, labels: {app: db, statefulset.kubernetes.io/pod-name: db-0}}", "app exists"},
        {"a StatefulSet that does not match, one that does",
         {WL_SS("a", "{matchLabels: {app: other}}"), WL_SS("b", "{matchLabels: {app: db}}")},
         "metadata: {name: p, labels: {app: db}}", "app = db"},
        {"empty and nil selectors select nothing",
         {WL_SVC("s", "default", "{}"), WL_RC("rc", "null"), WL_RS("rs", "{}")},
         "metadata: {name: p, labels: {app: web}}", "none"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fx f;
        fx_start(&f);
        add_workloads(&f, cases[i].workloads);
        create_ok(&f, NULL);
        char got[512];
        default_selector_text(&f, cases[i].pod, got, sizeof got);
        if (strcmp(got, cases[i].want) != 0) fail_msg("%s: got \"%s\", want \"%s\"", cases[i].name, got, cases[i].want);
        fx_stop(&f);
    }
}

/* PreScore skips pods without soft constraints (and without a controller
 * under the system defaults), and clusters without nodes. */
static void test_pre_score_skip(void **state) {
    (void)state;
    static const struct {
        const char *pod, *args;
        bool nodes;
    } cases[] = {
        {POD(FOO_L, ""), LIST_ARGS, true},
        {POD(FOO_L, ""), NULL, true},                        /* no controller: no default selector */
        {POD(FOO_L, TSC(HARD(1, "zone", FOO))), NULL, true},   /* own constraints: no defaults */
        {"metadata: {name: p, uid: p, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, "
         "name: rs, uid: rs1, controller: true}]}",
         NULL, true},                                        /* no labels: empty selector */
        {"metadata: {name: p, uid: p, labels: {a: b}, ownerReferences: [{apiVersion: batch/v1, "
         "kind: Job, name: j, uid: j1, controller: true}]}",
         NULL, true},                                        /* not a kind DefaultSelector reads */
        {POD(FOO_L, TSC(SOFT(1, "zone", FOO))), NULL, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fx f;
        fx_start(&f);
        static const char *const nodes[] = {"node-a zone=z1 " H "=node-a", NULL};
        if (cases[i].nodes) add_nodes(&f, nodes);
        update(&f);
        create_ok(&f, cases[i].args);
        ms_pod *pod = fx_pod(&f.env.d, cases[i].pod);
        begin(&f, pod);
        ms_status st;
        ms_node_info *ni = cases[i].nodes ? node_info(&f, "node-a") : NULL;
        ms_code code = OPS->pre_score(f.pl, &f.c, &ni, ni ? 1 : 0, &st);
        if (code != MS_SKIP) fail_msg("case %zu: PreScore returned %c", i, code_letter(code));
        ms_pod_unref(pod);
        fx_stop(&f);
    }
}

/* Filter and Score without their Pre state report upstream's errors. */
static void test_missing_state(void **state) {
    (void)state;
    fx f;
    fx_start(&f);
    static const char *const nodes[] = {"node-a zone=z1", NULL};
    add_nodes(&f, nodes);
    update(&f);
    create_ok(&f, NULL);
    ms_pod *pod = fx_pod(&f.env.d, POD(FOO_L, ""));
    begin(&f, pod);
    ms_status st;
    ms_node_info *ni = node_info(&f, "node-a");
    assert_int_equal(OPS->filter(f.pl, &f.c, ni, &st), MS_ERROR);
    assert_string_equal(st.reasons[0], "reading \"PreFilterPodTopologySpread\" from cycleState: not found");
    int64_t s = 0;
    assert_int_equal(OPS->score(f.pl, &f.c, &ni, 1, &s, &st), MS_ERROR);
    assert_string_equal(st.reasons[0],
                        "error reading \"PreScorePodTopologySpread\" from cycleState: not found");
    ms_pod_unref(pod);
    fx_stop(&f);
}

/* ---- arguments ---- */

/* A 10 KB bad value in the args is quoted and cut at 64 bytes. */
static void test_args_quote_a_long_value(void **state) {
    (void)state;
    char *args = tu_repeat("{\"defaultingType\": \"", 'k', 10240, "\"}");
    fx f;
    fx_start(&f);
    ms_error err = {0};
    assert_int_equal(create(&f, args, &err), MS_EINVAL);
    assert_string_equal(err.msg, "PodTopologySpread args: defaultingType: Unsupported value: " "\"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk...\""
                                 ": supported values: \"System\", \"List\"");
    fx_stop(&f);
    free(args);
}

static void test_args(void **state) {
    (void)state;
    static const struct {
        const char *args, *err;
    } cases[] = {
        {NULL, NULL},
        {"{}", NULL},
        {"{\"defaultingType\": \"List\"}", NULL},
        {"{\"defaultingType\": \"System\"}", NULL},
        {"{\"defaultingType\": \"List\", \"defaultConstraints\": [{\"maxSkew\": 2, \"topologyKey\": "
         "\"example.com/rack\", \"whenUnsatisfiable\": \"DoNotSchedule\", \"minDomains\": 2, "
         "\"nodeAffinityPolicy\": \"Ignore\", \"nodeTaintsPolicy\": \"Honor\"}, {\"maxSkew\": 1, "
         "\"topologyKey\": \"example.com/rack\", \"whenUnsatisfiable\": \"ScheduleAnyway\"}]}",
         NULL},
        {"{\"defaultingType\": \"Auto\"}",
         "PodTopologySpread args: defaultingType: Unsupported value: \"Auto\": supported values: "
         "\"System\", \"List\""},
        {"{\"defaultConstraints\": [{\"maxSkew\": 1, \"topologyKey\": \"zone\", \"whenUnsatisfiable\": "
         "\"DoNotSchedule\"}]}",
         "PodTopologySpread args: defaultingType: Invalid value: \"System\": when .defaultConstraints "
         "are not empty"},
        {"{\"defaultingType\": \"List\", \"defaultConstraints\": [{\"maxSkew\": 0, \"topologyKey\": "
         "\"zone\", \"whenUnsatisfiable\": \"DoNotSchedule\"}]}",
         "PodTopologySpread args: defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range "
         "(0, inf)"},
        {"{\"defaultingType\": \"List\", \"defaultConstraints\": [{\"maxSkew\": 1, "
         "\"whenUnsatisfiable\": \"DoNotSchedule\"}]}",
         "PodTopologySpread args: defaultConstraints[0].topologyKey: Required value: can not be empty"},
        {"{\"defaultingType\": \"List\", \"defaultConstraints\": [{\"maxSkew\": 1, \"topologyKey\": "
         "\"a/b/c\", \"whenUnsatisfiable\": \"DoNotSchedule\"}]}",
         "PodTopologySpread args: defaultConstraints[0].topologyKey: Invalid value: \"a/b/c\": not a "
         "valid label name"},
        {"{\"defaultingType\": \"List\", \"defaultConstraints\": [{\"maxSkew\": 1, \"topologyKey\": "
         "\"zone\"}]}",
         "PodTopologySpread args: defaultConstraints[0].whenUnsatisfiable: Required value: can not be "
         "empty"},
        {"{\"defaultingType\": \"List\", \"defaultConstraints\": [{\"maxSkew\": 1, \"topologyKey\": "
         "\"zone\", \"whenUnsatisfiable\": \"Never\"}]}",
         "PodTopologySpread args: defaultConstraints[0].whenUnsatisfiable: Unsupported value: "
         "\"Never\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\""},
        {"{\"defaultingType\": \"List\", \"defaultConstraints\": [{\"maxSkew\": 1, \"topologyKey\": "
         "\"zone\", \"whenUnsatisfiable\": \"DoNotSchedule\", \"labelSelector\": {}}]}",
         "PodTopologySpread args: defaultConstraints[0].labelSelector: Forbidden: constraint must not "
         "define a selector, as they deduced for each pod"},
        {"{\"defaultingType\": \"List\", \"defaultConstraints\": [{\"maxSkew\": 1, \"topologyKey\": "
         "\"zone\", \"whenUnsatisfiable\": \"DoNotSchedule\"}, {\"maxSkew\": 2, \"topologyKey\": "
         "\"zone\", \"whenUnsatisfiable\": \"DoNotSchedule\"}]}",
         "PodTopologySpread args: defaultConstraints[1]: Duplicate value: \"{zone, DoNotSchedule}\""},
        {"{\"defaultingType\": \"List\", \"defaultConstraints\": [{\"maxSkew\": 1, \"topologyKey\": "
         "\"zone\", \"whenUnsatisfiable\": \"DoNotSchedule\", \"nodeTaintsPolicy\": \"Always\"}]}",
         "PodTopologySpread args: defaultConstraints[0].nodeTaintsPolicy: Unsupported value: "
         "\"Always\": supported values: \"Honor\", \"Ignore\""},
        {"{\"defaultConstraint\": []}", "PodTopologySpread args: defaultConstraint: unknown field"},
        {"{\"defaultingType\": \"List\", \"defaultConstraints\": {}}",
         "PodTopologySpread args: defaultConstraints: expected a list, got object"},
        {"{\"defaultingType\": \"List\", \"defaultConstraints\": [{\"maxSkew\": 1.5, \"topologyKey\": "
         "\"zone\", \"whenUnsatisfiable\": \"DoNotSchedule\"}]}",
         "PodTopologySpread args: defaultConstraints[0].maxSkew: Invalid value: 1.5: not an integer"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fx f;
        fx_start(&f);
        ms_error err = {0};
        ms_rc rc = create(&f, cases[i].args, &err);
        if (!cases[i].err) {
            if (rc != MS_OK) fail_msg("case %zu: %s", i, err.msg);
        } else {
            assert_int_equal(rc, MS_EINVAL);
            assert_null(f.pl);
            assert_string_equal(err.msg, cases[i].err);
        }
        fx_stop(&f);
    }
}

/* ---- counts kept across cycles ---- */

/* Deterministic pseudo-random numbers for the sequences below. */
static uint32_t next(uint64_t *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(*s >> 33);
}

/* Two tables agree: every domain count of every constraint, and what each
 * node adds where. */
static void same_counts(fx *f, pts_table *a, pts_table *b, int step) {
    assert_int_equal(a->nc, b->nc);
    for (uint32_t k = 0; k < a->nc; k++) {
        if (a->dom[k].live != b->dom[k].live)
            fail_msg("step %d: constraint %u: %u domains, fresh %u", step, k, a->dom[k].live, b->dom[k].live);
        for (uint32_t d = 0; d < b->dom[k].n; d++) {
            if (!b->dom[k].nodes[d]) continue;
            int32_t e = pts_domain(a, k, b->dom[k].value[d]);
            if (e < 0 || a->dom[k].count[e] != b->dom[k].count[d] || a->dom[k].nodes[e] != b->dom[k].nodes[d])
                fail_msg("step %d: constraint %u: domain %s differs", step, k,
                         ms_str_get(f->env.in, b->dom[k].value[d]));
        }
        if (pts_min(a, k) != pts_min(b, k))
            fail_msg("step %d: constraint %u: min %lld, fresh %lld", step, k, (long long)pts_min(a, k),
                     (long long)pts_min(b, k));
    }
    uint32_t seen = 0;
    for (uint32_t j = 0; j < b->nnodes; j++) {
        const ms_node_info *ni = b->ni[j];
        if (!ni) continue;
        seen++;
        int32_t i = pts_node(a, ni);
        const char *name = ms_str_get(f->env.in, ni->name);
        if (pts_node_info(a, i) != ni) fail_msg("step %d: node %s not in step", step, name);
        assert_int_equal(a->has_keys[i], b->has_keys[j]);
        for (uint32_t k = 0; k < a->nc; k++) {
            int32_t da = pts_node_domain(a, i, k), db = pts_node_domain(b, (int32_t)j, k);
            if ((da < 0) != (db < 0) || (da >= 0 && a->dom[k].value[da] != b->dom[k].value[db]) ||
                pts_node_count(a, i, k) != pts_node_count(b, (int32_t)j, k) ||
                a->missing[(size_t)i * a->nc + k] != b->missing[(size_t)j * b->nc + k])
                fail_msg("step %d: node %s, constraint %u differs", step, name, k);
        }
    }
    for (uint32_t j = 0; j < a->nnodes; j++) seen -= a->ni[j] != NULL;
    if (seen != 0) fail_msg("step %d: the kept table has other nodes", step);
}

/* Random changes to pods (add, relabel, delete) and nodes (add, relabel,
 * taint, delete): after each, the counts a plugin keeps across cycles equal
 * those a fresh plugin builds from the whole snapshot. */
static void test_counts_follow_the_cluster(void **state) {
    (void)state;
    fx f;
    fx_start(&f);
    create_ok(&f, NULL);
    static const char *const pods[] = {
        /* zone and hostname, honouring the node selector and taints */
        POD(FOO_L, "nodeSelector: {pool: a}, "
                   TSC(SPREAD(1, "zone", "DoNotSchedule", SEL(FOO) ", nodeTaintsPolicy: Honor"),
                       HARD(1, H, FOO))),
        /* scoring, with a hostname constraint counted in Score */
        POD(FOO_L ", bar: x", TSC(SOFT(2, "zone", BAR), SOFT(1, H, FOO), SOFT(1, "rack", "{}"))),
        /* the system defaults: nodes without a zone still count */
        "metadata: {name: d, uid: d, labels: {foo: ''}, ownerReferences: [{apiVersion: apps/v1, "
        "kind: ReplicaSet, name: rs, uid: rs1, controller: true}]}",
    };
    uint64_t rnd = 42;
    char spec[160], name[32];
    int npods = 0;
    /* The tables are kept by snapshot position: nodes coming and going
     * must move the others, in many steps. */
    uint32_t last_at[12], moved = 0;
    for (uint32_t i = 0; i < 12; i++) last_at[i] = UINT32_MAX;
    for (int step = 0; step < 400; step++) {
        uint32_t op = next(&rnd) % 10, nn = next(&rnd) % 12;
        snprintf(name, sizeof name, "n%u", nn);
        ms_str nname = S(&f, name);
        if (op < 2) {
            /* node (re)labelled, maybe tainted or left without a zone */
            snprintf(spec, sizeof spec, "%s " H "=%s pool=%s rack=r%u%s%s", name, name,
                     next(&rnd) % 3 ? "a" : "b", next(&rnd) % 3, next(&rnd) % 4 ? "" : " taint",
                     next(&rnd) % 5 ? (next(&rnd) % 2 ? " zone=z1 " ZONE "=z1" : " zone=z2 " ZONE "=z2")
                                    : "");
            ms_node *n = make_node(&f, spec);
            if (ms_cache_node_info(f.cache, nname) && ms_cache_node_info(f.cache, nname)->node)
                assert_int_equal(ms_cache_update_node(f.cache, n), MS_OK);
            else
                assert_int_equal(ms_cache_add_node(f.cache, n), MS_OK);
            ms_node_unref(n);
        } else if (op == 2) {
            ms_cache_remove_node(f.cache, nname);
        } else if (op < 8) {
            snprintf(spec, sizeof spec, "q%d %s%s%s%s", npods++, name, next(&rnd) % 2 ? " foo=" : "",
                     next(&rnd) % 2 ? " bar=x" : "", next(&rnd) % 6 ? "" : " @other");
            ms_pod *p = make_pod(&f, spec);
            assert_int_equal(ms_cache_add_pod(f.cache, p), MS_OK);
            ms_pod_unref(p);
        } else if (npods > 0) {
            snprintf(spec, sizeof spec, "q%u", next(&rnd) % (uint32_t)npods);
            char key[200];
            snprintf(key, sizeof key, "default/%s", spec);
            ms_pod *old = ms_cache_get_pod(f.cache, ms_hash_bytes(key, strlen(key)));
            if (old && op == 8) {
                ms_cache_remove_pod(f.cache, old);
            } else if (old) {
                /* relabelled in place */
                snprintf(spec + strlen(spec), sizeof spec - strlen(spec), " %s%s",
                         ms_str_get(f.env.in, old->node_name), next(&rnd) % 2 ? " foo=" : " bar=x");
                ms_pod *p = make_pod(&f, spec);
                assert_int_equal(ms_cache_update_pod(f.cache, old, p), MS_OK);
                ms_pod_unref(p);
            }
        }
        /* Not every cycle looks: the journal carries what happened between. */
        if (next(&rnd) % 3 == 0) continue;
        update(&f);
        bool any_moved = false;
        for (uint32_t i = 0; i < 12; i++) {
            snprintf(name, sizeof name, "n%u", i);
            const ms_node_info *ni = ms_snapshot_get(&f.snap, S(&f, name));
            any_moved |= ni && last_at[i] != UINT32_MAX && ni->index != last_at[i];
            last_at[i] = ni ? ni->index : UINT32_MAX;
        }
        moved += any_moved;
        for (size_t i = 0; i < sizeof pods / sizeof pods[0]; i++) {
            ms_pod *pod = fx_pod(&f.env.d, pods[i]);
            uint8_t when = i == 0 ? MS_DO_NOT_SCHEDULE : MS_SCHEDULE_ANYWAY;
            pts_set s;
            begin(&f, pod);
            assert_true(pts_constraints(f.pl, &f.arena, pod, when, &s));
            pts_table *kept = pts_tables_sync(&((pts_plugin *)f.pl)->tables, &s, &f.snap, f.env.in);
            void *fresh_pl = NULL;
            ms_error err;
            assert_int_equal(OPS->create(NULL, &f.h, &fresh_pl, &err), MS_OK);
            pts_table *fresh = pts_tables_sync(&((pts_plugin *)fresh_pl)->tables, &s, &f.snap, f.env.in);
            assert_non_null(kept);
            assert_non_null(fresh);
            same_counts(&f, kept, fresh, step);
            OPS->destroy(fresh_pl);
            ms_pod_unref(pod);
        }
    }
    assert_true(moved > 40);
    fx_stop(&f);
}

/* A NodeInfo that is not the snapshot's (nominated pods added, or victims
 * removed by preemption) is judged as if the cluster had changed that way,
 * as upstream's AddPod / RemovePod make it: compare with a cluster that
 * really has the change. */
static void test_filter_on_changed_node_info(void **state) {
    (void)state;
    static const char *const nodes[] = {N4_ITEMS, NULL};
    static const char *const base[] = {"p-a1 node-a foo=", "p-a2 node-a foo=", "p-b1 node-b foo=",
                                       "p-y1 node-y foo=", "p-y2 node-y foo=", "p-y3 node-y foo=", NULL};
    static const char *const incoming[] = {
        POD(FOO_L, TSC(HARD(1, "zone", FOO), HARD(1, "node", FOO))),
        POD(FOO_L, TSC(HARD(1, "node", FOO))),
        POD(FOO_L, TSC(HARD(2, "node", FOO))),
        POD(FOO_L, TSC(HARD(1, "zone", FOO))),
        POD(FOO_L, TSC(SPREAD(1, "node", "DoNotSchedule", SEL(FOO) ", minDomains: 5"))),
    };
    for (int removing = 0; removing < 2; removing++) {
        for (size_t pi = 0; pi < sizeof incoming / sizeof incoming[0]; pi++) {
            for (int ni = 0; ni < 4; ni++) {
                const char *node = nodes[ni];
                char nodename[16];
                snprintf(nodename, sizeof nodename, "%.6s", node);
                /* the cluster with the change made for real */
                fx real;
                fx_start(&real);
                add_nodes(&real, nodes);
                add_pods(&real, base);
                char extra[64];
                snprintf(extra, sizeof extra, "extra %s foo=", nodename);
                ms_pod *x = make_pod(&real, extra);
                if (removing) {
                    /* the victim: the node's first pod, if any */
                    ms_node_info *live = (ms_node_info *)ms_cache_node_info(real.cache, S(&real, nodename));
                    if (live->npods == 0) {
                        ms_pod_unref(x);
                        fx_stop(&real);
                        continue;
                    }
                    ms_pod_unref(x);
                    x = ms_pod_ref(live->pods[0]);
                    assert_int_equal(ms_cache_remove_pod(real.cache, x), MS_OK);
                } else {
                    assert_int_equal(ms_cache_add_pod(real.cache, x), MS_OK);
                }
                update(&real);
                create_ok(&real, LIST_ARGS);
                ms_pod *pod = fx_pod(&real.env.d, incoming[pi]);
                begin(&real, pod);
                ms_status st;
                assert_int_equal(OPS->pre_filter(real.pl, &real.c, &st), MS_SUCCESS);
                ms_code want = OPS->filter(real.pl, &real.c, node_info(&real, nodename), &st);
                ms_pod_unref(pod);

                /* the cluster without it, and a copy of the node with it */
                fx f;
                fx_start(&f);
                add_nodes(&f, nodes);
                add_pods(&f, base);
                update(&f);
                create_ok(&f, LIST_ARGS);
                pod = fx_pod(&f.env.d, incoming[pi]);
                begin(&f, pod);
                assert_int_equal(OPS->pre_filter(f.pl, &f.c, &st), MS_SUCCESS);
                ms_node_info *scratch = ms_node_info_new(S(&f, nodename));
                assert_int_equal(ms_node_info_copy_into(scratch, node_info(&f, nodename)), 0);
                ms_pod *changed = NULL;
                if (removing) {
                    assert_int_equal(ms_node_info_remove_pod(scratch, scratch->pods[0], f.env.in), 0);
                } else {
                    changed = make_pod(&f, extra);
                    assert_int_equal(ms_node_info_add_pod(scratch, changed, f.env.in), 0);
                }
                ms_code got = OPS->filter(f.pl, &f.c, scratch, &st);
                if (got != want)
                    fail_msg("%s pod %zu on %s: got %c, want %c", removing ? "removing" : "adding", pi,
                             nodename, code_letter(got), code_letter(want));
                ms_node_info_free(scratch);
                if (changed) ms_pod_unref(changed);
                ms_pod_unref(pod);
                ms_pod_unref(x);
                fx_stop(&f);
                fx_stop(&real);
            }
        }
    }
}

/* After a failed snapshot update the list is empty and the positions mean
 * nothing: the counts still come from every node of the snapshot, Filter
 * answers by the node's value, and the next good update brings the
 * positions back. */
static void test_snapshot_out_of_step(void **state) {
    (void)state;
    static const filter_case tc = {"out of step", POD(FOO_L, TSC(HARD(1, "zone", FOO))), N4,
                                   {"p-a1 node-a foo=", "p-a2 node-a foo=", "p-x1 node-x foo="}, "UUSS"};
    fx f;
    fx_start(&f);
    add_nodes(&f, tc.nodes);
    add_pods(&f, tc.pods);
    update(&f);
    create_ok(&f, LIST_ARGS);
    ms_pod *pod = fx_pod(&f.env.d, tc.pod);
    const pts_tables *ts = &((pts_plugin *)f.pl)->tables;
    char got[MAXN + 1];
    for (int round = 0; round < 3; round++) {
        if (round == 1) {
            /* What ms_cache_update_snapshot leaves when it fails. */
            f.snap.nnodes = 0;
            f.snap.tree_version = UINT64_MAX;
        } else if (round == 2) {
            update(&f);
        }
        begin(&f, pod);
        ms_status st;
        assert_int_equal(OPS->pre_filter(f.pl, &f.c, &st), MS_SUCCESS);
        filter_all(&f, &tc, pod, got);
        if (strcmp(got, tc.want) != 0) fail_msg("round %d: got %s, want %s", round, got, tc.want);
        assert_int_equal(ts->n, 1);
        assert_int_equal(ts->t[0]->nnodes, round == 1 ? 0 : 4);
    }
    ms_pod_unref(pod);
    fx_stop(&f);
}

/* The tables keep their entries per snapshot position: names interned
 * before the nodes (pods' nodeName, events) and nodes replaced by new
 * names (a node pool rolled) must not size them. */
static void test_tables_sized_by_node_count(void **state) {
    (void)state;
    fx f;
    fx_start(&f);
    create_ok(&f, LIST_ARGS);
    enum { NAMES = 100000, NODES = 10, ROLLS = 50 };
    char name[32], spec[96];
    for (uint32_t i = 0; i < NAMES; i++) {
        snprintf(name, sizeof name, "elsewhere-%u", i);
        S(&f, name);
    }
    for (uint32_t i = 0; i < NODES; i++) {
        snprintf(spec, sizeof spec, "n%u zone=z%u", i, i % 3);
        ms_node *n = make_node(&f, spec);
        assert_true(n->meta.name >= NAMES);
        assert_int_equal(ms_cache_add_node(f.cache, n), MS_OK);
        ms_node_unref(n);
        snprintf(spec, sizeof spec, "p%u n%u foo=", i, i);
        ms_pod *p = make_pod(&f, spec);
        assert_int_equal(ms_cache_add_pod(f.cache, p), MS_OK);
        ms_pod_unref(p);
    }
    ms_pod *pod = fx_pod(&f.env.d, POD(FOO_L, TSC(HARD(1, "zone", FOO))));
    pts_tables *ts = &((pts_plugin *)f.pl)->tables;
    for (uint32_t roll = 0; roll <= ROLLS; roll++) {
        if (roll > 0) {
            /* One node leaves, one with a new name comes (another zone's). */
            snprintf(name, sizeof name, "n%u", roll - 1);
            assert_int_equal(ms_cache_remove_node(f.cache, S(&f, name)), MS_OK);
            snprintf(spec, sizeof spec, "n%u zone=z%u", roll - 1 + NODES, (roll + 1) % 3);
            ms_node *n = make_node(&f, spec);
            assert_int_equal(ms_cache_add_node(f.cache, n), MS_OK);
            ms_node_unref(n);
        }
        update(&f);
        assert_int_equal(f.snap.nnodes, NODES);
        begin(&f, pod);
        ms_status st;
        assert_int_equal(OPS->pre_filter(f.pl, &f.c, &st), MS_SUCCESS);
        assert_int_equal(ts->n, 1);
        const pts_table *t = ts->t[0];
        /* Every node of the snapshot answers from the table. */
        for (uint32_t i = 0; i < NODES; i++) assert_int_equal(pts_node(t, f.snap.nodes[i]), (int32_t)i);
        assert_true(t->nnodes <= NODES);
        assert_true(t->nodecap <= ms_array_capacity(0, NODES));
    }
    ms_pod_unref(pod);
    fx_stop(&f);
}

/* Pods of one workload share one table; another selector gets its own. */
static void test_tables_are_shared_by_signature(void **state) {
    (void)state;
    fx f;
    fx_start(&f);
    static const char *const nodes[] = {N4_ITEMS, NULL};
    add_nodes(&f, nodes);
    update(&f);
    create_ok(&f, LIST_ARGS);
    pts_plugin *pl = f.pl;
    static const char *const pods[] = {
        POD(FOO_L, TSC(HARD(1, "zone", FOO))),
        POD(FOO_L, TSC(HARD(3, "zone", FOO))),                 /* maxSkew does not matter */
        "metadata: {name: q, uid: q, labels: {foo: ''}}\nspec: {" TSC(HARD(1, "zone", FOO)) "}",
        POD(FOO_L, TSC(HARD(1, "zone", BAR))),                 /* another selector */
        POD(FOO_L, "nodeSelector: {a: b}, " TSC(HARD(1, "zone", FOO))),   /* honoured affinity */
        "metadata: {name: p, uid: p2, namespace: other, labels: {foo: ''}}\nspec: {"
        TSC(HARD(1, "zone", FOO)) "}",                         /* another namespace */
    };
    static const uint32_t want_tables[] = {1, 1, 1, 2, 3, 4};
    for (size_t i = 0; i < sizeof pods / sizeof pods[0]; i++) {
        ms_pod *pod = fx_pod(&f.env.d, pods[i]);
        begin(&f, pod);
        ms_status st;
        assert_int_equal(OPS->pre_filter(f.pl, &f.c, &st), MS_SUCCESS);
        assert_int_equal(pl->tables.n, want_tables[i]);
        ms_pod_unref(pod);
    }
    /* More signatures than tables: the least recently used goes. */
    char text[256];
    for (int i = 0; i < PTS_MAX_TABLES + 3; i++) {
        snprintf(text, sizeof text, POD(FOO_L, TSC(HARD(1, "zone", "{matchLabels: {k: v%d}}"))), i);
        ms_pod *pod = fx_pod(&f.env.d, text);
        begin(&f, pod);
        ms_status st;
        assert_int_equal(OPS->pre_filter(f.pl, &f.c, &st), MS_SUCCESS);
        assert_true(pl->tables.n <= PTS_MAX_TABLES);
        ms_pod_unref(pod);
    }
    fx_stop(&f);
}

/* A cycle without a snapshot sees no node: every domain is empty. */
static void test_cycle_without_snapshot(void **state) {
    (void)state;
    fx f;
    fx_start(&f);
    static const char *const nodes[] = {"node-a zone=z1", "node-b", NULL};
    add_nodes(&f, nodes);
    update(&f);
    create_ok(&f, LIST_ARGS);
    ms_pod *pod = fx_pod(&f.env.d, POD(FOO_L, TSC(HARD(1, "zone", FOO), SOFT(1, "zone", FOO))));
    begin(&f, pod);
    f.c.snap = NULL;
    ms_status st;
    assert_int_equal(OPS->pre_filter(f.pl, &f.c, &st), MS_SUCCESS);
    assert_int_equal(OPS->filter(f.pl, &f.c, node_info(&f, "node-a"), &st), MS_SUCCESS);
    assert_int_equal(OPS->filter(f.pl, &f.c, node_info(&f, "node-b"), &st),
                     MS_UNSCHEDULABLE_AND_UNRESOLVABLE);
    ms_node_info *ni = node_info(&f, "node-a");
    assert_int_equal(OPS->pre_score(f.pl, &f.c, &ni, 1, &st), MS_SKIP);
    ms_pod_unref(pod);
    fx_stop(&f);
}

static void test_registration(void **state) {
    (void)state;
    assert_ptr_equal(ms_plugin_lookup("PodTopologySpread"), OPS);
    assert_string_equal(OPS->name, "PodTopologySpread");
    ms_event_mask want = MS_EV_ASSIGNED_POD_ADD | MS_EV_ASSIGNED_POD_UPDATE | MS_EV_ASSIGNED_POD_DELETE |
                         MS_EV_NODE_ADD | MS_EV_NODE_DELETE | MS_EV_NODE_LABEL | MS_EV_NODE_TAINT;
    assert_int_equal(OPS->events & want, want);
    assert_int_equal(OPS->events & (MS_EV_NODE_ALLOCATABLE | MS_EV_NODE_CONDITION), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filter_single_constraint),
        cmocka_unit_test(test_filter_multiple_constraints),
        cmocka_unit_test(test_pre_filter_state),
        cmocka_unit_test(test_score),
        cmocka_unit_test(test_score_system_defaults),
        cmocka_unit_test(test_default_selector),
        cmocka_unit_test(test_pre_score_skip),
        cmocka_unit_test(test_missing_state),
        cmocka_unit_test(test_args),
        cmocka_unit_test(test_args_quote_a_long_value),
        cmocka_unit_test(test_counts_follow_the_cluster),
        cmocka_unit_test(test_filter_on_changed_node_info),
        cmocka_unit_test(test_tables_sized_by_node_count),
        cmocka_unit_test(test_snapshot_out_of_step),
        cmocka_unit_test(test_tables_are_shared_by_signature),
        cmocka_unit_test(test_cycle_without_snapshot),
        cmocka_unit_test(test_registration),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
