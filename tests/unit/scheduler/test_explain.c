/* Explain (core/scheduler/explain.c, explain_now.c): the ring of recent
 * cycles (bounded, newest first, buffers reused), a record's JSON, and
 * ms_scheduler_explain for a bound, a pending and an unknown pod; the pass
 * computed on request changes nothing the next cycles depend on. */
#include "testutil.h"

#include "scheduler_env.h"
#include "scheduler/explain.h"
#include "scheduler/scheduler_priv.h"

static void test_ring_bounded_newest_first(void **state) {
    (void)state;
    ms_interner *in = ms_interner_new();
    ms_str ns = ms_intern_cstr(in, "default");
    ms_str a = ms_intern_cstr(in, "a"), b = ms_intern_cstr(in, "b"), c = ms_intern_cstr(in, "c");
    ms_explain_ring r;
    assert_true(ms_explain_ring_init(&r, 3, in));
    ms_str order[] = {a, b, a, c};
    for (uint32_t i = 0; i < 4; i++) {
        ms_explain_record *rec = ms_explain_ring_begin(&r, ns, order[i]);
        assert_non_null(rec);
        rec->cycle = i + 1;
        ms_explain_set_result(rec, MS_EXPLAIN_UNSCHEDULABLE, i == 0 ? "a long message that is copied" : "short");
    }
    assert_int_equal(r.n, 3);
    /* a's newest cycle is the third; b's (the second) is still there */
    assert_int_equal(ms_explain_ring_find(&r, ns, a)->cycle, 3);
    assert_int_equal(ms_explain_ring_find(&r, ns, b)->cycle, 2);
    assert_string_equal(ms_explain_ring_find(&r, ns, c)->message, "short");
    /* one more: b's cycle goes */
    ms_explain_record *rec = ms_explain_ring_begin(&r, ns, c);
    assert_null(ms_explain_ring_find(&r, ns, b));
    assert_null(ms_explain_ring_find(&r, a, a));   /* another namespace */
    /* a reused slot starts clear: no message, no node, no victims */
    assert_string_equal(rec->message, "");
    assert_int_equal(rec->node, MS_STR_NONE);
    for (uint32_t i = 0; i < MS_EXPLAIN_MAX_VICTIMS + 3; i++) ms_explain_add_victim(&r, rec, ns, a);
    assert_int_equal(rec->nvictims, MS_EXPLAIN_MAX_VICTIMS + 3);
    ms_explain_ring_free(&r);

    /* off: nothing recorded */
    assert_true(ms_explain_ring_init(&r, 0, in));
    assert_null(ms_explain_ring_begin(&r, ns, a));
    assert_null(ms_explain_ring_find(&r, ns, a));
    ms_explain_ring_free(&r);
    ms_interner_free(in);
}

/* A pod's name goes with the pod, but not while a record still shows it:
 * the ring holds its own reference on the names it keeps. */
static void test_ring_keeps_released_names(void **state) {
    (void)state;
    ms_interner *in = ms_interner_new();
    ms_str ns = ms_intern_cstr(in, "default");
    ms_explain_ring r;
    assert_true(ms_explain_ring_init(&r, 2, in));
    ms_str gone = ms_intern_counted(in, "gone-pod", 8), victim = ms_intern_counted(in, "victim", 6);
    ms_explain_record *rec = ms_explain_ring_begin(&r, ns, gone);
    ms_explain_add_victim(&r, rec, ns, victim);
    ms_str_release(in, gone);     /* the pods are deleted */
    ms_str_release(in, victim);
    assert_int_equal(ms_intern_find(in, "gone-pod", 8), gone);
    assert_ptr_equal(ms_explain_ring_find(&r, ns, gone), rec);
    assert_string_equal(ms_str_get(in, rec->victims[0][1]), "victim");
    /* two newer cycles take both slots: the names are given back */
    ms_explain_ring_begin(&r, ns, ns);
    ms_explain_ring_begin(&r, ns, ns);
    assert_int_equal(ms_intern_find(in, "gone-pod", 8), MS_STR_NONE);
    assert_int_equal(ms_intern_find(in, "victim", 6), MS_STR_NONE);
    ms_explain_ring_free(&r);
    ms_interner_free(in);
}

