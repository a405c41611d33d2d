/* The runtime's watchdog: a call past its CPU budget is stopped, however
 * the policy loops, and the state works for the next call. */
#include "testutil.h"
#include "lua_env.h"

#include <time.h>

/* The budget counts the thread's CPU time; so does the check, which a busy
 * machine would otherwise fail while the watchdog waits for a CPU. */
static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void test_budget_stops_compiled_loops(void **state) {
    (void)state;
    env *e = env_new(0.05, 0, MS_POLICY_REJECT);
    cluster cl = make_cluster(e, 4);
    static const char *const loops[] = {
        "while true do end",
        "local x = 0 while true do x = x + 1 end",
        "while true do pcall(function() while true do end end) end",
        "local t = {a = 1, b = 2} while true do for k, v in pairs(t) do end end",
        "local function f() return f() end return f()",
        /* Inside one C call: the matcher, the sort, the parser. */
        "local s = string.rep('a', 40) return s:find(string.rep('a?', 40) .. string.rep('a', 40))",
        "local s, q = string.rep('a', 40), string.rep('a?', 40) .. string.rep('a', 40)\n"
        "while true do pcall(string.gsub, s, q, '') end",
        "local t = {} for i = 1, 2 ^ 21 do t[i] = (i * 7919) % 1000003 end table.sort(t)",
        "return load(string.rep('x = 1 ', 2 ^ 22))",
    };
    for (size_t k = 0; k < sizeof loops / sizeof loops[0]; k++) {
        char src[512];
        snprintf(src, sizeof src,
                 "local p = {name = 'loop'}\n"
                 "function p.score(pod, node) if pod.priority == 0 then %s end return 1 end\n"
                 "return p\n", loops[k]);
        ms_policy *p = load(e, src);
        int64_t scores[4];
        ms_status st;
        double t0 = now_s();
        assert_int_equal(ms_policy_ops(p)->score(p, &e->c, cl.nodes, 4, scores, &st), MS_ERROR);
        double took = now_s() - t0;
        assert_true(took < 0.5);
        assert_non_null(strstr(st.reasons[0], "stopped after its CPU budget (budgetMs) of "));
        ms_policy_stats stats;
        ms_policy_get_stats(p, &stats);
        assert_int_equal(stats.budget_kills, 1);
        /* The state still works for the next pod. */
        ms_pod *busy = fx_pod(&e->fx.d, "metadata: {name: q}\nspec: {priority: 1, containers: [{name: c}]}\n");
        e->c.pod = busy;
        assert_int_equal(ms_policy_ops(p)->score(p, &e->c, cl.nodes, 4, scores, &st), MS_SUCCESS);
        e->c.pod = cl.pod;
        ms_pod_unref(busy);
        ms_policy_free(p);
    }
    free_cluster(&cl);
    env_free(e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_budget_stops_compiled_loops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
