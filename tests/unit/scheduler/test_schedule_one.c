/* The scheduling cycle (core/scheduler/schedule_one.c): how many nodes
 * are filtered, the start index's rotation, scoring and ties, FitError
 * messages, assume before bind, queue order and the reporter's hooks. */
#include "testutil.h"

#include "scheduler_env.h"
#include "scheduler/scheduler_priv.h"
#include "base/rng.h"
#include "backend/queue.h"
#include "framework/plugins/preemption.h"

static void test_num_feasible_nodes_to_find(void **state) {
    (void)state;
    /* upstream's TestNumFeasibleNodesToFind cases, plus the brief's sizes */
    static const struct { int32_t pct; uint32_t nodes, want; } cases[] = {
        {0, 10, 10},       {40, 10, 10},       {0, 1000, 420},   {40, 1000, 400},
        {0, 6000, 300},    {40, 6000, 2400},   {0, 50, 50},      {0, 99, 99},
        {0, 100, 100},     {0, 500, 230},      {0, 5000, 500},   {30, 500, 150},
        {10, 500, 100},    {100, 5000, 5000},  {150, 500, 500},  {5, 5000, 250},
        {0, 10000, 500},   {1, 5000, 100},     {-1, 5000, 500},  {0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint32_t got = ms_num_feasible_nodes_to_find(cases[i].pct, cases[i].nodes);
        if (got != cases[i].want)
            fail_msg("pct %d, %u nodes: got %u, want %u", cases[i].pct, cases[i].nodes, got,
                     cases[i].want);
    }
}

static void test_select_host(void **state) {
    (void)state;
    ms_rng a, b;
    ms_rng_seed(&a, 7);
    ms_rng_seed(&b, 7);
    static const int64_t single_max[] = {1, 9, 3, 8};
    assert_int_equal(ms_select_host(&a, single_max, 4), 1);
    assert_int_equal(ms_select_host(&a, single_max, 1), 0);

    /* Ties among indexes 1, 2 and 4: each chosen about a third of the time,
     * the others never; the same seed gives the same sequence. */
    static const int64_t ties[] = {5, 7, 7, 3, 7};
    uint32_t count[5] = {0};
    for (int i = 0; i < 30000; i++) {
        uint32_t x = ms_select_host(&a, ties, 5), y = ms_select_host(&b, ties, 5);
        assert_int_equal(x, y);
        count[x]++;
    }
    assert_int_equal(count[0], 0);
    assert_int_equal(count[3], 0);
    for (int k = 1; k <= 4; k += (k == 2 ? 2 : 1))
        if (count[k] < 9500 || count[k] > 10500) fail_msg("index %d chosen %u times", k, count[k]);

    ms_rng c;
    ms_rng_seed(&c, 8);
    int differ = 0;
    ms_rng_seed(&a, 7);
    for (int i = 0; i < 100; i++) differ += ms_select_host(&a, ties, 5) != ms_select_host(&c, ties, 5);
    assert_true(differ > 0);
}

static void test_rotation_of_start_index(void **state) {
    (void)state;
    /* 500 nodes that all fit, adaptive percentage: 230 per cycle. */
    env *e = env_new(0, 1);
    char name[32];
    for (int i = 0; i < 500; i++) {
        snprintf(name, sizeof name, "n%03d", i);
        add_node(e, name, "100", NULL, NULL);
    }
    e->complete_at_once = true;
    static const uint32_t want[] = {230, 460, 190, 420, 150};
    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof name, "p%d", i);
        add_pod(e, name, "10m", NULL);
        assert_true(ms_scheduler_schedule_one(e->s, 0));
        assert_int_equal(e->last_feasible, 230);
        assert_int_equal(e->last_evaluated, 230);
        assert_int_equal(e->last_all, 500);
        assert_int_equal(ms_scheduler_next_start_index(e->s), want[i]);
    }
    env_free(e);

    /* Every other node rejected: 300 nodes, 144 feasible wanted (48%),
     * found among the first 287 nodes. */
    e = env_new(0, 1);
    for (int i = 0; i < 300; i++) {
        snprintf(name, sizeof name, "n%03d", i);
        add_node(e, name, "100", i % 2 ? "{\"half\":\"no\"}" : NULL, NULL);
    }
    e->complete_at_once = true;
    add_pod(e, "p", "10m", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->last_feasible, 144);
    assert_int_equal(e->last_evaluated, 287);
    assert_int_equal(ms_scheduler_next_start_index(e->s), 287);
    env_free(e);

    /* percentageOfNodesToScore 100: every node, start index back to 0. */
    e = env_new(100, 1);
    for (int i = 0; i < 150; i++) {
        snprintf(name, sizeof name, "n%03d", i);
        add_node(e, name, "100", NULL, NULL);
    }
    e->complete_at_once = true;
    add_pod(e, "p", "10m", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->last_feasible, 150);
    assert_int_equal(ms_scheduler_next_start_index(e->s), 0);
    env_free(e);
}