static void test_record_json(void **state) {
    (void)state;
    ms_interner *in = ms_interner_new();
    ms_explain_ring r;
    assert_true(ms_explain_ring_init(&r, 1, in));
    ms_explain_record *rec = ms_explain_ring_begin(&r, MS_STR_NONE, MS_STR_NONE);
    rec->cycle = 7;
    rec->time = 1767225600;   /* 2026-01-01 */
    rec->attempts = 2;
    rec->node = ms_intern_cstr(in, "n2");
    rec->scored = true;
    rec->total = 250;
    rec->feasible = 2;
    rec->evaluated = rec->num_all_nodes = 3;
    rec->result = MS_EXPLAIN_SCHEDULED;
    static const int64_t scores[] = {200, 50};
    ms_explain_set_scores(rec, scores, 2);
    static const char *const names[] = {"TaintToleration", "lua:spread"};
    cJSON *j = ms_explain_record_json(rec, in, "default-scheduler", names, 2);
    char *text = cJSON_PrintUnformatted(j);
    assert_string_equal(text, "{\"cycle\":7,\"time\":\"2026-01-01T00:00:00.000000Z\",\"attempt\":2,"
                              "\"profile\":\"default-scheduler\",\"result\":\"Scheduled\",\"selectedNode\":\"n2\","
                              "\"nodes\":3,\"evaluatedNodes\":3,\"feasibleNodes\":2,\"scored\":true,\"totalScore\":250,"
                              "\"scores\":{\"TaintToleration\":200,\"lua:spread\":50},\"binding\":{\"result\":\"Pending\"},"
                              "\"policyGeneration\":0}");
    free(text);
    cJSON_Delete(j);
    /* simulate's virtual clock; preemption's account */
    rec->time = 12.5;
    rec->nominated = rec->node;
    rec->preemption_attempted = true;
    rec->ncandidates = 1;
    rec->candidates[0] = (ms_explain_candidate){.node = rec->node, .nvictims = 1, .pdb_violations = 0};
    ms_explain_add_victim(&r, rec, ms_intern_cstr(in, "default"), ms_intern_cstr(in, "low"));
    j = ms_explain_record_json(rec, in, "p", names, 2);
    assert_true(cJSON_GetObjectItem(j, "virtualTime")->valuedouble == 12.5);
    text = cJSON_PrintUnformatted(cJSON_GetObjectItem(j, "preemption"));
    assert_string_equal(text, "{\"nominatedNode\":\"n2\",\"candidates\":1,\"candidateNodes\":[{\"node\":\"n2\","
                              "\"victims\":1,\"pdbViolations\":0}],\"victims\":1,\"victimPods\":[\"default/low\"]}");
    free(text);
    cJSON_Delete(j);
    ms_explain_ring_free(&r);
    ms_interner_free(in);
}

static cJSON *explain(env *e, const char *name) {
    cJSON *j = NULL;
    ms_error err = {0};
    ms_rc rc = ms_scheduler_explain(e->s, "default", name, 0, &j, &err);
    if (rc != MS_OK) fail_msg("explain %s: %s", name, err.msg);
    return j;
}

