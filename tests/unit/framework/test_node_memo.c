#include "testutil.h"

#include "fixtures.h"

#include "backend/cache_snapshot.h"
#include "framework/node_memo.h"
#include "framework/runners.h"
#include "moonsched/framework.h"

FX_DECODER_FIXTURE

/* Two fake plugins: Local (node-local Filter and Score) and Other (not
 * node-local), each counting the nodes it is called on. Local's verdict
 * and score read the node's requested CPU, as a real one would. */
static uint32_t local_filtered, local_scored, other_filtered, other_scored;
static const ms_node_info *other_rejects;   /* the node Other rejects, if any */

static ms_code local_filter(void *self, ms_cycle *c, const ms_node_info *ni, ms_status *st) {
    (void)self;
    local_filtered++;
    if (ni->requested.v[MS_RES_CPU] + c->pod->requests.v[MS_RES_CPU] > 1000)
        return ms_status_set(st, MS_UNSCHEDULABLE, "too much cpu");
    return MS_SUCCESS;
}
static ms_code local_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                           int64_t *scores, ms_status *st) {
    (void)self, (void)c, (void)st;
    for (uint32_t i = 0; i < n; i++) scores[i] = nodes[i]->requested.v[MS_RES_CPU] / 10;
    local_scored += n;
    return MS_SUCCESS;
}
static ms_code local_normalize(void *self, ms_cycle *c, int64_t *scores, uint32_t n, ms_status *st) {
    (void)self, (void)c, (void)st;
    ms_default_normalize_score(MS_MAX_NODE_SCORE, false, scores, n);
    return MS_SUCCESS;
}
/* Node-local, Score only, no NormalizeScore: its raw score is final
 * (out of range past 2000m requested). */
static ms_code plain_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                           int64_t *scores, ms_status *st) {
    (void)self, (void)c, (void)st;
    for (uint32_t i = 0; i < n; i++) scores[i] = nodes[i]->requested.v[MS_RES_CPU] / 20;
    return MS_SUCCESS;
}
static ms_code other_filter(void *self, ms_cycle *c, const ms_node_info *ni, ms_status *st) {
    (void)self, (void)c;
    other_filtered++;
    return ni == other_rejects ? ms_status_set(st, MS_UNSCHEDULABLE, "other") : MS_SUCCESS;
}
static ms_code other_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                           int64_t *scores, ms_status *st) {
    (void)self, (void)c, (void)st;
    for (uint32_t i = 0; i < n; i++) scores[i] = (int64_t)nodes[i]->npods;
    other_scored += n;
    return MS_SUCCESS;
}

static const ms_plugin_ops ops_local = {.name = "Local", .filter = local_filter, .score = local_score,
                                        .normalize_score = local_normalize, .node_local = true};
static const ms_plugin_ops ops_other = {.name = "Other", .filter = other_filter, .score = other_score};
static const ms_plugin_ops ops_plain = {.name = "Plain", .score = plain_score, .node_local = true};
static const ms_plugin_ops *const out_of_tree[] = {&ops_local, &ops_other, &ops_plain};

#define BIT(ep) (1u << (ep))
#define NNODES 4

typedef struct fixture {
    ms_profile_config pc;
    ms_framework fw;
    ms_handle h;
    ms_arena arena;
    ms_cycle c;
    ms_resource_names rn;
    ms_node_info ni[NNODES];
    ms_node_info *nodes[NNODES];
    uint32_t at[NNODES];
    ms_node_memo memo;
    ms_snapshot snap;             /* only its node count is read */
    ms_pod *a;                    /* a pod requesting 100m of CPU */
    int64_t t[NNODES];            /* the totals of the last run() */
    uint32_t n;                   /* its feasible nodes */
} fixture;

