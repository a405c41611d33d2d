/* A policy as a framework plugin: the stable handle (ms_policy) around the
 * running version of a policy, the extension points wired to the hooks it
 * defines, the frame filled per call and the result read back, failure
 * counting and disabling. */
#include "policy/policy_plugin.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/lua_runtime.h"
#include "policy/lua_state.h"
#include "backend/queue.h"

struct ms_policy {
    ms_plugin_ops ops;
    ms_lua_runtime *rt;
    ms_lua_state *cur;
    bool disabled;
    uint8_t on_error;              /* ms_policy_on_error */
    uint32_t max_failures;
    ms_policy_stats stats;         /* consecutive: see streak */
    /* Failures since the last success, per hook: a hook that always fails
     * disables the policy however often the others succeed. */
    uint32_t streak[MS_LUA_NOPS];
    ms_str fail_reason;            /* the last failure, interned for statuses */
    char name[128];                /* the plugin name */
    char last_error[512];
    /* No version loaded yet (ms_policy_new_unloaded): cur is NULL, every
     * point is neutral, and PreFilter rejects unless fail_open. */
    bool fail_open;
    char load_error[640];
};

/* Disabled, or no version loaded: the points answer neutrally. */
static bool idle(const ms_policy *p) { return p->disabled || !p->cur; }
/* No version loaded and fail closed: the points refuse every pod. */
static bool closed(const ms_policy *p) { return !p->cur && !p->fail_open; }

static bool pol_idle(void *self) { return idle(self); }

static ms_code pol_pre_filter(void *self, ms_cycle *c, ms_status *st);
static ms_code pol_filter_batch(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                                ms_status *statuses);
static ms_code pol_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                         int64_t *scores, ms_status *st);
static ms_code pol_reserve(void *self, ms_cycle *c, ms_str node, ms_status *st);
static void pol_unreserve(void *self, ms_cycle *c, ms_str node);
static ms_code pol_permit(void *self, ms_cycle *c, ms_str node, double *timeout, ms_status *st);
static ms_code pol_add_pod(void *self, ms_cycle *c, ms_pod *const *pods, uint32_t n,
                           const ms_node_info *ni, ms_status *st);
static ms_code pol_remove_pod(void *self, ms_cycle *c, ms_pod *const *pods, uint32_t n,
                              const ms_node_info *ni, ms_status *st);
static bool pol_pre_enqueue(void *self, const ms_pod *pod, const char **reason);
static bool pol_less(void *self, const ms_queued_pod *a, const ms_queued_pod *b);

/* The extension points a version with `hooks` serves: an entry per hook
 * it defines, none for the others, so that the framework calls nothing in
 * vain and a reload that adds or removes hooks changes the points (after
 * the scheduler re-derives them, ms_scheduler_plugin_reloaded). */
static void wire(const ms_policy *p, uint32_t h, ms_plugin_ops *o) {
    memset(o, 0, sizeof *o);
    o->name = p->name;
    o->ctx = (void *)p;
    /* Any cluster event may change a policy's mind (0: all). */
    o->events = 0;
    if (h & MS_LUA_HOOK_PRE_ENQUEUE) o->pre_enqueue = pol_pre_enqueue;
    if (h & MS_LUA_HOOK_LESS) o->less = pol_less;
    if (h & MS_LUA_HOOK_PRE_FILTER) o->pre_filter = pol_pre_filter;
    if (h & MS_LUA_HOOK_FILTER) o->filter_batch = pol_filter_batch;
    if (h & MS_LUA_HOOK_SCORE) o->score = pol_score;
    if (h & MS_LUA_HOOK_RESERVE) o->reserve = pol_reserve;
    if (h & MS_LUA_HOOK_UNRESERVE) o->unreserve = pol_unreserve;
    /* The framework runs Unreserve only for plugins at the Reserve point. */
    if ((h & MS_LUA_HOOK_UNRESERVE) && !(h & MS_LUA_HOOK_RESERVE)) o->reserve = pol_reserve;
    if (h & MS_LUA_HOOK_PERMIT) o->permit = pol_permit;
    if (h & MS_LUA_HOOK_ADD_POD) o->add_pod = pol_add_pod;
    if (h & MS_LUA_HOOK_REMOVE_POD) o->remove_pod = pol_remove_pod;
    o->idle = pol_idle;
}

