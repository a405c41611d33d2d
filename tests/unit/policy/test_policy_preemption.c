/* Lua policies steering preemption through the scheduler: a policy's
 * select_victims and pick_preemption replace DefaultPreemption's victim
 * choice and node choice for the profiles that name it. */
#include "testutil.h"
#include "fixtures.h"

#include <cjson/cJSON.h>

#include "backend/cache.h"
#include "framework/plugins/preemption.h"
#include "moonsched/config.h"
#include "moonsched/lua_policy.h"
#include "moonsched/scheduler.h"
#include "sched_policy.h"

typedef struct env {
    fx_env fx;
    ms_config cfg;
    sched_policy sp;
    ms_scheduler *s;
    char evicted[8][64];
    uint32_t nevicted;
    ms_str scheduled_on;
    char bound[8][128];            /* "ns/name node" */
    uint32_t nbound;
} env;

static ms_rc bind_now(void *ctx, const ms_pod *pod, ms_str node) {
    env *e = ctx;
    e->scheduled_on = node;
    assert_true(e->nbound < 8);
    char key[64];
    ms_pod_key(pod, e->fx.in, key, sizeof key);
    snprintf(e->bound[e->nbound++], sizeof e->bound[0], "%s %s", key, ms_str_get(e->fx.in, node));
    ms_scheduler_bind_done(e->s, pod, true, false, NULL, 0);
    return MS_OK;
}

static ms_rc evict_now(void *ctx, const ms_pod *victim, const ms_pod *preemptor, ms_str node) {
    (void)preemptor, (void)node;
    env *e = ctx;
    assert_true(e->nevicted < 8);
    ms_pod_key(victim, e->fx.in, e->evicted[e->nevicted++], 64);
    ms_scheduler_pod_delete(e->s, victim, 0);
    return MS_OK;
}

/* src: a policy, or NULL for the default profile's behaviour. */
static env *env_new(const char *src) {
    env *e = calloc(1, sizeof *e);
    assert_non_null(e);
    fx_env_init(&e->fx);
    static const char *const names[] = {"PrioritySort", "NodeResourcesFit", "DefaultPreemption",
                                        "DefaultBinder"};
    sched_profile(&e->cfg, names, 4);
    ms_error err = {0};
    ms_scheduler_options o = {
        .config = &e->cfg,
        .in = e->fx.in,
        .binder = {e, bind_now},
        .evictor = {e, evict_now, NULL},
        .seed = 1,
    };
    if (src) sched_policy_add(&e->sp, e->fx.in, src, &e->cfg.profiles[0], &o);
    if (ms_scheduler_new(&o, &e->s, &err) != MS_OK) fail_msg("ms_scheduler_new: %s", err.msg);
    return e;
}

static void env_free(env *e) {
    ms_scheduler_free(e->s);
    sched_policy_free(&e->sp);
    ms_config_free(&e->cfg);
    fx_env_free(&e->fx);
    free(e);
}

static void node(env *e, const char *name) {
    char buf[256];
    snprintf(buf, sizeof buf,
             "metadata: {name: %s}\nstatus: {allocatable: {cpu: '2', memory: 8Gi, pods: '110'}}\n",
             name);
    ms_node *n = fx_node(&e->fx.d, buf);
    ms_scheduler_node_add(e->s, n, 0);
    ms_node_unref(n);
}

/* node NULL: pending. */
static void pod(env *e, const char *ns, const char *name, const char *cpu, int prio,
                const char *node_name, const char *created) {
    char buf[512];
    snprintf(buf, sizeof buf,
             "metadata: {name: %s, namespace: %s, uid: u-%s-%s, creationTimestamp: '%s'}\n"
             "spec:\n  priority: %d\n%s%s%s"
             "  containers: [{name: c, resources: {requests: {cpu: '%s'}}}]\n",
             name, ns, ns, name, created ? created : "2023-01-01T00:00:00Z", prio,
             node_name ? "  nodeName: " : "", node_name ? node_name : "", node_name ? "\n" : "",
             cpu);
    ms_pod *p = fx_pod(&e->fx.d, buf);
    ms_scheduler_pod_add(e->s, p, 0);
    ms_pod_unref(p);
}