static void add_plugin(ms_profile_config *pc, const char *name, uint32_t points, int32_t weight) {
    uint32_t i = pc->nplugins++;
    ms_plugin_config *p = &pc->plugins[i];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->points = points;
    p->weight = weight;
    for (int ep = 0; ep < MS_EP_COUNT; ep++)
        if (points & BIT(ep)) pc->order[ep][pc->norder[ep]++] = (uint8_t)i;
}

static ms_pod *pod_with(const char *spec) {
    char text[512];
    snprintf(text, sizeof text, "metadata: {name: p, namespace: default, uid: u}\nspec: %s", spec);
    return fx_pod(&env.d, text);
}

#define CPU100 "{containers: [{name: c, resources: {requests: {cpu: 100m}}}]}"
#define CPU200 "{containers: [{name: c, resources: {requests: {cpu: 200m}}}]}"

static int setup(void **state) {
    fixture *fx = calloc(1, sizeof *fx);
    fx->h.in = env.in;
    ms_resource_names_init(&fx->rn, env.in);
    fx->h.rn = &fx->rn;
    ms_arena_init(&fx->arena, 4096);
    ms_profile_config *pc = &fx->pc;
    snprintf(pc->scheduler_name, sizeof pc->scheduler_name, "test-scheduler");
    pc->percentage_of_nodes_to_score = -1;
    add_plugin(pc, "PrioritySort", BIT(MS_EP_QUEUE_SORT), 0);
    add_plugin(pc, "Local", BIT(MS_EP_FILTER) | BIT(MS_EP_SCORE), 2);
    add_plugin(pc, "Other", BIT(MS_EP_FILTER) | BIT(MS_EP_SCORE), 1);
    add_plugin(pc, "Plain", BIT(MS_EP_SCORE), 3);
    add_plugin(pc, "DefaultBinder", BIT(MS_EP_BIND), 0);
    ms_error err = {0};
    if (ms_framework_init_with(&fx->fw, pc, 50, &fx->h, out_of_tree, 3, &err) != MS_OK) fail_msg("%s", err.msg);
    for (uint32_t i = 0; i < NNODES; i++) {
        fx->ni[i].generation = 10 + i;
        fx->ni[i].requested.v[MS_RES_CPU] = 100 * (i + 1);
        fx->ni[i].npods = i;
        fx->nodes[i] = &fx->ni[i];
        fx->at[i] = i;
    }
    ms_node_memo_init(&fx->memo);
    assert_true(ms_node_memo_reserve(&fx->memo, NNODES, fx->fw.norder[MS_EP_SCORE]));
    local_filtered = local_scored = other_filtered = other_scored = 0;
    other_rejects = NULL;
    fx->a = pod_with(CPU100);
    *state = fx;
    return 0;
}

static int teardown(void **state) {
    fixture *fx = *state;
    ms_pod_unref(fx->a);
    ms_node_memo_free(&fx->memo);
    ms_framework_destroy(&fx->fw);
    ms_arena_free(&fx->arena);
    free(fx);
    return 0;
}

/* A cycle of `pod` as the scheduler runs it: the Filter pass over every
 * node through the memo, then Score over the feasible ones; the totals
 * into totals[0..*nfeasible). */
