/* InterPodAffinity: PreFilter/Filter and PreScore/Score/NormalizeScore with
 * upstream's worked examples (filtering_test.go, scoring_test.go), pods and
 * nodes decoded from YAML and placed through the real cache and snapshot. */
#include "testutil.h"

/* Table rows leave their trailing fields (namespaces, args) zero. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#include <cjson/cJSON.h>

#include "fixtures.h"
#include "api/namespace_store.h"
#include "base/array.h"
#include "backend/cache.h"
#include "backend/queue.h"
#include "backend/cache_snapshot.h"
#include "framework/plugins/builtin.h"
#include "framework/plugins/inter_pod_affinity.h"

#define ERR_AFF "node(s) didn't match pod affinity rules"
#define ERR_ANTI "node(s) didn't match pod anti-affinity rules"
#define ERR_EXIST "node(s) didn't satisfy existing pods anti-affinity rules"

/* ---- YAML builders -------------------------------------------------------- */

#define NODE(name, labels) "metadata: {name: " name ", labels: {" labels "}}"
/* ns is written bare (team-a, subteam1.team1) and quoted by the macro. */
#define POD_NS(name, ns, labels, node, aff)                                    \
    "metadata: {name: " name ", namespace: " #ns ", labels: {" labels "}}\n"   \
    "spec: {nodeName: " node ", containers: [{name: c}], affinity: {" aff "}}"
#define POD(name, labels, node, aff) POD_NS(name, default, labels, node, aff)
#define INCOMING_NS(ns, labels, aff)                                               \
    "metadata: {name: incoming, namespace: " #ns ", labels: {" labels "}}\n"       \
    "spec: {containers: [{name: c}], affinity: {" aff "}}"
#define INCOMING(labels, aff) INCOMING_NS(default, labels, aff)
#define NAMESPACE(name, labels) "metadata: {name: " name ", labels: {" labels "}}"

#define AFF(terms) "podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [" terms "]}"
#define ANTI(terms) "podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [" terms "]}"
#define PREF_AFF(terms) "podAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [" terms "]}"
#define PREF_ANTI(terms) \
    "podAntiAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [" terms "]}"
#define WEIGHTED(w, term) "{weight: " #w ", podAffinityTerm: " term "}"
#define TERM(exprs, tk) "{labelSelector: {matchExpressions: [" exprs "]}, topologyKey: " tk "}"
/* A term with more fields (namespaces, namespaceSelector, label keys). */
#define TERMX(exprs, tk, extra) \
    "{labelSelector: {matchExpressions: [" exprs "]}, topologyKey: " tk ", " extra "}"
#define IN(k, v) "{key: " k ", operator: In, values: [" v "]}"
#define NOTIN(k, v) "{key: " k ", operator: NotIn, values: [" v "]}"
#define EXISTS(k) "{key: " k ", operator: Exists}"
#define NOTEXIST(k) "{key: " k ", operator: DoesNotExist}"

typedef struct want {
    ms_code code;
    const char *reason;
} want;

#define OK {MS_SUCCESS, NULL}
#define W_AFF {MS_UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_AFF}
#define W_ANTI {MS_UNSCHEDULABLE, ERR_ANTI}
#define W_EXIST {MS_UNSCHEDULABLE, ERR_EXIST}

/* ---- environment: decoder, cache, snapshot, plugin ----------------------- */

typedef struct env {
    fx_env fx;
    ms_cache *cache;
    ms_snapshot snap;
    ms_namespaces nss;
    ms_handle h;
    ms_node_info *scratch;
    ms_arena arena;
    void *slots[1];
    ms_cycle c;
    void *self;
    ms_pod *pod;
} env;

static void env_init(env *e, const char *args_json) {
    memset(e, 0, sizeof *e);
    fx_env_init(&e->fx);
    e->cache = ms_cache_new(e->fx.in, 0);
    assert_non_null(e->cache);
    ms_snapshot_init(&e->snap);
    ms_namespaces_init(&e->nss);
    e->scratch = ms_node_info_new(MS_STR_NONE);
    e->h.in = e->fx.in;
    e->h.rn = &e->fx.d.rn;
    e->h.namespaces = &e->nss;
    e->h.scratch = e->scratch;
    ms_arena_init(&e->arena, 4096);
    cJSON *args = args_json ? cJSON_Parse(args_json) : NULL;
    if (args_json && !args) fail_msg("bad JSON: %s", args_json);
    ms_error err = {0};
    if (ms_plugin_inter_pod_affinity.create(args, &e->h, &e->self, &err) != MS_OK)
        fail_msg("create with %s: %s", args_json, err.msg);
    cJSON_Delete(args);
}

static void env_free(env *e) {
    ms_plugin_inter_pod_affinity.destroy(e->self);
    ms_pod_unref(e->pod);
    ms_arena_free(&e->arena);
    ms_node_info_free(e->scratch);
    ms_snapshot_free(&e->snap);
    ms_cache_free(e->cache);
    ms_namespaces_free(&e->nss);
    fx_env_free(&e->fx);
}

static void add_namespace(env *e, const char *yaml) {
    cJSON **docs = NULL;
    size_t ndocs = 0;
    ms_error err = {0};
    if (ms_yaml_parse(yaml, strlen(yaml), &docs, &ndocs, &err) != MS_OK) fail_msg("%s", err.msg);
    assert_int_equal(ndocs, 1);
    ms_namespace *ns = NULL;
    if (ms_namespace_decode(&e->fx.d, docs[0], &ns, &err) != MS_OK) fail_msg("%s", err.msg);
    assert_int_equal(ms_namespaces_set(&e->nss, ns), MS_OK);
    ms_namespace_unref(ns);
    cJSON_Delete(docs[0]);
    free(docs);
}

/* Nodes, existing pods and namespaces (NULL-terminated or fixed arrays with
 * NULL holes), then a snapshot. */
static void env_load(env *e, const char *const *nodes, size_t nnodes, const char *const *pods,
                     size_t npods, const char *const *nss, size_t nns) {
    for (size_t i = 0; i < nns && nss[i]; i++) add_namespace(e, nss[i]);
    for (size_t i = 0; i < nnodes && nodes[i]; i++) {
        ms_node *n = fx_node(&e->fx.d, nodes[i]);
        assert_int_equal(ms_cache_add_node(e->cache, n), MS_OK);
        ms_node_unref(n);
    }
    for (size_t i = 0; i < npods && pods[i]; i++) {
        ms_pod *p = fx_pod(&e->fx.d, pods[i]);
        assert_int_equal(ms_cache_add_pod(e->cache, p), MS_OK);
        ms_pod_unref(p);
    }
    assert_int_equal(ms_cache_update_snapshot(e->cache, &e->snap), MS_OK);
}

static void env_cycle(env *e, const char *pod_yaml) {
    ms_pod_unref(e->pod);
    e->pod = fx_pod(&e->fx.d, pod_yaml);
    ms_arena_reset(&e->arena);
    e->slots[0] = NULL;
    e->c = (ms_cycle){.pod = e->pod, .snap = &e->snap, .arena = &e->arena, .state = e->slots,
                      .current = 0, .h = &e->h};
}

static ms_node_info *node_info(env *e, const char *name) {
    ms_node_info *ni = ms_snapshot_get(&e->snap, ms_intern_cstr(e->fx.in, name));
    if (!ni) fail_msg("no node %s in the snapshot", name);
    return ni;
}

/* The name in a NODE() text: after "name: ", up to the comma. */
static void node_name_of(const char *yaml, char *buf, size_t n) {
    const char *p = strstr(yaml, "name: ") + 6;
    snprintf(buf, n, "%.*s", (int)strcspn(p, ",}"), p);
}

static const char *code_name(ms_code c) {
    static const char *const names[] = {"Success", "Error", "Unschedulable",
                                        "UnschedulableAndUnresolvable", "Wait", "Skip", "Pending"};
    return (unsigned)c < sizeof names / sizeof names[0] ? names[c] : "?";
}

static void check_status(const char *what, const char *node, const ms_status *st, ms_code code,
                         const want *w) {
    if (code != w->code)
        fail_msg("%s: node %s: code %s, want %s (%s)", what, node, code_name(code),
                 code_name(w->code), st->nreasons ? st->reasons[0] : "");
    if (w->reason) {
        if (st->nreasons != 1 || strcmp(st->reasons[0], w->reason) != 0)
            fail_msg("%s: node %s: reason \"%s\", want \"%s\"", what, node,
                     st->nreasons ? st->reasons[0] : "(none)", w->reason);
    }
}

/* ---- Filter ---------------------------------------------------------------- */

#define MAXN 5

typedef struct filter_case {
    const char *name;
    const char *pod;
    const char *pods[6];
    const char *nodes[MAXN];
    want want[MAXN];
    const char *namespaces[4];
} filter_case;

static void run_filter_case(const filter_case *tc) {
    env e;
    env_init(&e, NULL);
    env_load(&e, tc->nodes, MAXN, tc->pods, 6, tc->namespaces, 4);
    env_cycle(&e, tc->pod);
    ms_status st;
    ms_status_ok(&st);
    ms_code pre = ms_plugin_inter_pod_affinity.pre_filter(e.self, &e.c, &st);
    if (pre != MS_SUCCESS && pre != MS_SKIP)
        fail_msg("%s: PreFilter returned %s", tc->name, code_name(pre));
    for (size_t i = 0; i < MAXN && tc->nodes[i]; i++) {
        char name[64];
        node_name_of(tc->nodes[i], name, sizeof name);
        ms_status_ok(&st);
        ms_code code = pre == MS_SKIP ? MS_SUCCESS
                                      : ms_plugin_inter_pod_affinity.filter(e.self, &e.c,
                                                                            node_info(&e, name), &st);
        check_status(tc->name, name, &st, code, &tc->want[i]);
    }
    env_free(&e);
}

#define N_MACHINE1 NODE("machine1", "region: r1, zone: z11")
#define SVC_SCAN "service: securityscan"
#define SEC_S1 "security: S1"

