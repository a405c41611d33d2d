/* The scheduler object (core/scheduler/scheduler.c): binding outcomes
 * (failure, a pod gone, an answer at once) and preemption's callbacks
 * (eviction, PodDisruptionBudgets, nominations, waiting victims). */
#include "testutil.h"

#include "scheduler_env.h"
#include "backend/queue.h"
#include "scheduler/evictions.h"

static void test_bind_failure_requeues_with_backoff(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    add_node(e, "a", "4", NULL, NULL);
    add_pod(e, "p", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 10));
    assert_int_equal(requested_cpu(e, "a"), 1000);
    complete_binds(e, false, false, 10);
    assert_int_equal(e->nbind_failed, 1);
    assert_string_equal(e->last_message, "conflict");
    assert_int_equal(requested_cpu(e, "a"), 0);
    assert_int_equal(ms_scheduler_binding_count(e->s), 0);
    ms_queue *q = ms_scheduler_queue(e->s);
    assert_int_equal(ms_queue_len_backoff(q), 1);
    assert_int_equal(ms_queue_len_active(q), 0);
    double next = ms_queue_next_backoff(q);
    assert_true(next > 10);
    ms_scheduler_tick(e->s, next - 0.001);
    assert_int_equal(ms_queue_len_active(q), 0);
    ms_scheduler_tick(e->s, next);
    assert_int_equal(ms_queue_len_active(q), 1);
    assert_true(ms_scheduler_schedule_one(e->s, next));
    assert_int_equal(e->nscheduled, 2);
    complete_binds(e, true, false, next);
    assert_int_equal(requested_cpu(e, "a"), 1000);
    env_free(e);
}

static void test_gone_pod_not_requeued(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    add_node(e, "a", "4", NULL, NULL);
    add_pod(e, "p", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    complete_binds(e, false, true, 0);
    ms_queue *q = ms_scheduler_queue(e->s);
    assert_int_equal(ms_queue_len_active(q) + ms_queue_len_backoff(q) + ms_queue_len_unschedulable(q),
                     0);
    assert_int_equal(requested_cpu(e, "a"), 0);

    /* Deleted while its bind was in flight: not requeued either. */
    ms_pod *p2 = add_pod(e, "p2", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    ms_scheduler_pod_delete(e->s, p2, 0);
    complete_binds(e, false, false, 0);
    assert_int_equal(ms_queue_len_active(q) + ms_queue_len_backoff(q) + ms_queue_len_unschedulable(q),
                     0);
    env_free(e);
}

/* A pod bound and then deleted, its confirming update never seen (a
 * relist after 410 reports the deletion with the unbound state the
 * informer last had): the assumption goes with it, and so does what it
 * held. Likewise a pod deleted while its bind is in flight, whose bind
 * then succeeds. */
static void test_deleted_assumed_pod_leaves_the_cache(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    add_node(e, "a", "4", NULL, NULL);
    ms_pod *p = add_pod(e, "p", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    complete_binds(e, true, false, 0);
    assert_int_equal(requested_cpu(e, "a"), 1000);
    ms_scheduler_pod_delete(e->s, p, 1);   /* p: unbound, as the informer last saw it */
    assert_int_equal(requested_cpu(e, "a"), 0);
    assert_null(ms_cache_get_pod(ms_scheduler_cache(e->s), p->meta.uid_hash));

    ms_pod *p2 = add_pod(e, "p2", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 2));
    ms_scheduler_pod_delete(e->s, p2, 2);
    assert_int_equal(requested_cpu(e, "a"), 1000);   /* still assumed: its bind is in flight */
    complete_binds(e, true, false, 3);
    assert_int_equal(requested_cpu(e, "a"), 0);
    assert_null(ms_cache_get_pod(ms_scheduler_cache(e->s), p2->meta.uid_hash));
    env_free(e);
}

static void test_binder_answering_at_once(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    e->complete_at_once = true;
    add_node(e, "a", "4", NULL, NULL);
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "p%d", i);
        add_pod(e, name, "1", NULL);
    }
    while (ms_scheduler_schedule_one(e->s, 0)) {}
    assert_int_equal(e->nscheduled, 3);
    assert_int_equal(ms_scheduler_binding_count(e->s), 0);
    assert_int_equal(requested_cpu(e, "a"), 3000);
    env_free(e);
}