static void cycle(fixture *fx, ms_pod *pod, int64_t *totals, uint32_t *nfeasible) {
    ms_arena_reset(&fx->arena);
    memset(&fx->c, 0, sizeof fx->c);
    fx->c.pod = pod;
    fx->c.arena = &fx->arena;
    fx->c.snap = &fx->snap;
    assert_int_equal(ms_framework_begin_cycle(&fx->fw, &fx->c), MS_OK);
    ms_filter_plan plan, rest;
    ms_framework_filter_plan(&fx->fw, &fx->c, &plan);
    assert_true(ms_node_memo_begin_filter(&fx->memo, &fx->fw, &fx->c, &plan, &rest));
    assert_int_equal(rest.n, 1);
    ms_node_info *feasible[NNODES];
    uint32_t at[NNODES], n = 0;
    for (uint32_t i = 0; i < NNODES; i++) {
        ms_status st;
        ms_node_memo_key *k = &fx->memo.filtered[i];
        ms_code code;
        if (ms_node_memo_holds(k, fx->nodes[i], fx->memo.filter_epoch)) {
            code = ms_framework_run_filter_plan(&rest, &fx->c, fx->nodes[i], &st);
        } else {
            code = ms_framework_run_filter_plan(&plan, &fx->c, fx->nodes[i], &st);
            if (ms_node_memo_local_passed(&fx->memo, code, &st))
                ms_node_memo_note(k, fx->nodes[i], fx->memo.filter_epoch);
        }
        if (code == MS_SUCCESS) {
            at[n] = i;
            feasible[n++] = fx->nodes[i];
        }
    }
    ms_status st;
    assert_int_equal(ms_framework_run_score_memo(&fx->fw, &fx->c, &fx->memo, feasible, at, n, totals, NULL, &st),
                     MS_SUCCESS);
    /* The same totals as the runner without the memo. */
    int64_t want[NNODES];
    assert_int_equal(ms_framework_run_score(&fx->fw, &fx->c, feasible, n, want, NULL, &st), MS_SUCCESS);
    assert_memory_equal(totals, want, n * sizeof *totals);
    local_scored -= n;   /* the check's calls are not the cycle's */
    other_scored -= n;
    *nfeasible = n;
}

/* A cycle of pod into fx->t and fx->n. */
static void run(fixture *fx, ms_pod *pod) { cycle(fx, pod, fx->t, &fx->n); }

static void test_signature(void **state) {
    (void)state;
    ms_pod *a = pod_with(CPU100), *b = pod_with(CPU100), *c = pod_with(CPU200);
    ms_pod *tol = pod_with("{containers: [{name: c, resources: {requests: {cpu: 100m}}}], "
                           "tolerations: [{key: k, operator: Exists}]}");
    ms_pod *sel = pod_with("{containers: [{name: c, resources: {requests: {cpu: 100m}}}], "
                           "nodeSelector: {zone: a}}");
    ms_pod *aff = pod_with("{containers: [{name: c, resources: {requests: {cpu: 100m}}}], "
                           "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
                           "{nodeSelectorTerms: [{matchExpressions: [{key: z, operator: Exists}]}]}}}}");
    ms_pod *img = pod_with("{containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]}");
    ms_pod *img2 = pod_with("{containers: [{name: c, image: redis, resources: {requests: {cpu: 100m}}}]}");
    assert_true(ms_pod_same_signature(a, b));
    assert_false(ms_pod_same_signature(a, c));
    /* ImageLocality reads the images */
    assert_false(ms_pod_same_signature(a, img));
    assert_false(ms_pod_same_signature(img, img2));
    assert_false(ms_pod_same_signature(a, tol));
    assert_false(ms_pod_same_signature(a, sel));
    /* Node affinity terms are not compared: such a pod has no signature. */
    assert_false(ms_pod_same_signature(aff, aff));
    ms_pod *pods[] = {a, b, c, tol, sel, aff, img, img2};
    for (size_t i = 0; i < sizeof pods / sizeof pods[0]; i++) ms_pod_unref(pods[i]);
}

static void test_same_signature_reuses_unchanged_nodes(void **state) {
    fixture *fx = *state;
    ms_pod *b = pod_with(CPU100);
    run(fx, fx->a);
    int64_t first[NNODES];
    memcpy(first, fx->t, sizeof first);
    assert_int_equal(fx->n, NNODES);
    assert_int_equal(local_filtered, NNODES);
    assert_int_equal(local_scored, NNODES);
    /* Another pod of the same signature: Local runs on no node, Other on all. */
    local_filtered = local_scored = other_filtered = other_scored = 0;
    run(fx, b);
    assert_int_equal(local_filtered, 0);
    assert_int_equal(local_scored, 0);
    assert_int_equal(other_filtered, NNODES);
    assert_int_equal(other_scored, NNODES);
    assert_int_equal(fx->n, NNODES);
    assert_memory_equal(first, fx->t, sizeof first);
    ms_pod_unref(b);
}