static void test_highest_score_wins_and_report(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    add_node(e, "a", "4", "{\"score\":\"10\"}", NULL);
    add_node(e, "b", "4", "{\"score\":\"90\"}", NULL);
    add_node(e, "c", "4", "{\"score\":\"40\"}", NULL);
    add_pod(e, "web", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->nscheduled, 1);
    assert_string_equal(node_of_last(e), "b");
    assert_int_equal(e->last_feasible, 3);
    /* TaintToleration scores 100 on every untainted node, TestScore 90. */
    assert_int_equal(e->last_nplugins, 2);
    assert_int_equal(e->last_scores[0], 100);
    assert_int_equal(e->last_scores[1], 90);
    assert_int_equal(e->last_total, 190);
    assert_int_equal(e->nbinds, 1);
    assert_string_equal(ms_str_get(e->in, e->binds[0].node), "b");
    env_free(e);
}

static void test_single_feasible_node_not_scored(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    add_node(e, "a", "4", "{\"score\":\"10\"}", NULL);
    add_node(e, "b", "4", "{\"half\":\"no\",\"score\":\"90\"}", NULL);
    add_pod(e, "web", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_string_equal(node_of_last(e), "a");
    assert_int_equal(e->last_nplugins, 0);
    assert_int_equal(e->last_feasible, 1);
    assert_int_equal(e->last_evaluated, 2);
    env_free(e);
}

/* Equal scores: the choice is spread over the tied nodes and repeatable
 * for a seed. */
static void test_ties_uniform_and_seeded(void **state) {
    (void)state;
    uint32_t count[4] = {0};
    char first[64][8];
    for (uint64_t seed = 0; seed < 400; seed++) {
        env *e = env_new(0, seed);
        add_node(e, "n0", "4", NULL, NULL);
        add_node(e, "n1", "4", NULL, NULL);
        add_node(e, "n2", "4", NULL, NULL);
        add_node(e, "n3", "4", NULL, NULL);
        add_pod(e, "p", "1", NULL);
        assert_true(ms_scheduler_schedule_one(e->s, 0));
        const char *n = node_of_last(e);
        count[n[1] - '0']++;
        if (seed < 64) snprintf(first[seed], sizeof first[seed], "%s", n);
        env_free(e);
    }
    for (int k = 0; k < 4; k++)
        if (count[k] < 60 || count[k] > 140) fail_msg("n%d chosen %u times of 400", k, count[k]);
    for (uint64_t seed = 0; seed < 64; seed++) {
        env *e = env_new(0, seed);
        add_node(e, "n0", "4", NULL, NULL);
        add_node(e, "n1", "4", NULL, NULL);
        add_node(e, "n2", "4", NULL, NULL);
        add_node(e, "n3", "4", NULL, NULL);
        add_pod(e, "p", "1", NULL);
        assert_true(ms_scheduler_schedule_one(e->s, 0));
        assert_string_equal(node_of_last(e), first[seed]);
        env_free(e);
    }
}

static void test_unschedulable_message(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    add_node(e, "cordoned", "4", NULL, "{\"unschedulable\":true}");
    add_node(e, "gpu-1", "4", NULL,
             "{\"taints\":[{\"key\":\"dedicated\",\"value\":\"gpu\",\"effect\":\"NoSchedule\"}]}");
    add_node(e, "gpu-2", "4", NULL,
             "{\"taints\":[{\"key\":\"dedicated\",\"value\":\"gpu\",\"effect\":\"NoSchedule\"}]}");
    add_node(e, "small-1", "1", NULL, NULL);
    add_node(e, "small-2", "1", NULL, NULL);
    add_node(e, "odd", "8", "{\"half\":\"no\"}", NULL);
    add_pod(e, "big", "2", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->nunschedulable, 1);
    assert_int_equal(e->nscheduled, 0);
    assert_string_equal(e->last_message,
                        "0/6 nodes are available: 1 node(s) were labelled half=no, "
                        "1 node(s) were unschedulable, 2 Insufficient cpu, "
                        "2 node(s) had untolerated taint {dedicated: gpu}.");
    ms_queue *q = ms_scheduler_queue(e->s);
    assert_int_equal(ms_queue_len_unschedulable(q), 1);
    assert_int_equal(ms_queue_len_active(q), 0);
    assert_int_equal(ms_queue_len_backoff(q), 0);
    assert_false(ms_scheduler_schedule_one(e->s, 0));

    /* PreFilter rejection: one reason for the whole cluster. */
    add_pod(e, "reject-me", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_string_equal(e->last_message, "0/6 nodes are available: pod has unbound immediate "
                                         "PersistentVolumeClaims.");
    env_free(e);
}

static void test_no_nodes(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    add_pod(e, "p", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_string_equal(e->last_message, "no nodes available to schedule pods");
    assert_int_equal(ms_queue_len_unschedulable(ms_scheduler_queue(e->s)), 1);
    /* A node arriving brings it back. */
    add_node(e, "a", "4", NULL, NULL);
    ms_queue *q = ms_scheduler_queue(e->s);
    assert_int_equal(ms_queue_len_unschedulable(q), 0);
    assert_int_equal(ms_queue_len_active(q) + ms_queue_len_backoff(q), 1);
    ms_scheduler_tick(e->s, 100);
    assert_true(ms_scheduler_schedule_one(e->s, 100));
    assert_string_equal(node_of_last(e), "a");
    env_free(e);
}

static void test_assumed_resources_counted_before_bind(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    add_node(e, "a", "1", NULL, NULL);
    ms_pod *p1 = add_pod(e, "p1", "600m", NULL);
    add_pod(e, "p2", "600m", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_string_equal(node_of_last(e), "a");
    assert_int_equal(ms_scheduler_binding_count(e->s), 1);
    assert_int_equal(requested_cpu(e, "a"), 600);
    assert_true(ms_cache_is_assumed(ms_scheduler_cache(e->s),
                                    ms_cache_get_pod(ms_scheduler_cache(e->s), p1->meta.uid_hash)));
    /* The second pod sees the first one's request although its bind has
     * not completed. */
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->nunschedulable, 1);
    assert_string_equal(e->last_message, "0/1 nodes are available: 1 Insufficient cpu.");
    complete_binds(e, true, false, 1);
    assert_int_equal(ms_scheduler_binding_count(e->s), 0);
    assert_int_equal(requested_cpu(e, "a"), 600);
    /* The informer confirms the binding. */
    ms_pod *bound = mkpod(e, "p1", "600m", ",\"nodeName\":\"a\"");
    ms_scheduler_pod_update(e->s, bound, 2);
    assert_false(ms_cache_is_assumed(ms_scheduler_cache(e->s), bound));
    assert_int_equal(requested_cpu(e, "a"), 600);
    /* It finishes: its resources go, and p2 is moved back. */
    ms_pod *done = mkpod(e, "p1", "600m", ",\"nodeName\":\"a\"}, \"status\":{\"phase\":\"Succeeded\"");
    ms_scheduler_pod_update(e->s, done, 3);
    assert_int_equal(requested_cpu(e, "a"), 0);
    ms_queue *q = ms_scheduler_queue(e->s);
    assert_int_equal(ms_queue_len_unschedulable(q), 0);
    ms_scheduler_tick(e->s, 100);
    assert_true(ms_scheduler_schedule_one(e->s, 100));
    assert_string_equal(node_of_last(e), "a");
    env_free(e);
}

static void test_priority_order(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    e->complete_at_once = true;
    add_node(e, "a", "1", NULL, NULL);
    add_pod(e, "low", "1", NULL);
    add_pod(e, "high", "1", ",\"priority\":100");
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->nscheduled, 1);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->nunschedulable, 1);
    const ms_pod *p = ms_cache_get_pod(ms_scheduler_cache(e->s),
                                       e->objects[1]->meta.uid_hash);
    assert_non_null(p);   /* "high" got the node */
    env_free(e);
}

/* The hooks behind run's metrics: PostFilter runs (upstream's preemption
 * attempts) with the nominated node or none, and errors told apart from
 * rejections, before the unschedulable report. */
static void test_reporter_error_and_post_filter(void **state) {
    (void)state;
    env *e = preempt_env();
    add_node(e, "a", "2", NULL, NULL);
    lpod(e, "low", "batch", "2", ",\"nodeName\":\"a\"");
    lpod(e, "high", "web", "2", ",\"priority\":1000");
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->npost_filter, 1);
    assert_string_equal(ms_str_get(e->in, e->post_nominated), "a");
    assert_int_equal(e->npreempted_reports, 1);
    assert_int_equal(e->nerrors, 0);
    assert_int_equal(e->nunschedulable, 1);
    env_free(e);

    e = preempt_env();
    add_node(e, "a", "2", NULL, NULL);
    lpod(e, "low", "batch", "2", ",\"nodeName\":\"a\"");
    lpod(e, "polite", "web", "2", ",\"priority\":1000,\"preemptionPolicy\":\"Never\"");
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->npost_filter, 1);
    assert_int_equal(e->post_nominated, MS_STR_NONE);
    assert_int_equal(e->nerrors, 0);
    /* a pod that fits runs no PostFilter */
    lpod(e, "small", "web", "0", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->nscheduled, 1);
    assert_int_equal(e->npost_filter, 1);
    env_free(e);

    e = preempt_env();
    e->evict_fails = true;
    add_node(e, "a", "2", NULL, NULL);
    lpod(e, "low", "batch", "2", ",\"nodeName\":\"a\"");
    lpod(e, "high", "web", "2", ",\"priority\":1000");
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->npost_filter, 1);
    assert_int_equal(e->post_nominated, MS_STR_NONE);
    assert_int_equal(e->nerrors, 1);
    assert_int_equal(e->nunschedulable_at_error, 0);   /* error first */
    assert_int_equal(e->nunschedulable, 1);
    env_free(e);
}