static uint32_t queued(env *e) {
    ms_queue *q = ms_scheduler_queue(e->s);
    return ms_queue_len_active(q) + ms_queue_len_backoff(q) + ms_queue_len_unschedulable(q) +
           ms_queue_len_gated(q);
}

/* Hands the pending bind of `pod` its 409. */
static void conflict(env *e, const ms_pod *pod, ms_bind_conflict why) {
    for (uint32_t i = 0; i < e->nbinds; i++) {
        if (e->binds[i].pod->meta.uid_hash != pod->meta.uid_hash) continue;
        ms_scheduler_bind_conflict(e->s, e->binds[i].pod, why, "binding rejected (409): ...", e->now);
        ms_pod_unref(e->binds[i].pod);
        e->binds[i] = e->binds[--e->nbinds];
        return;
    }
    fail_msg("no bind in flight");
}

/* 409 "already assigned": the assumption is forgotten, nothing is retried
 * or reported as failed, and the binding the informer reports stands,
 * whether it arrives before the answer or after. */
static void test_bind_conflict_already_bound(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    add_node(e, "a", "4", NULL, NULL);
    add_node(e, "b", "4", "{\"half\":\"no\"}", NULL);
    ms_pod *p1 = lpod(e, "p1", "web", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(requested_cpu(e, "a"), 1000);
    /* bound to b behind our back; the informer tells first */
    ms_pod *on_b = ms_pod_with_node(p1, ms_intern_cstr(e->in, "b"));
    ms_scheduler_pod_update(e->s, on_b, 0);
    conflict(e, p1, MS_BIND_CONFLICT_ALREADY_BOUND);
    assert_int_equal(requested_cpu(e, "a"), 0);
    assert_int_equal(requested_cpu(e, "b"), 1000);
    assert_int_equal(e->nbind_failed, 0);
    assert_int_equal(ms_scheduler_binding_count(e->s), 0);
    assert_int_equal(queued(e), 0);
    ms_pod_unref(on_b);

    /* the answer first, then the informer */
    ms_pod *p2 = lpod(e, "p2", "web", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    conflict(e, p2, MS_BIND_CONFLICT_ALREADY_BOUND);
    assert_int_equal(requested_cpu(e, "a"), 0);
    assert_int_equal(queued(e), 0);
    on_b = ms_pod_with_node(p2, ms_intern_cstr(e->in, "b"));
    ms_scheduler_pod_update(e->s, on_b, 0);
    ms_pod_unref(on_b);
    assert_int_equal(requested_cpu(e, "b"), 2000);
    assert_int_equal(queued(e), 0);
    assert_int_equal(e->nbind_failed, 0);
    env_free(e);
}

/* 409 "non-empty .spec.schedulingGates": back among the gated pods (not
 * unschedulable, no report); its update lets it in at once. Replaced
 * (UID) or being deleted: dropped. Any other 409: a failed bind. */
static void test_bind_conflict_gated_uid_other(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    add_node(e, "a", "4", NULL, NULL);
    ms_queue *q = ms_scheduler_queue(e->s);
    ms_pod *p = lpod(e, "p", "web", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 10));
    conflict(e, p, MS_BIND_CONFLICT_GATED);
    assert_int_equal(requested_cpu(e, "a"), 0);
    assert_int_equal(ms_queue_len_gated(q), 1);
    assert_int_equal(ms_queue_len_unschedulable(q), 0);
    assert_int_equal(e->nbind_failed, 0);
    assert_int_equal(e->nunschedulable, 0);
    /* no event and no backoff expiry lets it out */
    add_node(e, "c", "4", NULL, NULL);
    ms_scheduler_tick(e->s, 30);
    assert_false(ms_scheduler_schedule_one(e->s, 30));
    /* its update (the gates lifted on the server): activeQ at once */
    ms_pod *upd = decode_pod(e, "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"default\","
                                "\"uid\":\"uid-p\",\"labels\":{\"app\":\"web\",\"v\":\"2\"}},"
                                "\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":"
                                "{\"requests\":{\"cpu\":\"1\"}}}]}}");
    ms_scheduler_pod_update(e->s, upd, 30.1);
    assert_int_equal(ms_queue_len_gated(q), 0);
    assert_int_equal(ms_queue_len_active(q), 1);
    assert_true(ms_scheduler_schedule_one(e->s, 30.1));
    complete_binds(e, true, false, 30.1);
    assert_int_equal(queued(e), 0);

    ms_pod *r = lpod(e, "r", "web", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 31));
    conflict(e, r, MS_BIND_CONFLICT_UID_CHANGED);
    ms_pod *d = lpod(e, "d", "web", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 31));
    conflict(e, d, MS_BIND_CONFLICT_BEING_DELETED);
    assert_int_equal(queued(e), 0);
    assert_int_equal(e->nbind_failed, 0);
    assert_int_equal(ms_scheduler_binding_count(e->s), 0);

    ms_pod *o = lpod(e, "o", "web", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 32));
    uint32_t before = (uint32_t)requested_cpu(e, "a") + (uint32_t)requested_cpu(e, "c");
    conflict(e, o, MS_BIND_CONFLICT_OTHER);
    assert_int_equal(e->nbind_failed, 1);
    assert_int_equal(ms_queue_len_backoff(q), 1);
    assert_int_equal((uint32_t)requested_cpu(e, "a") + (uint32_t)requested_cpu(e, "c"), before - 1000);
    env_free(e);
}