/* Runs cycles (and backoffs) until the queue is empty; returns where the
 * last pod went. */
static const char *run(env *e) {
    for (double now = 0; now < 30; now += 1) {
        ms_scheduler_tick(e->s, now);
        while (ms_scheduler_schedule_one(e->s, now)) {}
    }
    return e->scheduled_on ? ms_str_get(e->fx.in, e->scheduled_on) : "";
}

static const char *PROTECT_PROD =
    "local p = {name = 'protect-prod'}\n"
    "function p.select_victims(pod, node, cands)\n"
    "  local out = {}\n"
    "  for _, c in ipairs(cands) do\n"
    "    if c.namespace ~= 'prod' then out[#out + 1] = c end\n"
    "  end\n"
    "  return out\n"
    "end\n"
    "return p\n";

/* node-a: one prod pod (the default's choice: a single victim); node-b:
 * two batch pods. */
static void protect_cluster(env *e) {
    node(e, "node-a");
    node(e, "node-b");
    pod(e, "prod", "db", "2", 0, "node-a", NULL);
    pod(e, "batch", "x1", "1", 0, "node-b", NULL);
    pod(e, "batch", "x2", "1", 0, "node-b", NULL);
    pod(e, "web", "high", "2", 1000, NULL, NULL);
}

static void test_policy_protects_namespace(void **state) {
    (void)state;
    env *e = env_new(NULL);
    protect_cluster(e);
    assert_string_equal(run(e), "node-a");
    assert_int_equal(e->nevicted, 1);
    assert_string_equal(e->evicted[0], "prod/db");
    env_free(e);

    e = env_new(PROTECT_PROD);
    protect_cluster(e);
    assert_string_equal(run(e), "node-b");
    assert_int_equal(e->nevicted, 2);
    for (uint32_t i = 0; i < e->nevicted; i++) assert_string_not_equal(e->evicted[i], "prod/db");
    env_free(e);
}

static void test_policy_protecting_everything_preempts_nothing(void **state) {
    (void)state;
    env *e = env_new(PROTECT_PROD);
    node(e, "node-a");
    pod(e, "prod", "db", "2", 0, "node-a", NULL);
    pod(e, "web", "high", "2", 1000, NULL, NULL);
    assert_string_equal(run(e), "");
    assert_int_equal(e->nevicted, 0);
    env_free(e);
}

static const char *YOUNGEST =
    "local p = {name = 'youngest'}\n"
    "function p.pick_preemption(pod, options)\n"
    "  local best, best_t\n"
    "  for i, o in ipairs(options) do\n"
    "    local oldest = math.huge\n"
    "    for _, v in ipairs(o.victims) do\n"
    "      if v.created < oldest then oldest = v.created end\n"
    "    end\n"
    "    if best_t == nil or oldest > best_t then best, best_t = i, oldest end\n"
    "  end\n"
    "  return best\n"
    "end\n"
    "return p\n";

/* node-a: one old pod (the default's choice: fewer victims); node-b: two
 * young ones. */
static void age_cluster(env *e) {
    node(e, "node-a");
    node(e, "node-b");
    pod(e, "batch", "old", "2", 0, "node-a", "2020-01-01T00:00:00Z");
    pod(e, "batch", "young-1", "1", 0, "node-b", "2024-06-01T00:00:00Z");
    pod(e, "batch", "young-2", "1", 0, "node-b", "2024-06-02T00:00:00Z");
    pod(e, "web", "high", "2", 1000, NULL, NULL);
}

static void test_policy_prefers_youngest_victims(void **state) {
    (void)state;
    env *e = env_new(NULL);
    age_cluster(e);
    assert_string_equal(run(e), "node-a");
    assert_int_equal(e->nevicted, 1);
    assert_string_equal(e->evicted[0], "batch/old");
    env_free(e);

    e = env_new(YOUNGEST);
    age_cluster(e);
    assert_string_equal(run(e), "node-b");
    assert_int_equal(e->nevicted, 2);
    assert_string_equal(e->evicted[0], "batch/young-1");
    assert_string_equal(e->evicted[1], "batch/young-2");
    env_free(e);
}

