/* Shadow policies (core/scheduler/shadow.c): a plugin named lua:* whose
 * args say mode: shadow is left out of its profile and evaluated beside
 * it; its choice (the profile's totals plus its weighted score, over the
 * nodes it keeps) is compared with the profile's; disagreements keep the
 * deciding scores, bounded; the live placements are the same with and
 * without it. The shadow plugin here is a C plugin under a policy's name. */
#include "testutil.h"

#include "scheduler_env.h"
#include "backend/queue.h"
#include "scheduler/explain.h"
#include "scheduler/scheduler_priv.h"
#include "scheduler/shadow.h"

/* lua:pick: rejects nodes labelled veto=yes; scores a node by its "pick"
 * label. */
static ms_rc pick_create(const cJSON *args, const ms_handle *h, void **self, ms_error *err) {
    (void)args;
    return tp_create("pick", h, self, err);
}

static ms_code pick_filter(void *self, ms_cycle *c, const ms_node_info *ni, ms_status *st) {
    (void)c;
    test_plugin *p = self;
    p->filter_calls++;
    ms_str v = ms_labels_get(&ni->node->meta.labels, ms_intern_cstr(p->in, "veto"));
    if (v != MS_STR_NONE && strcmp(ms_str_get(p->in, v), "yes") == 0)
        return ms_status_set(st, MS_UNSCHEDULABLE, "vetoed");
    return MS_SUCCESS;
}

static const ms_plugin_ops pick_ops = {
    .name = "lua:pick",
    .create = pick_create,
    .destroy = tp_destroy,
    .filter = pick_filter,
    .score = score_score,
};

static const ms_plugin_ops *const all_plugins[] = {&test_fit, &test_half, &test_score, &test_gate, &test_wait,
                                                   &pick_ops};

static const char *const with_pick[] = {"PrioritySort", "TestFit", "TestScore", "lua:pick", "DefaultBinder", NULL};
static const char *const without_pick[] = {"PrioritySort", "TestFit", "TestScore", "DefaultBinder", NULL};

/* A scheduler over the named plugins; lua:pick, when named, in shadow
 * mode with weight 2. */
static env *shadow_env(const char *const *plugins, uint64_t seed) {
    env *e = calloc(1, sizeof *e);
    assert_non_null(e);
    e->in = ms_interner_new();
    ms_decoder_init(&e->dec, e->in);
    e->complete_at_once = true;
    assert_int_equal(ms_config_default(&e->cfg), MS_OK);
    for (uint32_t k = 0; k < e->cfg.profiles[0].nplugins; k++) cJSON_Delete(e->cfg.profiles[0].plugins[k].args);
    set_profile(&e->cfg.profiles[0], "default-scheduler", plugins, -1);
    ms_profile_config *pc = &e->cfg.profiles[0];
    for (uint32_t k = 0; k < pc->nplugins; k++)
        if (strcmp(pc->plugins[k].name, "lua:pick") == 0) {
            pc->plugins[k].weight = 2;
            pc->plugins[k].args = parse("{\"file\": \"pick.lua\", \"mode\": \"shadow\"}");
        }
    ms_scheduler_options o = {
        .config = &e->cfg,
        .in = e->in,
        .binder = {e, fake_bind},
        .reporter = {e, on_scheduled, on_unschedulable, on_bind_failed, on_nominated, on_preempted, on_error,
                     on_post_filter, on_gated},
        .evictor = {e, fake_evict, fake_set_nomination},
        .seed = seed,
        .out_of_tree = all_plugins,
        .n_out_of_tree = 6,
        /* the log alone keeps what it shows (test_log_keeps_names) */
        .explain_cycles = -1,
    };
    ms_error err = {0};
    if (ms_scheduler_new(&o, &e->s, &err) != MS_OK) fail_msg("ms_scheduler_new: %s", err.msg);
    return e;
}

static void test_left_out_of_the_profile(void **state) {
    (void)state;
    env *e = shadow_env(with_pick, 1);
    assert_false(ms_framework_runs(ms_scheduler_profile(e->s, 0), &pick_ops));
    assert_int_equal(ms_scheduler_shadow_count(e->s), 1);
    const ms_shadow *sh = ms_scheduler_shadow_at(e->s, 0);
    assert_string_equal(sh->plugin, "lua:pick");
    assert_true(ms_framework_runs(&sh->fw, &pick_ops));
    /* at the points that choose a node only */
    assert_int_equal(sh->fw.norder[MS_EP_FILTER], 1);
    assert_int_equal(sh->fw.norder[MS_EP_SCORE], 1);
    assert_int_equal(sh->fw.norder[MS_EP_RESERVE] + sh->fw.norder[MS_EP_PERMIT] + sh->fw.norder[MS_EP_POST_FILTER], 0);
    env_free(e);
}