/* TestRequiredAffinitySingleNode (one reason per status, as current upstream). */
static const filter_case single_node_cases[] = {
    {"no required pod affinity, no existing pods", INCOMING("", ""), {NULL}, {N_MACHINE1}, {OK}},
    {"In operator matches the existing pod",
     INCOMING(SEC_S1, AFF(TERM(IN("service", "securityscan, value2"), "region"))),
     {POD("p1", SVC_SCAN, "machine1", "")},
     {N_MACHINE1},
     {OK}},
    {"NotIn operator matches the existing pod",
     INCOMING(SEC_S1, AFF(TERM(NOTIN("service", "securityscan3, value3"), "region"))),
     {POD("p1", SVC_SCAN, "machine1", "")},
     {N_MACHINE1},
     {OK}},
    {"does not match because of a different namespace",
     INCOMING(SEC_S1, AFF("{labelSelector: {matchExpressions: [" IN("service", "securityscan, value2")
                          "]}, namespaces: [DiffNameSpace]}")),
     {POD_NS("p1", ns, SVC_SCAN, "machine1", "")},
     {N_MACHINE1},
     {W_AFF}},
    {"unmatching labelSelector",
     INCOMING(SVC_SCAN, AFF("{labelSelector: {matchExpressions: [" IN("service", "antivirusscan, value2")
                            "]}}")),
     {POD("p1", SVC_SCAN, "machine1", "")},
     {N_MACHINE1},
     {W_AFF}},
    {"different operators in several terms",
     INCOMING(SEC_S1, AFF(TERM(EXISTS("service") ", " NOTEXIST("wrongkey"), "region") ", " TERM(
                          IN("service", "securityscan") ", " NOTIN("service", "WrongValue"), "region"))),
     {POD("p1", SVC_SCAN, "machine1", "")},
     {N_MACHINE1},
     {OK}},
    {"matchExpressions are ANDed",
     INCOMING(SEC_S1, AFF(TERM(EXISTS("service") ", " NOTEXIST("wrongkey"), "region") ", " TERM(
                          IN("service", "securityscan2") ", " NOTIN("service", "WrongValue"), "region"))),
     {POD("p1", SVC_SCAN, "machine1", "")},
     {N_MACHINE1},
     {W_AFF}},
    {"satisfies affinity and anti-affinity",
     INCOMING(SEC_S1, AFF(TERM(IN("service", "securityscan, value2"), "region")) ", " ANTI(
                          TERM(IN("service", "antivirusscan, value2"), "node"))),
     {POD("p1", SVC_SCAN, "machine1", "")},
     {N_MACHINE1},
     {OK}},
    {"satisfies affinity, anti-affinity and the existing pod's anti-affinity",
     INCOMING(SEC_S1, AFF(TERM(IN("service", "securityscan, value2"), "region")) ", " ANTI(
                          TERM(IN("service", "antivirusscan, value2"), "node"))),
     {POD("p1", SVC_SCAN, "machine1", ANTI(TERM(IN("service", "antivirusscan, value2"), "node")))},
     {N_MACHINE1},
     {OK}},
    {"satisfies affinity but not anti-affinity",
     INCOMING(SEC_S1, AFF(TERM(IN("service", "securityscan, value2"), "region")) ", " ANTI(
                          TERM(IN("service", "securityscan, value2"), "zone"))),
     {POD("p1", SVC_SCAN, "machine1", "")},
     {N_MACHINE1},
     {W_ANTI}},
    {"symmetry: the existing pod's anti-affinity rejects the pod",
     INCOMING(SVC_SCAN, AFF(TERM(IN("service", "securityscan, value2"), "region")) ", " ANTI(
                            TERM(IN("service", "antivirusscan, value2"), "node"))),
     {POD("p1", SVC_SCAN, "machine1", ANTI(TERM(IN("service", "securityscan, value2"), "zone")))},
     {N_MACHINE1},
     {W_EXIST}},
    {"pod matches its own affinity but so does a pod elsewhere",
     INCOMING(SVC_SCAN, AFF(TERM(NOTIN("service", "securityscan, value2"), "region"))),
     {POD("p1", SVC_SCAN, "machine2", "")},
     {N_MACHINE1},
     {W_AFF}},
    {"existing anti-affinity respected when the pod has none",
     INCOMING(SVC_SCAN, ""),
     {POD("p1", SVC_SCAN, "machine1", ANTI(TERM(IN("service", "securityscan, value2"), "zone")))},
     {N_MACHINE1},
     {W_EXIST}},
    {"existing anti-affinity that does not select the pod",
     INCOMING(SVC_SCAN, ""),
     {POD("p1", SVC_SCAN, "machine1", ANTI(TERM(NOTIN("service", "securityscan, value2"), "zone")))},
     {N_MACHINE1},
     {OK}},
    {"satisfies the existing anti-affinity but not its own",
     INCOMING(SVC_SCAN, ANTI(TERM(EXISTS("service"), "region") ", " TERM(EXISTS("security"), "region"))),
     {POD("p1", SEC_S1, "machine1", ANTI(TERM(EXISTS("security"), "zone")))},
     {N_MACHINE1},
     {W_ANTI}},
    {"symmetry a1: partial match on anti-affinity terms",
     INCOMING(SVC_SCAN, ANTI(TERM(EXISTS("service"), "zone") ", " TERM(EXISTS("security"), "zone"))),
     {POD("p1", SEC_S1, "machine1", ANTI(TERM(EXISTS("security"), "zone")))},
     {N_MACHINE1},
     {W_ANTI}},
    {"symmetry a2: partial match on anti-affinity terms",
     INCOMING(SEC_S1, ANTI(TERM(EXISTS("security"), "zone"))),
     {POD("p1", SVC_SCAN, "machine1",
          ANTI(TERM(EXISTS("service"), "zone") ", " TERM(EXISTS("security"), "zone")))},
     {N_MACHINE1},
     {W_EXIST}},
    {"symmetry b1",
     INCOMING("abc: '', xyz: ''", ANTI(TERM(EXISTS("abc"), "zone") ", " TERM(EXISTS("def"), "zone"))),
     {POD("p1", "def: '', xyz: ''", "machine1",
          ANTI(TERM(EXISTS("abc"), "zone") ", " TERM(EXISTS("def"), "zone")))},
     {N_MACHINE1},
     {W_ANTI}},
    {"symmetry b2",
     INCOMING("def: '', xyz: ''", ANTI(TERM(EXISTS("abc"), "zone") ", " TERM(EXISTS("def"), "zone"))),
     {POD("p1", "abc: '', xyz: ''", "machine1",
          ANTI(TERM(EXISTS("abc"), "zone") ", " TERM(EXISTS("def"), "zone")))},
     {N_MACHINE1},
     {W_ANTI}},
};

#define RG_CHINA "region: China"
#define RG_CHINA_AZ1 "region: China, az: az1"
#define RG_INDIA "region: India"
#define NA(zone) NODE("nodeA", "region: r1, zone: " zone ", hostname: nodeA")
#define NB(zone) NODE("nodeB", "region: r1, zone: " zone ", hostname: nodeB")
#define NC(zone) NODE("nodeC", "region: r1, zone: " zone ", hostname: nodeC")

/* TestRequiredAffinityMultipleNodes. */
static const filter_case multi_node_cases[] = {
    {"nodes sharing the topology value of a matching pod fit",
     INCOMING("", AFF(TERM(IN("foo", "bar"), "region"))),
     {POD("p1", "foo: bar", "machine1", "")},
     {NODE("machine1", RG_CHINA), NODE("machine2", RG_CHINA_AZ1), NODE("machine3", RG_INDIA)},
     {OK, OK, W_AFF}},
    {"the first pod of a self-affine group fits anywhere",
     INCOMING("foo: bar, service: securityscan",
              AFF(TERM(IN("foo", "bar"), "zone") ", " TERM(IN("service", "securityscan"), "zone"))),
     {POD("p1", "foo: bar", "nodeA", "")},
     {NODE("nodeA", "zone: az1, hostname: h1"), NODE("nodeB", "zone: az2, hostname: h2")},
     {OK, OK}},
    {"the first pod of a group needs nodes with the topology keys",
     INCOMING("foo: bar, service: securityscan",
              AFF(TERM(IN("foo", "bar"), "zone") ", " TERM(IN("service", "securityscan"), "zone"))),
     {POD("p1", "foo: bar", "nodeA", "")},
     {NODE("nodeA", "zoneLabel: az1, hostname: h1"), NODE("nodeB", "zoneLabel: az2, hostname: h2")},
     {W_AFF, W_AFF}},
    {"anti-affinity covers every node of the topology value",
     INCOMING("", ANTI(TERM(IN("foo", "abc"), "region"))),
     {POD("p1", "foo: abc", "nodeA", "")},
     {NA("z1"), NB("z1")},
     {W_ANTI, W_ANTI}},
    {"anti-affinity matches when any term matches",
     INCOMING("", ANTI(TERM(IN("foo", "abc"), "region") ", " TERM(IN("service", "securityscan"), "zone"))),
     {POD("p1", "foo: abc, service: securityscan", "nodeA", "")},
     {NA("z1"), NB("z2")},
     {W_ANTI, W_ANTI}},
    {"anti-affinity leaves other topology values",
     INCOMING("", ANTI(TERM(IN("foo", "abc"), "region"))),
     {POD("p1", "foo: abc", "nodeA", "")},
     {NODE("nodeA", RG_CHINA), NODE("nodeB", RG_CHINA_AZ1), NODE("nodeC", RG_INDIA)},
     {W_ANTI, W_ANTI, OK}},
    {"an existing anti-affinity term in another namespace does not count",
     INCOMING_NS(NS1, "foo: '123'", ANTI(TERM(IN("foo", "bar"), "region"))),
     {POD_NS("p1", NS1, "foo: bar", "nodeA", ""),
      POD_NS("p2", NS2, "", "nodeC", ANTI(TERM(IN("foo", "'123'"), "region")))},
     {NODE("nodeA", RG_CHINA), NODE("nodeB", RG_CHINA_AZ1), NODE("nodeC", RG_INDIA)},
     {W_ANTI, W_ANTI, OK}},
    {"existing anti-affinity with a topology key no node has",
     INCOMING("foo: ''", ""),
     {POD("p1", "", "nodeA", ANTI(TERM(EXISTS("foo"), "invalid-node-label")))},
     {NA("z1"), NB("z1")},
     {OK, OK}},
    {"incoming anti-affinity with a topology key no node has",
     INCOMING("", ANTI(TERM(EXISTS("foo"), "invalid-node-label"))),
     {POD("p1", "foo: ''", "nodeA", "")},
     {NA("z1"), NB("z1")},
     {OK, OK}},
    {"the pod violates a term of each existing pod everywhere",
     INCOMING("foo: '', bar: ''", ""),
     {POD("p1", "", "nodeA", ANTI(TERM(EXISTS("foo"), "zone"))),
      POD("p2", "", "nodeA", ANTI(TERM(EXISTS("bar"), "region")))},
     {NA("z1"), NB("z2")},
     {W_EXIST, W_EXIST}},
    {"the pod's anti-affinity terms each match one existing pod",
     INCOMING("", ANTI(TERM(EXISTS("foo"), "zone") ", " TERM(EXISTS("bar"), "region"))),
     {POD("p1", "foo: ''", "nodeA", ""), POD("p2", "bar: ''", "nodeB", "")},
     {NA("z1"), NB("z2")},
     {W_ANTI, W_ANTI}},
    {"existing term with a missing topology key does not count",
     INCOMING("foo: '', bar: ''", ""),
     {POD("p1", "", "nodeA",
          ANTI(TERM(EXISTS("foo"), "invalid-node-label") ", " TERM(EXISTS("bar"), "zone")))},
     {NA("z1"), NB("z2")},
     {W_EXIST, OK}},
    {"incoming term with a missing topology key does not count",
     INCOMING("", ANTI(TERM(EXISTS("foo"), "invalid-node-label") ", " TERM(EXISTS("bar"), "zone"))),
     {POD("podA", "foo: '', bar: ''", "nodeA", "")},
     {NA("z1"), NB("z2")},
     {W_ANTI, OK}},
    {"existing terms with valid topology keys",
     INCOMING("foo: '', bar: ''", ""),
     {POD("p1", "", "nodeA", ANTI(TERM(EXISTS("foo"), "region") ", " TERM(EXISTS("bar"), "zone")))},
     {NA("z1"), NB("z2")},
     {W_EXIST, W_EXIST}},
    {"incoming terms with valid topology keys",
     INCOMING("", ANTI(TERM(EXISTS("foo"), "region") ", " TERM(EXISTS("bar"), "zone"))),
     {POD("p1", "foo: '', bar: ''", "nodeA", "")},
     {NA("z1"), NB("z2")},
     {W_ANTI, W_ANTI}},
    {"existing pods on two nodes each have a term that selects the pod",
     INCOMING("foo: '', bar: ''", ""),
     {POD("p1", "", "nodeA", ANTI(TERM(EXISTS("foo"), "zone") ", " TERM(EXISTS("labelA"), "zone"))),
      POD("p2", "", "nodeB", ANTI(TERM(EXISTS("bar"), "zone") ", " TERM(EXISTS("labelB"), "zone")))},
     {NA("z1"), NB("z2"), NC("z3")},
     {W_EXIST, W_EXIST, OK}},
    {"affinity: one pod matches all terms",
     INCOMING("", AFF(TERM(EXISTS("foo"), "region") ", " TERM(EXISTS("bar"), "zone"))),
     {POD("pod1", "foo: '', bar: ''", "nodeA", "")},
     {NA("z1"), NB("z1")},
     {OK, OK}},
    {"affinity: all terms must be matched by the same pod",
     INCOMING("", AFF(TERM(EXISTS("foo"), "region") ", " TERM(EXISTS("bar"), "zone"))),
     {POD("pod1", "foo: ''", "nodeA", ""), POD("pod2", "bar: ''", "nodeB", "")},
     {NA("z1"), NB("z2")},
     {W_AFF, W_AFF}},
};

