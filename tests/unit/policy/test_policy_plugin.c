/* Policies as framework plugins: the batch calls, normalization, failure
 * handling, disabling and swap, the queue, Reserve, Permit and preemption
 * hooks, and the framework running a policy's batch Filter. */
#include "testutil.h"
#include "lua_env.h"
#include "policy/log_limit.h"

#include "moonsched/framework.h"
#include "policy/policy_plugin.h"
#include "framework/runners.h"
#include "backend/queue.h"

static void test_filter_and_score_batch(void **state) {
    (void)state;
    env *e = env_new(0, 0, MS_POLICY_REJECT);
    cluster cl = make_cluster(e, 8);
    ms_policy *p = load(e,
        "local p = {name = 'fit'}\n"
        "function p.pre_filter(pod, state) state.want = pod.requests.cpu end\n"
        "function p.filter(pod, node, state)\n"
        "  if node.name == 'node-7' then return false, 'seven', true end\n"
        "  return node.free('cpu') >= state.want + 1000, 'Insufficient cpu'\n"
        "end\n"
        "function p.score(pod, node, state) return node.requested.cpu - 1000 end\n"
        "return p\n");
    const ms_plugin_ops *ops = ms_policy_ops(p);
    assert_string_equal(ops->name, "fit");
    assert_null(ops->filter);
    ms_status st[8];
    assert_int_equal(ops->pre_filter(p, &e->c, &st[0]), MS_SUCCESS);
    assert_int_equal(ops->filter_batch(p, &e->c, cl.nodes, 8, st), MS_SUCCESS);
    /* requested cpu: 0 1000 2000 3000 0 1000 2000 3000; free >= 2000 passes */
    const uint8_t want[8] = {0, 0, 0, 2, 0, 0, 0, 3};
    for (int i = 0; i < 8; i++) {
        uint8_t code = want[i] == 0 ? MS_SUCCESS
                       : want[i] == 2 ? MS_UNSCHEDULABLE : MS_UNSCHEDULABLE_AND_UNRESOLVABLE;
        assert_int_equal(st[i].code, code);
        if (want[i] == 2) assert_string_equal(st[i].reasons[0], "Insufficient cpu");
        if (want[i] == 3) assert_string_equal(st[i].reasons[0], "seven");
    }
    /* Raw -1000 0 1000 2000: lo = -1000, hi = 2000 -> 0 33 67 100. */
    int64_t scores[4];
    ms_status one;
    assert_int_equal(ops->score(p, &e->c, cl.nodes, 4, scores, &one), MS_SUCCESS);
    assert_int_equal(scores[0], 0);
    assert_int_equal(scores[1], 33);
    assert_int_equal(scores[2], 67);
    assert_int_equal(scores[3], 100);
    ms_policy_free(p);
    free_cluster(&cl);
    env_free(e);
}

