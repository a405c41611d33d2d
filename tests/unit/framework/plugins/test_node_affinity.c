/* NodeAffinity: Filter, PreFilter, Score and NormalizeScore with upstream's
 * worked examples (node_affinity_test.go), the selectors compiled from the
 * same JSON a pod or KubeSchedulerConfiguration would carry. */
#include "testutil.h"

#include <cJSON.h>

#include "framework/plugins/builtin.h"
#include "moonsched/node.h"
#include "moonsched/nodeinfo.h"
#include "moonsched/pod.h"
#include "moonsched/selector.h"

typedef struct fx {
    ms_interner *in;
    ms_resource_names rn;
    ms_handle h;
    ms_arena arena;
    void *slots[1];
    ms_cycle c;
} fx;

static int setup(void **state) {
    fx *f = calloc(1, sizeof *f);
    f->in = ms_interner_new();
    ms_resource_names_init(&f->rn, f->in);
    f->h.in = f->in;
    f->h.rn = &f->rn;
    ms_arena_init(&f->arena, 4096);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fx *f = *state;
    ms_arena_free(&f->arena);
    ms_interner_free(f->in);
    free(f);
    return 0;
}

static const char *code_name(ms_code c) {
    static const char *const names[] = {"Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable",
                                        "Wait", "Skip", "Pending"};
    return (unsigned)c < sizeof names / sizeof names[0] ? names[c] : "?";
}

/* A JSON map of strings as sorted labels in arena a. */
static ms_labels labels_from(fx *f, ms_arena *a, const cJSON *map) {
    ms_labels l = {0, NULL};
    int n = map ? cJSON_GetArraySize(map) : 0;
    if (n == 0) return l;
    l.items = MS_ARENA_NEW(a, ms_label, n);
    for (const cJSON *e = map->child; e; e = e->next)
        l.items[l.n++] = (ms_label){ms_intern_cstr(f->in, e->string), ms_intern_cstr(f->in, e->valuestring)};
    ms_labels_sort(&l);
    return l;
}

/* A pod from the JSON of its spec: nodeSelector and affinity.nodeAffinity. */
static ms_pod *make_pod(fx *f, const char *spec_json) {
    cJSON *spec = cJSON_Parse(spec_json ? spec_json : "{}");
    if (!spec) fail_msg("bad JSON: %s", spec_json);
    ms_pod *p = ms_pod_alloc();
    ms_error err = {0};
    p->node_selector = labels_from(f, &p->arena, cJSON_GetObjectItem(spec, "nodeSelector"));
    const cJSON *na = cJSON_GetObjectItem(cJSON_GetObjectItem(spec, "affinity"), "nodeAffinity");
    const cJSON *req = cJSON_GetObjectItem(na, "requiredDuringSchedulingIgnoredDuringExecution");
    if (req && !cJSON_IsNull(req)) {
        p->has_node_affinity_required = true;
        assert_int_equal(ms_node_selector_from_json(req, f->in, &p->arena, &p->node_affinity_required,
                                                    "required", &err),
                         MS_OK);
    }
    const cJSON *pref = cJSON_GetObjectItem(na, "preferredDuringSchedulingIgnoredDuringExecution");
    int n = pref ? cJSON_GetArraySize(pref) : 0;
    if (n) p->node_affinity_preferred = MS_ARENA_NEW(&p->arena, ms_preferred_term, n);
    for (const cJSON *e = n ? pref->child : NULL; e; e = e->next) {
        ms_preferred_term *t = &p->node_affinity_preferred[p->nnode_affinity_preferred++];
        t->weight = cJSON_GetObjectItem(e, "weight")->valueint;
        assert_int_equal(ms_node_selector_term_from_json(cJSON_GetObjectItem(e, "preference"), f->in,
                                                         &p->arena, &t->term, "preference", &err),
                         MS_OK);
    }
    cJSON_Delete(spec);
    return p;
}

static ms_node *make_node(fx *f, const char *name, const char *labels_json) {
    ms_node *n = ms_node_alloc();
    n->meta.name = ms_intern_cstr(f->in, name);
    cJSON *l = cJSON_Parse(labels_json ? labels_json : "{}");
    n->meta.labels = labels_from(f, &n->arena, l);
    cJSON_Delete(l);
    return n;
}

