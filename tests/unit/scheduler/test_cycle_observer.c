/* The cycle's observers (core/scheduler/cycle_observer.c): only the
 * features the scheduler was built with watch its cycles, none when none
 * is on, and each hook hears its event. */
#include "testutil.h"

#include "scheduler_env.h"
#include "scheduler/cycle_observer.h"
#include "scheduler/scheduler_priv.h"

enum { BEGIN, SELECTED, POST_FILTER, VICTIM, RESULT, END };

static env *env_of(ms_scheduler *s) { return s->reporter.ctx; }
static void observe_begin(ms_scheduler *s, const ms_inflight *r, double now) {
    (void)r, (void)now;
    env_of(s)->observed[BEGIN]++;
}
static void observe_selected(ms_scheduler *s, const ms_inflight *r, const ms_cycle_choice *ch) {
    (void)r;
    assert_int_equal(ch->nfeasible, 2);
    assert_string_equal(ms_str_get(s->in, s->feasible[ch->selected]->name), "n2");
    env_of(s)->observed[SELECTED]++;
}
static void observe_post_filter(ms_scheduler *s, const ms_framework *fw, ms_str nominated) {
    (void)fw;
    assert_int_equal(nominated, MS_STR_NONE);
    env_of(s)->observed[POST_FILTER]++;
}
static void observe_result(ms_scheduler *s, ms_explain_result result, const char *message) {
    assert_int_equal(result, MS_EXPLAIN_UNSCHEDULABLE);
    assert_non_null(strstr(message, "Insufficient cpu"));
    env_of(s)->observed[RESULT]++;
}
static void observe_end(ms_scheduler *s) { env_of(s)->observed[END]++; }

static const ms_cycle_observer counting = {.begin = observe_begin, .selected = observe_selected,
                                           .post_filter = observe_post_filter, .result = observe_result, .end = observe_end};

static ms_scheduler *built_with(env *e, int32_t explain_cycles, uint32_t trace_pods) {
    ms_scheduler_options o = {.config = &e->cfg, .in = e->in, .binder = {e, fake_bind},
                              .out_of_tree = test_plugins, .n_out_of_tree = 6,
                              .explain_cycles = explain_cycles, .trace_pods = trace_pods};
    ms_scheduler *s = NULL;
    ms_error err = {0};
    if (ms_scheduler_new(&o, &s, &err) != MS_OK) fail_msg("ms_scheduler_new: %s", err.msg);
    return s;
}

static void test_only_the_features_built_with(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    ms_scheduler *none = built_with(e, -1, 0);
    assert_int_equal(none->nobservers, 0);
    ms_scheduler_free(none);
    ms_scheduler *both = built_with(e, 0, 3);
    assert_int_equal(both->nobservers, 2);
    assert_ptr_equal(both->observers[0], &ms_cycle_trace_observer);
    assert_ptr_equal(both->observers[1], &ms_explain_observer);
    ms_scheduler_free(both);
    /* explain's ring is on by default */
    assert_int_equal(e->s->nobservers, 1);
    assert_ptr_equal(e->s->observers[0], &ms_explain_observer);
    env_free(e);
}

static void test_each_hook_hears_its_event(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    e->s->observers[0] = &counting;
    e->complete_at_once = true;
    add_node(e, "n1", "1", "{\"score\":\"1\"}", NULL);
    add_node(e, "n2", "1", "{\"score\":\"9\"}", NULL);
    add_pod(e, "small", "500m", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_string_equal(node_of_last(e), "n2");
    assert_int_equal(e->observed[BEGIN], 1);
    assert_int_equal(e->observed[SELECTED], 1);
    assert_int_equal(e->observed[POST_FILTER] + e->observed[RESULT], 0);
    assert_int_equal(e->observed[END], 1);
    add_pod(e, "huge", "8", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 1));
    assert_int_equal(e->observed[BEGIN], 2);
    assert_int_equal(e->observed[SELECTED], 1);
    assert_int_equal(e->observed[POST_FILTER], 1);
    assert_int_equal(e->observed[RESULT], 1);
    assert_int_equal(e->observed[END], 2);
    env_free(e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_only_the_features_built_with),
        cmocka_unit_test(test_each_hook_hears_its_event),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