static const char *jstr(const cJSON *o, const char *path) {
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    const cJSON *v = o;
    for (char *k = strtok(buf, "."); k && v; k = strtok(NULL, ".")) v = cJSON_GetObjectItemCaseSensitive(v, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void test_explain_bound_and_pending(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    /* huge fits n1's cpu but not its label (TestHalf), and n2's and n3's
     * labels but not their cpu (TestFit, which runs first) */
    add_node(e, "n1", "2", "{\"half\":\"no\"}", NULL);
    add_node(e, "n2", "1", NULL, NULL);
    add_node(e, "n3", "1", NULL, NULL);
    e->complete_at_once = true;
    add_pod(e, "small", "100m", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    char small_node[32];
    snprintf(small_node, sizeof small_node, "%s", node_of_last(e));
    add_pod(e, "huge", "1500m", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));

    cJSON *j = explain(e, "small");
    assert_string_equal(jstr(j, "state"), "assumed");
    assert_string_equal(jstr(j, "node"), small_node);
    assert_string_equal(jstr(j, "lastCycle.result"), "Scheduled");
    assert_string_equal(jstr(j, "lastCycle.selectedNode"), small_node);
    assert_null(cJSON_GetObjectItem(j, "recomputedNow"));
    cJSON_Delete(j);

    /* the pass on request must not move the start index nor draw */
    ms_rng before = e->s->rng;
    uint32_t start = ms_scheduler_next_start_index(e->s);
    j = explain(e, "huge");
    assert_memory_equal(&before, &e->s->rng, sizeof before);
    assert_int_equal(ms_scheduler_next_start_index(e->s), start);
    assert_string_equal(jstr(j, "state"), "pending");
    assert_string_equal(jstr(j, "queue"), "unschedulable");
    assert_string_equal(jstr(j, "lastCycle.result"), "Unschedulable");
    assert_string_equal(jstr(j, "lastCycle.message"), e->last_message);
    const cJSON *nodes = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "recomputedNow"), "nodeResults");
    assert_int_equal(cJSON_GetArraySize(nodes), 3);
    int half = 0, cpu = 0;
    const cJSON *n;
    cJSON_ArrayForEach(n, nodes) {
        const char *plugin = jstr(n, "filter.plugin");
        assert_non_null(plugin);
        if (strcmp(plugin, "TestHalf") == 0) {
            half++;
            assert_string_equal(jstr(n, "node"), "n1");
        } else if (strcmp(plugin, "TestFit") == 0) {
            cpu++;
            assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(n, "filter"), "reasons"), 0)->valuestring,
                                "Insufficient cpu");
        }
    }
    assert_int_equal(half, 1);
    assert_int_equal(cpu, 2);
    cJSON_Delete(j);
    env_free(e);
}

/* A record is completed by what came after its cycle: the bind's answer,
 * a Permit wait's end. */
static void test_binding_outcome(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    add_node(e, "a", "4", NULL, NULL);
    add_pod(e, "ok", "1", NULL);
    add_pod(e, "refused", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 1));
    cJSON *j = explain(e, "ok");
    assert_string_equal(jstr(j, "lastCycle.binding.result"), "Pending");
    cJSON_Delete(j);
    complete_binds(e, true, false, 1);
    j = explain(e, "ok");
    assert_string_equal(jstr(j, "lastCycle.result"), "Scheduled");
    assert_string_equal(jstr(j, "lastCycle.binding.result"), "Bound");
    assert_null(jstr(j, "lastCycle.binding.message"));
    cJSON_Delete(j);
    assert_true(ms_scheduler_schedule_one(e->s, 2));
    complete_binds(e, false, false, 2);
    j = explain(e, "refused");
    assert_string_equal(jstr(j, "lastCycle.binding.result"), "BindingFailed");
    assert_string_equal(jstr(j, "lastCycle.binding.message"), "conflict");
    cJSON_Delete(j);

    /* waiting at Permit, then rejected, or timed out */
    add_pod(e, "wait-1", "1", NULL);
    add_pod(e, "wait-2", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 3));
    assert_true(ms_scheduler_schedule_one(e->s, 3));
    j = explain(e, "wait-1");
    assert_string_equal(jstr(j, "lastCycle.result"), "WaitingOnPermit");
    assert_string_equal(jstr(j, "lastCycle.binding.result"), "Pending");
    cJSON_Delete(j);
    assert_true(ms_scheduler_permit_deny(e->s, "default/wait-1", "quota used up", 4));
    j = explain(e, "wait-1");
    assert_string_equal(jstr(j, "lastCycle.result"), "WaitingOnPermit");
    assert_string_equal(jstr(j, "lastCycle.binding.result"), "RejectedAtPermit");
    assert_string_equal(jstr(j, "lastCycle.binding.message"), "quota used up");
    cJSON_Delete(j);
    ms_scheduler_tick(e->s, 9);
    j = explain(e, "wait-2");
    assert_string_equal(jstr(j, "lastCycle.binding.message"), "rejected due to timeout after waiting at Permit");
    cJSON_Delete(j);
    env_free(e);
}