/* A preemptor's Filter pass with nominated pods takes each node's verdict
 * from the memo while the node, its nominated pods and the pod's signature
 * and priority are unchanged. Two schedulers are fed the same random
 * cluster (tainted and cordoned nodes, bound pods of mixed priorities) and
 * preemptors of two signatures and two priorities; one forgets its kept
 * verdicts before every cycle, so it filters every node. Every report is
 * the same, and each FitError message is the one counted from the pass's
 * statuses. */
static const char *const kept_plugins[] = {"PrioritySort", "NodeUnschedulable", "TaintToleration", "NodeAffinity",
                                           "NodeResourcesFit", "DefaultPreemption", "DefaultBinder", NULL};

/* A pod of `cpu` millicores; `memory` (when not NULL) is asked for too:
 * more than any node has, and a node short of cpu as well fails it for
 * two reasons. */
static void kept_pod_memory(env *e, const char *name, int cpu, const char *memory, int prio, const char *node,
                            bool tolerates) {
    char extra[256];
    snprintf(extra, sizeof extra, ",\"priority\":%d%s%s%s%s", prio, node ? ",\"nodeName\":\"" : "",
             node ? node : "", node ? "\"" : "",
             tolerates ? ",\"tolerations\":[{\"key\":\"k\",\"operator\":\"Exists\"}]" : "");
    char m[64];
    snprintf(m, sizeof m, "%dm%s%s", cpu, memory ? "\",\"memory\":\"" : "", memory ? memory : "");
    lpod(e, name, "x", m, extra);
}