ms_rc ms_policy_new_ex(ms_lua_runtime *rt, ms_lua_state *first, const char *plugin_name,
                       const ms_lua_limits *lim, ms_policy **out, ms_error *err) {
    *out = NULL;
    const char *name = plugin_name && *plugin_name ? plugin_name : first->name;
    if (strlen(name) >= sizeof ((ms_policy *)0)->name) {
        ms_lua_state_free(first);
        return ms_error_set(err, MS_EINVAL, "policy: the name \"%.40s...\" is too long", name);
    }
    ms_policy *p = calloc(1, sizeof *p);
    if (!p) {
        ms_lua_state_free(first);
        return ms_error_set(err, MS_ENOMEM, "policy: out of memory");
    }
    p->rt = rt;
    p->cur = first;
    snprintf(p->name, sizeof p->name, "%s", name);
    p->on_error = lim && lim->on_error >= 0 ? (uint8_t)lim->on_error : rt->o.on_error;
    p->max_failures = lim && lim->max_failures >= 0 ? (uint32_t)lim->max_failures
                                                    : rt->o.max_failures;
    wire(p, first->hooks, &p->ops);
    *out = p;
    return MS_OK;
}

ms_rc ms_policy_new(ms_lua_runtime *rt, ms_lua_state *first, ms_policy **out, ms_error *err) {
    return ms_policy_new_ex(rt, first, NULL, NULL, out, err);
}

ms_rc ms_policy_new_unloaded(ms_lua_runtime *rt, const char *plugin_name, const ms_lua_limits *lim,
                             bool fail_open, uint32_t neutral_hooks, const char *why, ms_policy **out,
                             ms_error *err) {
    *out = NULL;
    if (strlen(plugin_name) >= sizeof ((ms_policy *)0)->name)
        return ms_error_set(err, MS_EINVAL, "policy: the name \"%.40s...\" is too long", plugin_name);
    ms_policy *p = calloc(1, sizeof *p);
    if (!p) return ms_error_set(err, MS_ENOMEM, "policy: out of memory");
    p->rt = rt;
    snprintf(p->name, sizeof p->name, "%s", plugin_name);
    p->on_error = lim && lim->on_error >= 0 ? (uint8_t)lim->on_error : rt->o.on_error;
    p->max_failures = lim && lim->max_failures >= 0 ? (uint32_t)lim->max_failures : rt->o.max_failures;
    p->fail_open = fail_open;
    snprintf(p->load_error, sizeof p->load_error, "%s did not load: %s", plugin_name, why);
    snprintf(p->last_error, sizeof p->last_error, "%.500s", p->load_error);
    p->stats.reloads_failed = 1;
    /* Closed at every point that can stop a pod (the framework keeps
     * those the configuration enables the plugin at). */
    uint32_t hooks = neutral_hooks;
    if (!fail_open)
        hooks |= MS_LUA_HOOK_PRE_FILTER | MS_LUA_HOOK_FILTER | MS_LUA_HOOK_RESERVE | MS_LUA_HOOK_PERMIT;
    wire(p, hooks, &p->ops);
    *out = p;
    return MS_OK;
}

const char *ms_policy_load_error(const ms_policy *p) { return p->cur ? NULL : p->load_error; }
bool ms_policy_fail_open(const ms_policy *p) { return p->fail_open; }

void ms_policy_free(ms_policy *p) {
    if (!p) return;
    ms_lua_state_free(p->cur);
    free(p);
}

ms_lua_state *ms_policy_swap(ms_policy *p, ms_lua_state *next) {
    ms_lua_state *old = p->cur;
    p->cur = next;
    p->disabled = false;
    memset(p->streak, 0, sizeof p->streak);
    p->stats.reloads_ok++;
    wire(p, next->hooks, &p->ops);
    return old;
}

