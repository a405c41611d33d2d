/* Cycle traces (core/scheduler/cycle_trace.c): the placing cycle of the
 * first trace_pods pods kept whole, every node's Filter verdict and every
 * feasible node's per-plugin scores as that cycle computed them; nothing
 * kept when trace_pods is 0. */
#include "testutil.h"

#include "scheduler_env.h"
#include "scheduler/cycle_trace.h"
#include "scheduler/scheduler_priv.h"

static const cJSON *result_of(const cJSON *trace, const char *node) {
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(trace, "nodeResults")) {
        if (strcmp(cJSON_GetObjectItem(e, "node")->valuestring, node) == 0) return e;
    }
    fail_msg("no result for node %s", node);
    return NULL;
}

static int64_t score_sum(const cJSON *e) {
    int64_t sum = 0;
    const cJSON *sc;
    cJSON_ArrayForEach(sc, cJSON_GetObjectItem(e, "scores")) sum += (int64_t)sc->valuedouble;
    return sum;
}

static void test_placing_cycles_kept(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    e->s->trace_pods = 2;
    ms_sched_observers_init(e->s);   /* the trace observer, as trace_pods in the options registers it */
    e->complete_at_once = true;
    /* n1 fails TestHalf; n2 has room for small pods only; n3 scores best */
    add_node(e, "n1", "2", "{\"half\":\"no\"}", NULL);
    add_node(e, "n2", "1", "{\"score\":\"5\"}", NULL);
    add_node(e, "n3", "4", "{\"score\":\"9\"}", NULL);
    ms_pod *a = add_pod(e, "a", "500m", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_string_equal(node_of_last(e), "n3");
    const cJSON *t = ms_scheduler_cycle_trace(e->s, a->meta.uid_hash);
    assert_non_null(t);
    assert_string_equal(cJSON_GetObjectItem(t, "selectedNode")->valuestring, "n3");
    assert_int_equal(cJSON_GetObjectItem(t, "nodes")->valueint, 3);
    assert_int_equal(cJSON_GetObjectItem(t, "feasibleNodes")->valueint, 2);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(t, "nodeResults")), 3);
    const cJSON *f = cJSON_GetObjectItem(result_of(t, "n1"), "filter");
    assert_string_equal(cJSON_GetObjectItem(f, "plugin")->valuestring, "TestHalf");
    assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(f, "reasons"), 0)->valuestring,
                        "node(s) were labelled half=no");
    const cJSON *n2 = result_of(t, "n2"), *n3 = result_of(t, "n3");
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(n2, "scores"), "TestScore")->valueint, 5);
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(n3, "scores"), "TestScore")->valueint, 9);
    assert_int_equal(score_sum(n2), (int64_t)cJSON_GetObjectItem(n2, "total")->valuedouble);
    /* the selected node's figures are those the cycle reported */
    assert_int_equal(score_sum(n3), e->last_total);
    assert_int_equal((int64_t)cJSON_GetObjectItem(n3, "total")->valuedouble, e->last_total);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(n3, "selected")));
    assert_null(cJSON_GetObjectItem(n2, "selected"));

    /* b fits n3 alone (n2's cpu is short): taken without scoring */
    ms_pod *b = add_pod(e, "b", "1500m", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    t = ms_scheduler_cycle_trace(e->s, b->meta.uid_hash);
    assert_non_null(t);
    f = cJSON_GetObjectItem(result_of(t, "n2"), "filter");
    assert_string_equal(cJSON_GetObjectItem(f, "plugin")->valuestring, "TestFit");
    assert_null(cJSON_GetObjectItem(result_of(t, "n3"), "scores"));
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(result_of(t, "n3"), "selected")));

    /* a third pod is beyond the bound; a's trace is as it was */
    ms_pod *c = add_pod(e, "c", "100m", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_null(ms_scheduler_cycle_trace(e->s, c->meta.uid_hash));
    assert_string_equal(cJSON_GetObjectItem(ms_scheduler_cycle_trace(e->s, a->meta.uid_hash), "selectedNode")->valuestring,
                        "n3");
    env_free(e);
}

/* A plugin whose PreScore said Skip shows 0 on every node, whatever the
 * score rows held from before. */
static void test_skipped_plugin_scores_zero(void **state) {
    (void)state;
    static const char *const plugins[] = {"PrioritySort", "TestFit", "NodeAffinity", "TestScore",
                                          "DefaultBinder", NULL};
    env *e = env_new_opts(0, 1, false, plugins, false);
    e->s->trace_pods = 2;
    ms_sched_observers_init(e->s);
    e->complete_at_once = true;
    add_node(e, "n1", "4", "{\"score\":\"5\"}", NULL);
    add_node(e, "n2", "4", "{\"score\":\"9\"}", NULL);
    add_pod(e, "a", "500m", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    memset(e->s->per_plugin, 0x7f, (size_t)e->s->max_nscore * e->s->cap * sizeof *e->s->per_plugin);
    ms_pod *b = add_pod(e, "b", "500m", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    const cJSON *t = ms_scheduler_cycle_trace(e->s, b->meta.uid_hash);
    assert_non_null(t);
    const cJSON *n1 = result_of(t, "n1"), *n2 = result_of(t, "n2");
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(n1, "scores"), "NodeAffinity")->valueint, 0);
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(n2, "scores"), "NodeAffinity")->valueint, 0);
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(n2, "scores"), "TestScore")->valueint, 9);
    assert_int_equal(score_sum(n1), (int64_t)cJSON_GetObjectItem(n1, "total")->valuedouble);
    assert_int_equal(score_sum(n2), (int64_t)cJSON_GetObjectItem(n2, "total")->valuedouble);
    env_free(e);
}

static void test_nothing_kept_by_default(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    e->complete_at_once = true;
    add_node(e, "n1", "2", NULL, NULL);
    ms_pod *a = add_pod(e, "a", "500m", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_string_equal(node_of_last(e), "n1");
    assert_null(ms_scheduler_cycle_trace(e->s, a->meta.uid_hash));
    env_free(e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_placing_cycles_kept),
        cmocka_unit_test(test_skipped_plugin_scores_zero),
        cmocka_unit_test(test_nothing_kept_by_default),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