/* A filter is part of every dry run: the victims must make the node pass
 * it too, or the node is no candidate. */
static const char *NEVER =
    "local p = {name = 'never'}\n"
    "function p.filter(pod, node) return false, 'policy says no' end\n"
    "return p\n";

static void test_policy_filter_rejecting_everything_preempts_nothing(void **state) {
    (void)state;
    env *e = env_new(NEVER);
    protect_cluster(e);
    assert_string_equal(run(e), "");
    assert_int_equal(e->nevicted, 0);
    env_free(e);
}

/* node-a is the default's choice (one victim); the policy rules it out
 * for good, resolvable or not. */
static const char *NOT_A =
    "local p = {name = 'not-a'}\n"
    "function p.filter(pod, node)\n"
    "  return node.name ~= 'node-a', 'not node-a', UNRESOLVABLE\n"
    "end\n"
    "return p\n";

static void test_policy_filter_rejected_node_is_no_candidate(void **state) {
    (void)state;
    for (int unresolvable = 0; unresolvable < 2; unresolvable++) {
        char src[512];
        snprintf(src, sizeof src, "local UNRESOLVABLE = %s\n%s", unresolvable ? "true" : "false", NOT_A);
        env *e = env_new(src);
        protect_cluster(e);
        assert_string_equal(run(e), "node-b");
        assert_int_equal(e->nevicted, 2);
        for (uint32_t i = 0; i < e->nevicted; i++) assert_string_not_equal(e->evicted[i], "prod/db");
        env_free(e);
    }
}

/* Resolvable: rejects a node while a prod pod runs there. Removing the
 * victims makes node-a pass, so node-a stays the choice. */
static const char *NO_PROD_NEIGHBOURS =
    "local p = {name = 'no-prod-neighbours'}\n"
    "function p.filter(pod, node)\n"
    "  for q in node:pods() do\n"
    "    if q.namespace == 'prod' then return false, 'a prod pod runs here' end\n"
    "  end\n"
    "  return true\n"
    "end\n"
    "return p\n";

static void test_policy_filter_passing_without_victims_keeps_candidate(void **state) {
    (void)state;
    env *e = env_new(NO_PROD_NEIGHBOURS);
    protect_cluster(e);
    assert_string_equal(run(e), "node-a");
    assert_int_equal(e->nevicted, 1);
    assert_string_equal(e->evicted[0], "prod/db");
    env_free(e);
}

/* At most one pod per node. `high` preempts batch/x and is nominated to
 * node-a; `small` (same priority, no requests) comes next and must leave
 * room for it: the Filter pass with the nominated pod added runs the
 * policy too. */
static const char *ONE_POD_PER_NODE =
    "local p = {name = 'one-pod-per-node'}\n"
    "function p.filter(pod, node) return node.pod_count == 0, 'a pod runs here' end\n"
    "return p\n";

static void test_policy_filter_sees_nominated_pods(void **state) {
    (void)state;
    env *e = env_new(ONE_POD_PER_NODE);
    node(e, "node-a");
    node(e, "node-b");
    pod(e, "batch", "x", "2", 0, "node-a", NULL);
    pod(e, "batch", "y", "2", 2000, "node-b", NULL);
    pod(e, "web", "high", "2", 1000, NULL, "2023-01-01T00:00:00Z");
    pod(e, "web", "small", "0", 1000, NULL, "2023-01-02T00:00:00Z");
    run(e);
    assert_int_equal(e->nevicted, 1);
    assert_string_equal(e->evicted[0], "batch/x");
    assert_int_equal(e->nbound, 1);
    assert_string_equal(e->bound[0], "web/high node-a");
    env_free(e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_policy_protects_namespace),
        cmocka_unit_test(test_policy_protecting_everything_preempts_nothing),
        cmocka_unit_test(test_policy_prefers_youngest_victims),
        cmocka_unit_test(test_policy_filter_rejecting_everything_preempts_nothing),
        cmocka_unit_test(test_policy_filter_rejected_node_is_no_candidate),
        cmocka_unit_test(test_policy_filter_passing_without_victims_keeps_candidate),
        cmocka_unit_test(test_policy_filter_sees_nominated_pods),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