static void test_disagreement_with_scores(void **state) {
    (void)state;
    env *e = shadow_env(with_pick, 1);
    add_node(e, "n1", "4", "{\"score\": \"10\"}", NULL);
    add_node(e, "n2", "4", "{\"score\": \"5\", \"pick\": \"30\"}", NULL);
    add_node(e, "n3", "4", "{\"score\": \"0\", \"pick\": \"1\"}", NULL);
    add_pod(e, "a", "1", "");
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_string_equal(node_of_last(e), "n1");   /* the profile's choice stands */
    const ms_shadow *sh = ms_scheduler_shadow_at(e->s, 0);
    assert_int_equal(sh->agree, 0);
    assert_int_equal(sh->disagree, 1);
    const ms_shadow_disagreement *d = &sh->log[0];
    assert_string_equal(ms_str_get(e->in, d->live_node), "n1");
    assert_string_equal(ms_str_get(e->in, d->shadow_node), "n2");
    /* the profile's totals (TestScore, raw) and the shadow's weighted score */
    assert_int_equal(d->live_at_live, 10);
    assert_int_equal(d->shadow_at_live, 0);
    assert_int_equal(d->live_at_shadow, 5);
    assert_int_equal(d->shadow_at_shadow, 60);
    assert_int_equal(d->feasible, 3);
    assert_int_equal(d->shadow_feasible, 3);
    assert_string_equal(d->reason, "");
    cJSON *j = ms_scheduler_shadow_json(e->s);
    char *text = cJSON_PrintUnformatted(j);
    assert_non_null(strstr(text, "\"policy\":\"lua:pick\",\"decisions\":1,\"agree\":0,\"disagree\":1,\"errors\":0"));
    assert_non_null(strstr(text, "\"live\":{\"node\":\"n1\",\"profileScore\":10,\"shadowScore\":0,\"total\":10},"
                                 "\"shadow\":{\"node\":\"n2\",\"profileScore\":5,\"shadowScore\":60,\"total\":65}"));
    free(text);
    cJSON_Delete(j);
    env_free(e);
}

/* A disagreement still names its pod once the pod is gone: the log holds
 * a reference on the name, given back when the entry is overwritten. */
static void test_log_keeps_names(void **state) {
    (void)state;
    env *e = shadow_env(with_pick, 1);
    add_node(e, "n1", "4", "{\"score\": \"10\"}", NULL);
    add_node(e, "n2", "4", "{\"score\": \"5\", \"pick\": \"30\"}", NULL);
    ms_pod *p = add_pod(e, "gone-soon", "1", "");
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    ms_scheduler_pod_delete(e->s, p, 1);
    for (uint32_t i = 0; i < e->nobjects; i++)
        if (e->objects[i] == p) e->objects[i] = NULL;
    ms_pod_unref(p);
    /* the next cycle takes over the last one's buffers and references */
    add_pod(e, "next", "1", "");
    assert_true(ms_scheduler_schedule_one(e->s, 2));
    ms_str name = ms_intern_find(e->in, "gone-soon", 9);
    assert_int_not_equal(name, MS_STR_NONE);
    assert_int_equal(ms_scheduler_shadow_at(e->s, 0)->log[0].name, name);
    assert_string_equal(ms_str_get(e->in, name), "gone-soon");
    env_free(e);
}

static void test_veto_and_agreement(void **state) {
    (void)state;
    env *e = shadow_env(with_pick, 1);
    add_node(e, "n1", "4", "{\"score\": \"10\", \"veto\": \"yes\"}", NULL);
    add_node(e, "n2", "4", "{\"score\": \"5\"}", NULL);
    add_pod(e, "a", "1", "");
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    const ms_shadow *sh = ms_scheduler_shadow_at(e->s, 0);
    assert_int_equal(sh->disagree, 1);
    assert_string_equal(sh->log[0].reason, "lua:pick: vetoed");
    assert_string_equal(ms_str_get(e->in, sh->log[0].shadow_node), "n2");
    assert_int_equal(sh->log[0].shadow_feasible, 1);
    /* a pod that only fits on n2: both choose it */
    add_pod(e, "b", "3500m", "");
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_string_equal(node_of_last(e), "n2");
    assert_int_equal(sh->agree, 1);
    /* a pod that fits nowhere is no decision */
    add_pod(e, "c", "64", "");
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(sh->agree + sh->disagree, 2);
    env_free(e);
}