void ms_policy_ops_for(const ms_policy *p, uint32_t hooks, ms_plugin_ops *out) {
    wire(p, hooks, out);
}

void ms_policy_reload_failed(ms_policy *p) { p->stats.reloads_failed++; }

const ms_lua_state *ms_policy_state(const ms_policy *p) { return p->cur; }
const ms_plugin_ops *ms_policy_ops(ms_policy *p) { return &p->ops; }
const char *ms_policy_name(const ms_policy *p) { return p->name; }
uint32_t ms_policy_hooks(const ms_policy *p) { return p->cur ? p->cur->hooks : 0; }
bool ms_policy_disabled(const ms_policy *p) { return p->disabled; }
const char *ms_policy_last_error(const ms_policy *p) { return p->last_error; }
void ms_policy_get_stats(const ms_policy *p, ms_policy_stats *out) {
    *out = p->stats;
    out->consecutive = 0;
    for (uint32_t op = 0; op < MS_LUA_NOPS; op++)
        if (p->streak[op] > out->consecutive) out->consecutive = p->streak[op];
}

/* The hook behind each operation, for messages. */
static const char *const op_hook[MS_LUA_NOPS] = {
    [MS_LUA_OP_PRE_ENQUEUE] = "pre_enqueue", [MS_LUA_OP_LESS] = "less",
    [MS_LUA_OP_PRE_FILTER] = "pre_filter",   [MS_LUA_OP_FILTER] = "filter",
    [MS_LUA_OP_SCORE] = "score",             [MS_LUA_OP_RESERVE] = "reserve",
    [MS_LUA_OP_UNRESERVE] = "unreserve",     [MS_LUA_OP_PERMIT] = "permit",
    [MS_LUA_OP_SELECT_VICTIMS] = "select_victims",
    [MS_LUA_OP_PICK_PREEMPTION] = "pick_preemption",
    [MS_LUA_OP_DESCHEDULE] = "deschedule",   [MS_LUA_OP_EVICTABLE] = "evictable",
    [MS_LUA_OP_ADD_POD] = "add_pod",         [MS_LUA_OP_REMOVE_POD] = "remove_pod",
    [MS_LUA_OP_PICK_DEVICES] = "pick_devices",
};

/* Starts a call: frame cleared of the last call's arguments. */
static ms_lua_frame *begin(ms_policy *p, const ms_cycle *c) {
    ms_lua_frame *f = &p->cur->frame;
    double epoch = f->epoch;
    ms_lua_state *s = f->state;
    const ms_lua_api *api = f->api;
    memset(f, 0, sizeof *f);
    f->epoch = epoch;
    f->state = s;
    f->api = api;
    if (c) {
        f->cycle = (double)c->cycle;
        f->snap = c->snap;
        f->pod = c->pod;
        f->dry = c->dry;
        f->dry_base = c->dry_base;
    }
    return f;
}

/* Runs the call; on failure counts it, and past max_failures disables
 * the policy. Returns 0 or -1. */
static int run(ms_policy *p, ms_lua_op op) {
    ms_lua_state *s = p->cur;
    bool killed, oom;
    p->stats.calls++;
    if (ms_lua_state_call(s, op, &killed, &oom) == 0) {
        p->streak[op] = 0;
        return 0;
    }
    p->stats.failures++;
    uint32_t streak = ++p->streak[op];
    if (killed) p->stats.budget_kills++;
    if (oom) p->stats.memory_errors++;
    snprintf(p->last_error, sizeof p->last_error, "%s", s->err);
    p->fail_reason = ms_lua_reason(s, s->err, strlen(s->err));
    ms_lua_runtime *rt = p->rt;
    /* The log line is tagged with the policy already. */
    size_t skip = strlen("policy ") + strlen(s->name) + 2;
    ms_lua_runtime_log(rt, MS_LUA_LOG_ERROR, p->name, strlen(s->err) > skip ? s->err + skip : s->err);
    uint32_t max = p->max_failures;
    if (max && streak >= max && !p->disabled) {
        p->disabled = true;
        p->stats.disabled++;
        char why[640];
        snprintf(why, sizeof why, "disabled after %u consecutive failures of %s; the last: %s",
                 streak, op_hook[op], s->err);
        rt->o.log(rt->o.log_ctx, MS_LUA_LOG_ERROR, p->name, why);
        if (rt->o.disabled) rt->o.disabled(rt->o.disabled_ctx, p, why);
    }
    return -1;
}

