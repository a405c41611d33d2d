/* `moonsched policy check`: load a policy, then run every hook it defines
 * over a cluster's pending pods and nodes, timing each call. The calls go
 * through the same entry points the scheduler uses (ms_policy_ops and the
 * preemption entry points), on a snapshot built by the real cache. */
#include "base/array.h"
#include "policy/policy_check.h"

#include <cjson/cJSON.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "backend/cache.h"
#include "backend/queue.h"
#include "backend/cache_snapshot.h"
#include "moonsched/decode.h"
#include "moonsched/lua_policy.h"

enum { H_PRE_ENQUEUE, H_LESS, H_PRE_FILTER, H_FILTER, H_SCORE, H_RESERVE, H_UNRESERVE, H_PERMIT,
       H_SELECT_VICTIMS, H_PICK_PREEMPTION, H_COUNT };

static const char *const hook_names[H_COUNT] = {
    "pre_enqueue", "less", "pre_filter", "filter", "score", "reserve", "unreserve", "permit",
    "select_victims", "pick_preemption",
};

/* Hook bit of each H_ (normalize runs inside score). */
static const uint32_t hook_bits[H_COUNT] = {
    MS_LUA_HOOK_PRE_ENQUEUE, MS_LUA_HOOK_LESS, MS_LUA_HOOK_PRE_FILTER, MS_LUA_HOOK_FILTER,
    MS_LUA_HOOK_SCORE, MS_LUA_HOOK_RESERVE, MS_LUA_HOOK_UNRESERVE, MS_LUA_HOOK_PERMIT,
    MS_LUA_HOOK_SELECT_VICTIMS, MS_LUA_HOOK_PICK_PREEMPTION,
};

typedef struct timing {
    uint64_t calls, failures;
    double total, max;
} timing;

typedef struct checker {
    FILE *out;
    ms_interner *in;
    ms_decoder dec;
    ms_node **nodes;
    uint32_t nnodes, nodecap;
    ms_pod **pods;
    uint32_t npods, podcap;
    ms_lua_runtime *rt;
    ms_policy *p;
    timing t[H_COUNT];
    uint32_t nfail_shown;
    const ms_policy_check_options *o;
    uint32_t listed;                /* pods whose verdicts were printed */
} checker;

#define MAX_FAILURES_SHOWN 20

static ms_rc on_object(void *ctx, const char *kind, const cJSON *obj, ms_error *err) {
    checker *k = ctx;
    if (strcmp(kind, "Node") == 0) {
        ms_node *node = NULL;
        ms_rc rc = ms_node_decode(&k->dec, obj, &node, err);
        if (rc != MS_OK) return rc;
        if (!ms_array_grow((void **)&k->nodes, &k->nodecap, k->nnodes + 1, sizeof *k->nodes)) {
            ms_node_unref(node);
            return ms_error_set(err, MS_ENOMEM, "out of memory");
        }
        k->nodes[k->nnodes++] = node;
    } else if (strcmp(kind, "Pod") == 0) {
        ms_pod *pod = NULL;
        ms_rc rc = ms_pod_decode(&k->dec, obj, &pod, err);
        if (rc != MS_OK) return rc;
        if (!ms_array_grow((void **)&k->pods, &k->podcap, k->npods + 1, sizeof *k->pods)) {
            ms_pod_unref(pod);
            return ms_error_set(err, MS_ENOMEM, "out of memory");
        }
        k->pods[k->npods++] = pod;
    }
    return MS_OK;
}

static void check_log(void *ctx, ms_lua_log_level level, const char *policy, const char *msg) {
    static const char *const names[] = {"info", "warn", "error"};
    checker *k = ctx;
    (void)policy;
    /* Failures are reported by the dry run itself. */
    if (level == MS_LUA_LOG_ERROR && k->p) return;
    fprintf(k->out, "log %s: %s\n", names[level <= MS_LUA_LOG_ERROR ? level : 0], msg);
}