static const char *const gated_plugins[] = {"SchedulingGates", "PrioritySort", "TestFit", "DefaultPreemption",
                                            "DefaultBinder", NULL};

/* A gated pod is never attempted: no FailedScheduling, no PostFilter, no
 * preemption, no nomination, not unschedulable, whatever its priority
 * and preemptionPolicy; reported once as gated. Once its last gate is
 * removed it is an ordinary pod: it preempts. */
static void test_gated_pod_never_attempted(void **state) {
    (void)state;
    env *e = env_new_profile(0, 1, false, gated_plugins);
    e->complete_at_once = true;
    e->evict_at_once = true;
    ms_queue *q = ms_scheduler_queue(e->s);
    add_node(e, "a", "2", NULL, NULL);
    lpod(e, "low", "batch", "2", ",\"nodeName\":\"a\"");
    ms_pod *high = lpod(e, "high", "web", "2",
                        ",\"priority\":100000,\"preemptionPolicy\":\"PreemptLowerPriority\","
                        "\"schedulingGates\":[{\"name\":\"example.com/quota\"},{\"name\":\"b\"}]");
    assert_int_equal(e->ngated, 1);
    assert_string_equal(e->gated_plugin, "SchedulingGates");
    assert_string_equal(e->gated_reason, "waiting for scheduling gates: [example.com/quota b]");
    assert_int_equal(ms_queue_len_gated(q), 1);
    assert_int_equal(ms_queue_len_unschedulable(q), 0);
    assert_false(ms_scheduler_schedule_one(e->s, 0));
    /* cluster events and time change nothing */
    add_node(e, "b", "1", NULL, NULL);
    ms_scheduler_tick(e->s, 400);
    assert_false(ms_scheduler_schedule_one(e->s, 400));
    assert_int_equal(e->nunschedulable + e->npost_filter + e->nevicted + e->nnominated + e->nscheduled, 0);
    assert_int_equal(ms_queue_nominated_count(q), 0);
    assert_int_equal(e->ngated, 1);

    /* one gate removed: still gated, not reported again */
    ms_pod *one = decode_pod(e, "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"high\",\"namespace\":\"default\","
                                "\"uid\":\"uid-high\",\"labels\":{\"app\":\"web\"}},\"spec\":{\"priority\":100000,"
                                "\"schedulingGates\":[{\"name\":\"b\"}],\"containers\":[{\"name\":\"c\","
                                "\"resources\":{\"requests\":{\"cpu\":\"2\"}}}]}}");
    ms_scheduler_pod_update(e->s, one, 401);
    assert_int_equal(ms_queue_len_gated(q), 1);
    assert_int_equal(e->ngated, 1);
    assert_false(ms_scheduler_schedule_one(e->s, 401));

    /* the last one removed: activeQ at once, then it preempts */
    ms_pod *none = decode_pod(e, "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"high\",\"namespace\":\"default\","
                                 "\"uid\":\"uid-high\",\"labels\":{\"app\":\"web\"}},\"spec\":{\"priority\":100000,"
                                 "\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"2\"}}}]}}");
    ms_scheduler_pod_update(e->s, none, 402);
    assert_int_equal(ms_queue_len_gated(q), 0);
    assert_int_equal(ms_queue_len_active(q), 1);
    assert_true(ms_scheduler_schedule_one(e->s, 402));
    assert_int_equal(e->nevicted, 1);
    assert_int_equal(ms_queue_nominated_node(q, high->meta.uid_hash), ms_intern_cstr(e->in, "a"));
    env_free(e);
}