static const char *fail_text(const ms_policy *p) {
    return p->fail_reason ? ms_str_get(p->rt->in, p->fail_reason) : p->last_error;
}

static bool skipping(const ms_policy *p) { return p->on_error == MS_POLICY_SKIP; }

static bool pol_pre_enqueue(void *self, const ms_pod *pod, const char **reason) {
    ms_policy *p = self;
    if (idle(p)) return true;
    ms_lua_frame *f = begin(p, NULL);
    f->pod = pod;
    if (run(p, MS_LUA_OP_PRE_ENQUEUE) != 0) {
        if (skipping(p)) return true;
        if (reason) *reason = fail_text(p);
        return false;
    }
    if (f->result != MS_LUA_PRE_ENQUEUE_REJECT) return true;
    if (reason) *reason = f->reason ? ms_str_get(p->rt->in, f->reason) : NULL;
    return false;
}

/* PrioritySort's order, for a disabled or failing QueueSort policy. */
static bool fallback_less(const ms_queued_pod *a, const ms_queued_pod *b) {
    if (a->pod->priority != b->pod->priority) return a->pod->priority > b->pod->priority;
    return a->timestamp < b->timestamp;
}

static bool pol_less(void *self, const ms_queued_pod *a, const ms_queued_pod *b) {
    ms_policy *p = self;
    if (idle(p)) return fallback_less(a, b);
    ms_lua_frame *f = begin(p, NULL);
    f->pod = a->pod;
    f->pod2 = b->pod;
    if (run(p, MS_LUA_OP_LESS) != 0) return fallback_less(a, b);
    return f->result != MS_LUA_LESS_NOT_BEFORE;
}

static ms_code reject(ms_policy *p, ms_status *st) {
    ms_status_set(st, MS_UNSCHEDULABLE, fail_text(p));
    return MS_UNSCHEDULABLE;
}

static ms_code pol_pre_filter(void *self, ms_cycle *c, ms_status *st) {
    ms_policy *p = self;
    /* Fail closed: a policy may encode isolation, so a profile whose
     * policy did not load places nothing (and preempts nothing for it). */
    if (closed(p)) return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE, p->load_error);
    if (idle(p)) return MS_SKIP;
    ms_lua_frame *f = begin(p, c);
    if (run(p, MS_LUA_OP_PRE_FILTER) != 0) return skipping(p) ? MS_SKIP : reject(p, st);
    switch (f->result) {
    case MS_LUA_PRE_FILTER_PASS: return MS_SUCCESS;
    case MS_LUA_PRE_FILTER_SKIP:
        /* "skip" skips this policy's Score too: the framework skips Filter
         * for a PreFilter Skip, Score for a PreScore one. */
        if (c->current < 64) c->skip_score |= 1ull << c->current;
        return MS_SKIP;
    default: break;
    }
    ms_code code = f->result == MS_LUA_PRE_FILTER_REJECT_UNRESOLVABLE
                       ? MS_UNSCHEDULABLE_AND_UNRESOLVABLE
                       : MS_UNSCHEDULABLE;
    return ms_status_set(st, code, f->reason ? ms_str_get(p->rt->in, f->reason) : NULL);
}

#define FEW_NODES 8