static void kept_pod(env *e, const char *name, int cpu, int prio, const char *node, bool tolerates) {
    kept_pod_memory(e, name, cpu, NULL, prio, node, tolerates);
}

/* Two schedulers on the same random cluster of `nnodes` nodes (a few
 * cordoned or tainted), 4 bound pods of priorities 0-2 on each. */
static void kept_envs(env *es[2], uint64_t round, int nnodes) {
    char name[32];
    for (int k = 0; k < 2; k++) {
        es[k] = env_new_profile(100, 3, false, kept_plugins);
        es[k]->complete_at_once = true;
        es[k]->evict_at_once = true;
        ms_rng r;
        ms_rng_seed(&r, round + 1);
        for (int n = 0; n < nnodes; n++) {
            uint64_t v = ms_rng_next(&r);
            const char *spec = v % 7 == 0   ? "{\"unschedulable\":true}"
                               : v % 5 == 0 ? "{\"taints\":[{\"key\":\"k\",\"effect\":\"NoSchedule\"}]}"
                                            : NULL;
            snprintf(name, sizeof name, "n%d", n);
            add_node(es[k], name, v % 3 == 0 ? "4" : v % 3 == 1 ? "3" : "2", NULL, spec);
            for (int b = 0; b < 4; b++) {
                char pod[32];
                snprintf(pod, sizeof pod, "b%d-%d", n, b);
                kept_pod(es[k], pod, 300 + 100 * (int)(ms_rng_below(&r, 3)), (int)ms_rng_below(&r, 3), name, true);
            }
        }
    }
}