static void *create(fx *f, const char *json) {
    cJSON *args = json ? cJSON_Parse(json) : NULL;
    if (json && !args) fail_msg("bad JSON: %s", json);
    void *self = NULL;
    ms_error err = {0};
    if (ms_plugin_node_affinity.create(args, &f->h, &self, &err) != MS_OK)
        fail_msg("create with %s: %s", json ? json : "(null)", err.msg);
    cJSON_Delete(args);
    return self;
}

static void begin_cycle(fx *f, ms_pod *pod) {
    ms_arena_reset(&f->arena);
    f->slots[0] = NULL;
    f->c = (ms_cycle){.pod = pod, .arena = &f->arena, .state = f->slots, .current = 0, .h = &f->h};
}

/* ---- Filter ------------------------------------------------------------- */

#define POD_REASON "node(s) didn't match Pod's node affinity/selector"
#define ENFORCED_REASON "node(s) didn't match scheduler-enforced node affinity"
#define UU MS_UNSCHEDULABLE_AND_UNRESOLVABLE

#define REQ(terms) \
    "{\"affinity\": {\"nodeAffinity\": {\"requiredDuringSchedulingIgnoredDuringExecution\": " terms "}}}"
#define EXPR(key, op, values) "{\"key\": \"" key "\", \"operator\": \"" op "\", \"values\": " values "}"
#define TERM_E(exprs) "{\"matchExpressions\": [" exprs "]}"
#define NAME_IN(name) "{\"key\": \"metadata.name\", \"operator\": \"In\", \"values\": [\"" name "\"]}"

typedef struct filter_case {
    const char *name;
    const char *pod;
    const char *labels;
    const char *node_name;
    const char *args;
    ms_code code;
    const char *reason;
} filter_case;

/* TestNodeAffinity; upstream's "addedAffinity" rejection now has its own
 * reason (errReasonEnforced). */