static bool was_evicted(const env *e, const ms_pod *p) {
    for (uint32_t i = 0; i < e->nevicted; i++)
        if (e->evicted[i]->meta.uid_hash == p->meta.uid_hash) return true;
    return false;
}

static void test_preemption_end_to_end(void **state) {
    (void)state;
    env *e = preempt_env();
    add_node(e, "a", "4", NULL, NULL);
    /* Four 1-cpu pods of priority 0 fill the node; the preemptor needs 2. */
    ms_pod *low[4];
    low[0] = lpod(e, "low-0", "batch", "1", ",\"nodeName\":\"a\"");
    low[1] = lpod(e, "low-1", "batch", "1", ",\"nodeName\":\"a\"");
    low[2] = lpod(e, "low-2", "batch", "1", ",\"nodeName\":\"a\"");
    low[3] = lpod(e, "low-3", "batch", "1", ",\"nodeName\":\"a\"");
    ms_pod *high = lpod(e, "high", "web", "2", ",\"priority\":1000");
    assert_int_equal(requested_cpu(e, "a"), 4000);

    assert_true(ms_scheduler_schedule_one(e->s, 0));
    /* No more victims than needed: two of the four. */
    assert_int_equal(e->nevicted, 2);
    assert_int_equal(e->npreempted_reports, 2);
    assert_string_equal(ms_str_get(e->in, e->evicted_on), "a");
    assert_int_equal(e->nscheduled, 0);
    assert_int_equal(e->nunschedulable, 1);
    assert_int_equal(e->nnominated, 1);
    assert_string_equal(ms_str_get(e->in, e->nominated_to), "a");
    ms_queue *q = ms_scheduler_queue(e->s);
    assert_string_equal(ms_str_get(e->in, ms_queue_nominated_node(q, high->meta.uid_hash)), "a");
    /* The victims are gone from the cache at once; the preemptor waits out
     * its backoff (the deletion moved it), not for another event. */
    assert_int_equal(requested_cpu(e, "a"), 2000);
    assert_int_equal(ms_queue_len_backoff(q), 1);
    uint32_t kept = 0;
    for (int i = 0; i < 4; i++) kept += !was_evicted(e, low[i]);
    assert_int_equal(kept, 2);

    /* A later cycle places it on the nominated node. */
    assert_false(ms_scheduler_schedule_one(e->s, 0.5));
    ms_scheduler_tick(e->s, 2);
    assert_true(ms_scheduler_schedule_one(e->s, 2));
    assert_int_equal(e->nscheduled, 1);
    assert_string_equal(node_of_last(e), "a");
    assert_int_equal(e->nevicted, 2);
    assert_int_equal(requested_cpu(e, "a"), 4000);
    assert_int_equal(ms_queue_nominated_node(q, high->meta.uid_hash), MS_STR_NONE);
    env_free(e);
}

static void test_preemption_policy_never(void **state) {
    (void)state;
    env *e = preempt_env();
    add_node(e, "a", "2", NULL, NULL);
    lpod(e, "low", "batch", "2", ",\"nodeName\":\"a\"");
    lpod(e, "polite", "web", "2", ",\"priority\":1000,\"preemptionPolicy\":\"Never\"");
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->nevicted, 0);
    assert_int_equal(e->nnominated, 0);
    assert_int_equal(e->nunschedulable, 1);
    assert_string_equal(e->last_message,
                        "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible "
                        "due to preemptionPolicy=Never.");
    assert_int_equal(requested_cpu(e, "a"), 2000);
    env_free(e);
}

static void add_pdb(env *e, const char *text) {
    cJSON *j = parse(text);
    ms_pdb *pdb = NULL;
    ms_error err = {0};
    if (ms_pdb_decode(&e->dec, j, &pdb, &err) != MS_OK) fail_msg("%s", err.msg);
    cJSON_Delete(j);
    ms_scheduler_pdb_add(e->s, pdb, 0);
    ms_pdb_unref(pdb);
}