/* Runs one timed call; `fn` returns nothing, failures come from the stats. */
#define TIMED(k, h, pod, call)                                       \
    do {                                                             \
        ms_policy_stats before_;                                     \
        ms_policy_get_stats((k)->p, &before_);                       \
        double t0_ = ms_clock_monotonic();                           \
        call;                                                        \
        note((k), (h), (pod), ms_clock_monotonic() - t0_, before_.failures); \
    } while (0)

static void note(checker *k, int h, const ms_pod *pod, double dt, uint64_t failures_before) {
    timing *t = &k->t[h];
    t->calls++;
    t->total += dt;
    if (dt > t->max) t->max = dt;
    ms_policy_stats st;
    ms_policy_get_stats(k->p, &st);
    if (st.failures == failures_before) return;
    t->failures++;
    if (k->nfail_shown++ >= MAX_FAILURES_SHOWN) return;
    char key[300] = "";
    if (pod) ms_pod_key(pod, k->in, key, sizeof key);
    fprintf(k->out, "FAIL %s%s%s: %s\n", hook_names[h], *key ? " " : "", key,
            ms_policy_last_error(k->p));
}

static int cmp_priority(const void *a, const void *b) {
    const ms_pod *x = *(ms_pod *const *)a, *y = *(ms_pod *const *)b;
    if (x->priority != y->priority) return x->priority > y->priority ? -1 : 1;
    return 0;
}

/* Pods on a node with a lower priority than `pod`, lowest first: what
 * DefaultPreemption hands select_victims. */