#define NS_A NAMESPACE("team-a", "team: a")
#define NS_B NAMESPACE("team-b", "team: b")
#define NS_C NAMESPACE("team-c", "team: c, shared: 'yes'")
#define ZNODES {NA("z1"), NB("z2"), NC("z3")}

/* namespaceSelector, matchLabelKeys / mismatchLabelKeys and hostname
 * anti-affinity (the scheduler_perf shape). */
static const filter_case selector_cases[] = {
    {"namespaceSelector selects the existing pod's namespace",
     INCOMING_NS(team-a, "app: web",
                 AFF(TERMX(IN("app", "web"), "zone", "namespaceSelector: {matchLabels: {team: b}}"))),
     {POD_NS("p1", team-b, "app: web", "nodeA", ""), POD_NS("p2", team-a, "app: web", "nodeB", "")},
     ZNODES,
     {OK, W_AFF, W_AFF},
     {NS_A, NS_B}},
    {"namespaces and namespaceSelector are ORed",
     INCOMING_NS(team-a, "app: web",
                 AFF(TERMX(IN("app", "web"), "zone",
                           "namespaces: [team-a], namespaceSelector: {matchLabels: {team: c}}"))),
     {POD_NS("p1", team-b, "app: web", "nodeA", ""), POD_NS("p2", team-a, "app: web", "nodeB", ""),
      POD_NS("p3", team-c, "app: web", "nodeC", "")},
     ZNODES,
     {W_AFF, OK, OK},
     {NS_A, NS_B, NS_C}},
    {"an empty namespaceSelector selects every namespace",
     INCOMING_NS(team-a, "app: api", ANTI(TERMX(IN("app", "web"), "zone", "namespaceSelector: {}"))),
     {POD_NS("p1", team-b, "app: web", "nodeA", ""), POD_NS("p2", ghost, "app: web", "nodeB", "")},
     ZNODES,
     {W_ANTI, W_ANTI, OK},
     {NS_A, NS_B}},
    {"a namespace without a Namespace object is not selected by the pod's terms",
     INCOMING_NS(team-a, "app: web",
                 AFF(TERMX(IN("app", "web"), "zone",
                           "namespaceSelector: {matchExpressions: [" NOTEXIST("team") "]}"))),
     {POD_NS("p1", ghost, "app: web", "nodeA", "")},
     ZNODES,
     {W_AFF, W_AFF, W_AFF},
     {NS_A, NS_B}},
    {"symmetry: an existing pod's namespaceSelector selects the pod's namespace",
     INCOMING_NS(team-a, "app: web", ""),
     {POD_NS("p1", team-b, "app: db", "nodeA",
             ANTI(TERMX(IN("app", "web"), "zone", "namespaceSelector: {matchLabels: {team: a}}")))},
     ZNODES,
     {W_EXIST, OK, OK},
     {NS_A, NS_B}},
    {"symmetry: an existing pod's namespaceSelector does not select the pod's namespace",
     INCOMING_NS(team-b, "app: web", ""),
     {POD_NS("p1", team-b, "app: db", "nodeA",
             ANTI(TERMX(IN("app", "web"), "zone", "namespaceSelector: {matchLabels: {team: a}}")))},
     ZNODES,
     {OK, OK, OK},
     {NS_A, NS_B}},
    {"symmetry: an unknown namespace has no labels",
     INCOMING_NS(ghost, "app: web", ""),
     {POD_NS("p1", team-b, "app: db", "nodeA",
             ANTI(TERMX(IN("app", "web"), "zone",
                        "namespaceSelector: {matchExpressions: [" NOTEXIST("team") "]}")))},
     ZNODES,
     {W_EXIST, OK, OK},
     {NS_A, NS_B}},
    {"matchLabelKeys: only pods with the pod's value count",
     INCOMING("app: web, version: v2",
              AFF(TERMX(IN("app", "web"), "zone", "matchLabelKeys: [version]"))),
     {POD("p1", "app: web, version: v1", "nodeA", ""), POD("p2", "app: web, version: v2", "nodeB", "")},
     ZNODES,
     {W_AFF, OK, W_AFF}},
    {"matchLabelKeys: a key the pod lacks is ignored",
     INCOMING("app: web", AFF(TERMX(IN("app", "web"), "zone", "matchLabelKeys: [version]"))),
     {POD("p1", "app: web, version: v1", "nodeA", "")},
     ZNODES,
     {OK, W_AFF, W_AFF}},
    {"mismatchLabelKeys: pods with the pod's value do not count",
     INCOMING("app: web, tenant: t1",
              ANTI(TERMX(EXISTS("app"), "zone", "mismatchLabelKeys: [tenant]"))),
     {POD("p1", "app: web, tenant: t1", "nodeA", ""), POD("p2", "app: web, tenant: t2", "nodeB", "")},
     ZNODES,
     {OK, W_ANTI, OK}},
    {"matchLabelKeys of an existing pod read the existing pod's labels",
     INCOMING("app: web, version: v1", ""),
     {POD("p1", "app: db, version: v1", "nodeA",
          ANTI(TERMX(IN("app", "web"), "zone", "matchLabelKeys: [version]"))),
      POD("p2", "app: db, version: v2", "nodeB",
          ANTI(TERMX(IN("app", "web"), "zone", "matchLabelKeys: [version]")))},
     ZNODES,
     {W_EXIST, OK, OK}},
    {"hostname anti-affinity both ways",
     INCOMING("color: green", ANTI(TERM(IN("color", "green"), "hostname"))),
     {POD("p1", "color: green", "nodeA", ""),
      POD("p2", "color: blue", "nodeB", ANTI(TERM(IN("color", "green"), "hostname")))},
     ZNODES,
     {W_ANTI, W_EXIST, OK}},
};

#undef ZNODES

static void test_filter_single_node(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof single_node_cases / sizeof single_node_cases[0]; i++)
        run_filter_case(&single_node_cases[i]);
}

static void test_filter_multiple_nodes(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof multi_node_cases / sizeof multi_node_cases[0]; i++)
        run_filter_case(&multi_node_cases[i]);
}

static void test_filter_selectors(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof selector_cases / sizeof selector_cases[0]; i++)
        run_filter_case(&selector_cases[i]);
}

/* PreFilter skips when nothing can reject the pod (upstream's Skip). */
static void test_pre_filter_skip(void **state) {
    (void)state;
    static const struct {
        const char *name;
        const char *pod;
        const char *pods[2];
        ms_code want;
    } cases[] = {
        {"no terms, no existing anti-affinity", INCOMING("app: web", ""),
         {POD("p1", "app: web", "nodeA", "")}, MS_SKIP},
        {"existing anti-affinity that does not select the pod", INCOMING("app: web", ""),
         {POD("p1", "", "nodeA", ANTI(TERM(IN("app", "db"), "zone")))}, MS_SKIP},
        {"existing anti-affinity that selects the pod", INCOMING("app: web", ""),
         {POD("p1", "", "nodeA", ANTI(TERM(IN("app", "web"), "zone")))}, MS_SUCCESS},
        {"a required term that matches nothing", INCOMING("", AFF(TERM(IN("app", "x"), "zone"))),
         {NULL}, MS_SUCCESS},
        {"preferred terms only", INCOMING("", PREF_AFF(WEIGHTED(5, TERM(IN("app", "web"), "zone")))),
         {POD("p1", "app: web", "nodeA", "")}, MS_SKIP},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        env e;
        env_init(&e, NULL);
        const char *nodes[] = {NA("z1")};
        env_load(&e, nodes, 1, cases[i].pods, 2, NULL, 0);
        env_cycle(&e, cases[i].pod);
        ms_status st;
        ms_status_ok(&st);
        ms_code code = ms_plugin_inter_pod_affinity.pre_filter(e.self, &e.c, &st);
        if (code != cases[i].want)
            fail_msg("%s: PreFilter %s, want %s", cases[i].name, code_name(code),
                     code_name(cases[i].want));
        assert_true(code == MS_SKIP ? e.slots[0] == NULL : e.slots[0] != NULL);
        env_free(&e);
    }
}

/* Filter and Score without their Pre* state are errors, as upstream's; so
 * is a state from an earlier cycle (the counts have moved on since). */