static void test_preemption_respects_pdb(void **state) {
    (void)state;
    /* Two equal choices; a PDB with no disruption left protects db. The
     * default search looks at both (fewer than 100 candidates wanted). */
    for (int round = 0; round < 2; round++) {
        env *e = preempt_env();
        add_node(e, "a", "2", NULL, NULL);
        add_node(e, "b", "2", NULL, NULL);
        ms_pod *db = lpod(e, "db", "db", "2", ",\"nodeName\":\"a\"");
        ms_pod *web = lpod(e, "web", "web", "2", ",\"nodeName\":\"b\"");
        if (round == 0)
            add_pdb(e, "{\"kind\":\"PodDisruptionBudget\",\"apiVersion\":\"policy/v1\","
                       "\"metadata\":{\"name\":\"db\",\"namespace\":\"default\"},"
                       "\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"db\"}}},"
                       "\"status\":{\"disruptionsAllowed\":0}}");
        else
            add_pdb(e, "{\"kind\":\"PodDisruptionBudget\",\"apiVersion\":\"policy/v1\","
                       "\"metadata\":{\"name\":\"web\",\"namespace\":\"default\"},"
                       "\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"web\"}}},"
                       "\"status\":{\"disruptionsAllowed\":0}}");
        assert_int_equal(ms_scheduler_pdb_count(e->s), 1);
        lpod(e, "critical", "api", "2", ",\"priority\":1000");
        assert_true(ms_scheduler_schedule_one(e->s, 0));
        assert_int_equal(e->nevicted, 1);
        assert_true(was_evicted(e, round == 0 ? web : db));
        assert_string_equal(ms_str_get(e->in, e->nominated_to), round == 0 ? "b" : "a");
        env_free(e);
    }
}

/* A preemptor nominated to a node holds it against pods its required
 * anti-affinity selects, even when those pods have no terms of their own
 * (upstream counts the nominated pod's terms in the pass with nominated
 * pods). web prefers node a and fits there with the guard beside it, but
 * the guard would not accept it. */
static void test_nominated_anti_affinity_holds_the_node(void **state) {
    (void)state;
    static const char *const plugins[] = {"PrioritySort", "InterPodAffinity", "TestFit", "TestScore",
                                          "DefaultPreemption", "DefaultBinder", NULL};
    for (int selects_web = 0; selects_web < 2; selects_web++) {
        env *e = env_new_profile(0, 1, false, plugins);
        e->complete_at_once = true;
        e->evict_at_once = true;
        add_node(e, "a", "4", "{\"kubernetes.io/hostname\":\"a\",\"score\":\"10\"}", NULL);
        add_node(e, "b", "4", "{\"kubernetes.io/hostname\":\"b\"}", NULL);
        ms_pod *low = lpod(e, "low", "batch", "3", ",\"nodeName\":\"a\"");
        lpod(e, "keeper", "batch", "2", ",\"nodeName\":\"b\",\"priority\":2000");
        char guard_spec[512];
        snprintf(guard_spec, sizeof guard_spec,
                 ",\"priority\":1000,\"affinity\":{\"podAntiAffinity\":{"
                 "\"requiredDuringSchedulingIgnoredDuringExecution\":[{\"labelSelector\":"
                 "{\"matchLabels\":{\"app\":\"%s\"}},\"topologyKey\":\"kubernetes.io/hostname\"}]}}",
                 selects_web ? "web" : "db");
        ms_pod *guard = lpod(e, "guard", "guard", "3", guard_spec);
        assert_true(ms_scheduler_schedule_one(e->s, 0));
        assert_int_equal(e->nevicted, 1);
        assert_true(was_evicted(e, low));
        ms_queue *q = ms_scheduler_queue(e->s);
        assert_string_equal(ms_str_get(e->in, ms_queue_nominated_node(q, guard->meta.uid_hash)), "a");

        /* The guard backs off; web comes first. */
        lpod(e, "web", "web", "1", "");
        assert_true(ms_scheduler_schedule_one(e->s, 0));
        assert_int_equal(e->nscheduled, 1);
        assert_string_equal(node_of_last(e), selects_web ? "b" : "a");
        env_free(e);
    }
}