/* Nominations made elsewhere (status.nominatedNodeName, preemptionPolicy
 * Never: they stay) come and go on nodes that stay as they are: the one at
 * `del` deleted, or (`add`) one made on a node picked by v. */
static void outside_nomination(env *e, ms_pod **outside, int nout, int del, bool add, int step, uint64_t v,
                               int nnodes) {
    if (del >= 0) {
        ms_scheduler_pod_delete(e->s, outside[del], e->now);
        outside[del] = outside[nout - 1];
    } else if (add) {
        char name[32], extra[256];
        snprintf(name, sizeof name, "o%d", step);
        snprintf(extra, sizeof extra,
                 ",\"priority\":%d,\"preemptionPolicy\":\"Never\",\"nodeSelector\":{\"none\":\"x\"}}"
                 ",\"status\":{\"nominatedNodeName\":\"n%d\"",
                 (int[]){0, 6, 6, 12}[(v >> 16) % 4], (int)((v >> 24) % (uint64_t)nnodes));
        outside[nout] = lpod(e, name, "x", "1000m", extra);
    }
}

static void same_reports(const env *a, const env *b, int round, int step) {
    if (strcmp(a->last_message, b->last_message) != 0)
        fail_msg("round %d step %d: kept \"%s\", from scratch \"%s\"", round, step, a->last_message, b->last_message);
    assert_int_equal(a->nscheduled, b->nscheduled);
    assert_int_equal(a->last_node, b->last_node);
    assert_int_equal(a->nunschedulable, b->nunschedulable);
    assert_int_equal(a->nnominated, b->nnominated);
    assert_int_equal(a->nominated_to, b->nominated_to);
    assert_int_equal(a->nevicted, b->nevicted);
    for (uint32_t i = 0; i < a->nevicted; i++) assert_int_equal(a->evicted[i]->meta.uid_hash, b->evicted[i]->meta.uid_hash);
    assert_int_equal(a->evicted_on, b->evicted_on);
}

