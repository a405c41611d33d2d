/* Score at 5000 nodes per pod: NodeResourcesFit's MostAllocated in C
 * against the same scoring as a Lua policy (tests/bench/most_allocated.lua),
 * through the same plugin ops the framework calls. Checks that both give
 * the same scores, prints ns per node and the ratio (target: Lua <= 1.5x
 * native), then the watchdog's stop latency for a compiled infinite loop.
 * Exit status 1 when the scores differ. */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "moonsched/lua_policy.h"
#include "moonsched/plugin.h"

#define NODES 5000
#define ROUNDS 100
#define TRIALS 15

static double clock_s(clockid_t id) {
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Thread CPU time for the score loops: another process taking the core does
 * not count. The watchdog's budget is wall time. */
static double cpu_s(void) { return clock_s(CLOCK_THREAD_CPUTIME_ID); }
static double wall_s(void) { return clock_s(CLOCK_MONOTONIC); }

static void quiet(void *ctx, ms_lua_log_level l, const char *p, const char *m) {
    (void)ctx, (void)l, (void)p, (void)m;
}

typedef ms_code (*score_fn)(void *, ms_cycle *, ms_node_info *const *, uint32_t, int64_t *,
                            ms_status *);

/* One trial of ROUNDS pods, ns per node. */
static double time_score(score_fn pre, score_fn fn, void *self, ms_cycle *c, ms_arena *a,
                         ms_node_info **nodes, int64_t *scores) {
    double t0 = cpu_s();
    for (int r = 0; r < ROUNDS; r++) {
        ms_arena_reset(a);
        void *slot = NULL;
        c->state = &slot;
        c->current = 0;
        c->cycle++;
        ms_status st;
        ms_status_ok(&st);
        if (pre) pre(self, c, nodes, NODES, NULL, &st);
        if (fn(self, c, nodes, NODES, scores, &st) != MS_SUCCESS) {
            fprintf(stderr, "score failed: %s\n", st.nreasons ? st.reasons[0] : "");
            exit(1);
        }
    }
    return (cpu_s() - t0) * 1e9 / ROUNDS / NODES;
}

/* pre_score has no scores argument; adapt it to score_fn's shape. */
static const ms_plugin_ops *fit_ops;
static ms_code fit_pre_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                             int64_t *unused, ms_status *st) {
    (void)unused;
    return fit_ops->pre_score(self, c, nodes, n, st);
}