static ms_code pol_filter_batch(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                                ms_status *statuses) {
    ms_policy *p = self;
    if (closed(p)) {
        for (uint32_t i = 0; i < n; i++) ms_status_set(&statuses[i], MS_UNSCHEDULABLE_AND_UNRESOLVABLE, p->load_error);
        return MS_SUCCESS;
    }
    if (idle(p) || n == 0) {
        for (uint32_t i = 0; i < n; i++) ms_status_ok(&statuses[i]);
        return MS_SUCCESS;
    }
    /* A dry run asks about one node at a time, many times per cycle: its
     * results go on the stack rather than into the cycle's arena. */
    uint8_t few_codes[FEW_NODES];
    ms_str few_reasons[FEW_NODES];
    uint8_t *codes = n <= FEW_NODES ? few_codes : MS_ARENA_NEW(c->arena, uint8_t, n);
    ms_str *reasons = n <= FEW_NODES ? few_reasons : MS_ARENA_NEW(c->arena, ms_str, n);
    if (!codes || !reasons) {
        for (uint32_t i = 0; i < n; i++) ms_status_set(&statuses[i], MS_ERROR, "out of memory");
        return MS_ERROR;
    }
    ms_lua_frame *f = begin(p, c);
    f->nodes = nodes;
    f->n = n;
    f->codes = codes;
    f->reasons = reasons;
    if (run(p, MS_LUA_OP_FILTER) != 0) {
        bool skip = skipping(p);
        const char *why = fail_text(p);
        for (uint32_t i = 0; i < n; i++) {
            if (skip) ms_status_ok(&statuses[i]);
            else ms_status_set(&statuses[i], MS_UNSCHEDULABLE, why);
        }
        return MS_SUCCESS;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (codes[i] == MS_LUA_FILTER_PASS) {
            ms_status_ok(&statuses[i]);
            continue;
        }
        ms_code code = codes[i] == MS_LUA_FILTER_REJECT_UNRESOLVABLE
                           ? MS_UNSCHEDULABLE_AND_UNRESOLVABLE
                           : MS_UNSCHEDULABLE;
        ms_status_set(&statuses[i], code, ms_str_get(p->rt->in, reasons[i]));
    }
    return MS_SUCCESS;
}

void ms_lua_normalize(const double *raw, uint32_t n, int64_t *out) {
    if (n == 0) return;
    double lo = 0, hi = raw[0];
    for (uint32_t i = 0; i < n; i++) {
        if (raw[i] < lo) lo = raw[i];
        if (raw[i] > hi) hi = raw[i];
    }
    if (!(hi > lo)) {
        for (uint32_t i = 0; i < n; i++) out[i] = 0;
        return;
    }
    double k = (double)MS_MAX_NODE_SCORE / (hi - lo);
    for (uint32_t i = 0; i < n; i++) out[i] = (int64_t)llround((raw[i] - lo) * k);
}

static ms_code pol_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                         int64_t *scores, ms_status *st) {
    ms_policy *p = self;
    if (idle(p) || n == 0) {
        for (uint32_t i = 0; i < n; i++) scores[i] = 0;
        return MS_SUCCESS;
    }
    double *raw = MS_ARENA_NEW(c->arena, double, n);
    if (!raw) return ms_status_set(st, MS_ERROR, "out of memory");
    ms_lua_frame *f = begin(p, c);
    f->nodes = nodes;
    f->n = n;
    f->scores = raw;
    if (run(p, MS_LUA_OP_SCORE) != 0) {
        for (uint32_t i = 0; i < n; i++) scores[i] = 0;
        if (skipping(p)) return MS_SUCCESS;
        return ms_status_set(st, MS_ERROR, fail_text(p));
    }
    if (f->result == MS_LUA_SCORE_RAW) {
        ms_lua_normalize(raw, n, scores);
        return MS_SUCCESS;
    }
    for (uint32_t i = 0; i < n; i++) {
        double v = raw[i];
        if (!(v >= MS_MIN_NODE_SCORE && v <= MS_MAX_NODE_SCORE)) {
            char buf[256];
            snprintf(buf, sizeof buf, "policy %s: normalize left a score of %g, outside [0, 100]",
                     p->name, v);
            return ms_status_set(st, MS_ERROR, ms_str_get(p->rt->in, ms_lua_reason(p->cur, buf, strlen(buf))));
        }
        scores[i] = (int64_t)llround(v);
    }
    return MS_SUCCESS;
}