static const filter_case filter_cases[] = {
    {"no selector", "{}", NULL, NULL, NULL, MS_SUCCESS, NULL},
    {"missing labels", "{\"nodeSelector\": {\"foo\": \"bar\"}}", NULL, NULL, NULL, UU, POD_REASON},
    {"same labels", "{\"nodeSelector\": {\"foo\": \"bar\"}}", "{\"foo\": \"bar\"}", NULL, NULL, MS_SUCCESS,
     NULL},
    {"node labels are superset", "{\"nodeSelector\": {\"foo\": \"bar\"}}",
     "{\"foo\": \"bar\", \"baz\": \"blah\"}", NULL, NULL, MS_SUCCESS, NULL},
    {"node labels are subset", "{\"nodeSelector\": {\"foo\": \"bar\", \"baz\": \"blah\"}}",
     "{\"foo\": \"bar\"}", NULL, NULL, UU, POD_REASON},
    {"matchExpressions using In operator that matches the existing node",
     REQ("{\"nodeSelectorTerms\": [" TERM_E(EXPR("foo", "In", "[\"bar\", \"value2\"]")) "]}"),
     "{\"foo\": \"bar\"}", NULL, NULL, MS_SUCCESS, NULL},
    {"matchExpressions using Gt operator that matches the existing node",
     REQ("{\"nodeSelectorTerms\": [" TERM_E(EXPR("kernel-version", "Gt", "[\"0204\"]")) "]}"),
     "{\"kernel-version\": \"0206\"}", NULL, NULL, MS_SUCCESS, NULL},
    {"matchExpressions using NotIn operator that matches the existing node",
     REQ("{\"nodeSelectorTerms\": [" TERM_E(EXPR("mem-type", "NotIn", "[\"DDR\", \"DDR2\"]")) "]}"),
     "{\"mem-type\": \"DDR3\"}", NULL, NULL, MS_SUCCESS, NULL},
    {"matchExpressions using Exists operator that matches the existing node",
     REQ("{\"nodeSelectorTerms\": [" TERM_E("{\"key\": \"GPU\", \"operator\": \"Exists\"}") "]}"),
     "{\"GPU\": \"NVIDIA-GRID-K1\"}", NULL, NULL, MS_SUCCESS, NULL},
    {"affinity that doesn't match node's labels won't schedule onto the node",
     REQ("{\"nodeSelectorTerms\": [" TERM_E(EXPR("foo", "In", "[\"value1\", \"value2\"]")) "]}"),
     "{\"foo\": \"bar\"}", NULL, NULL, UU, POD_REASON},
    {"a nil []NodeSelectorTerm in affinity can't match the node's labels",
     REQ("{\"nodeSelectorTerms\": null}"), "{\"foo\": \"bar\"}", NULL, NULL, UU, POD_REASON},
    {"an empty []NodeSelectorTerm in affinity can't match the node's labels",
     REQ("{\"nodeSelectorTerms\": []}"), "{\"foo\": \"bar\"}", NULL, NULL, UU, POD_REASON},
    {"empty MatchExpressions is not a valid value and matches no objects",
     REQ("{\"nodeSelectorTerms\": [{\"matchExpressions\": []}]}"), "{\"foo\": \"bar\"}", NULL, NULL, UU,
     POD_REASON},
    {"no Affinity will schedule onto a node", "{}", "{\"foo\": \"bar\"}", NULL, NULL, MS_SUCCESS, NULL},
    {"Affinity but nil NodeSelector will schedule onto a node",
     "{\"affinity\": {\"nodeAffinity\": {\"requiredDuringSchedulingIgnoredDuringExecution\": null}}}",
     "{\"foo\": \"bar\"}", NULL, NULL, MS_SUCCESS, NULL},
    {"multiple matchExpressions ANDed that matches the existing node",
     REQ("{\"nodeSelectorTerms\": [" TERM_E("{\"key\": \"GPU\", \"operator\": \"Exists\"}, " EXPR(
         "GPU", "NotIn", "[\"AMD\", \"INTER\"]")) "]}"),
     "{\"GPU\": \"NVIDIA-GRID-K1\"}", NULL, NULL, MS_SUCCESS, NULL},
    {"multiple matchExpressions ANDed that doesn't match the existing node",
     REQ("{\"nodeSelectorTerms\": [" TERM_E("{\"key\": \"GPU\", \"operator\": \"Exists\"}, " EXPR(
         "GPU", "In", "[\"AMD\", \"INTER\"]")) "]}"),
     "{\"GPU\": \"NVIDIA-GRID-K1\"}", NULL, NULL, UU, POD_REASON},
    {"multiple NodeSelectorTerms ORed in affinity, matches the node's labels",
     REQ("{\"nodeSelectorTerms\": [" TERM_E(EXPR("foo", "In", "[\"bar\", \"value2\"]")) ", " TERM_E(
         EXPR("diffkey", "In", "[\"wrong\", \"value2\"]")) "]}"),
     "{\"foo\": \"bar\"}", NULL, NULL, MS_SUCCESS, NULL},
    {"an Affinity and a PodSpec.NodeSelector both satisfied",
     "{\"nodeSelector\": {\"foo\": \"bar\"}, \"affinity\": {\"nodeAffinity\": "
     "{\"requiredDuringSchedulingIgnoredDuringExecution\": {\"nodeSelectorTerms\": [" TERM_E(
         "{\"key\": \"foo\", \"operator\": \"Exists\"}") "]}}}}",
     "{\"foo\": \"bar\"}", NULL, NULL, MS_SUCCESS, NULL},
    {"an Affinity matches node's labels but the PodSpec.NodeSelector is not satisfied",
     "{\"nodeSelector\": {\"foo\": \"bar\"}, \"affinity\": {\"nodeAffinity\": "
     "{\"requiredDuringSchedulingIgnoredDuringExecution\": {\"nodeSelectorTerms\": [" TERM_E(
         "{\"key\": \"foo\", \"operator\": \"Exists\"}") "]}}}}",
     "{\"foo\": \"barrrrrr\"}", NULL, NULL, UU, POD_REASON},
    {"an invalid value in Affinity term won't be scheduled onto the node",
     REQ("{\"nodeSelectorTerms\": [" TERM_E(EXPR("foo", "NotIn", "[\"invalid value: ___@#$%^\"]")) "]}"),
     "{\"foo\": \"bar\"}", NULL, NULL, UU, POD_REASON},
    {"matchFields using In operator that matches the existing node",
     REQ("{\"nodeSelectorTerms\": [{\"matchFields\": [" NAME_IN("node_1") "]}]}"), NULL, "node_1", NULL,
     MS_SUCCESS, NULL},
    {"matchFields using In operator that does not match the existing node",
     REQ("{\"nodeSelectorTerms\": [{\"matchFields\": [" NAME_IN("node_1") "]}]}"), NULL, "node_2", NULL,
     UU, POD_REASON},
    {"two terms: matchFields does not match, but matchExpressions matches",
     REQ("{\"nodeSelectorTerms\": [{\"matchFields\": [" NAME_IN("node_1") "]}, " TERM_E(
         EXPR("foo", "In", "[\"bar\"]")) "]}"),
     "{\"foo\": \"bar\"}", "node_2", NULL, MS_SUCCESS, NULL},
    {"one term: matchFields does not match, but matchExpressions matches",
     REQ("{\"nodeSelectorTerms\": [{\"matchFields\": [" NAME_IN("node_1") "], \"matchExpressions\": [" EXPR(
         "foo", "In", "[\"bar\"]") "]}]}"),
     "{\"foo\": \"bar\"}", "node_2", NULL, UU, POD_REASON},
    {"one term: both matchFields and matchExpressions match",
     REQ("{\"nodeSelectorTerms\": [{\"matchFields\": [" NAME_IN("node_1") "], \"matchExpressions\": [" EXPR(
         "foo", "In", "[\"bar\"]") "]}]}"),
     "{\"foo\": \"bar\"}", "node_1", NULL, MS_SUCCESS, NULL},
    {"two terms: both matchFields and matchExpressions do not match",
     REQ("{\"nodeSelectorTerms\": [{\"matchFields\": [" NAME_IN("node_1") "]}, " TERM_E(
         EXPR("foo", "In", "[\"not-match-to-bar\"]")) "]}"),
     "{\"foo\": \"bar\"}", "node_2", NULL, UU, POD_REASON},
    {"matches added affinity and Pod's node affinity",
     REQ("{\"nodeSelectorTerms\": [" TERM_E(EXPR("zone", "In", "[\"foo\"]")) "]}"), "{\"zone\": \"foo\"}",
     "node_2",
     "{\"addedAffinity\": {\"requiredDuringSchedulingIgnoredDuringExecution\": {\"nodeSelectorTerms\": "
     "[{\"matchFields\": [" NAME_IN("node_2") "]}]}}}",
     MS_SUCCESS, NULL},
    {"matches added affinity but not Pod's node affinity",
     REQ("{\"nodeSelectorTerms\": [" TERM_E(EXPR("zone", "In", "[\"bar\"]")) "]}"), "{\"zone\": \"foo\"}",
     "node_2",
     "{\"addedAffinity\": {\"requiredDuringSchedulingIgnoredDuringExecution\": {\"nodeSelectorTerms\": "
     "[{\"matchFields\": [" NAME_IN("node_2") "]}]}}}",
     UU, POD_REASON},
    {"doesn't match added affinity", "{}", "{\"zone\": \"foo\"}", "node_2",
     "{\"addedAffinity\": {\"requiredDuringSchedulingIgnoredDuringExecution\": {\"nodeSelectorTerms\": "
     "[" TERM_E(EXPR("zone", "In", "[\"bar\"]")) "]}}}",
     UU, ENFORCED_REASON},
    {"added affinity is checked before the pod's", "{\"nodeSelector\": {\"zone\": \"bar\"}}",
     "{\"zone\": \"foo\"}", "node_2",
     "{\"addedAffinity\": {\"requiredDuringSchedulingIgnoredDuringExecution\": {\"nodeSelectorTerms\": "
     "[" TERM_E(EXPR("zone", "In", "[\"bar\"]")) "]}}}",
     UU, ENFORCED_REASON},
};