static void test_state_checks(void **state) {
    (void)state;
    env e;
    env_init(&e, NULL);
    const char *nodes[] = {NA("z1")};
    const char *pods[] = {POD("p1", "app: web", "nodeA", "")};
    env_load(&e, nodes, 1, pods, 1, NULL, 0);
    ms_node_info *a = node_info(&e, "nodeA");
    ms_status st;
    int64_t score = 0;
    env_cycle(&e, INCOMING("", ""));
    ms_status_ok(&st);
    assert_int_equal(ms_plugin_inter_pod_affinity.filter(e.self, &e.c, a, &st), MS_ERROR);
    assert_int_equal(ms_plugin_inter_pod_affinity.score(e.self, &e.c, &a, 1, &score, &st), MS_ERROR);
    assert_int_equal(ms_plugin_inter_pod_affinity.normalize_score(e.self, &e.c, &score, 1, &st), MS_ERROR);

    /* Cycle 1's state, then cycle 2's PreFilter and PreScore. */
    env_cycle(&e, INCOMING("", ANTI(TERM(IN("app", "web"), "zone")) ", " PREF_AFF(
                                    WEIGHTED(5, TERM(IN("app", "web"), "zone")))));
    assert_int_equal(ms_plugin_inter_pod_affinity.pre_filter(e.self, &e.c, &st), MS_SUCCESS);
    void *filter_state1 = e.slots[0];
    e.slots[0] = NULL;
    ms_arena other;
    ms_arena_init(&other, 1024);
    void *slots2[1] = {NULL};
    ms_pod *pod2 = fx_pod(&e.fx.d, INCOMING("", AFF(TERM(IN("app", "web"), "zone"))));
    ms_cycle c2 = {.pod = pod2, .snap = &e.snap, .arena = &other, .state = slots2, .h = &e.h};
    assert_int_equal(ms_plugin_inter_pod_affinity.pre_filter(e.self, &c2, &st), MS_SUCCESS);
    e.slots[0] = filter_state1;
    ms_status_ok(&st);
    assert_int_equal(ms_plugin_inter_pod_affinity.filter(e.self, &e.c, a, &st), MS_ERROR);
    assert_string_equal(st.reasons[0], "InterPodAffinity: PreFilter state of another cycle");
    ms_status_ok(&st);
    assert_int_equal(ms_plugin_inter_pod_affinity.filter(e.self, &c2, a, &st), MS_SUCCESS);

    e.slots[0] = NULL;
    assert_int_equal(ms_plugin_inter_pod_affinity.pre_score(e.self, &e.c, &a, 1, &st), MS_SUCCESS);
    void *score_state1 = e.slots[0];
    slots2[0] = NULL;
    ms_pod *pod3 = fx_pod(&e.fx.d, INCOMING("security: S1", ""));
    c2.pod = pod3;
    assert_int_equal(ms_plugin_inter_pod_affinity.pre_score(e.self, &c2, &a, 1, &st), MS_SKIP);
    ms_status_ok(&st);
    e.slots[0] = score_state1;
    assert_int_equal(ms_plugin_inter_pod_affinity.score(e.self, &e.c, &a, 1, &score, &st), MS_ERROR);
    assert_string_equal(st.reasons[0], "InterPodAffinity: PreScore state of another cycle");
    ms_pod_unref(pod2);
    ms_pod_unref(pod3);
    ms_arena_free(&other);
    env_free(&e);
}

/* The framework's nominated-pods pass hands Filter the scratch NodeInfo with
 * the nominated pods added: they count like pods already there (upstream's
 * AddPod), on that node only. */
static void test_filter_nominated_pods(void **state) {
    (void)state;
    static const struct {
        const char *name;
        const char *pod;
        const char *nominated;
        want on_scratch;           /* nodeB with the nominated pod */
        want base;                 /* nodeB itself */
    } cases[] = {
        {"a nominated pod matches the pod's anti-affinity",
         INCOMING("app: web", ANTI(TERM(IN("app", "db"), "zone"))), POD("n1", "app: db", "nodeB", ""),
         W_ANTI, OK},
        {"a nominated pod's anti-affinity selects the pod",
         INCOMING("app: web", AFF(TERM(IN("app", "web"), "region"))),
         POD("n1", "app: db", "nodeB", ANTI(TERM(IN("app", "web"), "zone"))), W_EXIST, OK},
        {"a nominated pod satisfies the pod's affinity",
         INCOMING("app: web", AFF(TERM(IN("app", "db"), "zone"))), POD("n1", "app: db", "nodeB", ""), OK,
         W_AFF},
        {"an unrelated nominated pod", INCOMING("app: web", ANTI(TERM(IN("app", "db"), "zone"))),
         POD("n1", "app: cache", "nodeB", ""), OK, OK},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        env e;
        env_init(&e, NULL);
        const char *nodes[] = {NA("z1"), NB("z2")};
        const char *pods[] = {POD("p1", "app: web", "nodeA", "")};
        env_load(&e, nodes, 2, pods, 1, NULL, 0);
        env_cycle(&e, cases[i].pod);
        ms_status st;
        ms_status_ok(&st);
        ms_code pre = ms_plugin_inter_pod_affinity.pre_filter(e.self, &e.c, &st);
        if (pre == MS_SKIP) fail_msg("%s: PreFilter skipped", cases[i].name);
        ms_node_info *b = node_info(&e, "nodeB");
        assert_int_equal(ms_node_info_copy_into(e.scratch, b), 0);
        ms_pod *n = fx_pod(&e.fx.d, cases[i].nominated);
        assert_int_equal(ms_node_info_add_pod(e.scratch, n, e.fx.in), 0);
        ms_status_ok(&st);
        ms_code code = ms_plugin_inter_pod_affinity.filter(e.self, &e.c, e.scratch, &st);
        check_status(cases[i].name, "nodeB+nominated", &st, code, &cases[i].on_scratch);
        /* The second pass, without the nominated pod, is unaffected. */
        ms_status_ok(&st);
        code = ms_plugin_inter_pod_affinity.filter(e.self, &e.c, b, &st);
        check_status(cases[i].name, "nodeB", &st, code, &cases[i].base);
        ms_pod_unref(n);
        env_free(&e);
    }
}

/* A nominated pod's required anti-affinity against a pod with no terms of
 * its own and no existing pod's anti-affinity against it. Upstream's
 * PreFilter never skips, and AddPod counts the nominated pod's terms, so the
 * pass with nominated pods rejects its node. PreFilter may only skip while
 * the nominator holds no pod with required anti-affinity. */
static void test_nominated_anti_affinity_without_terms(void **state) {
    (void)state;
    static const struct {
        const char *name;
        const char *nominated;     /* to nodeB */
        bool drop;                 /* nomination taken back before the cycle */
        ms_code pre;
        want on_scratch;           /* nodeB with the nominated pod */
    } cases[] = {
        {"a nominated pod's anti-affinity selects the pod",
         POD("n1", "app: db", "nodeB", ANTI(TERM(IN("app", "web"), "zone"))), false, MS_SUCCESS,
         W_EXIST},
        {"its anti-affinity does not select the pod",
         POD("n1", "app: db", "nodeB", ANTI(TERM(IN("app", "db"), "zone"))), false, MS_SUCCESS, OK},
        {"a nominated pod without anti-affinity",
         POD("n1", "app: db", "nodeB", AFF(TERM(IN("app", "web"), "zone"))), false, MS_SKIP, OK},
        {"the nomination was taken back",
         POD("n1", "app: db", "nodeB", ANTI(TERM(IN("app", "web"), "zone"))), true, MS_SKIP, OK},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        env e;
        env_init(&e, NULL);
        ms_queue_config qc;
        ms_queue_config_default(&qc);
        ms_queue *q = ms_queue_new(&qc);
        assert_non_null(q);
        e.h.queue = q;
        const char *nodes[] = {NA("z1"), NB("z2")};
        const char *pods[] = {POD("p1", "app: web", "nodeA", "")};
        env_load(&e, nodes, 2, pods, 1, NULL, 0);
        ms_pod *n = fx_pod(&e.fx.d, cases[i].nominated);
        ms_queue_add_nominated(q, n, ms_intern_cstr(e.fx.in, "nodeB"));
        if (cases[i].drop) ms_queue_delete_nominated(q, n);
        env_cycle(&e, INCOMING("app: web", ""));
        ms_status st;
        ms_status_ok(&st);
        ms_code pre = ms_plugin_inter_pod_affinity.pre_filter(e.self, &e.c, &st);
        if (pre != cases[i].pre)
            fail_msg("%s: PreFilter %s, want %s", cases[i].name, code_name(pre),
                     code_name(cases[i].pre));
        if (pre == MS_SUCCESS) {
            ms_node_info *b = node_info(&e, "nodeB");
            assert_int_equal(ms_node_info_copy_into(e.scratch, b), 0);
            assert_int_equal(ms_node_info_add_pod(e.scratch, n, e.fx.in), 0);
            ms_status_ok(&st);
            ms_code code = ms_plugin_inter_pod_affinity.filter(e.self, &e.c, e.scratch, &st);
            check_status(cases[i].name, "nodeB+nominated", &st, code, &cases[i].on_scratch);
            const char *names[] = {"nodeA", "nodeB"};
            for (int k = 0; k < 2; k++) {
                ms_status_ok(&st);
                code = ms_plugin_inter_pod_affinity.filter(e.self, &e.c, node_info(&e, names[k]), &st);
                check_status(cases[i].name, names[k], &st, code, &(want)OK);
            }
        }
        ms_pod_unref(n);
        ms_queue_free(q);
        env_free(&e);
    }
}

/* Preemption's dry run hands Filter a working copy of a node with victims
 * removed (and some put back): what upstream's RemovePod takes out of the
 * PreFilter state. nodeA (zone z1) and nodeB (zone z2); the copy is nodeB
 * without the pods named in `removed`, with `added` put on it. */