static void test_kept_verdicts_match_a_full_pass(void **state) {
    (void)state;
    uint32_t tallied = 0, two_reasons = 0;
    for (uint64_t round = 0; round < 10; round++) {
        env *es[2];
        kept_envs(es, round, 10);
        ms_rng r;
        char name[32];
        bool used = false;
        ms_pod *outside[2][12] = {{0}};
        int nout = 0, npending = 0;
        uint32_t nunsched = 0;
        ms_rng_seed(&r, round + 100);
        for (int step = 0; step < 300; step++) {
            double now = 1 + step + 400.0 * (step / 40);
            /* preemptors of one signature (a few of another) and two
             * priorities keep coming; nominations made elsewhere come and
             * go */
            uint64_t v = ms_rng_next(&r);
            int del = nout && v % 5 == 0 ? (int)((v >> 8) % (uint64_t)nout) : -1;
            bool add = del < 0 && nout < 12 && v % 5 == 1;
            bool pending = v % 5 >= 3 && npending < 90;
            for (int k = 0; k < 2; k++) {
                es[k]->now = now;
                outside_nomination(es[k], outside[k], nout, del, add, step, v, 10);
                if (pending) {
                    snprintf(name, sizeof name, "p%d", step);
                    kept_pod_memory(es[k], name, (v >> 32) % 5 ? 1000 : 1500, (v >> 52) % 8 ? NULL : "9Gi",
                                    (v >> 40) % 2 ? 10 : 5, NULL, (v >> 48) % 4 == 0);
                }
                ms_scheduler_tick(es[k]->s, now);
                ms_node_memo *m = &es[k]->s->memo;
                if (k == 1 && m->verdicts) memset(m->verdicts, 0, m->cap * sizeof *m->verdicts);
                /* nothing of the last cycle's statuses may show through */
                for (uint32_t i = 0; k == 0 && es[k]->s->statuses && i < 10; i++)
                    for (uint32_t j = 0; j < MS_STATUS_MAX_REASONS; j++) es[k]->s->statuses[i].reasons[j] = "stale";
                ms_scheduler_schedule_one(es[k]->s, now);
            }
            nout += add - (del >= 0);
            npending += pending;
            same_reports(es[0], es[1], (int)round, step);
            /* after a pass over every node that found none: every node's
             * status, its reasons included, as a full pass gives it */
            for (uint32_t i = 0; es[0]->nunschedulable > nunsched && i < 10; i++) {
                const ms_status *x = &es[0]->s->statuses[i], *y = &es[1]->s->statuses[i];
                assert_int_equal(x->code, y->code);
                assert_int_equal(x->plugin, y->plugin);
                assert_int_equal(x->nreasons, y->nreasons);
                for (uint32_t j = 0; j < x->nreasons; j++)
                    assert_string_equal(x->reasons[j] ? x->reasons[j] : "", y->reasons[j] ? y->reasons[j] : "");
                two_reasons += x->nreasons > 1;
            }
            /* a message from the pass's tally is the one counted from
             * its statuses */
            if (es[0]->nunschedulable > nunsched) {
                char want[1024];
                ms_fit_error_message(want, sizeof want, 10, es[0]->s->statuses, 10, NULL);
                if (strncmp(es[0]->last_message, want, strlen(want)) != 0)
                    fail_msg("round %d step %d: \"%s\", counted \"%s\"", (int)round, step, es[0]->last_message, want);
                tallied++;
            }
            nunsched = es[0]->nunschedulable;
            const ms_node_memo *m = &es[0]->s->memo;
            for (uint32_t i = 0; m->verdicts && i < m->cap; i++) used |= m->verdicts[i].key.epoch != 0;
        }
        assert_true(used);
        assert_true(es[0]->nnominated > 0);
        env_free(es[0]);
        env_free(es[1]);
    }
    assert_true(tallied > 0);
    assert_true(two_reasons > 0);
}