static uint32_t candidates_on(const ms_node_info *ni, const ms_pod *pod, ms_pod **out) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < ni->npods; i++)
        if (ni->pods[i]->priority < pod->priority) out[n++] = ni->pods[i];
    for (uint32_t i = 1; i < n; i++)
        for (uint32_t j = i; j > 0 && out[j]->priority < out[j - 1]->priority; j--) {
            ms_pod *t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

/* Each node's verdict and score for the pod in hand: what the policy would
 * tell the scheduler. sts: Filter's statuses per node (NULL: no filter, all
 * pass); scores: per node that passed, in order (NULL: none, or Score
 * failed, which the failure lines above say). */
static void print_verdicts(checker *k, const ms_snapshot *snap, const ms_status *sts, const int64_t *scores,
                           bool has_score) {
    uint32_t j = 0, printed = 0, more_pass = 0, more_reject = 0;
    for (uint32_t i = 0; i < snap->nnodes; i++) {
        const char *name = ms_str_get(k->in, snap->nodes[i]->name);
        const ms_status *s = sts ? &sts[i] : NULL;
        bool pass = !s || s->code == MS_SUCCESS;
        int64_t score = pass && scores ? scores[j] : 0;
        j += pass;
        if (k->o->nodes && fnmatch(k->o->nodes, name, 0) != 0) continue;
        if (k->o->max_nodes && printed == k->o->max_nodes) {
            if (pass) more_pass++;
            else more_reject++;
            continue;
        }
        printed++;
        if (!pass) {
            const char *what = s->code == MS_UNSCHEDULABLE_AND_UNRESOLVABLE ? "reject!"
                               : s->code == MS_ERROR                        ? "error"
                                                                            : "reject";
            fprintf(k->out, "  %-24s %-8s %s\n", name, what, s->nreasons ? s->reasons[0] : "");
        } else if (scores) {
            fprintf(k->out, "  %-24s %-8s score %lld\n", name, "pass", (long long)score);
        } else {
            fprintf(k->out, "  %-24s %-8s%s\n", name, "pass", has_score ? " score -" : "");
        }
    }
    if (more_pass + more_reject)
        fprintf(k->out, "  (%u more nodes: %u pass, %u reject or error)\n", more_pass + more_reject, more_pass,
                more_reject);
}

/* Filter and Score over the snapshot; *best: the top-scoring feasible node
 * (the first feasible one without Score; MS_STR_NONE when none is). false
 * when out of memory. */
static bool dry_filter_score(checker *k, ms_cycle *c, const ms_snapshot *snap, ms_pod *pod,
                             uint32_t hooks, bool listed, ms_str *best) {
    const ms_plugin_ops *ops = ms_policy_ops(k->p);
    void *self = k->p;
    uint32_t n = snap->nnodes;
    ms_node_info **feasible = MS_ARENA_NEW(c->arena, ms_node_info *, n ? n : 1);
    ms_status *sts = MS_ARENA_NEW(c->arena, ms_status, n ? n : 1);
    if (!feasible || !sts) return false;
    uint32_t nfeasible = 0;
    if (hooks & MS_LUA_HOOK_FILTER) {
        TIMED(k, H_FILTER, pod, ops->filter_batch(self, c, snap->nodes, n, sts));
        for (uint32_t i = 0; i < n; i++)
            if (sts[i].code == MS_SUCCESS) feasible[nfeasible++] = snap->nodes[i];
    } else {
        for (uint32_t i = 0; i < n; i++) feasible[nfeasible++] = snap->nodes[i];
    }
    *best = nfeasible ? feasible[0]->name : MS_STR_NONE;
    int64_t *scores = NULL;
    ms_code code = MS_ERROR;
    if ((hooks & MS_LUA_HOOK_SCORE) && nfeasible > 0 &&
        (scores = MS_ARENA_NEW(c->arena, int64_t, nfeasible))) {
        ms_status st;
        ms_status_ok(&st);
        TIMED(k, H_SCORE, pod, code = ops->score(self, c, feasible, nfeasible, scores, &st));
        uint32_t top = 0;
        if (code == MS_SUCCESS)
            for (uint32_t i = 1; i < nfeasible; i++)
                if (scores[i] > scores[top]) top = i;
        if (code == MS_SUCCESS) *best = feasible[top]->name;
    }
    if (listed)
        print_verdicts(k, snap, (hooks & MS_LUA_HOOK_FILTER) ? sts : NULL, code == MS_SUCCESS ? scores : NULL,
                       (hooks & MS_LUA_HOOK_SCORE) != 0);
    return true;
}

/* Preemption: each node with lower-priority pods is an option, its victims
 * chosen by select_victims (all of them without it), then pick_preemption
 * over the options. */
static void dry_preemption(checker *k, ms_cycle *c, const ms_snapshot *snap, ms_pod *pod,
                           uint32_t hooks) {
    uint32_t n = snap->nnodes;
    ms_status st;
    ms_status_ok(&st);
    ms_preemption_option *options = MS_ARENA_NEW(c->arena, ms_preemption_option, n ? n : 1);
    if (!options) return;
    uint32_t noptions = 0;
    for (uint32_t i = 0; i < n; i++) {
        const ms_node_info *ni = snap->nodes[i];
        if (!ni->npods) continue;
        ms_pod **cands = MS_ARENA_NEW(c->arena, ms_pod *, ni->npods);
        uint32_t *picked = MS_ARENA_NEW(c->arena, uint32_t, ni->npods);
        if (!cands || !picked) return;
        uint32_t ncands = candidates_on(ni, pod, cands);
        if (ncands == 0) continue;
        uint32_t npicked = ncands;
        for (uint32_t j = 0; j < ncands; j++) picked[j] = j;
        if (hooks & MS_LUA_HOOK_SELECT_VICTIMS) {
            ms_code code = MS_SUCCESS;
            TIMED(k, H_SELECT_VICTIMS, pod,
                  code = ms_policy_select_victims(k->p, c, ni, cands, ncands, picked, &npicked, &st));
            if (code != MS_SUCCESS || npicked == 0) continue;
        }
        ms_pod **victims = MS_ARENA_NEW(c->arena, ms_pod *, npicked);
        if (!victims) return;
        for (uint32_t j = 0; j < npicked; j++) victims[j] = cands[picked[j]];
        options[noptions++] = (ms_preemption_option){ni, victims, npicked, 0};
    }
    if ((hooks & MS_LUA_HOOK_PICK_PREEMPTION) && noptions > 0) {
        uint32_t chosen = 0;
        TIMED(k, H_PICK_PREEMPTION, pod,
              ms_policy_pick_preemption(k->p, c, options, noptions, &chosen, &st));
    }
}

/* One pending pod through the policy's hooks, as a scheduling cycle. */
static void dry_cycle(checker *k, ms_cycle *c, const ms_snapshot *snap, ms_pod *pod, uint32_t hooks) {
    const ms_plugin_ops *ops = ms_policy_ops(k->p);
    void *self = k->p;
    c->pod = pod;
    c->cycle++;
    ms_arena_reset(c->arena);
    if (hooks & MS_LUA_HOOK_PRE_ENQUEUE) {
        const char *why = NULL;
        TIMED(k, H_PRE_ENQUEUE, pod, ops->pre_enqueue(self, pod, &why));
    }
    ms_status st;
    ms_status_ok(&st);
    char key[300];
    ms_pod_key(pod, k->in, key, sizeof key);
    /* --pods narrows what is printed, not what runs: the timings and the
     * failures stay the whole cluster's */
    bool listed = !k->o->pods || fnmatch(k->o->pods, key, 0) == 0;
    k->listed += listed;
    if (hooks & MS_LUA_HOOK_PRE_FILTER) {
        ms_code code = MS_SUCCESS;
        TIMED(k, H_PRE_FILTER, pod, code = ops->pre_filter(self, c, &st));
        if (code == MS_SKIP) {
            if (listed) fprintf(k->out, "pod %s: skipped (pre_filter)\n", key);
            return;
        }
        if (code != MS_SUCCESS && listed)
            fprintf(k->out, "pod %s: rejected by pre_filter: %s\n", key, st.nreasons ? st.reasons[0] : "");
    }
    if ((hooks & (MS_LUA_HOOK_FILTER | MS_LUA_HOOK_SCORE)) && listed) fprintf(k->out, "pod %s:\n", key);
    ms_str best;
    if (!dry_filter_score(k, c, snap, pod, hooks, listed, &best)) return;
    if (best != MS_STR_NONE) {
        if (hooks & MS_LUA_HOOK_RESERVE) TIMED(k, H_RESERVE, pod, ops->reserve(self, c, best, &st));
        if (hooks & MS_LUA_HOOK_PERMIT) {
            double wait = 0;
            TIMED(k, H_PERMIT, pod, ops->permit(self, c, best, &wait, &st));
        }
        if (hooks & MS_LUA_HOOK_UNRESERVE) TIMED(k, H_UNRESERVE, pod, ops->unreserve(self, c, best));
    }
    if (hooks & (MS_LUA_HOOK_SELECT_VICTIMS | MS_LUA_HOOK_PICK_PREEMPTION))
        dry_preemption(k, c, snap, pod, hooks);
}

static void print_hooks(FILE *out, uint32_t hooks) {
    static const struct {
        uint32_t bit;
        const char *name;
    } all[] = {
        {MS_LUA_HOOK_PRE_ENQUEUE, "pre_enqueue"}, {MS_LUA_HOOK_LESS, "less"},
        {MS_LUA_HOOK_PRE_FILTER, "pre_filter"},   {MS_LUA_HOOK_FILTER, "filter"},
        {MS_LUA_HOOK_SCORE, "score"},             {MS_LUA_HOOK_NORMALIZE, "normalize"},
        {MS_LUA_HOOK_RESERVE, "reserve"},         {MS_LUA_HOOK_UNRESERVE, "unreserve"},
        {MS_LUA_HOOK_PERMIT, "permit"},           {MS_LUA_HOOK_SELECT_VICTIMS, "select_victims"},
        {MS_LUA_HOOK_PICK_PREEMPTION, "pick_preemption"}, {MS_LUA_HOOK_PICK_DEVICES, "pick_devices"},
    };
    bool any = false;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (hooks & all[i].bit) {
            fprintf(out, "%s%s", any ? ", " : "", all[i].name);
            any = true;
        }
    if (!any) fprintf(out, "(none)");
    fputc('\n', out);
}

static void print_time(FILE *out, double s) {
    if (s < 1e-3) fprintf(out, "%9.1f us", s * 1e6);
    else fprintf(out, "%9.2f ms", s * 1e3);
}

/* "FAIL load FILE: ..." naming the file once: a load error names it
 * already, in full as given (ms_lua_state_load_file_ex), as "policy
 * FILE: " or "FILE:LINE: ", or the reader's "FILE: ". */
static void print_load_failure(FILE *out, const char *file, const char *msg) {
    size_t n = strlen(file);
    if (strncmp(msg, "policy ", 7) == 0 && strncmp(msg + 7, file, n) == 0 && strncmp(msg + 7 + n, ": ", 2) == 0)
        msg += 9 + n;
    if (strncmp(msg, file, n) == 0 && msg[n] == ':')
        fprintf(out, "FAIL load %s\n", msg);
    else
        fprintf(out, "FAIL load %s: %s\n", file, msg);
}

static ms_rc dry_run(checker *k, uint32_t hooks, ms_policy_check_result *r, ms_error *err) {
    ms_cache *cache = ms_cache_new(k->in, 0);
    if (!cache) return ms_error_set(err, MS_ENOMEM, "out of memory");
    ms_snapshot snap;
    ms_snapshot_init(&snap);
    ms_pod **pending = calloc(k->npods ? k->npods : 1, sizeof *pending);
    ms_rc rc = MS_OK;
    if (!pending) {
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        goto out;
    }
    for (uint32_t i = 0; i < k->nnodes; i++) ms_cache_add_node(cache, k->nodes[i]);
    uint32_t npending = 0;
    for (uint32_t i = 0; i < k->npods; i++) {
        ms_pod *p = k->pods[i];
        if (ms_pod_is_terminal(p)) continue;
        if (p->node_name != MS_STR_NONE) ms_cache_add_pod(cache, p);
        else pending[npending++] = p;
    }
    if ((rc = ms_cache_update_snapshot(cache, &snap)) != MS_OK) {
        ms_error_set(err, rc, "building the snapshot: out of memory");
        goto out;
    }
    /* The queue's order: priority, then the order in the files. */
    for (uint32_t i = 1; i < npending; i++)
        for (uint32_t j = i; j > 0 && cmp_priority(&pending[j], &pending[j - 1]) < 0; j--) {
            ms_pod *t = pending[j];
            pending[j] = pending[j - 1];
            pending[j - 1] = t;
        }
    r->pods = npending;
    r->nodes = snap.nnodes;
    fprintf(k->out, "dry run: %u pending pods, %u nodes\n", npending, snap.nnodes);
    ms_arena arena;
    ms_arena_init(&arena, 16384);
    ms_cycle c;
    memset(&c, 0, sizeof c);
    c.arena = &arena;
    c.snap = &snap;
    const ms_plugin_ops *ops = ms_policy_ops(k->p);
    if (hooks & MS_LUA_HOOK_LESS) {
        for (uint32_t i = 0; i + 1 < npending; i++) {
            ms_queued_pod a = {.pod = pending[i], .timestamp = i, .seq = i};
            ms_queued_pod b = {.pod = pending[i + 1], .timestamp = i + 1, .seq = i + 1};
            TIMED(k, H_LESS, pending[i], ops->less(k->p, &a, &b));
        }
    }
    for (uint32_t i = 0; i < npending; i++) dry_cycle(k, &c, &snap, pending[i], hooks);
    ms_arena_free(&arena);
    if (k->o->pods) fprintf(k->out, "pods listed: %u of %u (--pods %s)\n", k->listed, npending, k->o->pods);

    fprintf(k->out, "%-16s %8s %8s %12s %12s\n", "hook", "calls", "failed", "mean", "max");
    for (int h = 0; h < H_COUNT; h++) {
        const timing *t = &k->t[h];
        if (!(hooks & hook_bits[h])) continue;
        fprintf(k->out, "%-16s %8llu %8llu ", hook_names[h], (unsigned long long)t->calls,
                (unsigned long long)t->failures);
        print_time(k->out, t->calls ? t->total / (double)t->calls : 0);
        fputc(' ', k->out);
        print_time(k->out, t->max);
        fputc('\n', k->out);
        r->calls += t->calls;
        r->failures += t->failures;
    }
    if (k->nfail_shown > MAX_FAILURES_SHOWN)
        fprintf(k->out, "(%u more failures not shown)\n", k->nfail_shown - MAX_FAILURES_SHOWN);
out:
    free(pending);
    ms_snapshot_free(&snap);
    ms_cache_free(cache);
    return rc;
}

ms_rc ms_policy_check(const ms_policy_check_options *o, FILE *out, ms_policy_check_result *res,
                      ms_error *err) {
    ms_policy_check_result r;
    memset(&r, 0, sizeof r);
    checker k;
    memset(&k, 0, sizeof k);
    k.out = out;
    k.o = o;
    cJSON *args = NULL;
    ms_rc rc = MS_OK;
    if (!(k.in = ms_interner_new())) return ms_error_set(err, MS_ENOMEM, "out of memory");
    ms_decoder_init(&k.dec, k.in);
    if (o->args_json) {
        if ((rc = ms_json_parse(o->args_json, strlen(o->args_json), &args, err)) != MS_OK) {
            ms_error_prefix(err, "--args");
            goto done;
        }
        if (!cJSON_IsObject(args)) {
            rc = ms_error_set(err, MS_EINVAL, "--args: the policy's args are a JSON object");
            goto done;
        }
    }
    for (uint32_t i = 0; i < o->ncluster_files; i++)
        if ((rc = ms_load_objects_file(o->cluster_files[i], on_object, &k, err)) != MS_OK) goto done;

    ms_lua_options lo;
    ms_lua_options_default(&lo);
    if (o->budget > 0) lo.budget = o->budget;
    if (o->memory) lo.memory = o->memory;
    lo.max_failures = 0;           /* every call runs, however many fail */
    lo.log = check_log;
    lo.log_ctx = &k;
    if ((rc = ms_lua_runtime_new(&lo, k.in, &k.rt, err)) != MS_OK) goto done;
    ms_lua_state *s = NULL;
    double t0 = ms_clock_monotonic();
    ms_lua_limits lim;
    ms_lua_limits_default(&lim);
    lim.init_budget = o->init_budget;
    rc = ms_lua_state_load_file_ex(k.rt, &lim, o->file, args, &s, err);
    double load_time = ms_clock_monotonic() - t0;
    if (rc != MS_OK) {
        print_load_failure(out, o->file, err->msg);
        goto done;
    }
    r.loaded = true;
    r.hooks = ms_lua_state_hooks(s);
    fprintf(out, "policy %s (%s): loaded and initialised in %.1f ms, %zu KiB\n", ms_lua_state_name(s),
            o->file, load_time * 1e3, ms_lua_state_memory(s) >> 10);
    fprintf(out, "hooks: ");
    print_hooks(out, r.hooks);
    if ((rc = ms_policy_new(k.rt, s, &k.p, err)) != MS_OK) goto done;
    if (o->ncluster_files == 0) {
        fprintf(out, "no --cluster: the hooks were not run\n");
    } else {
        if ((rc = dry_run(&k, r.hooks, &r, err)) != MS_OK) goto done;
        fprintf(out, "memory after the run: %zu KiB\n", ms_lua_state_memory(ms_policy_state(k.p)) >> 10);
        if (r.failures) {
            fprintf(out, "result: %llu of %llu calls failed\n", (unsigned long long)r.failures,
                    (unsigned long long)r.calls);
            rc = ms_error_set(err, MS_EINVAL, "%s: %llu of %llu calls failed", o->file,
                              (unsigned long long)r.failures, (unsigned long long)r.calls);
            goto done;
        }
        fprintf(out, "result: ok\n");
    }
done:
    if (res) *res = r;
    ms_policy_free(k.p);
    ms_lua_runtime_free(k.rt);
    cJSON_Delete(args);
    for (uint32_t i = 0; i < k.nnodes; i++) ms_node_unref(k.nodes[i]);
    free(k.nodes);
    for (uint32_t i = 0; i < k.npods; i++) ms_pod_unref(k.pods[i]);
    free(k.pods);
    ms_interner_free(k.in);
    return rc;
}