static void test_filter_removed_pods(void **state) {
    (void)state;
    static const struct {
        const char *name;
        const char *pod;
        const char *pods[4];
        const char *removed[3];
        const char *added;         /* NULL: none */
        want on_copy;
        want base;                 /* nodeB itself */
    } cases[] = {
        {"removing the pod whose anti-affinity selects the pod unblocks the node",
         INCOMING("app: web", ""),
         {POD("b1", "app: db", "nodeB", ANTI(TERM(IN("app", "web"), "zone"))),
          POD("b2", "app: cache", "nodeB", "")},
         {"b1"}, NULL, OK, W_EXIST},
        {"removing another pod leaves the existing anti-affinity in force",
         INCOMING("app: web", ""),
         {POD("b1", "app: db", "nodeB", ANTI(TERM(IN("app", "web"), "zone"))),
          POD("b2", "app: cache", "nodeB", "")},
         {"b2"}, NULL, W_EXIST, W_EXIST},
        {"two blockers on the node: removing one is not enough",
         INCOMING("app: web", ""),
         {POD("b1", "app: db", "nodeB", ANTI(TERM(IN("app", "web"), "zone"))),
          POD("b2", "app: db", "nodeB", ANTI(TERM(IN("app", "web"), "hostname")))},
         {"b1"}, NULL, W_EXIST, W_EXIST},
        {"removing both blockers unblocks the node",
         INCOMING("app: web", ""),
         {POD("b1", "app: db", "nodeB", ANTI(TERM(IN("app", "web"), "zone"))),
          POD("b2", "app: db", "nodeB", ANTI(TERM(IN("app", "web"), "hostname")))},
         {"b1", "b2"}, NULL, OK, W_EXIST},
        {"removed and put back: blocked again",
         INCOMING("app: web", ""),
         {POD("b1", "app: db", "nodeB", ANTI(TERM(IN("app", "web"), "zone"))),
          POD("b2", "app: cache", "nodeB", "")},
         {"b1"}, POD("b1", "app: db", "nodeB", ANTI(TERM(IN("app", "web"), "zone"))), W_EXIST,
         W_EXIST},
        {"symmetric: the pod's own anti-affinity, its only match removed",
         INCOMING("app: web", ANTI(TERM(IN("app", "db"), "zone"))),
         {POD("b1", "app: db", "nodeB", ""), POD("b2", "app: cache", "nodeB", "")}, {"b1"}, NULL, OK,
         W_ANTI},
        {"the pod's own anti-affinity, a match left on the node",
         INCOMING("app: web", ANTI(TERM(IN("app", "db"), "zone"))),
         {POD("b1", "app: db", "nodeB", ""), POD("b2", "app: db", "nodeB", "")}, {"b1"}, NULL, W_ANTI,
         W_ANTI},
        {"affinity satisfied only by a removed pod: the node fails",
         INCOMING("app: web", AFF(TERM(IN("app", "db"), "zone"))),
         {POD("b1", "app: db", "nodeB", ""), POD("a1", "app: db", "nodeA", "")}, {"b1"}, NULL, W_AFF,
         OK},
        {"affinity: another matching pod stays in the zone",
         INCOMING("app: web", AFF(TERM(IN("app", "db"), "zone"))),
         {POD("b1", "app: db", "nodeB", ""), POD("b2", "app: db", "nodeB", "")}, {"b1"}, NULL, OK, OK},
        /* The last matching pod of the cluster goes: the map is empty, and a
         * pod that matches its own terms may go anywhere (upstream deletes
         * pairs whose count drops to 0). */
        {"affinity: the cluster's only match removed, the pod matches itself",
         INCOMING("app: db", AFF(TERM(IN("app", "db"), "zone"))),
         {POD("b1", "app: db", "nodeB", ""), POD("a1", "app: cache", "nodeA", "")}, {"b1"}, NULL, OK,
         OK},
        {"affinity: the cluster's only match removed, the pod does not match itself",
         INCOMING("app: web", AFF(TERM(IN("app", "db"), "zone"))),
         {POD("b1", "app: db", "nodeB", ""), POD("a1", "app: cache", "nodeA", "")}, {"b1"}, NULL, W_AFF,
         OK},
        {"affinity: removed from nodeB, a match left in the zone on nodeC",
         INCOMING("app: web", AFF(TERM(IN("app", "db"), "zone"))),
         {POD("b1", "app: db", "nodeB", ""), POD("c1", "app: db", "nodeC", "")}, {"b1"}, NULL, OK, OK},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        env e;
        env_init(&e, NULL);
        const char *nodes[] = {NA("z1"), NB("z2"), NC("z2")};
        env_load(&e, nodes, 3, cases[i].pods, 4, NULL, 0);
        env_cycle(&e, cases[i].pod);
        ms_status st;
        ms_status_ok(&st);
        ms_code pre = ms_plugin_inter_pod_affinity.pre_filter(e.self, &e.c, &st);
        if (pre == MS_SKIP) fail_msg("%s: PreFilter skipped", cases[i].name);
        ms_node_info *b = node_info(&e, "nodeB");
        ms_node_info *copy = ms_node_info_new(MS_STR_NONE);
        copy->scratch = true;      /* not the handle's: as preemption's own copy */
        assert_int_equal(ms_node_info_copy_into(copy, b), 0);
        for (uint32_t k = 0; k < 3 && cases[i].removed[k]; k++) {
            ms_str name = ms_intern_cstr(e.fx.in, cases[i].removed[k]);
            const ms_pod *victim = NULL;
            for (uint32_t j = 0; j < b->npods; j++)
                if (b->pods[j]->meta.name == name) victim = b->pods[j];
            assert_non_null(victim);
            assert_int_equal(ms_node_info_remove_pod(copy, victim, e.fx.in), 0);
        }
        ms_pod *back = NULL;
        if (cases[i].added) {
            /* The same pod object, as the reprieve puts it back. */
            ms_str name = ms_intern_cstr(e.fx.in, "b1");
            for (uint32_t j = 0; j < b->npods; j++)
                if (b->pods[j]->meta.name == name) back = b->pods[j];
            assert_non_null(back);
            assert_int_equal(ms_node_info_add_pod(copy, back, e.fx.in), 0);
        }
        ms_status_ok(&st);
        ms_code code = ms_plugin_inter_pod_affinity.filter(e.self, &e.c, copy, &st);
        check_status(cases[i].name, "nodeB copy", &st, code, &cases[i].on_copy);
        ms_status_ok(&st);
        code = ms_plugin_inter_pod_affinity.filter(e.self, &e.c, b, &st);
        check_status(cases[i].name, "nodeB", &st, code, &cases[i].base);
        ms_node_info_free(copy);
        env_free(&e);
    }
}

/* ---- Score ----------------------------------------------------------------- */

typedef struct score_case {
    const char *name;
    const char *pod;
    const char *pods[8];
    const char *nodes[MAXN];
    int64_t want[MAXN];
    bool skip;                     /* PreScore returns Skip (scores stay 0) */
    const char *args;
} score_case;

#define NSS_TEAMS                                                                          \
    NAMESPACE("subteam1.team1", "team: team1"), NAMESPACE("subteam2.team1", "team: team1"), \
        NAMESPACE("subteam1.team2", "team: team2"), NAMESPACE("subteam2.team2", "team: team2")

static const char *const team_namespaces[] = {NSS_TEAMS};

static void run_score_case(const score_case *tc) {
    env e;
    env_init(&e, tc->args);
    env_load(&e, tc->nodes, MAXN, tc->pods, 8, team_namespaces, 4);
    env_cycle(&e, tc->pod);
    ms_node_info *nodes[MAXN];
    uint32_t n = 0;
    for (; n < MAXN && tc->nodes[n]; n++) {
        char buf[64];
        node_name_of(tc->nodes[n], buf, sizeof buf);
        nodes[n] = node_info(&e, buf);
    }
    ms_status st;
    ms_status_ok(&st);
    int64_t scores[MAXN] = {0};
    ms_code code = ms_plugin_inter_pod_affinity.pre_score(e.self, &e.c, nodes, n, &st);
    if (code != (tc->skip ? MS_SKIP : MS_SUCCESS))
        fail_msg("%s: PreScore %s, want %s", tc->name, code_name(code),
                 tc->skip ? "Skip" : "Success");
    if (code == MS_SUCCESS) {
        assert_int_equal(ms_plugin_inter_pod_affinity.score(e.self, &e.c, nodes, n, scores, &st),
                         MS_SUCCESS);
        assert_int_equal(ms_plugin_inter_pod_affinity.normalize_score(e.self, &e.c, scores, n, &st),
                         MS_SUCCESS);
    }
    for (uint32_t i = 0; i < n; i++)
        if (scores[i] != tc->want[i])
            fail_msg("%s: node %u: score %lld, want %lld", tc->name, i, (long long)scores[i],
                     (long long)tc->want[i]);
    env_free(&e);
}

#define S1 "security: S1"
#define S2 "security: S2"
#define AZ1 "az: az1"
#define AZ2 "az: az2"
#define N1(l) NODE("node1", l)
#define N2(l) NODE("node2", l)
#define N3(l) NODE("node3", l)
#define N4(l) NODE("node4", l)
#define N5(l) NODE("node5", l)

#define STAY_S1_REGION PREF_AFF(WEIGHTED(5, TERM(IN("security", "S1"), "region")))
#define STAY_S2_REGION PREF_AFF(WEIGHTED(6, TERM(IN("security", "S2"), "region")))
#define AFFINITY3                                                                              \
    PREF_AFF(WEIGHTED(8, TERM(NOTIN("security", "S1") ", " IN("security", "S2"), "region")) ", " \
             WEIGHTED(2, TERM(EXISTS("security") ", " NOTEXIST("wrongkey"), "region")))
#define HARD_AFFINITY                                                            \
    AFF(TERM(IN("security", "S1, value2"), "region") ", " TERM(EXISTS("security") \
                                                               ", " NOTEXIST("wrongkey"), "region"))
#define AWAY_S1_AZ PREF_ANTI(WEIGHTED(5, TERM(IN("security", "S1"), "az")))
#define AWAY_S2_AZ PREF_ANTI(WEIGHTED(5, TERM(IN("security", "S2"), "az")))
#define STAY_S1_REGION_AWAY_S2_AZ                                                 \
    PREF_AFF(WEIGHTED(8, TERM(IN("security", "S1"), "region"))) ", " PREF_ANTI( \
        WEIGHTED(5, TERM(IN("security", "S2"), "az")))
#define NS_SEL_TERM                                                   \
    TERMX(IN("security", "S1"), "region",                             \
          "namespaces: [subteam2.team2], namespaceSelector: {matchExpressions: [" IN("team", "team1") "]}")
#define AFF_NS_SELECTOR PREF_AFF(WEIGHTED(5, NS_SEL_TERM))
#define ANTI_NS_SELECTOR PREF_ANTI(WEIGHTED(5, NS_SEL_TERM))