/* DefaultPreemption keeps each node's counted dry-run outcome (ruled out,
 * no victims, or the victims) for the next preemptor of the same
 * signature and priority. Two schedulers are fed the same random cluster
 * and the same events: preemptors of two signatures and two priorities,
 * nominations made elsewhere coming and going, pods bound to nodes whose
 * nominations stay, victims deleted at once, now and then a full node
 * added (the per-node arrays grow; its pods are no one's victims). One
 * forgets its kept outcomes before every cycle, so it dry-runs every node
 * it visits; the searches (nodes visited, candidates, the choice), the
 * victims evicted and every report are the same. (The candidates' victims live in the cycle's
 * arena, gone when the cycle is: the evicted ones are compared.) */
static void same_search(const ms_preemption_result *a, const ms_preemption_result *b, int round, int step) {
    if (a->nevaluated != b->nevaluated || a->ncandidates != b->ncandidates || a->chosen != b->chosen ||
        a->attempted != b->attempted)
        fail_msg("round %d step %d: kept %u nodes, %u candidates, chose %d; fresh %u, %u, %d", round, step,
                 a->nevaluated, a->ncandidates, a->chosen, b->nevaluated, b->ncandidates, b->chosen);
    for (uint32_t i = 0; i < a->ncandidates; i++) {
        const ms_preemption_candidate *x = &a->candidates[i], *y = &b->candidates[i];
        assert_int_equal(x->node, y->node);
        assert_int_equal(x->num_pdb_violations, y->num_pdb_violations);
        assert_int_equal(x->nvictims, y->nvictims);
    }
}

/* A node of 2 cpus full with two pods of 1000m, priorities prio and
 * prio + 1. */
static void full_node(env *e, int n, int prio) {
    char name[32], pod[32];
    snprintf(name, sizeof name, "n%d", n);
    add_node(e, name, "2", NULL, NULL);
    for (int b = 0; b < 2; b++) {
        snprintf(pod, sizeof pod, "b%d-%d", n, b);
        kept_pod(e, pod, 1000, prio + b, name, false);
    }
}

static void test_kept_dry_runs_match_a_fresh_search(void **state) {
    (void)state;
    uint64_t kept = 0;
    for (uint64_t round = 0; round < 8; round++) {
        env *es[2];
        kept_envs(es, round, 16);
        ms_rng r;
        char name[32];
        ms_pod *outside[2][12] = {{0}};
        int nout = 0, npending = 0;
        ms_rng_seed(&r, round + 100);
        for (int step = 0; step < 240; step++) {
            double now = 1 + step + 400.0 * (step / 30);
            uint64_t v = ms_rng_next(&r);
            int del = nout && v % 4 == 0 ? (int)((v >> 8) % (uint64_t)nout) : -1;
            bool add = del < 0 && nout < 12 && v % 4 == 1;
            /* a pod bound elsewhere changes a node and no nomination */
            bool bound = v % 4 == 2 && (v >> 12) % 3 == 0;
            /* the env holds 64 evicted pods */
            bool pending = v % 5 >= 2 && npending < 80 && es[0]->nevicted < 48;
            for (int k = 0; k < 2; k++) {
                es[k]->now = now;
                /* of higher priorities than any preemptor: no victims (the
                 * env holds 64 evicted pods) */
                if (step % 16 == 15) full_node(es[k], 16 + step / 16, 12);
                outside_nomination(es[k], outside[k], nout, del, add, step, v, 16);
                if (bound) {
                    char node[16];
                    snprintf(name, sizeof name, "c%d", step);
                    snprintf(node, sizeof node, "n%d", (int)((v >> 24) % 16));
                    kept_pod(es[k], name, 100 * (int)((v >> 20) % 4), (int)((v >> 28) % 3) * 4, node, true);
                }
                if (pending) {
                    snprintf(name, sizeof name, "p%d", step);
                    kept_pod(es[k], name, (v >> 32) % 4 ? 1000 : 1500, (v >> 40) % 3 ? 10 : 5, NULL,
                             (v >> 48) % 4 == 0);
                }
                ms_scheduler_tick(es[k]->s, now);
                if (k == 1) ms_default_preemption_forget(&es[k]->s->profiles[0]);
                ms_scheduler_schedule_one(es[k]->s, now);
            }
            nout += add - (del >= 0);
            npending += pending;
            same_reports(es[0], es[1], (int)round, step);
            same_search(ms_default_preemption_last(&es[0]->s->profiles[0]),
                        ms_default_preemption_last(&es[1]->s->profiles[0]), (int)round, step);
            assert_int_equal(ms_default_preemption_last(&es[1]->s->profiles[0])->nkept, 0);
            kept += ms_default_preemption_last(&es[0]->s->profiles[0])->nkept;
        }
        assert_true(es[0]->nevicted > 0);
        env_free(es[0]);
        env_free(es[1]);
    }
    assert_true(kept > 0);
}