static void test_filter(void **state) {
    fx *f = *state;
    for (size_t i = 0; i < sizeof filter_cases / sizeof filter_cases[0]; i++) {
        const filter_case *tc = &filter_cases[i];
        void *self = create(f, tc->args);
        ms_pod *pod = make_pod(f, tc->pod);
        ms_node *node = make_node(f, tc->node_name ? tc->node_name : "node", tc->labels);
        ms_node_info ni = {.name = node->meta.name, .node = node};
        begin_cycle(f, pod);
        ms_status st;
        ms_status_ok(&st);
        ms_code pre = ms_plugin_node_affinity.pre_filter(self, &f->c, &st);
        if (pre != MS_SUCCESS && pre != MS_SKIP) fail_msg("%s: PreFilter %s", tc->name, code_name(pre));
        ms_status_ok(&st);
        ms_code got = ms_plugin_node_affinity.filter(self, &f->c, &ni, &st);
        if (got != tc->code) fail_msg("%s: %s, want %s", tc->name, code_name(got), code_name(tc->code));
        if (tc->reason) {
            assert_int_equal(st.code, tc->code);
            assert_int_equal(st.nreasons, 1);
            if (strcmp(st.reasons[0], tc->reason) != 0)
                fail_msg("%s: reason \"%s\", want \"%s\"", tc->name, st.reasons[0], tc->reason);
        }
        ms_node_unref(node);
        ms_pod_unref(pod);
        ms_plugin_node_affinity.destroy(self);
    }
}