/* TestPreferredAffinity (current upstream: min-max over the scored nodes). */
static const score_case preferred_cases[] = {
    {"all nodes are same priority as Affinity is nil",
     INCOMING(S1, ""),
     {NULL},
     {N1(RG_CHINA), N2(RG_INDIA), N3(AZ1)},
     {0, 0, 0},
     true},
    {"affinity: matching topology key and pods score high",
     INCOMING(S1, STAY_S1_REGION),
     {POD("p1", S1, "node1", ""), POD("p2", S2, "node2", ""), POD("p3", S1, "node3", "")},
     {N1(RG_CHINA), N2(RG_INDIA), N3(AZ1)},
     {100, 0, 0}},
    {"affinity: nodes sharing the topology value score the same",
     INCOMING("", STAY_S1_REGION),
     {POD("p1", S1, "node1", "")},
     {N1(RG_CHINA), N2(RG_CHINA_AZ1), N3(RG_INDIA)},
     {100, 100, 0}},
    {"affinity: the region with more matching pods scores higher",
     INCOMING(S1, STAY_S2_REGION),
     {POD("p1", S2, "node1", ""), POD("p2", S2, "node1", ""), POD("p3", S2, "node2", ""),
      POD("p4", S2, "node3", ""), POD("p5", S2, "node4", ""), POD("p6", S2, "node5", "")},
     {N1(RG_CHINA), N2(RG_INDIA), N3(RG_CHINA), N4(RG_CHINA), N5(RG_INDIA)},
     {100, 0, 100, 100, 0}},
    {"affinity: different operators, some match failures",
     INCOMING(S1, AFFINITY3),
     {POD("p1", S1, "node1", ""), POD("p2", S2, "node2", ""), POD("p3", S1, "node3", "")},
     {N1(RG_CHINA), N2(RG_INDIA), N3(AZ1)},
     {20, 100, 0}},
    {"affinity symmetry: existing pods' preferred terms",
     INCOMING(S2, ""),
     {POD("p1", S1, "node1", STAY_S1_REGION), POD("p2", S2, "node2", STAY_S2_REGION)},
     {N1(RG_CHINA), N2(RG_INDIA), N3(AZ1)},
     {0, 100, 0}},
    {"affinity symmetry with namespace selector",
     INCOMING_NS(subteam1.team1, S1, ""),
     {POD("p1", S1, "node1", AFF_NS_SELECTOR), POD("p2", S2, "node2", STAY_S2_REGION)},
     {N1(RG_CHINA), N2(RG_INDIA), N3(AZ1)},
     {100, 0, 0}},
    {"anti-affinity symmetry with namespace selector",
     INCOMING_NS(subteam1.team1, S1, ""),
     {POD("p1", S1, "node1", ANTI_NS_SELECTOR), POD("p2", S2, "node2", STAY_S2_REGION)},
     {N1(RG_CHINA), N2(RG_INDIA), N3(AZ1)},
     {0, 100, 100}},
    {"affinity symmetry: existing pods' required terms (hardPodAffinityWeight)",
     INCOMING(S1, ""),
     {POD("p1", S1, "node1", HARD_AFFINITY), POD("p2", S2, "node2", HARD_AFFINITY)},
     {N1(RG_CHINA), N2(RG_INDIA), N3(AZ1)},
     {100, 100, 0}},
    {"anti-affinity: a node without matching pods scores high",
     INCOMING(S1, AWAY_S1_AZ),
     {POD("p1", S1, "node1", ""), POD("p2", S2, "node2", "")},
     {N1(AZ1), N2(RG_CHINA)},
     {0, 100}},
    {"anti-affinity: a node without the topology key scores high",
     INCOMING(S1, AWAY_S1_AZ),
     {POD("p1", S1, "node1", ""), POD("p2", S1, "node2", "")},
     {N1(AZ1), N2(RG_CHINA)},
     {0, 100}},
    {"anti-affinity: more matching pods score lower",
     INCOMING(S1, AWAY_S1_AZ),
     {POD("p1", S1, "node1", ""), POD("p2", S1, "node1", ""), POD("p3", S2, "node2", "")},
     {N1(AZ1), N2(RG_INDIA)},
     {0, 100}},
    {"anti-affinity symmetry",
     INCOMING(S2, ""),
     {POD("p1", S1, "node1", AWAY_S2_AZ), POD("p2", S2, "node2", AWAY_S1_AZ)},
     {N1(AZ1), N2(AZ2)},
     {0, 100}},
    {"affinity and anti-affinity",
     INCOMING(S1, STAY_S1_REGION_AWAY_S2_AZ),
     {POD("p1", S1, "node1", ""), POD("p2", S1, "node2", "")},
     {N1(RG_CHINA), N2(AZ1)},
     {100, 0}},
    {"affinity and anti-affinity, pods with the same labels",
     INCOMING(S1, STAY_S1_REGION_AWAY_S2_AZ),
     {POD("p1", S1, "node1", ""), POD("p2", S1, "node1", ""), POD("p3", S1, "node2", ""),
      POD("p4", S1, "node3", ""), POD("p5", S1, "node3", ""), POD("p6", S1, "node4", ""),
      POD("p7", S1, "node5", "")},
     {N1(RG_CHINA_AZ1), N2(RG_INDIA), N3(RG_CHINA), N4(RG_CHINA), N5(RG_INDIA)},
     {100, 0, 100, 100, 0}},
    {"affinity, anti-affinity and symmetry",
     INCOMING(S1, STAY_S1_REGION_AWAY_S2_AZ),
     {POD("p1", S1, "node1", ""), POD("p2", S2, "node2", ""),
      POD("p3", "", "node3", STAY_S1_REGION_AWAY_S2_AZ), POD("p4", "", "node4", AWAY_S1_AZ)},
     {N1(RG_CHINA), N2(AZ1), N3(RG_INDIA), N4(AZ2)},
     {100, 0, 100, 0}},
    {"nodes of a topology without pods with affinity",
     INCOMING(S1, ""),
     {POD("p1", S1, "node1", ""), POD("p2", "", "node2", STAY_S1_REGION_AWAY_S2_AZ)},
     {N1(RG_CHINA), N2(RG_CHINA)},
     {0, 0}},
    {"affinity with pods matching the namespaceSelector",
     INCOMING_NS(subteam1.team1, S1, AFF_NS_SELECTOR),
     {POD_NS("p1", subteam1.team1, S1, "node1", ""), POD_NS("p2", subteam1.team1, S1, "node1", ""),
      POD_NS("p3", subteam1.team2, S1, "node1", ""), POD_NS("p4", subteam2.team1, S1, "node2", "")},
     {N1(RG_CHINA), N2(RG_INDIA)},
     {100, 0}},
    {"affinity with pods matching the namespaceSelector and namespaces",
     INCOMING_NS(subteam1.team1, S1, AFF_NS_SELECTOR),
     {POD_NS("p1", subteam1.team1, S1, "node1", ""), POD_NS("p2", subteam1.team1, S1, "node1", ""),
      POD_NS("p3", subteam2.team2, S1, "node1", ""), POD_NS("p4", subteam2.team1, S1, "node2", "")},
     {N1(RG_CHINA), N2(RG_INDIA)},
     {100, 0}},
    {"anti-affinity with pods matching the namespaceSelector",
     INCOMING_NS(subteam1.team1, S1, ANTI_NS_SELECTOR),
     {POD_NS("p1", subteam1.team1, S1, "node1", ""), POD_NS("p2", subteam1.team1, S1, "node1", ""),
      POD_NS("p3", subteam1.team2, S1, "node1", ""), POD_NS("p4", subteam2.team1, S1, "node2", "")},
     {N1(RG_CHINA), N2(RG_INDIA)},
     {0, 100}},
    {"anti-affinity with pods matching the namespaceSelector and namespaces",
     INCOMING_NS(subteam1.team1, S1, ANTI_NS_SELECTOR),
     {POD_NS("p1", subteam1.team1, S1, "node1", ""), POD_NS("p2", subteam1.team1, S1, "node1", ""),
      POD_NS("p3", subteam2.team2, S1, "node1", ""), POD_NS("p4", subteam2.team1, S1, "node2", "")},
     {N1(RG_CHINA), N2(RG_INDIA)},
     {0, 100}},
    {"ignore preferred terms of existing pods",
     INCOMING(S2, ""),
     {POD("p1", S1, "node1", STAY_S1_REGION_AWAY_S2_AZ), POD("p2", S2, "node2", STAY_S2_REGION)},
     {N1(RG_CHINA), N2(RG_INDIA)},
     {0, 0},
     true,
     "{\"ignorePreferredTermsOfExistingPods\": true}"},
    {"do not ignore preferred terms of existing pods",
     INCOMING(S2, ""),
     {POD("p1", S1, "node1", STAY_S1_REGION_AWAY_S2_AZ), POD("p2", S2, "node2", STAY_S2_REGION)},
     {N1(RG_CHINA), N2(RG_INDIA)},
     {0, 100},
     false,
     "{\"ignorePreferredTermsOfExistingPods\": false}"},
    {"ignoring existing pods' terms still scores the pod's own",
     INCOMING(S2, STAY_S2_REGION),
     {POD("p1", S1, "node1", STAY_S1_REGION_AWAY_S2_AZ), POD("p2", S2, "node2", "")},
     {N1(RG_CHINA), N2(RG_INDIA)},
     {0, 100},
     false,
     "{\"ignorePreferredTermsOfExistingPods\": true}"},
    {"no nodes to score", INCOMING(S2, ""), {NULL}, {NULL}, {0}, true},
    {"matchLabelKeys in a preferred term",
     INCOMING("app: web, version: v2",
              PREF_AFF(WEIGHTED(10, TERMX(IN("app", "web"), "region", "matchLabelKeys: [version]")))),
     {POD("p1", "app: web, version: v1", "node1", ""), POD("p2", "app: web, version: v1", "node1", ""),
      POD("p3", "app: web, version: v2", "node2", "")},
     {N1(RG_CHINA), N2(RG_INDIA), N3(AZ1)},
     {0, 100, 0}},
};

#define HARD_POD_AFFINITY                                                            \
    AFF(TERMX(IN("service", "S1"), "region",                                         \
              "namespaces: [default, subteam2.team2], namespaceSelector: {matchExpressions: [" IN( \
                  "team", "team1") "]}"))

/* TestPreferredAffinityWithHardPodAffinitySymmetricWeight (upstream's ""
 * namespace is "default" here: the decoder defaults it). */
static const score_case hard_weight_cases[] = {
    {"with default weight",
     INCOMING("service: S1", ""),
     {POD("p1", "", "node1", HARD_POD_AFFINITY), POD("p2", "", "node2", HARD_POD_AFFINITY)},
     {N1(RG_CHINA), N2(RG_INDIA), N3(AZ1)},
     {100, 100, 0}},
    {"with zero weight",
     INCOMING("service: S1", ""),
     {POD("p1", "", "node1", HARD_POD_AFFINITY), POD("p2", "", "node2", HARD_POD_AFFINITY)},
     {N1(RG_CHINA), N2(RG_INDIA), N3(AZ1)},
     {0, 0, 0},
     true,
     "{\"hardPodAffinityWeight\": 0}"},
    {"with no matching namespace",
     INCOMING_NS(subteam1.team2, "service: S1", ""),
     {POD("p1", "", "node1", HARD_POD_AFFINITY), POD("p2", "", "node2", HARD_POD_AFFINITY)},
     {N1(RG_CHINA), N2(RG_INDIA), N3(AZ1)},
     {0, 0, 0},
     true},
    {"with matching namespaceSelector",
     INCOMING_NS(subteam1.team1, "service: S1", ""),
     {POD("p1", "", "node1", HARD_POD_AFFINITY), POD("p2", "", "node2", HARD_POD_AFFINITY)},
     {N1(RG_CHINA), N2(RG_INDIA), N3(AZ1)},
     {100, 100, 0}},
    {"with matching namespaces",
     INCOMING_NS(subteam2.team2, "service: S1", ""),
     {POD("p1", "", "node1", HARD_POD_AFFINITY), POD("p2", "", "node2", HARD_POD_AFFINITY)},
     {N1(RG_CHINA), N2(RG_INDIA), N3(AZ1)},
     {100, 100, 0}},
    {"the weight scales against preferred terms",
     INCOMING("service: S1", ""),
     {POD("p1", "", "node1", HARD_POD_AFFINITY),
      POD("p2", "", "node2", PREF_AFF(WEIGHTED(20, TERM(IN("service", "S1"), "region"))))},
     {N1(RG_CHINA), N2(RG_INDIA), N3(AZ1)},
     {50, 100, 0},
     false,
     "{\"hardPodAffinityWeight\": 10}"},
};