/* The cluster grows past the size the kept outcomes were allocated for:
 * the outcomes of the nodes that were there and did not change still
 * hold, in a search that matches a fresh one. 16 full nodes, a preemptor
 * (its victim deleted at once), 32 nodes more, then a preemptor of the
 * same signature and priority. */
static void test_kept_dry_runs_outlive_growth(void **state) {
    (void)state;
    env *es[2];
    for (int k = 0; k < 2; k++) {
        es[k] = env_new_profile(100, 3, false, kept_plugins);
        es[k]->complete_at_once = true;
        es[k]->evict_at_once = true;
        for (int n = 0; n < 16; n++) full_node(es[k], n, 0);
    }
    uint32_t kept_after = 0, searches_after = 0;
    for (int step = 0; step < 12; step++) {
        double now = 1 + 20.0 * step;
        uint32_t searched = es[0]->npost_filter;
        for (int k = 0; k < 2; k++) {
            es[k]->now = now;
            if (step == 0) kept_pod(es[k], "p1", 1000, 10, NULL, false);
            if (step == 3) {
                for (int n = 16; n < 48; n++) full_node(es[k], n, 0);
                kept_pod(es[k], "p2", 1000, 10, NULL, false);
            }
            ms_scheduler_tick(es[k]->s, now);
            if (k == 1) ms_default_preemption_forget(&es[k]->s->profiles[0]);
            ms_scheduler_schedule_one(es[k]->s, now);
        }
        same_reports(es[0], es[1], 0, step);
        const ms_preemption_result *a = ms_default_preemption_last(&es[0]->s->profiles[0]);
        same_search(a, ms_default_preemption_last(&es[1]->s->profiles[0]), 0, step);
        if (step >= 3 && es[0]->npost_filter > searched && searches_after++ == 0) {
            assert_int_equal(a->nevaluated, 48);
            kept_after = a->nkept;
        }
    }
    assert_int_equal(es[0]->nnominated, 2);
    assert_int_equal(searches_after, 1);
    /* the 16 nodes but the one the first preemptor took */
    assert_int_equal(kept_after, 15);
    env_free(es[0]);
    env_free(es[1]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_num_feasible_nodes_to_find),
        cmocka_unit_test(test_select_host),
        cmocka_unit_test(test_rotation_of_start_index),
        cmocka_unit_test(test_highest_score_wins_and_report),
        cmocka_unit_test(test_single_feasible_node_not_scored),
        cmocka_unit_test(test_ties_uniform_and_seeded),
        cmocka_unit_test(test_unschedulable_message),
        cmocka_unit_test(test_no_nodes),
        cmocka_unit_test(test_assumed_resources_counted_before_bind),
        cmocka_unit_test(test_priority_order),
        cmocka_unit_test(test_reporter_error_and_post_filter),
        cmocka_unit_test(test_kept_verdicts_match_a_full_pass),
        cmocka_unit_test(test_kept_dry_runs_match_a_fresh_search),
        cmocka_unit_test(test_kept_dry_runs_outlive_growth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