static void test_two_preemptors_one_node(void **state) {
    (void)state;
    /* Both preemptors need the whole node. The first evicts and is
     * nominated; the second must leave room for it (the nominated pod has
     * the same priority) and evicts nothing. */
    for (int at_once = 0; at_once < 2; at_once++) {
        env *e = preempt_env();
        e->evict_at_once = at_once;
        add_node(e, "a", "2", NULL, NULL);
        lpod(e, "low", "batch", "2", ",\"nodeName\":\"a\"");
        ms_pod *p1 = lpod(e, "p1", "web", "2", ",\"priority\":1000");
        ms_pod *p2 = lpod(e, "p2", "web", "2", ",\"priority\":1000");
        assert_true(ms_scheduler_schedule_one(e->s, 0));
        assert_int_equal(e->nevicted, 1);
        assert_true(ms_scheduler_schedule_one(e->s, 0));
        assert_int_equal(e->nevicted, 1);
        assert_int_equal(e->nnominated, 1);
        ms_queue *q = ms_scheduler_queue(e->s);
        assert_string_equal(ms_str_get(e->in, ms_queue_nominated_node(q, p1->meta.uid_hash)), "a");
        assert_int_equal(ms_queue_nominated_node(q, p2->meta.uid_hash), MS_STR_NONE);
        if (at_once) {
            /* p1 gets the node once its backoff ends. */
            ms_scheduler_tick(e->s, 2);
            while (ms_scheduler_schedule_one(e->s, 2)) {}
            assert_int_equal(e->nscheduled, 1);
            assert_non_null(ms_cache_get_pod(ms_scheduler_cache(e->s), p1->meta.uid_hash));
            assert_null(ms_cache_get_pod(ms_scheduler_cache(e->s), p2->meta.uid_hash));
            assert_int_equal(e->nevicted, 1);
        }
        env_free(e);
    }
}

/* Under load the informer shows a victim's deletion seconds after the
 * DELETE. Until then no other preemption deletes it again or counts on
 * the room it leaves (already promised to its preemptor), and its own
 * preemptor, retrying, waits for it. */
static void test_victim_deletion_not_yet_seen(void **state) {
    (void)state;
    env *e = preempt_env();
    e->evict_at_once = false;     /* run's evictor: the deletion shows later */
    add_node(e, "a", "2", NULL, NULL);
    add_node(e, "b", "2", NULL, NULL);
    ms_pod *cheap = lpod(e, "cheap", "batch", "2", ",\"nodeName\":\"a\"");
    ms_pod *dear = lpod(e, "dear", "batch", "2", ",\"nodeName\":\"b\",\"priority\":500");
    ms_pod *p1 = lpod(e, "p1", "web", "2", ",\"priority\":1000");
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->nevicted, 1);
    assert_true(was_evicted(e, cheap));
    assert_int_equal(ms_scheduler_deletions_requested(e->s), 1);

    /* cheap is still on a: p2 (above p1, whose nomination it ignores)
     * must take dear on b, not cheap a second time. */
    ms_pod *p2 = lpod(e, "p2", "web", "2", ",\"priority\":2000");
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->nevicted, 2);
    assert_int_equal(e->evicted[1]->meta.uid_hash, dear->meta.uid_hash);
    ms_queue *q = ms_scheduler_queue(e->s);
    assert_string_equal(ms_str_get(e->in, ms_queue_nominated_node(q, p2->meta.uid_hash)), "b");
    assert_int_equal(ms_scheduler_deletions_requested(e->s), 2);

    /* p1 retries (a node too small for it came) before the deletion
     * shows: it waits for its victim. */
    add_node(e, "c", "1", NULL, NULL);
    ms_scheduler_tick(e->s, 2);
    while (ms_scheduler_schedule_one(e->s, 2)) {}
    assert_int_equal(e->nevicted, 2);
    assert_string_equal(ms_str_get(e->in, ms_queue_nominated_node(q, p1->meta.uid_hash)), "a");
    assert_true(strstr(e->last_message, "terminating pod on the nominated node") != NULL);

    /* The informer: cheap terminating, dear gone. No mark is left. */
    ms_pod *going = decode_pod(e, "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"cheap\",\"namespace\":\"default\","
                                  "\"uid\":\"uid-cheap\",\"deletionTimestamp\":\"2026-01-01T00:00:00Z\","
                                  "\"labels\":{\"app\":\"batch\"}},\"spec\":{\"nodeName\":\"a\",\"containers\":"
                                  "[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"2\"}}}]}}");
    ms_scheduler_pod_update(e->s, going, 3);
    assert_int_equal(ms_scheduler_deletions_requested(e->s), 1);
    ms_scheduler_pod_delete(e->s, dear, 3);
    assert_int_equal(ms_scheduler_deletions_requested(e->s), 0);
    env_free(e);
}