static void test_score_preferred(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof preferred_cases / sizeof preferred_cases[0]; i++)
        run_score_case(&preferred_cases[i]);
}

static void test_score_hard_pod_affinity_weight(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof hard_weight_cases / sizeof hard_weight_cases[0]; i++)
        run_score_case(&hard_weight_cases[i]);
}

/* Scores of only the feasible nodes are normalized, with upstream's
 * truncation: (s - min) * 100 / (max - min). */
static void test_normalize(void **state) {
    (void)state;
    static const struct {
        int64_t in[4], out[4];
        uint32_t n;
    } cases[] = {
        {{-5, 0, 5, 10}, {0, 33, 66, 100}, 4},
        {{7, 7, 7, 7}, {0, 0, 0, 0}, 4},
        {{-3, -1, -2, -3}, {0, 100, 50, 0}, 4},
        {{3, 0, 0, 0}, {100, 0, 0, 0}, 4},
    };
    env e;
    env_init(&e, NULL);
    const char *nodes[] = {N1(RG_CHINA)};
    const char *pods[] = {POD("p1", S1, "node1", "")};
    env_load(&e, nodes, 1, pods, 1, NULL, 0);
    env_cycle(&e, INCOMING("", STAY_S1_REGION));
    ms_node_info *ni = node_info(&e, "node1");
    ms_status st;
    assert_int_equal(ms_plugin_inter_pod_affinity.pre_score(e.self, &e.c, &ni, 1, &st), MS_SUCCESS);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t s[4];
        memcpy(s, cases[i].in, sizeof s);
        assert_int_equal(ms_plugin_inter_pod_affinity.normalize_score(e.self, &e.c, s, cases[i].n, &st),
                         MS_SUCCESS);
        for (uint32_t k = 0; k < cases[i].n; k++) assert_int_equal(s[k], cases[i].out[k]);
    }
    env_free(&e);
}

/* ---- counts kept between cycles ------------------------------------------- */

/* Deterministic pseudo-random numbers for the sequence below. */
static uint32_t next_rand(uint64_t *st) {
    *st = *st * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(*st >> 33);
}

/* Pod shapes: labels and affinity of existing and incoming pods. */
static const char *const shape_labels[] = {"app: web", "app: db", "app: web, tier: front", "app: cache"};
static const char *const shape_affinity[] = {
    "",
    ANTI(TERM(IN("app", "web"), "hostname")),
    AFF(TERM(IN("app", "db"), "zone")),
    PREF_AFF(WEIGHTED(7, TERM(IN("app", "web"), "zone"))) ", " PREF_ANTI(
        WEIGHTED(3, TERM(EXISTS("tier"), "hostname"))),
    ANTI(TERMX(IN("app", "cache"), "zone", "namespaceSelector: {}")) ", " PREF_AFF(
        WEIGHTED(2, TERM(IN("app", "db"), "region"))),
    AFF(TERM(IN("app", "db"), "region")) ", " ANTI(TERM(IN("app", "db"), "hostname")),
    "podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [" TERMX(
        IN("app", "web"), "zone", "namespaceSelector: {matchLabels: {env: prod}}") "], "
    "preferredDuringSchedulingIgnoredDuringExecution: [" WEIGHTED(
        4, TERMX(EXISTS("app"), "region", "namespaceSelector: {matchLabels: {env: dev}}")) "]}",
};
#define NSHAPE_LABELS (sizeof shape_labels / sizeof shape_labels[0])
#define NSHAPE_AFFINITY (sizeof shape_affinity / sizeof shape_affinity[0])

static ms_pod *shape_pod(env *e, const char *name, const char *node, uint32_t li, uint32_t ai) {
    char yaml[2048];
    if (node)
        snprintf(yaml, sizeof yaml,
                 "metadata: {name: %s, namespace: default, labels: {%s}}\n"
                 "spec: {nodeName: %s, containers: [{name: c}], affinity: {%s}}",
                 name, shape_labels[li], node, shape_affinity[ai]);
    else
        snprintf(yaml, sizeof yaml,
                 "metadata: {name: %s, namespace: default, labels: {%s}}\n"
                 "spec: {containers: [{name: c}], affinity: {%s}}",
                 name, shape_labels[li], shape_affinity[ai]);
    return fx_pod(&e->fx.d, yaml);
}

static ms_node *shape_node(env *e, uint32_t i, uint32_t zone) {
    char yaml[256];
    snprintf(yaml, sizeof yaml,
             "metadata: {name: n%u, labels: {hostname: n%u, zone: z%u, region: r%u}}", i, i, zone,
             zone / 2);
    return fx_node(&e->fx.d, yaml);
}

/* Filter statuses and normalized scores of every snapshot node for `pod`,
 * by plugin `self` (persistent) in cycle c. */
static void run_cycle(env *e, void *self, ms_pod *pod, ms_code *codes, const char **reasons,
                      int64_t *scores, uint32_t *n) {
    ms_arena_reset(&e->arena);
    e->slots[0] = NULL;
    e->c = (ms_cycle){.pod = pod, .snap = &e->snap, .arena = &e->arena, .state = e->slots,
                      .h = &e->h};
    ms_status st;
    ms_status_ok(&st);
    ms_code pre = ms_plugin_inter_pod_affinity.pre_filter(self, &e->c, &st);
    assert_true(pre == MS_SUCCESS || pre == MS_SKIP);
    *n = e->snap.nnodes;
    for (uint32_t i = 0; i < *n; i++) {
        ms_status_ok(&st);
        codes[i] = pre == MS_SKIP ? MS_SUCCESS
                                  : ms_plugin_inter_pod_affinity.filter(self, &e->c, e->snap.nodes[i], &st);
        reasons[i] = st.nreasons ? st.reasons[0] : NULL;
    }
    e->slots[0] = NULL;
    memset(scores, 0, *n * sizeof *scores);
    ms_code ps = ms_plugin_inter_pod_affinity.pre_score(self, &e->c, e->snap.nodes, *n, &st);
    assert_true(ps == MS_SUCCESS || ps == MS_SKIP);
    if (ps == MS_SUCCESS) {
        ms_plugin_inter_pod_affinity.score(self, &e->c, e->snap.nodes, *n, scores, &st);
        ms_plugin_inter_pod_affinity.normalize_score(self, &e->c, scores, *n, &st);
    }
}

/* The anti-affinity verdicts `kept` holds per node (kept in step with its
 * counts as they cross 0) must be those read from a recount: `fresh`'s
 * counts at the node's value of each key. Returns the nodes they cover. */
static uint32_t check_verdicts(env *e, const ipa_plugin *kept, const ipa_plugin *fresh, int round) {
    uint32_t covered = 0;
    for (uint32_t i = 0; i < e->snap.nnodes; i++) {
        const ms_node_info *ni = e->snap.nodes[i];
        bool got[2];
        if (!ipa_verdicts_of(&kept->verdicts, ni, &got[0], &got[1])) continue;
        covered++;
        for (uint32_t w = 0; w < 2; w++) {
            const ipa_pair_counts *pc = &fresh->counts[w == 0 ? C_ANTI : C_EXISTING_ANTI];
            bool recount = false;
            for (uint32_t k = 0; k < pc->nkeys; k++) {
                ms_str v = ms_labels_get(&ni->node->meta.labels, pc->keys[k]);
                recount |= v != MS_STR_NONE && ipa_pc_get(pc, pc->keys[k], v) > 0;
            }
            if (got[w] != recount)
                fail_msg("round %d, node %s: %s verdict %d, recount %d", round, ms_str_get(e->fx.in, ni->name),
                         w == 0 ? "anti-affinity" : "existing anti-affinity", got[w], recount);
        }
    }
    return covered;
}

/* One plugin instance kept over many cycles (counting only what each
 * snapshot update changed when pods repeat a shape) must decide exactly as
 * a fresh instance that counts everything, whatever happens in between:
 * pods bound and deleted, node labels changed, nodes added and removed. */