/* ---- PreFilter ---------------------------------------------------------- */

/* TestNodeAffinity's PreFilter expectations: Skip when there is nothing to
 * check; "pod affinity terms conflict" when every term names nodes by
 * metadata.name and no term can match any. */
static void test_pre_filter(void **state) {
    fx *f = *state;
    static const struct {
        const char *name, *pod, *args;
        ms_code code;
        const char *reason;
    } cases[] = {
        {"nothing to check", "{}", NULL, MS_SKIP, NULL},
        {"nodeSelector", "{\"nodeSelector\": {\"foo\": \"bar\"}}", NULL, MS_SUCCESS, NULL},
        {"added affinity", "{}",
         "{\"addedAffinity\": {\"requiredDuringSchedulingIgnoredDuringExecution\": "
         "{\"nodeSelectorTerms\": [" TERM_E(EXPR("zone", "In", "[\"bar\"]")) "]}}}",
         MS_SUCCESS, NULL},
        {"added preferred terms only leave Filter nothing to do", "{}",
         "{\"addedAffinity\": {\"preferredDuringSchedulingIgnoredDuringExecution\": [{\"weight\": 1, "
         "\"preference\": " TERM_E(EXPR("zone", "In", "[\"bar\"]")) "}]}}",
         MS_SKIP, NULL},
        {"one term names one node", REQ("{\"nodeSelectorTerms\": [{\"matchFields\": [" NAME_IN("node1") "]}]}"),
         NULL, MS_SUCCESS, NULL},
        {"one term names two different nodes",
         REQ("{\"nodeSelectorTerms\": [{\"matchFields\": [" NAME_IN("node1") ", " NAME_IN("node2") "]}]}"),
         NULL, UU, "pod affinity terms conflict"},
        {"every term is contradictory",
         REQ("{\"nodeSelectorTerms\": [{\"matchFields\": [" NAME_IN("node1") ", " NAME_IN(
             "node2") "]}, {\"matchFields\": [" NAME_IN("node3") ", " NAME_IN("node1") "]}]}"),
         NULL, UU, "pod affinity terms conflict"},
        {"one contradictory term, one naming a node",
         REQ("{\"nodeSelectorTerms\": [{\"matchFields\": [" NAME_IN("node1") ", " NAME_IN(
             "node2") "]}, {\"matchFields\": [" NAME_IN("node3") "]}]}"),
         NULL, MS_SUCCESS, NULL},
        {"one contradictory term, one without names",
         REQ("{\"nodeSelectorTerms\": [{\"matchFields\": [" NAME_IN("node1") ", " NAME_IN(
             "node2") "]}, " TERM_E(EXPR("foo", "In", "[\"bar\"]")) "]}"),
         NULL, MS_SUCCESS, NULL},
        {"the same name twice is no conflict",
         REQ("{\"nodeSelectorTerms\": [{\"matchFields\": [" NAME_IN("node1") ", " NAME_IN("node1") "]}]}"),
         NULL, MS_SUCCESS, NULL},
        {"NotIn names do not narrow",
         REQ("{\"nodeSelectorTerms\": [{\"matchFields\": [" NAME_IN("node1") ", {\"key\": "
             "\"metadata.name\", \"operator\": \"NotIn\", \"values\": [\"node2\"]}]}]}"),
         NULL, MS_SUCCESS, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        void *self = create(f, cases[i].args);
        ms_pod *pod = make_pod(f, cases[i].pod);
        begin_cycle(f, pod);
        ms_status st;
        ms_status_ok(&st);
        ms_code got = ms_plugin_node_affinity.pre_filter(self, &f->c, &st);
        if (got != cases[i].code)
            fail_msg("%s: %s, want %s", cases[i].name, code_name(got), code_name(cases[i].code));
        if (cases[i].reason) {
            assert_int_equal(st.code, cases[i].code);
            assert_int_equal(st.nreasons, 1);
            assert_string_equal(st.reasons[0], cases[i].reason);
        }
        ms_pod_unref(pod);
        ms_plugin_node_affinity.destroy(self);
    }
}

/* ---- Score -------------------------------------------------------------- */

#define PREF(terms) \
    "{\"affinity\": {\"nodeAffinity\": {\"preferredDuringSchedulingIgnoredDuringExecution\": [" terms "]}}}"
#define WTERM(w, exprs) "{\"weight\": " #w ", \"preference\": " TERM_E(exprs) "}"
#define AFFINITY1 PREF(WTERM(2, EXPR("foo", "In", "[\"bar\"]")))
#define AFFINITY2                                                                                  \
    PREF(WTERM(2, EXPR("foo", "In", "[\"bar\"]")) ", " WTERM(4, EXPR("key", "In", "[\"value\"]")) \
         ", " WTERM(5, EXPR("foo", "In", "[\"bar\"]") ", " EXPR("key", "In", "[\"value\"]") ", " EXPR( \
             "az", "In", "[\"az1\"]")))
#define LABEL1 "{\"foo\": \"bar\"}"
#define LABEL2 "{\"key\": \"value\"}"
#define LABEL3 "{\"az\": \"az1\"}"
#define LABEL4 "{\"abc\": \"az11\", \"def\": \"az22\"}"
#define LABEL5 "{\"foo\": \"bar\", \"key\": \"value\", \"az\": \"az1\"}"

typedef struct score_case {
    const char *name;
    const char *pod;
    const char *args;
    uint32_t n;
    const char *labels[3];
    ms_code prescore;
    int64_t want[3];
} score_case;

/* TestNodeAffinityPriority, after NormalizeScore. */
static const score_case score_cases[] = {
    {"all nodes are same priority as NodeAffinity is nil", "{}", NULL, 3, {LABEL1, LABEL2, LABEL3}, MS_SKIP,
     {0}},
    {"no node matches preferred scheduling requirements in NodeAffinity of pod", AFFINITY1, NULL, 3,
     {LABEL4, LABEL2, LABEL3}, MS_SUCCESS, {0, 0, 0}},
    {"only node1 matches the preferred scheduling requirements of pod", AFFINITY1, NULL, 3,
     {LABEL1, LABEL2, LABEL3}, MS_SUCCESS, {100, 0, 0}},
    /* raw 2, 11, 4 */
    {"all nodes match the preferred scheduling requirements of pod but with different priorities",
     AFFINITY2, NULL, 3, {LABEL1, LABEL5, LABEL2}, MS_SUCCESS, {18, 100, 36}},
    {"added affinity", "{}",
     "{\"addedAffinity\": {\"preferredDuringSchedulingIgnoredDuringExecution\": [" WTERM(
         2, EXPR("foo", "In", "[\"bar\"]")) "]}}",
     2, {LABEL1, LABEL2}, MS_SUCCESS, {100, 0}},
    /* raw 2, 3, 5 */
    {"added affinity and pod has default affinity", AFFINITY1,
     "{\"addedAffinity\": {\"preferredDuringSchedulingIgnoredDuringExecution\": [" WTERM(
         3, EXPR("key", "In", "[\"value\"]")) "]}}",
     3, {LABEL1, LABEL2, LABEL5}, MS_SUCCESS, {40, 60, 100}},
    /* A weight-0 term adds nothing, and an empty term matches nothing. */
    {"weight 0 and empty terms", PREF(WTERM(0, EXPR("foo", "In", "[\"bar\"]")) ", {\"weight\": 7, "
                                                                                "\"preference\": {}}, " WTERM(
                                          1, EXPR("key", "Exists", "[]"))),
     NULL, 2, {LABEL1, LABEL2}, MS_SUCCESS, {0, 100}},
    {"matchFields in a preferred term", PREF("{\"weight\": 3, \"preference\": {\"matchFields\": [" NAME_IN(
                                            "node2") "]}}"),
     NULL, 2, {LABEL1, LABEL1}, MS_SUCCESS, {0, 100}},
};

static void run_score(fx *f, const score_case *tc) {
    void *self = create(f, tc->args);
    ms_pod *pod = make_pod(f, tc->pod);
    ms_node *nodes[3];
    ms_node_info nis[3];
    ms_node_info *list[3];
    for (uint32_t k = 0; k < tc->n; k++) {
        char name[16];
        snprintf(name, sizeof name, "node%u", k + 1);
        nodes[k] = make_node(f, name, tc->labels[k]);
        nis[k] = (ms_node_info){.name = nodes[k]->meta.name, .node = nodes[k]};
        list[k] = &nis[k];
    }
    begin_cycle(f, pod);
    ms_status st;
    ms_status_ok(&st);
    ms_code pc = ms_plugin_node_affinity.pre_score(self, &f->c, list, tc->n, &st);
    if (pc != tc->prescore) fail_msg("%s: PreScore %s, want %s", tc->name, code_name(pc), code_name(tc->prescore));
    if (pc == MS_SUCCESS) {
        int64_t scores[3] = {-1, -1, -1};
        assert_int_equal(ms_plugin_node_affinity.score(self, &f->c, list, tc->n, scores, &st), MS_SUCCESS);
        assert_int_equal(ms_plugin_node_affinity.normalize_score(self, &f->c, scores, tc->n, &st), MS_SUCCESS);
        for (uint32_t k = 0; k < tc->n; k++)
            if (scores[k] != tc->want[k])
                fail_msg("%s: node%u scored %lld, want %lld", tc->name, k + 1, (long long)scores[k],
                         (long long)tc->want[k]);
    }
    for (uint32_t k = 0; k < tc->n; k++) ms_node_unref(nodes[k]);
    ms_pod_unref(pod);
    ms_plugin_node_affinity.destroy(self);
}

static void test_score(void **state) {
    for (size_t i = 0; i < sizeof score_cases / sizeof score_cases[0]; i++) run_score(*state, &score_cases[i]);
}

/* Upstream fails the cycle on a pod's preferred term it cannot parse. */
static void test_score_invalid_preferred_term(void **state) {
    fx *f = *state;
    void *self = create(f, NULL);
    ms_pod *pod = make_pod(f, PREF(WTERM(1, EXPR("foo", "Gt", "[\"1\", \"2\"]"))));
    assert_true(pod->node_affinity_preferred[0].term.invalid);
    ms_node *node = make_node(f, "node1", LABEL1);
    ms_node_info ni = {.name = node->meta.name, .node = node}, *list = &ni;
    begin_cycle(f, pod);
    ms_status st;
    ms_status_ok(&st);
    assert_int_equal(ms_plugin_node_affinity.pre_score(self, &f->c, &list, 1, &st), MS_ERROR);
    assert_int_equal(st.code, MS_ERROR);
    assert_int_equal(st.nreasons, 1);
    ms_node_unref(node);
    ms_pod_unref(pod);
    ms_plugin_node_affinity.destroy(self);
}

/* Score recomputes the pod's terms when PreScore did not run. */
static void test_score_without_prescore(void **state) {
    fx *f = *state;
    void *self = create(f, NULL);
    ms_pod *pod = make_pod(f, AFFINITY2);
    const char *labels[] = {LABEL1, LABEL5, LABEL2};
    ms_node *nodes[3];
    ms_node_info nis[3], *list[3];
    for (int k = 0; k < 3; k++) {
        char name[16];
        snprintf(name, sizeof name, "node%d", k + 1);
        nodes[k] = make_node(f, name, labels[k]);
        nis[k] = (ms_node_info){.name = nodes[k]->meta.name, .node = nodes[k]};
        list[k] = &nis[k];
    }
    begin_cycle(f, pod);
    ms_status st;
    int64_t scores[3];
    assert_int_equal(ms_plugin_node_affinity.score(self, &f->c, list, 3, scores, &st), MS_SUCCESS);
    assert_int_equal(scores[0], 2);
    assert_int_equal(scores[1], 11);
    assert_int_equal(scores[2], 4);
    for (int k = 0; k < 3; k++) ms_node_unref(nodes[k]);
    ms_pod_unref(pod);
    ms_plugin_node_affinity.destroy(self);
}

static void test_args(void **state) {
    fx *f = *state;
    static const struct { const char *json, *want; } bad[] = {
        {"{\"addedAffinity\": {\"requiredDuringSchedulingIgnoredDuringExecution\": {\"nodeSelectorTerms\": "
         "[" TERM_E(EXPR("zone", "In", "[]")) "]}}}",
         "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]: Invalid value"},
        {"{\"addedAffinity\": {\"preferredDuringSchedulingIgnoredDuringExecution\": [" WTERM(
             1, EXPR("zone", "Gt", "[\"x\"]")) "]}}",
         "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference: Invalid value"},
        {"{\"addedAffinity\": {\"requiredDuringSchedulingIgnoredDuringExecution\": []}}", "NodeAffinity args"},
        {"{\"addedAffinity\": {\"required\": {}}}", "addedAffinity.required: unknown field"},
        {"{\"affinity\": {}}", "affinity: unknown field"},
        {"{\"addedAffinity\": {\"preferredDuringSchedulingIgnoredDuringExecution\": [{\"weight\": \"1\"}]}}",
         "preferredDuringSchedulingIgnoredDuringExecution[0].weight: expected an integer"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cJSON *args = cJSON_Parse(bad[i].json);
        assert_non_null(args);
        void *self = NULL;
        ms_error err = {0};
        ms_rc rc = ms_plugin_node_affinity.create(args, &f->h, &self, &err);
        cJSON_Delete(args);
        if (rc == MS_OK) {
            ms_plugin_node_affinity.destroy(self);
            fail_msg("%s: accepted", bad[i].json);
        }
        assert_int_equal(rc, MS_EINVAL);
        if (!strstr(err.msg, bad[i].want)) fail_msg("%s: \"%s\" lacks \"%s\"", bad[i].json, err.msg, bad[i].want);
    }
    /* Invalid terms that cannot add anything are dropped, as upstream. */
    ms_plugin_node_affinity.destroy(create(
        f, "{\"apiVersion\": \"kubescheduler.config.k8s.io/v1\", \"kind\": \"NodeAffinityArgs\", "
           "\"addedAffinity\": {\"preferredDuringSchedulingIgnoredDuringExecution\": [" WTERM(
               0, EXPR("zone", "Gt", "[\"x\"]")) "]}}"));
    ms_plugin_node_affinity.destroy(create(f, "{\"addedAffinity\": null}"));
}

static void test_ops(void **state) {
    (void)state;
    assert_string_equal(ms_plugin_node_affinity.name, "NodeAffinity");
    assert_int_equal(ms_plugin_node_affinity.events, MS_EV_NODE_ADD | MS_EV_NODE_LABEL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_filter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pre_filter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_score, setup, teardown),
        cmocka_unit_test_setup_teardown(test_score_invalid_preferred_term, setup, teardown),
        cmocka_unit_test_setup_teardown(test_score_without_prescore, setup, teardown),
        cmocka_unit_test_setup_teardown(test_args, setup, teardown),
        cmocka_unit_test(test_ops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