static void test_explain_scores_and_unknown(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    add_node(e, "n1", "2", NULL, NULL);
    add_node(e, "n2", "2", "{\"half\":\"no\"}", NULL);
    /* a pending pod that fits: the feasible nodes' weighted scores */
    add_pod(e, "waiting", "100m", NULL);   /* not popped yet */
    cJSON *j = explain(e, "waiting");
    assert_string_equal(jstr(j, "queue"), "activeQ");
    assert_null(cJSON_GetObjectItem(j, "lastCycle"));
    const cJSON *now = cJSON_GetObjectItem(j, "recomputedNow");
    assert_int_equal(cJSON_GetObjectItem(now, "feasibleNodes")->valueint, 1);
    const cJSON *n1 = cJSON_GetArrayItem(cJSON_GetObjectItem(now, "nodeResults"), 0);
    assert_string_equal(jstr(n1, "node"), "n1");
    assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(n1, "scores"), "TestScore"));
    cJSON_Delete(j);
    /* the pass left the pod where it was: the next cycle places it */
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_string_equal(node_of_last(e), "n1");

    cJSON *none = NULL;
    ms_error err = {0};
    assert_int_equal(ms_scheduler_explain(e->s, "default", "nope", 0, &none, &err), MS_ENOENT);
    assert_null(none);
    assert_string_equal(err.msg, "pod default/nope: not known to the scheduler");
    env_free(e);
}

/* A cycle that preempted: the nominated node, the candidates and the
 * victims, from what DefaultPreemption and the evictor did. */
static void test_explain_preemption(void **state) {
    (void)state;
    static const char *const plugins[] = {"PrioritySort", "TestFit", "DefaultPreemption", "DefaultBinder", NULL};
    env *e = env_new_profile(0, 1, false, plugins);
    add_node(e, "a", "2", NULL, NULL);
    add_pod(e, "low", "2", ",\"nodeName\":\"a\"");
    add_pod(e, "high", "2", ",\"priority\":1000");
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->nevicted, 1);   /* the victim stays until its deletion arrives */
    cJSON *j = explain(e, "high");
    assert_string_equal(jstr(j, "state"), "pending");
    assert_string_equal(jstr(j, "nominatedNode"), "a");
    assert_string_equal(jstr(j, "lastCycle.result"), "Unschedulable");
    const cJSON *p = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "lastCycle"), "preemption");
    char *text = cJSON_PrintUnformatted(p);
    assert_string_equal(text, "{\"nominatedNode\":\"a\",\"candidates\":1,\"candidateNodes\":[{\"node\":\"a\","
                              "\"victims\":1,\"pdbViolations\":0}],\"victims\":1,\"victimPods\":[\"default/low\"]}");
    free(text);
    cJSON_Delete(j);
    env_free(e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_bounded_newest_first),
        cmocka_unit_test(test_ring_keeps_released_names),
        cmocka_unit_test(test_binding_outcome),
        cmocka_unit_test(test_record_json),
        cmocka_unit_test(test_explain_bound_and_pending),
        cmocka_unit_test(test_explain_scores_and_unknown),
        cmocka_unit_test(test_explain_preemption),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