int main(int argc, char **argv) {
    const char *policy = argc > 1 ? argv[1] : "tests/bench/most_allocated.lua";
    ms_interner *in = ms_interner_new();
    ms_resource_names rn;
    ms_resource_names_init(&rn, in);
    ms_handle h = {.in = in, .rn = &rn};
    ms_error err = {0};

    static ms_node_info *nodes[NODES];
    uint64_t seed = 42;
    for (int i = 0; i < NODES; i++) {
        char name[32];
        snprintf(name, sizeof name, "node-%05d", i);
        ms_node *n = ms_node_alloc();
        n->meta.name = ms_intern_cstr(in, name);
        n->allocatable.v[MS_RES_CPU] = 4000 + 4000 * (i % 16);
        n->allocatable.v[MS_RES_MEMORY] = ((int64_t)8 << 30) * (1 + i % 8);
        n->allocatable.v[MS_RES_PODS] = 110;
        nodes[i] = ms_node_info_new(n->meta.name);
        ms_node_info_set_node(nodes[i], n);
        ms_node_unref(n);
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        int64_t cpu = (int64_t)((seed >> 33) % (uint64_t)n->allocatable.v[MS_RES_CPU]);
        int64_t mem = (int64_t)((seed >> 11) % (uint64_t)n->allocatable.v[MS_RES_MEMORY]);
        nodes[i]->requested.v[MS_RES_CPU] = nodes[i]->non_zero_cpu = cpu;
        nodes[i]->requested.v[MS_RES_MEMORY] = nodes[i]->non_zero_mem = mem;
    }
    ms_pod *pod = ms_pod_alloc();
    pod->meta.name = ms_intern_cstr(in, "bench");
    pod->requests.v[MS_RES_CPU] = pod->non_zero_cpu = 500;
    pod->requests.v[MS_RES_MEMORY] = pod->non_zero_mem = (int64_t)1 << 30;

    ms_arena arena;
    ms_arena_init(&arena, 1 << 20);
    ms_cycle c = {.pod = pod, .arena = &arena, .h = &h, .cycle = 1};

    fit_ops = ms_plugin_lookup("NodeResourcesFit");
    cJSON *args = cJSON_Parse("{\"scoringStrategy\": {\"type\": \"MostAllocated\"}}");
    void *fit = NULL;
    if (!fit_ops || fit_ops->create(args, &h, &fit, &err) != MS_OK) {
        fprintf(stderr, "NodeResourcesFit: %s\n", err.msg);
        return 2;
    }
    cJSON_Delete(args);

    ms_lua_options o;
    ms_lua_options_default(&o);
    o.log = quiet;
    if (getenv("BUDGET")) o.budget = atof(getenv("BUDGET"));
    ms_lua_runtime *rt = NULL;
    ms_lua_state *s = NULL;
    ms_policy *p = NULL;
    if (ms_lua_runtime_new(&o, in, &rt, &err) != MS_OK ||
        ms_lua_state_load_file(rt, policy, NULL, &s, &err) != MS_OK ||
        ms_policy_new(rt, s, &p, &err) != MS_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 2;
    }

    static int64_t native[NODES], lua[NODES];
    /* Trials alternate between the two so that a noisy stretch of the
     * shared machine hits both; the best trial of each is compared. */
    double tn = 1e30, tl = 1e30;
    for (int t = 0; t < TRIALS; t++) {
        double x = time_score(fit_pre_score, fit_ops->score, fit, &c, &arena, nodes, native);
        double y = time_score(NULL, ms_policy_ops(p)->score, p, &c, &arena, nodes, lua);
        if (x < tn) tn = x;
        if (y < tl) tl = y;
    }
    int diff = 0;
    for (int i = 0; i < NODES; i++)
        if (native[i] != lua[i]) {
            if (diff++ < 5)
                fprintf(stderr, "node %d: native %lld, lua %lld\n", i, (long long)native[i],
                        (long long)lua[i]);
        }
    printf("score at %d nodes: native %.2f ns/node, lua %.2f ns/node, lua/native %.2f%s\n",
           NODES, tn, tl, tl / tn, diff ? " (SCORES DIFFER)" : "");

    /* Watchdog: how long after the budget a compiled loop stops. */
    const char *spin = "return {name = 'spin', score = function() while true do end end}";
    ms_lua_state *ss = NULL;
    ms_policy *sp = NULL;
    if (ms_lua_state_load(rt, "=spin", spin, strlen(spin), NULL, &ss, &err) != MS_OK ||
        ms_policy_new(rt, ss, &sp, &err) != MS_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 2;
    }
    double worst = 0, sum = 0;
    for (int k = 0; k < 5; k++) {
        ms_status st;
        double t0 = wall_s();
        ms_policy_ops(sp)->score(sp, &c, nodes, NODES, lua, &st);
        double late = wall_s() - t0 - o.budget;
        sum += late;
        if (late > worst) worst = late;
        ms_arena_reset(&arena);
    }
    printf("watchdog: budget %.0f ms, compiled loop stopped %.1f ms after it on average "
           "(worst %.1f ms)\n", o.budget * 1e3, sum / 5 * 1e3, worst * 1e3);

    ms_policy_free(sp);
    ms_policy_free(p);
    ms_lua_runtime_free(rt);
    fit_ops->destroy(fit);
    for (int i = 0; i < NODES; i++) ms_node_info_free(nodes[i]);
    ms_pod_unref(pod);
    ms_arena_free(&arena);
    ms_interner_free(in);
    return diff ? 1 : 0;
}