/* A deletion the evictor reports failed (the DELETE refused) no longer
 * protects its pod: it is the cheapest victim again at once. */
static void test_failed_deletion_unmarks_victim(void **state) {
    (void)state;
    env *e = preempt_env();
    e->evict_at_once = false;     /* run's evictor: the deletion shows later */
    add_node(e, "a", "2", NULL, NULL);
    add_node(e, "b", "2", NULL, NULL);
    ms_pod *cheap = lpod(e, "cheap", "batch", "2", ",\"nodeName\":\"a\"");
    lpod(e, "other", "batch", "2", ",\"nodeName\":\"b\",\"priority\":500");
    lpod(e, "p1", "web", "2", ",\"priority\":1000");
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(ms_scheduler_deletions_requested(e->s), 1);
    ms_scheduler_eviction_failed(e->s, cheap->meta.uid_hash);
    assert_int_equal(ms_scheduler_deletions_requested(e->s), 0);
    /* Marked, cheap would be spared and p2 would take other on b. */
    lpod(e, "p2", "web", "2", ",\"priority\":2000");
    assert_true(ms_scheduler_schedule_one(e->s, 1));
    assert_int_equal(e->nevicted, 2);
    assert_int_equal(e->evicted[1]->meta.uid_hash, cheap->meta.uid_hash);
    assert_int_equal(ms_scheduler_deletions_requested(e->s), 1);
    env_free(e);
}

/* An eviction that fails is the scheduler's error, not the pod's: back off
 * and retry, with no nomination. */
static void test_preemption_error_backs_off(void **state) {
    (void)state;
    env *e = preempt_env();
    e->evict_fails = true;
    add_node(e, "a", "2", NULL, NULL);
    lpod(e, "low", "batch", "2", ",\"nodeName\":\"a\"");
    lpod(e, "high", "web", "2", ",\"priority\":1000");
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    ms_queue *q = ms_scheduler_queue(e->s);
    assert_int_equal(ms_queue_len_backoff(q), 1);
    assert_int_equal(ms_queue_len_unschedulable(q), 0);
    assert_int_equal(e->nnominated, 0);
    assert_int_equal(e->npreempted_reports, 0);
    assert_true(strstr(e->last_message, "running PostFilter plugin \"DefaultPreemption\": "
                                        "preemption: evicting pod default/low: ") != NULL);
    /* A deletion refused leaves no mark: low may be a victim again. */
    assert_int_equal(ms_scheduler_deletions_requested(e->s), 0);
    /* The retry succeeds once the evictor works. */
    e->evict_fails = false;
    ms_scheduler_tick(e->s, 2);
    assert_true(ms_scheduler_schedule_one(e->s, 2));
    assert_int_equal(e->nevicted, 1);
    assert_int_equal(e->nnominated, 1);
    env_free(e);
}

/* A victim waiting on Permit is rejected, not passed to the evictor. */
static void test_preemption_rejects_waiting_victim(void **state) {
    (void)state;
    static const char *const plugins[] = {"PrioritySort", "TestFit", "TestWait",
                                          "DefaultPreemption", "DefaultBinder", NULL};
    env *e = env_new_profile(0, 1, false, plugins);
    e->complete_at_once = true;
    e->evict_at_once = true;
    add_node(e, "a", "2", NULL, NULL);
    lpod(e, "wait-low", "batch", "2", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(ms_scheduler_waiting_count(e->s), 1);
    assert_int_equal(requested_cpu(e, "a"), 2000);
    lpod(e, "high", "web", "2", ",\"priority\":1000");
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->nevicted, 0);                 /* not through the evictor */
    assert_int_equal(e->npreempted_reports, 1);
    assert_int_equal(ms_scheduler_waiting_count(e->s), 0);
    assert_int_equal(requested_cpu(e, "a"), 0);
    assert_int_equal(e->nnominated, 1);
    env_free(e);
}

/* Grow: a node-local plugin that filters nothing out; a new version (a
 * policy reload) adds a Score that counts the nodes it scores. */
static uint32_t grow_scored;