static void test_changed_node_is_run_again(void **state) {
    fixture *fx = *state;
    run(fx, fx->a);
    /* The previous pod lands on node 1: a new generation, more CPU. */
    fx->ni[1].requested.v[MS_RES_CPU] += 600;
    fx->ni[1].generation = 20;
    local_filtered = local_scored = 0;
    run(fx, fx->a);
    assert_int_equal(local_filtered, 1);
    assert_int_equal(local_scored, 1);
    /* Local's max (normalized 100, weight 2), Other's npods, Plain's 800m / 20 × 3 */
    assert_int_equal(fx->t[1], 2 * 100 + 1 + 40 * 3);
    /* Node 1 is now full for the pod: rejected by Local, and never taken
     * as passing from the memo while it stays so. */
    fx->ni[1].requested.v[MS_RES_CPU] += 300;
    fx->ni[1].generation = 21;
    local_filtered = 0;
    run(fx, fx->a);
    assert_int_equal(fx->n, NNODES - 1);
    assert_int_equal(local_filtered, 1);
    local_filtered = 0;
    run(fx, fx->a);
    assert_int_equal(fx->n, NNODES - 1);
    assert_int_equal(local_filtered, 1);
}

static void test_other_signature_does_not_reuse(void **state) {
    fixture *fx = *state;
    ms_pod *c = pod_with(CPU200);
    run(fx, fx->a);
    local_filtered = local_scored = 0;
    run(fx, c);
    assert_int_equal(local_filtered, NNODES);
    assert_int_equal(local_scored, NNODES);
    /* Back to the first signature: the memo holds the last one only. */
    local_filtered = local_scored = 0;
    run(fx, fx->a);
    assert_int_equal(local_filtered, NNODES);
    assert_int_equal(local_scored, NNODES);
    ms_pod_unref(c);
}

/* A node the node-local steps pass and a later step rejects keeps its
 * entry: the next pod runs the later steps alone there. */
static void test_rejected_after_local_steps(void **state) {
    fixture *fx = *state;
    other_rejects = &fx->ni[2];
    run(fx, fx->a);
    assert_int_equal(fx->n, NNODES - 1);
    local_filtered = other_filtered = 0;
    run(fx, fx->a);
    assert_int_equal(fx->n, NNODES - 1);
    assert_int_equal(local_filtered, 0);
    assert_int_equal(other_filtered, NNODES);
}

/* A final score out of range from the memo is the error the runner
 * without it gives. */
static void test_memo_score_range_checked(void **state) {
    fixture *fx = *state;
    run(fx, fx->a);
    fx->ni[3].requested.v[MS_RES_CPU] = 2020;   /* Plain: 101 */
    fx->ni[3].generation = 30;
    other_rejects = NULL;
    ms_status st;
    ms_node_info *feasible[] = {fx->nodes[0], fx->nodes[3]};
    uint32_t at[] = {0, 3};
    assert_int_equal(ms_framework_run_score_memo(&fx->fw, &fx->c, &fx->memo, feasible, at, 2, fx->t, NULL, &st),
                     MS_ERROR);
    ms_status want;
    assert_int_equal(ms_framework_run_score(&fx->fw, &fx->c, feasible, 2, fx->t, NULL, &want), MS_ERROR);
    assert_int_equal(st.plugin, want.plugin);
    assert_string_equal(st.reasons[0], want.reasons[0]);
}

/* The rows go by position in the Score order: another order (a policy
 * reload) scores every node again rather than read another plugin's row. */
static void test_score_order_change_forgets(void **state) {
    fixture *fx = *state;
    run(fx, fx->a);
    uint8_t *order = fx->fw.order[MS_EP_SCORE];
    uint8_t first = order[0];
    order[0] = order[1];
    order[1] = first;
    local_scored = 0;
    run(fx, fx->a);   /* its totals checked against the runner without the memo */
    assert_int_equal(local_scored, NNODES);
}