/* add_pod/remove_pod: pods changed on a dry run's copy of a node. A
 * failure rules the node out of the dry run (onError reject) or is
 * ignored (skip). */
static ms_code pre_filter_extension(ms_policy *p, ms_lua_op op, ms_cycle *c, ms_pod *const *pods,
                                    uint32_t n, const ms_node_info *ni, ms_status *st) {
    if (idle(p) || n == 0) return MS_SUCCESS;
    ms_lua_frame *f = begin(p, c);
    f->cands = pods;
    f->ncands = n;
    f->node = ni;
    if (run(p, op) != 0) return skipping(p) ? MS_SUCCESS : reject(p, st);
    return MS_SUCCESS;
}

static ms_code pol_add_pod(void *self, ms_cycle *c, ms_pod *const *pods, uint32_t n,
                           const ms_node_info *ni, ms_status *st) {
    return pre_filter_extension(self, MS_LUA_OP_ADD_POD, c, pods, n, ni, st);
}

static ms_code pol_remove_pod(void *self, ms_cycle *c, ms_pod *const *pods, uint32_t n,
                              const ms_node_info *ni, ms_status *st) {
    return pre_filter_extension(self, MS_LUA_OP_REMOVE_POD, c, pods, n, ni, st);
}

static ms_code pol_reserve(void *self, ms_cycle *c, ms_str node, ms_status *st) {
    ms_policy *p = self;
    if (closed(p)) return ms_status_set(st, MS_UNSCHEDULABLE, p->load_error);
    if (idle(p) || !(p->cur->hooks & MS_LUA_HOOK_RESERVE)) return MS_SUCCESS;
    ms_lua_frame *f = begin(p, c);
    f->node_name = node;
    if (run(p, MS_LUA_OP_RESERVE) != 0) return skipping(p) ? MS_SUCCESS : reject(p, st);
    if (f->result == MS_LUA_RESERVE_OK) return MS_SUCCESS;
    return ms_status_set(st, MS_UNSCHEDULABLE,
                         f->reason ? ms_str_get(p->rt->in, f->reason) : NULL);
}

static void pol_unreserve(void *self, ms_cycle *c, ms_str node) {
    ms_policy *p = self;
    if (idle(p)) return;
    ms_lua_frame *f = begin(p, c);
    f->node_name = node;
    run(p, MS_LUA_OP_UNRESERVE);
}

static ms_code pol_permit(void *self, ms_cycle *c, ms_str node, double *timeout, ms_status *st) {
    ms_policy *p = self;
    *timeout = 0;
    if (closed(p)) return ms_status_set(st, MS_UNSCHEDULABLE, p->load_error);
    if (idle(p)) return MS_SUCCESS;
    ms_lua_frame *f = begin(p, c);
    f->node_name = node;
    if (run(p, MS_LUA_OP_PERMIT) != 0) return skipping(p) ? MS_SUCCESS : reject(p, st);
    switch (f->result) {
    case MS_LUA_PERMIT_ALLOW: return MS_SUCCESS;
    case MS_LUA_PERMIT_WAIT: *timeout = f->number; return ms_status_set(st, MS_WAIT, NULL);
    default: break;
    }
    return ms_status_set(st, MS_UNSCHEDULABLE,
                         f->reason ? ms_str_get(p->rt->in, f->reason) : NULL);
}

ms_code ms_policy_select_victims(ms_policy *p, ms_cycle *c, const ms_node_info *ni,
                                 ms_pod *const *candidates, uint32_t ncandidates,
                                 uint32_t *victims, uint32_t *nvictims, ms_status *st) {
    *nvictims = 0;
    if (idle(p) || !(p->cur->hooks & MS_LUA_HOOK_SELECT_VICTIMS)) return MS_SKIP;
    ms_lua_frame *f = begin(p, c);
    f->node = ni;
    f->cands = candidates;
    f->ncands = ncandidates;
    f->picked = victims;
    if (run(p, MS_LUA_OP_SELECT_VICTIMS) != 0) {
        if (skipping(p)) return MS_SKIP;
        return ms_status_set(st, MS_ERROR, fail_text(p));
    }
    if (f->result == MS_LUA_SELECT_VICTIMS_NONE) return ms_status_set(st, MS_UNSCHEDULABLE, NULL);
    *nvictims = f->npicked;
    return MS_SUCCESS;
}