static void test_counts_kept_between_cycles(void **state) {
    (void)state;
    env e;
    env_init(&e, "{\"hardPodAffinityWeight\": 5}");
    cJSON *args = cJSON_Parse("{\"hardPodAffinityWeight\": 5}");
    uint64_t rng = 42;
    enum { NODES = 24, MAXPODS = 400 };
    for (uint32_t i = 0; i < NODES; i++) {
        ms_node *n = shape_node(&e, i, i % 5);
        assert_int_equal(ms_cache_add_node(e.cache, n), MS_OK);
        ms_node_unref(n);
    }
    ms_pod *bound[MAXPODS];
    uint32_t nbound = 0, serial = 0, incoming_shape = 0, covered = 0;
    /* The verdicts are kept by snapshot position: nodes coming and going
     * (and changing zone) must move the others, in many rounds. */
    uint32_t last_at[NODES + 2], moved = 0;
    for (uint32_t i = 0; i < NODES + 2; i++) last_at[i] = UINT32_MAX;
    ms_code codes[2][64];
    const char *reasons[2][64];
    int64_t scores[2][64];
    for (int round = 0; round < 400; round++) {
        /* Some cluster changes, often none (the common case between cycles). */
        uint32_t nchanges = next_rand(&rng) % 4 == 0 ? next_rand(&rng) % 3 + 1 : 0;
        for (uint32_t k = 0; k < nchanges; k++) {
            uint32_t what = next_rand(&rng) % 11;
            char name[32];
            if (what < 5 && nbound < MAXPODS) {
                snprintf(name, sizeof name, "p%u", serial++);
                char node[16];
                snprintf(node, sizeof node, "n%u", next_rand(&rng) % (NODES + 2));
                ms_pod *p = shape_pod(&e, name, node, next_rand(&rng) % NSHAPE_LABELS,
                                      next_rand(&rng) % NSHAPE_AFFINITY);
                assert_int_equal(ms_cache_add_pod(e.cache, p), MS_OK);
                bound[nbound++] = p;
            } else if (what < 8 && nbound) {
                uint32_t i = next_rand(&rng) % nbound;
                assert_int_equal(ms_cache_remove_pod(e.cache, bound[i]), MS_OK);
                ms_pod_unref(bound[i]);
                bound[i] = bound[--nbound];
            } else if (what == 8) {
                ms_node *n = shape_node(&e, next_rand(&rng) % NODES, next_rand(&rng) % 5);
                assert_int_equal(ms_cache_update_node(e.cache, n), MS_OK);
                ms_node_unref(n);
            } else if (what == 10) {
                /* The namespace's labels change what namespaceSelector selects. */
                add_namespace(&e, next_rand(&rng) % 2 ? NAMESPACE("default", "env: prod")
                                                       : NAMESPACE("default", "env: dev"));
            } else {
                /* Any node, n24 and n25 too, comes and goes (pods may
                 * name it meanwhile), moving the others' positions. */
                uint32_t i = next_rand(&rng) % (NODES + 2);
                ms_node *n = shape_node(&e, i, next_rand(&rng) % 5);
                if (ms_cache_remove_node(e.cache, n->meta.name) == MS_ENOENT)
                    assert_int_equal(ms_cache_add_node(e.cache, n), MS_OK);
                ms_node_unref(n);
            }
        }
        assert_int_equal(ms_cache_update_snapshot(e.cache, &e.snap), MS_OK);
        assert_true(e.snap.nnodes <= 64);
        for (uint32_t i = 0; i < NODES + 2; i++) {
            char node[16];
            snprintf(node, sizeof node, "n%u", i);
            const ms_node_info *ni = ms_snapshot_get(&e.snap, ms_intern_cstr(e.fx.in, node));
            moved += ni && last_at[i] != UINT32_MAX && ni->index != last_at[i];
            last_at[i] = ni ? ni->index : UINT32_MAX;
        }
        if (next_rand(&rng) % 4 == 0) incoming_shape = next_rand(&rng) % (NSHAPE_LABELS * NSHAPE_AFFINITY);
        char name[32];
        snprintf(name, sizeof name, "in%d", round);
        ms_pod *pod = shape_pod(&e, name, NULL, incoming_shape % NSHAPE_LABELS,
                                incoming_shape / NSHAPE_LABELS);
        uint32_t n[2];
        run_cycle(&e, e.self, pod, codes[0], reasons[0], scores[0], &n[0]);
        void *fresh = NULL;
        ms_error err = {0};
        assert_int_equal(ms_plugin_inter_pod_affinity.create(args, &e.h, &fresh, &err), MS_OK);
        run_cycle(&e, fresh, pod, codes[1], reasons[1], scores[1], &n[1]);
        covered += check_verdicts(&e, e.self, fresh, round);
        ms_plugin_inter_pod_affinity.destroy(fresh);
        for (uint32_t i = 0; i < n[0]; i++) {
            if (codes[0][i] != codes[1][i] || reasons[0][i] != reasons[1][i] || scores[0][i] != scores[1][i])
                fail_msg("round %d, shape %u, node %s: kept %s/%s/%lld, fresh %s/%s/%lld", round,
                         incoming_shape, ms_str_get(e.fx.in, e.snap.nodes[i]->name),
                         code_name(codes[0][i]), reasons[0][i] ? reasons[0][i] : "-",
                         (long long)scores[0][i], code_name(codes[1][i]),
                         reasons[1][i] ? reasons[1][i] : "-", (long long)scores[1][i]);
        }
        /* Sometimes the pod is placed where it fits, as the scheduler would. */
        if (next_rand(&rng) % 2 && nbound < MAXPODS)
            for (uint32_t i = 0; i < n[0]; i++)
                if (codes[0][i] == MS_SUCCESS) {
                    ms_pod *b = ms_pod_with_node(pod, e.snap.nodes[i]->name);
                    assert_int_equal(ms_cache_add_pod(e.cache, b), MS_OK);
                    bound[nbound++] = b;
                    break;
                }
        ms_pod_unref(pod);
    }
    /* Most cycles read the verdicts (a PreFilter that counted, within the
     * keys they hold), not only the ones right after a rebuild. */
    assert_true(covered > 100 * NODES);
    assert_true(moved > 40);
    for (uint32_t i = 0; i < nbound; i++) ms_pod_unref(bound[i]);
    cJSON_Delete(args);
    env_free(&e);
}

/* The verdicts are kept per snapshot position: names interned before the
 * nodes (pods' nodeName, events) give the nodes high name ids, which must
 * not size the arrays. */
static void test_verdicts_sized_by_node_count(void **state) {
    (void)state;
    env e;
    env_init(&e, NULL);
    enum { NAMES = 100000, NODES = 10 };
    char name[32];
    for (uint32_t i = 0; i < NAMES; i++) {
        snprintf(name, sizeof name, "elsewhere-%u", i);
        ms_intern_cstr(e.fx.in, name);
    }
    for (uint32_t i = 0; i < NODES; i++) {
        ms_node *n = shape_node(&e, i, i % 3);
        assert_true(n->meta.name >= NAMES);
        assert_int_equal(ms_cache_add_node(e.cache, n), MS_OK);
        ms_node_unref(n);
    }
    ms_pod *web = shape_pod(&e, "web", "n4", 0, 0);
    assert_int_equal(ms_cache_add_pod(e.cache, web), MS_OK);
    assert_int_equal(ms_cache_update_snapshot(e.cache, &e.snap), MS_OK);
    /* Anti-affinity to app=web per hostname: only n4 is blocked. */
    ms_pod *pod = shape_pod(&e, "incoming", NULL, 1, 1);
    ms_code codes[NODES];
    const char *reasons[NODES];
    int64_t scores[NODES];
    uint32_t n;
    run_cycle(&e, e.self, pod, codes, reasons, scores, &n);
    assert_int_equal(n, NODES);
    const ipa_verdicts *v = &((const ipa_plugin *)e.self)->verdicts;
    for (uint32_t i = 0; i < n; i++) {
        bool anti, existing;
        assert_true(ipa_verdicts_of(v, e.snap.nodes[i], &anti, &existing));
        bool on_web = e.snap.nodes[i]->name == ms_intern_cstr(e.fx.in, "n4");
        assert_int_equal(anti, on_web);
        assert_int_equal(codes[i], on_web ? MS_UNSCHEDULABLE : MS_SUCCESS);
    }
    assert_int_equal(v->cap, NODES);
    assert_true(v->node_cap <= ms_array_capacity(0, NODES));
    assert_true(v->blocked_cap[0] <= ms_array_capacity(0, NODES));
    assert_true(v->blocked_cap[1] <= ms_array_capacity(0, NODES));
    assert_true(v->value_cap <= ms_array_capacity(0, v->nkeys * NODES));
    assert_true(v->next_cap <= ms_array_capacity(0, v->nkeys * NODES));
    ms_pod_unref(pod);
    ms_pod_unref(web);
    env_free(&e);
}

/* ---- args and ops -------------------------------------------------------- */

static void test_args(void **state) {
    (void)state;
    static const struct {
        const char *json;
        const char *err;           /* NULL: accepted */
    } cases[] = {
        {"{}", NULL},
        {"{\"hardPodAffinityWeight\": 0}", NULL},
        {"{\"hardPodAffinityWeight\": 100, \"ignorePreferredTermsOfExistingPods\": true}", NULL},
        {"{\"apiVersion\": \"kubescheduler.config.k8s.io/v1\", \"kind\": \"InterPodAffinityArgs\"}", NULL},
        {"{\"hardPodAffinityWeight\": 101}",
         "InterPodAffinity args: hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]"},
        {"{\"hardPodAffinityWeight\": -1}",
         "InterPodAffinity args: hardPodAffinityWeight: Invalid value: -1: not in valid range [0, 100]"},
        {"{\"hardPodAffinityWeight\": \"1\"}",
         "InterPodAffinity args: hardPodAffinityWeight: expected an integer, got string"},
        {"{\"ignorePreferredTermsOfExistingPods\": \"yes\"}",
         "InterPodAffinity args: ignorePreferredTermsOfExistingPods: expected a boolean"},
        {"{\"hardPodAffinityWieght\": 1}", "InterPodAffinity args: hardPodAffinityWieght: unknown field"},
        {"[]", "InterPodAffinity args: args: expected an object, got array"},
    };
    fx_env fx;
    fx_env_init(&fx);
    ms_handle h = {.in = fx.in, .rn = &fx.d.rn};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *args = cJSON_Parse(cases[i].json);
        assert_non_null(args);
        void *self = NULL;
        ms_error err = {0};
        ms_rc rc = ms_plugin_inter_pod_affinity.create(args, &h, &self, &err);
        cJSON_Delete(args);
        if (!cases[i].err) {
            if (rc != MS_OK) fail_msg("%s: %s", cases[i].json, err.msg);
            ms_plugin_inter_pod_affinity.destroy(self);
            continue;
        }
        assert_int_equal(rc, MS_EINVAL);
        assert_null(self);
        assert_string_equal(err.msg, cases[i].err);
    }
    fx_env_free(&fx);
}

static void test_ops(void **state) {
    (void)state;
    const ms_plugin_ops *o = &ms_plugin_inter_pod_affinity;
    assert_string_equal(o->name, "InterPodAffinity");
    /* MS_EV_NAMESPACE beyond upstream: a relabelled namespace can satisfy a
     * namespaceSelector term */
    assert_int_equal(o->events, MS_EV_ASSIGNED_POD_ADD | MS_EV_ASSIGNED_POD_UPDATE |
                                    MS_EV_ASSIGNED_POD_DELETE | MS_EV_NODE_ADD | MS_EV_NODE_LABEL |
                                    MS_EV_NAMESPACE);
    assert_non_null(o->pre_filter);
    assert_non_null(o->filter);
    assert_non_null(o->pre_score);
    assert_non_null(o->score);
    assert_non_null(o->normalize_score);
    assert_null(o->reserve);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filter_single_node),
        cmocka_unit_test(test_filter_multiple_nodes),
        cmocka_unit_test(test_filter_selectors),
        cmocka_unit_test(test_pre_filter_skip),
        cmocka_unit_test(test_state_checks),
        cmocka_unit_test(test_filter_nominated_pods),
        cmocka_unit_test(test_nominated_anti_affinity_without_terms),
        cmocka_unit_test(test_filter_removed_pods),
        cmocka_unit_test(test_score_preferred),
        cmocka_unit_test(test_score_hard_pod_affinity_weight),
        cmocka_unit_test(test_normalize),
        cmocka_unit_test(test_counts_kept_between_cycles),
        cmocka_unit_test(test_verdicts_sized_by_node_count),
        cmocka_unit_test(test_args),
        cmocka_unit_test(test_ops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