static void test_reserve_forgets(void **state) {
    fixture *fx = *state;
    run(fx, fx->a);
    /* Room for more nodes: every entry is forgotten. */
    assert_true(ms_node_memo_reserve(&fx->memo, 2 * NNODES, fx->fw.norder[MS_EP_SCORE]));
    local_filtered = local_scored = 0;
    run(fx, fx->a);
    assert_int_equal(local_filtered, NNODES);
    assert_int_equal(local_scored, NNODES);
}

/* Another node count (ImageLocality's spread divides by it) starts a new
 * epoch: every node is filtered and scored again. */
static void test_node_count_change_forgets(void **state) {
    fixture *fx = *state;
    fx->snap.nnodes = NNODES;
    run(fx, fx->a);
    fx->snap.nnodes = NNODES + 1;
    local_filtered = local_scored = 0;
    run(fx, fx->a);
    assert_int_equal(local_filtered, NNODES);
    assert_int_equal(local_scored, NNODES);
    local_filtered = local_scored = 0;
    run(fx, fx->a);
    assert_int_equal(local_filtered, 0);
    assert_int_equal(local_scored, 0);
}

/* Plain's scores are final: the pass adds each node's weighted sum from
 * the memo and writes no row for it; a reader of one node's scores, or of
 * every node's, gets the rows of the runner without the memo. */
static void test_summed_scores_read_as_rows(void **state) {
    fixture *fx = *state;
    run(fx, fx->a);
    const uint32_t nscore = fx->fw.norder[MS_EP_SCORE];
    int64_t got[3 * NNODES], want[3 * NNODES];
    assert_true(nscore <= 3);
    memset(got, 0xee, sizeof got);
    ms_status st;
    assert_int_equal(ms_framework_run_score_memo(&fx->fw, &fx->c, &fx->memo, fx->nodes, fx->at, NNODES, fx->t,
                                                 got, &st),
                     MS_SUCCESS);
    assert_int_not_equal(fx->memo.summed, 0);
    assert_int_equal(ms_framework_run_score(&fx->fw, &fx->c, fx->nodes, NNODES, fx->t, want, &st), MS_SUCCESS);
    for (uint32_t k = 0; k < nscore; k++)
        for (uint32_t j = 0; j < NNODES; j++)
            assert_int_equal(ms_node_memo_weighted_score(&fx->fw, &fx->memo, got, NNODES, k, j, fx->at[j]),
                             want[k * NNODES + j]);
    ms_node_memo_fill_summed_rows(&fx->fw, &fx->memo, fx->at, NNODES, got);
    assert_memory_equal(got, want, nscore * NNODES * sizeof *got);
}

/* The sums hold weighted scores: another weight scores every node again
 * (run() checks the totals against the runner without the memo). */
static void test_weight_change_forgets(void **state) {
    fixture *fx = *state;
    run(fx, fx->a);
    for (uint32_t i = 0; i < fx->fw.nplugins; i++)
        if (fx->fw.plugins[i].ops == &ops_plain) fx->fw.plugins[i].weight = 5;
    local_scored = 0;
    run(fx, fx->a);
    assert_int_equal(local_scored, NNODES);
}

int main(void) {
#define TC(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_signature),
        TC(test_same_signature_reuses_unchanged_nodes),
        TC(test_changed_node_is_run_again),
        TC(test_other_signature_does_not_reuse),
        TC(test_rejected_after_local_steps),
        TC(test_memo_score_range_checked),
        TC(test_score_order_change_forgets),
        TC(test_reserve_forgets),
        TC(test_summed_scores_read_as_rows),
        TC(test_weight_change_forgets),
        TC(test_node_count_change_forgets),
    };
    return cmocka_run_group_tests(tests, fx_group_setup, fx_group_teardown);
}