/* Ties everywhere (no score labels): the profile draws among the nodes;
 * the shadow must draw nothing, so that the placements are the same. */
static void test_live_placements_unchanged(void **state) {
    (void)state;
    env *a = shadow_env(without_pick, 7), *b = shadow_env(with_pick, 7);
    for (int i = 0; i < 8; i++) {
        char name[16];
        snprintf(name, sizeof name, "n%d", i);
        add_node(a, name, "8", i % 3 == 0 ? "{\"pick\": \"50\"}" : "{}", NULL);
        add_node(b, name, "8", i % 3 == 0 ? "{\"pick\": \"50\"}" : "{}", NULL);
    }
    for (int i = 0; i < 40; i++) {
        char name[16];
        snprintf(name, sizeof name, "p%d", i);
        add_pod(a, name, "500m", "");
        add_pod(b, name, "500m", "");
        assert_true(ms_scheduler_schedule_one(a->s, 0));
        assert_true(ms_scheduler_schedule_one(b->s, 0));
        assert_string_equal(node_of_last(a), node_of_last(b));
    }
    const ms_shadow *sh = ms_scheduler_shadow_at(b->s, 0);
    assert_int_equal(sh->agree + sh->disagree, 40);
    assert_true(sh->disagree > 0 && sh->agree > 0);
    env_free(a);
    env_free(b);
}

static void test_log_bounded(void **state) {
    (void)state;
    env *e = shadow_env(with_pick, 1);
    add_node(e, "n1", "1000", "{\"score\": \"10\"}", NULL);
    add_node(e, "n2", "1000", "{\"pick\": \"100\"}", NULL);
    for (int i = 0; i < 300; i++) {
        char name[16];
        snprintf(name, sizeof name, "p%03d", i);
        add_pod(e, name, "100m", "");
        assert_true(ms_scheduler_schedule_one(e->s, 0));
    }
    const ms_shadow *sh = ms_scheduler_shadow_at(e->s, 0);
    assert_int_equal(sh->disagree, 300);
    assert_int_equal(sh->nlog, MS_SHADOW_LOG);
    cJSON *j = ms_scheduler_shadow_json(e->s);
    const cJSON *log = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "policies"), 0), "disagreements");
    assert_int_equal(cJSON_GetArraySize(log), MS_SHADOW_LOG);
    /* newest first: p299, then p298; the oldest kept is p044 */
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(log, 0), "pod")->valuestring, "default/p299");
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(log, 1), "pod")->valuestring, "default/p298");
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(log, MS_SHADOW_LOG - 1), "pod")->valuestring,
                        "default/p044");
    cJSON_Delete(j);
    env_free(e);
}

/* A new version of the shadow policy: its points follow, no pod moves.
 * (The event passed is one the pending pod waits for, so that a reload
 * of a live plugin moves it.) */
static void test_reload_moves_nothing(void **state) {
    (void)state;
    env *e = shadow_env(with_pick, 1);
    add_node(e, "n1", "1", "{}", NULL);
    add_pod(e, "big", "64", "");
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    ms_queue *q = ms_scheduler_queue(e->s);
    assert_int_equal(ms_queue_len_unschedulable(q), 1);
    uint64_t gen = ms_scheduler_policy_generation(e->s);
    ms_error err = {0};
    assert_int_equal(ms_scheduler_check_plugin_ops(e->s, &pick_ops, &pick_ops, &err), MS_OK);
    assert_int_equal(ms_scheduler_plugin_reloaded(e->s, &pick_ops, MS_EV_NODE_ADD, 1, &err), MS_OK);
    assert_int_equal(ms_queue_len_unschedulable(q), 1);
    assert_int_equal(ms_queue_len_active(q), 0);
    assert_int_equal(ms_scheduler_policy_generation(e->s), gen);
    /* a plugin the profile runs does move them */
    assert_int_equal(ms_scheduler_plugin_reloaded(e->s, &test_fit, MS_EV_NODE_ADD, 1, &err), MS_OK);
    assert_int_equal(ms_queue_len_unschedulable(q), 0);
    assert_int_equal(ms_scheduler_policy_generation(e->s), gen + 1);
    env_free(e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_left_out_of_the_profile),
        cmocka_unit_test(test_disagreement_with_scores),
        cmocka_unit_test(test_log_keeps_names),
        cmocka_unit_test(test_veto_and_agreement),
        cmocka_unit_test(test_live_placements_unchanged),
        cmocka_unit_test(test_log_bounded),
        cmocka_unit_test(test_reload_moves_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