ms_code ms_policy_pick_preemption(ms_policy *p, ms_cycle *c, const ms_preemption_option *options,
                                  uint32_t noptions, uint32_t *chosen, ms_status *st) {
    *chosen = 0;
    if (idle(p) || noptions == 0 || !(p->cur->hooks & MS_LUA_HOOK_PICK_PREEMPTION))
        return MS_SKIP;
    ms_lua_frame *f = begin(p, c);
    f->options = options;
    f->noptions = noptions;
    if (run(p, MS_LUA_OP_PICK_PREEMPTION) != 0) {
        if (skipping(p)) return MS_SKIP;
        return ms_status_set(st, MS_ERROR, fail_text(p));
    }
    if (f->result < MS_LUA_PICK_PREEMPTION_FIRST) return MS_SKIP;
    *chosen = (uint32_t)(f->result - MS_LUA_PICK_PREEMPTION_FIRST);
    return MS_SUCCESS;
}

ms_code ms_policy_pick_devices(ms_policy *p, ms_cycle *c, const ms_node_info *ni,
                               const ms_device_option *options, uint32_t noptions, uint32_t *chosen,
                               ms_status *st) {
    *chosen = 0;
    if (idle(p) || noptions == 0 || !(p->cur->hooks & MS_LUA_HOOK_PICK_DEVICES)) return MS_SKIP;
    ms_lua_frame *f = begin(p, c);
    f->node = ni;
    f->devices = options;
    f->noptions = noptions;
    if (run(p, MS_LUA_OP_PICK_DEVICES) != 0) {
        if (skipping(p)) return MS_SKIP;
        return ms_status_set(st, MS_ERROR, fail_text(p));
    }
    if (f->result < MS_LUA_PICK_DEVICES_FIRST || (uint32_t)(f->result - MS_LUA_PICK_DEVICES_FIRST) >= noptions)
        return MS_SKIP;
    *chosen = (uint32_t)(f->result - MS_LUA_PICK_DEVICES_FIRST);
    return MS_SUCCESS;
}

ms_code ms_policy_deschedule(ms_policy *p, ms_node_info *const *nodes, uint32_t nnodes,
                             ms_pod *const *pods, uint32_t npods, uint32_t *picked, ms_str *reasons,
                             uint32_t *npicked, ms_status *st) {
    *npicked = 0;
    if (idle(p) || !(p->cur->hooks & MS_LUA_HOOK_DESCHEDULE)) return MS_SKIP;
    ms_lua_frame *f = begin(p, NULL);
    f->nodes = nodes;
    f->n = nnodes;
    f->cands = pods;
    f->ncands = npods;
    f->picked = picked;
    f->reasons = reasons;
    if (run(p, MS_LUA_OP_DESCHEDULE) != 0) {
        if (skipping(p)) return MS_SKIP;
        return ms_status_set(st, MS_ERROR, fail_text(p));
    }
    if (f->result == MS_LUA_DESCHEDULE_PICKED) *npicked = f->npicked;
    return MS_SUCCESS;
}

ms_code ms_policy_evictable(ms_policy *p, const ms_pod *pod, ms_status *st) {
    if (idle(p) || !(p->cur->hooks & MS_LUA_HOOK_EVICTABLE)) return MS_SKIP;
    ms_lua_frame *f = begin(p, NULL);
    f->pod = pod;
    if (run(p, MS_LUA_OP_EVICTABLE) != 0) {
        if (skipping(p)) return MS_SKIP;
        return ms_status_set(st, MS_ERROR, fail_text(p));
    }
    if (f->result == MS_LUA_EVICTABLE_YES) return MS_SUCCESS;
    return ms_status_set(st, MS_UNSCHEDULABLE, f->reason ? ms_str_get(p->rt->in, f->reason) : NULL);
}