static void test_normalize_default(void **state) {
    (void)state;
    static const struct {
        double raw[4];
        int64_t want[4];
    } cases[] = {
        {{0, 1, 2, 4}, {0, 25, 50, 100}},
        {{2, 4, 4, 3}, {50, 100, 100, 75}},
        {{0, 0, 0, 0}, {0, 0, 0, 0}},
        {{5, 5, 5, 5}, {100, 100, 100, 100}},
        {{-2, -1, 0, 2}, {0, 25, 50, 100}},
        {{-3, -3, -3, -3}, {0, 0, 0, 0}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int64_t out[4];
        ms_lua_normalize(cases[k].raw, 4, out);
        for (int i = 0; i < 4; i++) assert_int_equal(out[i], cases[k].want[i]);
    }
}

static void test_custom_normalize_and_bad_scores(void **state) {
    (void)state;
    env *e = env_new(0, 0, MS_POLICY_REJECT);
    cluster cl = make_cluster(e, 4);
    ms_policy *p = load(e,
        "local p = {name = 'norm'}\n"
        "function p.score(pod, node) return node.requested.cpu end\n"
        "function p.normalize(pod, scores, nodes)\n"
        "  for i, s in ipairs(scores) do scores[i] = (nodes[i].name == 'node-1') and 7 or s / 100 end\n"
        "end\n"
        "return p\n");
    int64_t scores[4];
    ms_status st;
    assert_int_equal(ms_policy_ops(p)->score(p, &e->c, cl.nodes, 4, scores, &st), MS_SUCCESS);
    assert_int_equal(scores[0], 0);
    assert_int_equal(scores[1], 7);
    assert_int_equal(scores[2], 20);
    assert_int_equal(scores[3], 30);
    ms_policy_free(p);

    p = load(e, "return {name = 'nan', score = function() return 0/0 end}");
    assert_int_equal(ms_policy_ops(p)->score(p, &e->c, cl.nodes, 4, scores, &st), MS_ERROR);
    assert_non_null(strstr(st.reasons[0], "not a finite number"));
    ms_policy_free(p);

    /* The wrong type says which it got. */
    p = load(e, "return {name = 'text', score = function() return '5' end}");
    assert_int_equal(ms_policy_ops(p)->score(p, &e->c, cl.nodes, 4, scores, &st), MS_ERROR);
    assert_non_null(strstr(st.reasons[0], "is 5 (a string), not a finite number"));
    ms_policy_free(p);
    free_cluster(&cl);
    env_free(e);
}

static void test_failures_skip_disable_and_swap(void **state) {
    (void)state;
    env *e = env_new(0, 0, MS_POLICY_SKIP);
    cluster cl = make_cluster(e, 2);
    ms_policy *p = load(e, "return {name = 'broken', filter = function() error('nope') end,"
                           " pre_filter = function() return false, 'no way' end}");
    const ms_plugin_ops *ops = ms_policy_ops(p);
    ms_status st[2];
    /* A rejection is not a failure. */
    assert_int_equal(ops->pre_filter(p, &e->c, &st[0]), MS_UNSCHEDULABLE);
    assert_string_equal(st[0].reasons[0], "no way");
    for (int i = 0; i < 3; i++) {
        assert_int_equal(ops->filter_batch(p, &e->c, cl.nodes, 2, st), MS_SUCCESS);
        assert_int_equal(st[0].code, MS_SUCCESS);   /* skip mode: as if no opinion */
    }
    assert_true(ms_policy_disabled(p));
    assert_int_equal(e->ndisabled, 1);
    assert_non_null(strstr(e->disabled, "broken: disabled after 3 consecutive failures"));
    assert_non_null(strstr(ms_policy_last_error(p), "nope"));
    /* Disabled: no calls, every node passes, PreFilter skips. */
    assert_int_equal(ops->pre_filter(p, &e->c, &st[0]), MS_SKIP);

    ms_lua_state *next = NULL;
    ms_error err;
    const char *src = "return {name = 'broken', filter = function(pod, node) return false, 'fixed' end}";
    assert_int_equal(ms_lua_state_load(e->rt, "=v2.lua", src, strlen(src), NULL, &next, &err), MS_OK);
    ms_lua_state_free(ms_policy_swap(p, next));
    assert_false(ms_policy_disabled(p));
    assert_int_equal(ops->filter_batch(p, &e->c, cl.nodes, 2, st), MS_SUCCESS);
    assert_int_equal(st[1].code, MS_UNSCHEDULABLE);
    assert_string_equal(st[1].reasons[0], "fixed");
    ms_policy_free(p);
    free_cluster(&cl);
    env_free(e);
}

/* Each hook counts its own failures: a score that always fails disables
 * the policy after max_failures calls though pre_filter succeeds between
 * them. */
static void test_failing_hook_disables_whatever_the_others_do(void **state) {
    (void)state;
    env *e = env_new(0, 0, MS_POLICY_REJECT);
    cluster cl = make_cluster(e, 2);
    ms_policy *p = load(e, "return {name = 'half', pre_filter = function() return true end,"
                           " score = function() error('bad score') end}");
    const ms_plugin_ops *ops = ms_policy_ops(p);
    ms_status st;
    int64_t scores[2];
    for (int i = 0; i < 3; i++) {
        assert_false(ms_policy_disabled(p));
        assert_int_equal(ops->pre_filter(p, &e->c, &st), MS_SUCCESS);
        assert_int_equal(ops->score(p, &e->c, cl.nodes, 2, scores, &st), MS_ERROR);
    }
    assert_true(ms_policy_disabled(p));
    assert_int_equal(e->ndisabled, 1);
    assert_non_null(strstr(e->disabled, "half: disabled after 3 consecutive failures of score"));
    ms_policy_stats stats;
    ms_policy_get_stats(p, &stats);
    assert_int_equal(stats.consecutive, 3);
    assert_int_equal(stats.failures, 3);
    ms_policy_free(p);
    free_cluster(&cl);
    env_free(e);
}

/* sched.log lines go through the same limit: a line per node of the same
 * text is said MS_LOG_LIMIT_BURST times, another text has its own. */
static void test_policy_log_lines_are_rate_limited(void **state) {
    (void)state;
    env *e = env_new(0, 0, MS_POLICY_REJECT);
    cluster cl = make_cluster(e, 8);
    ms_policy *p = load(e, "return {name = 'chatty', filter = function(pod, node)"
                           " sched.log.info('looking'); return true end,"
                           " pre_filter = function() sched.log.warn('starting') end}");
    ms_status st[8];
    for (int i = 0; i < 3; i++) {
        assert_int_equal(ms_policy_ops(p)->pre_filter(p, &e->c, &st[0]), MS_SUCCESS);
        assert_int_equal(ms_policy_ops(p)->filter_batch(p, &e->c, cl.nodes, 8, st), MS_SUCCESS);
    }
    assert_int_equal(e->nlogs, MS_LOG_LIMIT_BURST + 3);
    ms_policy_free(p);
    free_cluster(&cl);
    env_free(e);
}

static void test_reject_mode_reason(void **state) {
    (void)state;
    env *e = env_new(0, 0, MS_POLICY_REJECT);
    cluster cl = make_cluster(e, 2);
    ms_policy *p = load(e, "return {name = 'oops', filter = function() local x = nil; return x.y end}");
    ms_status st[2];
    assert_int_equal(ms_policy_ops(p)->filter_batch(p, &e->c, cl.nodes, 2, st), MS_SUCCESS);
    assert_int_equal(st[1].code, MS_UNSCHEDULABLE);
    assert_non_null(strstr(st[1].reasons[0], "policy oops: test.lua:1: attempt to index"));
    ms_policy_free(p);
    free_cluster(&cl);
    env_free(e);
}

static void test_queue_reserve_permit_preemption(void **state) {
    (void)state;
    env *e = env_new(0, 0, MS_POLICY_REJECT);
    cluster cl = make_cluster(e, 2);
    ms_policy *p = load(e,
        "local p = {name = 'all'}\n"
        "function p.pre_enqueue(pod) if pod.name == 'gated' then return false, 'gated' end end\n"
        "function p.less(a, b) return a.name < b.name end\n"
        "local reserved = {}\n"
        "function p.reserve(pod, node) reserved[pod.name] = node end\n"
        "function p.unreserve(pod, node) reserved[pod.name] = nil end\n"
        "function p.permit(pod, node)\n"
        "  if reserved[pod.name] ~= node then return 'deny', 'not reserved' end\n"
        "  return 'wait', 2.5\n"
        "end\n"
        "function p.select_victims(pod, node, cands)\n"
        "  if node.name == 'node-1' then return nil end\n"
        "  return {cands[2], cands[2], cands[1]}\n"
        "end\n"
        "function p.pick_preemption(pod, options)\n"
        "  for i, o in ipairs(options) do if #o.victims == 1 then return i end end\n"
        "end\n"
        "return p\n");
    const ms_plugin_ops *ops = ms_policy_ops(p);
    ms_pod *gated = fx_pod(&e->fx.d, "metadata: {name: gated}\nspec: {containers: [{name: c}]}\n");
    ms_pod *a = fx_pod(&e->fx.d, "metadata: {name: a}\nspec: {containers: [{name: c}]}\n");
    const char *why = NULL;
    assert_false(ops->pre_enqueue(p, gated, &why));
    assert_string_equal(why, "gated");
    assert_true(ops->pre_enqueue(p, a, &why));
    ms_queued_pod qa = {.pod = a}, qb = {.pod = gated};
    assert_true(ops->less(p, &qa, &qb));
    assert_false(ops->less(p, &qb, &qa));

    ms_status st;
    ms_str n0 = cl.nodes[0]->name, n1 = cl.nodes[1]->name;
    double timeout = 0;
    assert_int_equal(ops->permit(p, &e->c, n0, &timeout, &st), MS_UNSCHEDULABLE);
    assert_string_equal(st.reasons[0], "not reserved");
    assert_int_equal(ops->reserve(p, &e->c, n0, &st), MS_SUCCESS);
    assert_int_equal(ops->permit(p, &e->c, n0, &timeout, &st), MS_WAIT);
    assert_true(timeout == 2.5);
    ops->unreserve(p, &e->c, n0);
    assert_int_equal(ops->permit(p, &e->c, n0, &timeout, &st), MS_UNSCHEDULABLE);

    ms_pod *cands[3] = {a, gated, cl.pod};
    uint32_t victims[3], nv = 99;
    assert_int_equal(ms_policy_select_victims(p, &e->c, cl.nodes[0], cands, 3, victims, &nv, &st),
                     MS_SUCCESS);
    assert_int_equal(nv, 2);
    assert_int_equal(victims[0], 1);
    assert_int_equal(victims[1], 0);
    assert_int_equal(ms_policy_select_victims(p, &e->c, cl.nodes[1], cands, 3, victims, &nv, &st),
                     MS_UNSCHEDULABLE);
    ms_preemption_option opts[2] = {{cl.nodes[0], cands, 2, 0}, {cl.nodes[1], cands, 1, 0}};
    uint32_t chosen = 9;
    assert_int_equal(ms_policy_pick_preemption(p, &e->c, opts, 2, &chosen, &st), MS_SUCCESS);
    assert_int_equal(chosen, 1);
    (void)n1;
    ms_pod_unref(a);
    ms_pod_unref(gated);
    ms_policy_free(p);
    free_cluster(&cl);
    env_free(e);
}

/* The framework runs a policy's Filter through the batch runner, after the
 * per-node plugins. */
static void test_framework_batch_filter(void **state) {
    (void)state;
    env *e = env_new(0, 0, MS_POLICY_REJECT);
    cluster cl = make_cluster(e, 4);
    ms_policy *p = load(e,
        "return {name = 'odd', filter = function(pod, node)\n"
        "  return node.name ~= 'node-1' and node.name ~= 'node-3', 'odd one'\n"
        "end}\n");
    ms_profile_config pc;
    ms_profile_config_default(&pc, "lua-sched");
    ms_plugin_config *pl = &pc.plugins[pc.nplugins];
    memset(pl, 0, sizeof *pl);
    snprintf(pl->name, sizeof pl->name, "odd");
    pl->points = 1u << MS_EP_FILTER;
    pc.order[MS_EP_FILTER][pc.norder[MS_EP_FILTER]++] = (uint8_t)pc.nplugins;
    pc.nplugins++;
    ms_resource_names rn;
    ms_resource_names_init(&rn, e->fx.in);
    ms_handle h = {.in = e->fx.in, .rn = &rn};
    ms_framework fw;
    ms_error err = {0};
    const ms_plugin_ops *oot[] = {ms_policy_ops(p)};
    if (ms_framework_init_with(&fw, &pc, 0, &h, oot, 1, &err) != MS_OK) fail_msg("%s", err.msg);
    assert_true(ms_framework_has_filter_batch(&fw));
    assert_int_equal(ms_framework_begin_cycle(&fw, &e->c), MS_OK);
    ms_status st[4];
    assert_int_equal(ms_framework_run_pre_filter(&fw, &e->c, &st[0]), MS_SUCCESS);
    for (int i = 0; i < 4; i++)
        assert_int_equal(ms_framework_run_filter(&fw, &e->c, cl.nodes[i], &st[i]), MS_SUCCESS);
    assert_int_equal(ms_framework_run_filter_batch(&fw, &e->c, cl.nodes, 4, st), MS_SUCCESS);
    assert_int_equal(st[0].code, MS_SUCCESS);
    assert_int_equal(st[1].code, MS_UNSCHEDULABLE);
    assert_string_equal(st[1].reasons[0], "odd one");
    assert_string_equal(fw.plugins[st[1].plugin].ops->name, "odd");
    assert_int_equal(st[2].code, MS_SUCCESS);
    assert_int_equal(st[3].code, MS_UNSCHEDULABLE);
    ms_framework_destroy(&fw);
    ms_config_free(&(ms_config){0});
    ms_policy_free(p);
    free_cluster(&cl);
    env_free(e);
}

/* pre_filter's "skip" skips the policy's Filter and its Score. */
static void test_pre_filter_skip_skips_score(void **state) {
    (void)state;
    env *e = env_new(0, 0, MS_POLICY_REJECT);
    cluster cl = make_cluster(e, 2);
    ms_policy *p = load(e,
        "return {name = 'skipper', pre_filter = function() return 'skip' end,\n"
        "  filter = function() return false, 'no' end, score = function() error('scored') end}\n");
    ms_profile_config pc;
    ms_profile_config_default(&pc, "lua-sched");
    ms_plugin_config *pl = &pc.plugins[pc.nplugins];
    memset(pl, 0, sizeof *pl);
    snprintf(pl->name, sizeof pl->name, "skipper");
    pl->points = (1u << MS_EP_PRE_FILTER) | (1u << MS_EP_FILTER) | (1u << MS_EP_SCORE);
    pl->weight = 1;
    pc.nplugins++;
    ms_resource_names rn;
    ms_resource_names_init(&rn, e->fx.in);
    ms_handle h = {.in = e->fx.in, .rn = &rn};
    ms_framework fw;
    ms_error err = {0};
    const ms_plugin_ops *oot[] = {ms_policy_ops(p)};
    if (ms_framework_init_with(&fw, &pc, 0, &h, oot, 1, &err) != MS_OK) fail_msg("%s", err.msg);
    assert_int_equal(ms_framework_begin_cycle(&fw, &e->c), MS_OK);
    ms_status st[2];
    assert_int_equal(ms_framework_run_pre_filter(&fw, &e->c, &st[0]), MS_SUCCESS);
    ms_status_ok(&st[0]);
    ms_status_ok(&st[1]);
    assert_int_equal(ms_framework_run_filter_batch(&fw, &e->c, cl.nodes, 2, st), MS_SUCCESS);
    assert_int_equal(st[0].code, MS_SUCCESS);
    int64_t totals[2];
    ms_status sst;
    assert_int_equal(ms_framework_run_pre_score(&fw, &e->c, cl.nodes, 2, &sst), MS_SUCCESS);
    assert_int_equal(ms_framework_run_score(&fw, &e->c, cl.nodes, 2, totals, NULL, &sst), MS_SUCCESS);
    ms_policy_stats stats;
    ms_policy_get_stats(p, &stats);
    if (stats.failures) fail_msg("%s", ms_policy_last_error(p));
    ms_framework_destroy(&fw);
    ms_policy_free(p);
    free_cluster(&cl);
    env_free(e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filter_and_score_batch),
        cmocka_unit_test(test_normalize_default),
        cmocka_unit_test(test_custom_normalize_and_bad_scores),
        cmocka_unit_test(test_failures_skip_disable_and_swap),
        cmocka_unit_test(test_failing_hook_disables_whatever_the_others_do),
        cmocka_unit_test(test_policy_log_lines_are_rate_limited),
        cmocka_unit_test(test_reject_mode_reason),
        cmocka_unit_test(test_queue_reserve_permit_preemption),
        cmocka_unit_test(test_framework_batch_filter),
        cmocka_unit_test(test_pre_filter_skip_skips_score),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