static ms_code grow_filter(void *self, ms_cycle *c, const ms_node_info *ni, ms_status *st) {
    (void)self, (void)c, (void)ni, (void)st;
    return MS_SUCCESS;
}

static ms_code grow_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n, int64_t *scores,
                          ms_status *st) {
    (void)self, (void)c, (void)st;
    for (uint32_t i = 0; i < n; i++) scores[i] = (int64_t)nodes[i]->npods;
    grow_scored += n;
    return MS_SUCCESS;
}

static ms_plugin_ops grow_ops = {.name = "Grow", .filter = grow_filter, .node_local = true};

/* A reload that adds a Score plugin grows the node memo's rows with the
 * cycle buffers': the next pods of one signature score only the node that
 * changed, not every node as without the memo. */
static void test_reload_adding_a_scorer_keeps_the_memo(void **state) {
    (void)state;
    grow_ops.score = NULL;
    grow_scored = 0;
    const ms_plugin_ops *const plugins[] = {&test_fit, &test_score, &grow_ops};
    const char *const names[] = {"PrioritySort", "TestFit", "TestScore", "Grow", "DefaultBinder", NULL};
    env *e = calloc(1, sizeof *e);
    assert_non_null(e);
    e->in = ms_interner_new();
    ms_decoder_init(&e->dec, e->in);
    e->complete_at_once = true;
    assert_int_equal(ms_config_default(&e->cfg), MS_OK);
    for (uint32_t k = 0; k < e->cfg.profiles[0].nplugins; k++) cJSON_Delete(e->cfg.profiles[0].plugins[k].args);
    set_profile(&e->cfg.profiles[0], "default-scheduler", names, 100);
    ms_scheduler_options o = {
        .config = &e->cfg,
        .in = e->in,
        .binder = {e, fake_bind},
        .reporter = {e, on_scheduled, on_unschedulable, on_bind_failed, on_nominated, on_preempted, on_error,
                     on_post_filter, on_gated},
        .evictor = {e, fake_evict, fake_set_nomination},
        .seed = 1,
        .out_of_tree = plugins,
        .n_out_of_tree = 3,
    };
    ms_error err = {0};
    if (ms_scheduler_new(&o, &e->s, &err) != MS_OK) fail_msg("ms_scheduler_new: %s", err.msg);
    for (unsigned i = 0; i < 4; i++) {
        char name[16];
        snprintf(name, sizeof name, "n%u", i);
        add_node(e, name, "8", NULL, NULL);
    }
    add_pod(e, "p0", "1", "");
    assert_true(ms_scheduler_schedule_one(e->s, 1));
    grow_ops.score = grow_score;
    assert_int_equal(ms_scheduler_plugin_reloaded(e->s, &grow_ops, 0, 1, &err), MS_OK);
    add_pod(e, "p1", "1", "");
    assert_true(ms_scheduler_schedule_one(e->s, 2));
    assert_int_equal(grow_scored, 4);
    add_pod(e, "p2", "1", "");
    assert_true(ms_scheduler_schedule_one(e->s, 3));
    assert_int_equal(e->nscheduled, 3);
    assert_int_equal(grow_scored, 4 + 1);   /* p1's node alone has changed */
    env_free(e);
    grow_ops.score = NULL;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bind_failure_requeues_with_backoff),
        cmocka_unit_test(test_reload_adding_a_scorer_keeps_the_memo),
        cmocka_unit_test(test_gone_pod_not_requeued),
        cmocka_unit_test(test_deleted_assumed_pod_leaves_the_cache),
        cmocka_unit_test(test_binder_answering_at_once),
        cmocka_unit_test(test_bind_conflict_already_bound),
        cmocka_unit_test(test_bind_conflict_gated_uid_other),
        cmocka_unit_test(test_gated_pod_never_attempted),
        cmocka_unit_test(test_preemption_end_to_end),
        cmocka_unit_test(test_preemption_policy_never),
        cmocka_unit_test(test_preemption_respects_pdb),
        cmocka_unit_test(test_two_preemptors_one_node),
        cmocka_unit_test(test_victim_deletion_not_yet_seen),
        cmocka_unit_test(test_failed_deletion_unmarks_victim),
        cmocka_unit_test(test_nominated_anti_affinity_holds_the_node),
        cmocka_unit_test(test_preemption_rejects_waiting_victim),
        cmocka_unit_test(test_preemption_error_backs_off),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
