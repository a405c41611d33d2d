/* One scheduling cycle (upstream's scheduleOne and genericScheduler):
 * pop, snapshot, PreFilter, Filter from a rotating start index until enough
 * feasible nodes are found, PostFilter and the FitError when none is, else
 * PreScore, Score, selectHost, assume, Reserve, Permit, PreBind, Bind.
 *
 * The Filter loop is the hot path: per node it makes one framework call
 * and writes one status into a reused array. Nothing per node allocates,
 * compares strings or locks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cache.h"
#include "backend/queue.h"
#include "base/array.h"
#include "base/clock.h"
#include "framework/metrics_recorder.h"
#include "framework/runners.h"
#include "moonsched/scheduler.h"
#include "scheduler/cycle_observer.h"
#include "scheduler/scheduler_metrics.h"
#include "scheduler/scheduler_priv.h"

/* upstream minFeasibleNodesToFind and minFeasibleNodesPercentageToFind */
#define MIN_FEASIBLE_NODES 100u
#define MIN_FEASIBLE_PERCENTAGE 5
#define BASE_PERCENTAGE 50

uint32_t ms_num_feasible_nodes_to_find(int32_t percentage, uint32_t num_all_nodes) {
    if (num_all_nodes < MIN_FEASIBLE_NODES || percentage >= 100) return num_all_nodes;
    int64_t pct = percentage;
    if (pct <= 0) {
        pct = BASE_PERCENTAGE - (int64_t)num_all_nodes / 125;
        if (pct < MIN_FEASIBLE_PERCENTAGE) pct = MIN_FEASIBLE_PERCENTAGE;
    }
    uint64_t n = (uint64_t)num_all_nodes * (uint64_t)pct / 100;
    return n < MIN_FEASIBLE_NODES ? MIN_FEASIBLE_NODES : (uint32_t)n;
}

uint32_t ms_select_host(ms_rng *rng, const int64_t *totals, uint32_t n) {
    uint32_t selected = 0, ties = 1;
    int64_t best = totals[0];
    for (uint32_t i = 1; i < n; i++) {
        if (totals[i] > best) {
            best = totals[i];
            selected = i;
            ties = 1;
        } else if (totals[i] == best) {
            /* Keeps each of the `ties` candidates with probability 1/ties. */
            if (ms_rng_below(rng, ++ties) == 0) selected = i;
        }
    }
    return selected;
}

/* scheduler_framework_extension_point_duration_seconds around a runner:
 * no clock is read when the scheduler records no metrics. */
static double point_start(const ms_cycle *c) { return c->rec ? ms_clock_monotonic() : 0; }
static void point_done(const ms_cycle *c, ms_extension_point ep, ms_code code, double t0) {
    if (c->rec) ms_metrics_recorder_point(c->rec, ep, code, ms_clock_monotonic() - t0);
}

/* plugin_evaluation_total of a Filter pass through `plan` (upstream counts
 * each plugin call per node): a node reached every plugin up to the one
 * that rejected it. Counted after the pass, so that the loop over nodes
 * stays as it is; when every node passed (`found` of `processed`), each
 * plugin saw them all and no status needs a look. */
static void count_filter_rejections(const ms_cycle *c, const ms_filter_plan *plan, const ms_status *statuses,
                                    uint32_t n, uint32_t start, uint32_t processed);

static void count_filter_evaluations(const ms_cycle *c, const ms_filter_plan *plan, const ms_status *statuses,
                                     uint32_t n, uint32_t start, uint32_t processed, uint32_t found) {
    if (found < processed) {
        count_filter_rejections(c, plan, statuses, n, start, processed);
        return;
    }
    for (uint32_t k = 0; k < plan->n; k++) c->rec->evaluations[MS_EP_FILTER][plan->steps[k].plugin] += processed;
}

static void count_filter_rejections(const ms_cycle *c, const ms_filter_plan *plan, const ms_status *statuses,
                                    uint32_t n, uint32_t start, uint32_t processed) {
    uint32_t rejected[MS_MAX_PLUGINS] = {0};
    /* the pass ran from start, wrapping round at n */
    for (uint32_t p = 0, i = start; p < processed; p++, i = i + 1 == n ? 0 : i + 1) {
        const ms_status *st = &statuses[i];
        if (st->code != MS_SUCCESS && st->plugin >= 0 && st->plugin < MS_MAX_PLUGINS) rejected[st->plugin]++;
    }
    uint64_t reached = processed;
    for (uint32_t k = 0; k < plan->n; k++) {
        uint32_t i = plan->steps[k].plugin;
        c->rec->evaluations[MS_EP_FILTER][i] += reached;
        reached -= rejected[i];
    }
}

bool ms_sched_grow_buffers(ms_scheduler *s, uint32_t n) {
    if (n <= s->cap) return true;
    uint32_t cap = ms_array_capacity(s->cap, n);
    size_t rows = s->max_nscore ? s->max_nscore : 1;
    ms_status *st = realloc(s->statuses, cap * sizeof *st);
    if (st) s->statuses = st;
    ms_node_info **fe = realloc(s->feasible, cap * sizeof *fe);
    if (fe) s->feasible = fe;
    uint32_t *at = realloc(s->feasible_at, cap * sizeof *at);
    if (at) s->feasible_at = at;
    int64_t *to = realloc(s->totals, cap * sizeof *to);
    if (to) s->totals = to;
    int64_t *pp = realloc(s->per_plugin, rows * cap * sizeof *pp);
    if (pp) s->per_plugin = pp;
    if (!st || !fe || !at || !to || !pp || !ms_node_memo_reserve(&s->memo, cap, (uint32_t)rows)) return false;
    s->cap = cap;
    return true;
}

/* Reasons of a status joined by ", " (upstream Status.Message). */
static void join_reasons(const ms_status *st, char *buf, size_t n) {
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < st->nreasons && len < n; i++) {
        int w = snprintf(buf + len, n - len, "%s%s", i ? ", " : "",
                         st->reasons[i] ? st->reasons[i] : "");
        if (w < 0) break;
        len += (size_t)w;
    }
}

static void report_unschedulable(ms_scheduler *s, const ms_queued_pod *qp, const char *msg) {
    if (s->reporter.unschedulable)
        s->reporter.unschedulable(s->reporter.ctx, qp->pod, msg, qp->attempts);
}

/* An error in the scheduling cycle: the pod waits out its backoff and
 * retries (no plugin rejected it, so no event is needed). */
static void cycle_error(ms_scheduler *s, ms_inflight *r, const char *msg, double now) {
    if (s->nobservers) ms_sched_observe_result(s, MS_EXPLAIN_ERROR, msg);
    if (s->reporter.error) s->reporter.error(s->reporter.ctx, r->qp->pod, msg);
    report_unschedulable(s, r->qp, msg);
    r->qp->unschedulable_plugins = 0;
    ms_queue_add_backoff(s->queue, r->qp, now);
    ms_sched_record_release(s, r);
}

static void cycle_plugin_error(ms_scheduler *s, ms_inflight *r, const char *point,
                               const ms_status *st, double now) {
    char reasons[256];
    join_reasons(st, reasons, sizeof reasons);
    const char *plugin = ms_framework_plugin_name(&s->profiles[r->profile], st->plugin);
    char msg[512];
    if (*plugin)
        snprintf(msg, sizeof msg, "running %s plugin \"%s\": %s", point, plugin, reasons);
    else
        snprintf(msg, sizeof msg, "running %s plugins: %s", point, reasons);
    cycle_error(s, r, msg, now);
}

/* Back to the unschedulable pods, remembering which plugins rejected the
 * pod so that only events they care about move it. */
static void requeue_unschedulable(ms_scheduler *s, ms_inflight *r, uint64_t plugins,
                                  ms_event_mask interest, const char *msg, double now) {
    ms_queued_pod *qp = r->qp;
    qp->unschedulable_plugins = plugins;
    qp->interest = interest;
    if (s->nobservers) ms_sched_observe_result(s, MS_EXPLAIN_UNSCHEDULABLE, msg);
    report_unschedulable(s, qp, msg);
    ms_queue_add_unschedulable(s->queue, qp, r->cycle.cycle, now);
    ms_sched_record_release(s, r);
}

/* No feasible node: every node of the snapshot has a failing status in
 * s->statuses. PostFilter, then the FitError message. */
/* upstream's FitError message into s->msg, PostFilter's reasons appended
 * (preemption's, for one); false when out of memory. */
static bool fit_error_message(ms_scheduler *s, uint32_t n, const char *prefilter_reason, bool tallied,
                              ms_code pcode, const ms_status *pst) {
    ms_buf *m = &s->msg;
    ms_buf_reset(m);
    size_t need = tallied ? ms_fit_error_message_tally(m->data, m->cap, n, &s->tally)
                          : ms_fit_error_message(m->data, m->cap, n, s->statuses, n, prefilter_reason);
    if (need + 1 > m->cap) {
        if (!ms_buf_reserve(m, need)) return false;
        if (tallied) ms_fit_error_message_tally(m->data, m->cap, n, &s->tally);
        else ms_fit_error_message(m->data, m->cap, n, s->statuses, n, prefilter_reason);
    }
    m->len = need;
    if (pcode != MS_SUCCESS && pst->nreasons > 0) {
        char post[512];
        join_reasons(pst, post, sizeof post);
        ms_buf_printf(m, " %s", post);
    }
    return true;
}

static void fit_error(ms_scheduler *s, ms_inflight *r, uint32_t n, const char *prefilter_reason,
                      bool extenders_rejected, double now) {
    const ms_framework *fw = &s->profiles[r->profile];
    ms_cycle *c = &r->cycle;
    /* The Filter pass counted the statuses' reasons and plugins already. */
    const bool tallied = s->tallied && !prefilter_reason;
    s->tallied = false;
    uint64_t plugins = tallied ? s->tally.plugins : 0;
    for (uint32_t i = 0; !tallied && i < n; i++)
        if (s->statuses[i].plugin >= 0 && s->statuses[i].plugin < 64)
            plugins |= 1ull << s->statuses[i].plugin;

    ms_str nominated = MS_STR_NONE;
    ms_status pst;
    ms_status_ok(&pst);
    double t0 = point_start(c);
    ms_code pcode = ms_framework_run_post_filter(fw, c, s->statuses, &nominated, &pst);
    point_done(c, MS_EP_POST_FILTER, pcode, t0);
    if (s->reporter.post_filter)
        s->reporter.post_filter(s->reporter.ctx, r->qp->pod, pcode == MS_SUCCESS ? nominated : MS_STR_NONE);
    if (s->nobservers) ms_sched_observe_post_filter(s, fw, pcode == MS_SUCCESS ? nominated : MS_STR_NONE);
    if (pcode == MS_ERROR) {
        /* Not the pod's fault (e.g. an eviction failed): retry after backoff. */
        cycle_plugin_error(s, r, "PostFilter", &pst, now);
        return;
    }

    if (!fit_error_message(s, n, prefilter_reason, tallied, pcode, &pst)) {
        cycle_error(s, r, "out of memory", now);
        return;
    }
    if (pcode == MS_SUCCESS && nominated != MS_STR_NONE) {
        /* upstream recordSchedulingFailure: the nominator first (later
         * cycles leave room for the pod there), then the status. The pod
         * waits like any unschedulable one: the victims' deletion moves it
         * (in simulate, at once, so it goes to backoffQ). */
        ms_queue_add_nominated(s->queue, r->qp->pod, nominated);
        if (s->evictor.set_nomination)
            s->evictor.set_nomination(s->evictor.ctx, r->qp->pod, nominated);
        if (s->reporter.nominated) s->reporter.nominated(s->reporter.ctx, r->qp->pod, nominated);
    }
    /* Extenders declare no events: a pod they rejected waits for any
     * (upstream's ExtenderName among the unschedulable plugins). */
    ms_event_mask interest = extenders_rejected ? MS_EV_ALL : ms_framework_interest(fw, plugins);
    requeue_unschedulable(s, r, plugins, interest, s->msg.data, now);
}

/* findNodesThatPassFilters when the profile has batch Filter plugins (Lua
 * policies): per-node plugins pick candidates until enough pass them, then
 * each batch plugin judges those candidates in one call; repeated while
 * fewer than `want` nodes are feasible and nodes remain. */
static ms_code find_feasible_batch(ms_scheduler *s, const ms_framework *fw, ms_cycle *c,
                                   uint32_t n, uint32_t want, uint32_t start,
                                   uint32_t *nfeasible, uint32_t *evaluated, ms_status *err) {
    ms_node_info *const *nodes = s->snap.nodes;
    ms_status *statuses = s->statuses;
    ms_node_info **cand = MS_ARENA_NEW(c->arena, ms_node_info *, n);
    uint32_t *where = MS_ARENA_NEW(c->arena, uint32_t, n);
    ms_status *cst = MS_ARENA_NEW(c->arena, ms_status, n);
    if (!cand || !where || !cst) {
        ms_status_set(err, MS_ERROR, "out of memory");
        err->plugin = -1;
        return MS_ERROR;
    }
    uint32_t found = 0, processed = 0, i = start;
    ms_code code = MS_SUCCESS;
    while (processed < n && found < want && code != MS_ERROR) {
        uint32_t m = 0;
        while (processed < n && m < want - found) {
            code = ms_framework_run_filter_with_nominated(fw, c, nodes[i], &statuses[i]);
            processed++;
            if (code == MS_SUCCESS) {
                cand[m] = nodes[i];
                cst[m] = statuses[i];
                where[m++] = i;
            } else if (code == MS_ERROR) {
                *err = statuses[i];
                break;
            }
            if (++i == n) i = 0;
        }
        if (code == MS_ERROR || m == 0) break;
        code = ms_framework_run_filter_batch(fw, c, cand, m, cst);
        for (uint32_t k = 0; k < m; k++) {
            statuses[where[k]] = cst[k];
            if (cst[k].code == MS_SUCCESS && found < want) s->feasible[found++] = cand[k];
            else if (code == MS_ERROR && cst[k].code == MS_ERROR) *err = cst[k];
        }
    }
    s->next_start = (uint32_t)(((uint64_t)start + processed) % n);
    *nfeasible = found;
    *evaluated = processed;
    return code == MS_ERROR ? MS_ERROR : MS_SUCCESS;
}

/* upstream findNodesThatPassFilters (with evaluateNominatedNode first
 * unless `skip_nominated`). *start is where the pass over the snapshot
 * began, *via_nominated whether the nominated node alone was taken.
 * Returns MS_ERROR with *err when a plugin failed. */
/* The nominated node through every Filter plugin, per-node and batch:
 * MS_SUCCESS when it fits, MS_ERROR (into *err) on a plugin error. */
static ms_code filter_nominated_node(const ms_framework *fw, ms_cycle *c, ms_node_info *ni, ms_status *err) {
    ms_status st;
    ms_code code = ms_framework_run_filter_with_nominated(fw, c, ni, &st);
    if (code == MS_SUCCESS && ms_framework_has_filter_batch(fw)) {
        ms_node_info *one[1] = {ni};
        code = ms_framework_run_filter_batch(fw, c, one, 1, &st);
        if (code == MS_SUCCESS) code = (ms_code)st.code;
    }
    if (code == MS_ERROR) *err = st;
    return code;
}

/* In a sampled cycle, the Filter calls timed per plugin are those on the
 * first nodes of the pass only: a plugin's calls cost about the same on
 * every node, and timing each of thousands would make the sampled cycle
 * several times dearer than the others. */
#define FILTER_TIMED_NODES 32u

/* The Filter of the pass's node number `k` when the plan alone will not
 * do: the node's nominated pods (queue non-NULL) taken into account, and
 * while the cycle is sampled (c->sample, up to FILTER_TIMED_NODES) each
 * plugin call timed (the runner that times them). */
static ms_code filter_node_slow(const ms_framework *fw, ms_cycle *c, const ms_filter_plan *plan,
                                const ms_queue *queue, ms_node_info *ni, ms_status *st, uint32_t k) {
    if (k == FILTER_TIMED_NODES) c->sample = false;
    uint32_t nn = 0;
    ms_pod *const *nominees = queue ? ms_queue_nominated_for(queue, ni->name, &nn) : NULL;
    if (nn) return ms_framework_run_filter_with_nominees(fw, c, ni, nominees, nn, st);
    return c->sample ? ms_framework_run_filter(fw, c, ni, st) : ms_framework_run_filter_plan(plan, c, ni, st);
}

/* The Filter pass with nominated pods when each node's verdict is kept
 * (see ms_node_memo_verdict), from the pass's node number `kept_from` on:
 * a preemptor's first cycle finds no node that fits, and the next one, of
 * the same signature and priority, would run every filter on every node
 * again although only the nodes the last preemption touched have changed.
 * A loop of its own: a test in the general one made it dearer for every
 * pod. The pass from snapshot index `i` until `want` nodes are feasible;
 * MS_ERROR stops it (*err). */
/* A kept verdict's status into the pass's: the reasons it has, not the
 * whole array (nothing reads past nreasons), the first one unguarded as
 * most statuses have it. */
static inline void kept_status(ms_status *d, const ms_status *from) {
    d->code = from->code;
    d->nreasons = from->nreasons;
    d->plugin = from->plugin;
    d->reasons[0] = from->reasons[0];
    if (from->nreasons > 1)
        for (uint32_t j = 1; j < from->nreasons; j++) d->reasons[j] = from->reasons[j];
}

typedef struct kept_pass {
    ms_code code;
    uint32_t processed, found;
} kept_pass;

static kept_pass filter_kept(ms_scheduler *s, const ms_framework *fw, ms_cycle *c, const ms_filter_plan *plan,
                             uint64_t epoch, uint32_t kept_from, uint32_t n, uint32_t want, uint32_t i,
                             ms_status *err) {
    const ms_queue *queue = c->h->queue;
    const int32_t priority = c->pod->priority;
    uint32_t nstamps;
    const uint64_t *stamps = ms_queue_nominated_stamps(queue, &nstamps);
    kept_pass r = {MS_SUCCESS, 0, 0};
    ms_reason_tally_reset(&s->tally);
    while (r.processed < n) {
        const uint32_t k = r.processed, at = i;
        ms_code code;
        ms_node_info *ni = s->snap.nodes[at];
        ms_status *st = &s->statuses[at];
        ms_node_memo_verdict *v = &s->memo.verdicts[at];
        const uint64_t stamp = ms_nominated_stamp_at(stamps, nstamps, ni->name);
        if (k >= kept_from && ms_node_memo_verdict_holds(v, ni, epoch, stamp, priority)) {
            if (k == FILTER_TIMED_NODES) c->sample = false;
            kept_status(st, &v->st);
            code = (ms_code)st->code;
        } else {
            code = filter_node_slow(fw, c, plan, queue, ni, st, k);
            if (code != MS_ERROR) ms_node_memo_keep_verdict(v, ni, epoch, stamp, priority, st);
        }
        r.processed++;
        r.code = code;
        if (code == MS_SUCCESS) {
            s->feasible_at[r.found] = at;
            s->feasible[r.found++] = ni;
            if (r.found == want) break;
        } else if (code == MS_ERROR) {
            *err = *st;
            break;
        } else {
            ms_reason_tally_add(&s->tally, st);
        }
        if (++i == n) i = 0;
    }
    ms_reason_tally_flush(&s->tally);
    /* No node fits: the tally stands for every node's status. */
    s->tallied = r.found == 0 && r.code != MS_ERROR && r.processed == n && !s->tally.full;
    return r;
}

static ms_code find_feasible(ms_scheduler *s, const ms_framework *fw, ms_cycle *c, uint32_t n,
                             bool skip_nominated, uint32_t *nfeasible, uint32_t *evaluated,
                             uint32_t *start_out, bool *via_nominated, ms_status *err) {
    ms_node_info *const *nodes = s->snap.nodes;
    ms_node_info **feasible = s->feasible;
    *nfeasible = 0;
    *evaluated = 0;
    *via_nominated = false;
    s->tallied = false;
    ms_node_memo_disarm(&s->memo);

    /* A pod nominated by an earlier preemption tries that node first. */
    ms_str nominated =
        skip_nominated ? MS_STR_NONE : ms_queue_nominated_node(s->queue, c->pod->meta.uid_hash);
    ms_node_info *nom = nominated != MS_STR_NONE ? ms_snapshot_get(&s->snap, nominated) : NULL;
    if (nom && nom->node) {
        ms_code code = filter_nominated_node(fw, c, nom, err);
        if (code == MS_ERROR) return MS_ERROR;
        if (code == MS_SUCCESS) {
            feasible[0] = nom;
            *nfeasible = 1;
            *evaluated = 1;
            *via_nominated = true;
            return MS_SUCCESS;
        }
    }

    uint32_t want = ms_num_feasible_nodes_to_find(fw->percentage_of_nodes_to_score, n);
    uint32_t start = s->next_start < n ? s->next_start : s->next_start % n;
    *start_out = start;
    if (fw->norder[MS_EP_FILTER] == 0) {
        for (uint32_t k = 0; k < want; k++) feasible[k] = nodes[(start + k) % n];
        s->next_start = (uint32_t)(((uint64_t)start + want) % n);
        *nfeasible = want;
        *evaluated = want;
        return MS_SUCCESS;
    }

    ms_status *statuses = s->statuses;
    /* A node nobody is nominated to needs its filters alone, resolved once
     * for the cycle; with no nomination anywhere, no node is looked up. */
    const ms_queue *queue = c->h ? c->h->queue : NULL;
    bool nominations = queue && ms_queue_nominated_count(queue) > 0;
    ms_filter_plan plan;
    ms_framework_filter_plan(fw, c, &plan);
    uint32_t found = 0, processed = 0, i = start;
    ms_code code = MS_SUCCESS;
    if (ms_framework_has_filter_batch(fw))
        return find_feasible_batch(s, fw, c, n, want, start, nfeasible, evaluated, err);
    /* A node whose node-local filters passed for the last pod of this
     * signature, unchanged since, needs only the other filters (`rest`);
     * the scores reuse the memo only when the feasible nodes' snapshot
     * indexes go with them (no extender to drop some). */
    ms_filter_plan rest;
    ms_node_memo *memo = &s->memo;
    const bool reuse = ms_node_memo_begin_filter(memo, fw, c, &plan, &rest);
    if (s->ext) ms_node_memo_disarm(memo);
    const uint64_t epoch = memo->filter_epoch;
    uint32_t *at = s->feasible_at;
    /* One test per node decides between the plan and the rest: nominated
     * pods somewhere (every node), or a sampled cycle (its first nodes). */
    const bool sampled = c->sample;
    const uint32_t slow_until = nominations ? n : sampled ? FILTER_TIMED_NODES : 0;
    /* With nominated pods, whole verdicts are kept per node when they are a
     * function of what the memo's key, the nominator's stamp and the pod's
     * signature and priority say: every step node-local, no PreFilter
     * extension or policy to hear of the nominated pods, and the pod itself
     * nominated nowhere (its own nomination would not count). The sampled
     * cycle's timed nodes run their plugins. */
    const bool kept = nominations && reuse && rest.n == 0 &&
                      !((fw->pre_filter_extensions | fw->batch_filters) & ~c->skip_filter) &&
                      ms_queue_nominated_node(queue, c->pod->meta.uid_hash) == MS_STR_NONE;
    if (kept) {
        kept_pass r = filter_kept(s, fw, c, &plan, epoch, sampled ? FILTER_TIMED_NODES : 0, n, want, i, err);
        code = r.code;
        processed = r.processed;
        found = r.found;
    }
    while (!kept && processed < n) {
        ms_node_info *ni = nodes[i];
        if (processed < slow_until) {
            code = filter_node_slow(fw, c, &plan, nominations ? queue : NULL, ni, &statuses[i], processed);
        } else if (!reuse) {
            code = ms_framework_run_filter_plan(&plan, c, ni, &statuses[i]);
        } else if (ms_node_memo_holds(&memo->filtered[i], ni, epoch)) {
            code = ms_framework_run_filter_plan(&rest, c, ni, &statuses[i]);
        } else {
            code = ms_framework_run_filter_plan(&plan, c, ni, &statuses[i]);
            if (ms_node_memo_local_passed(memo, code, &statuses[i])) ms_node_memo_note(&memo->filtered[i], ni, epoch);
        }
        processed++;
        if (code == MS_SUCCESS) {
            at[found] = i;
            feasible[found++] = ni;
            if (found == want) break;
        } else if (code == MS_ERROR) {
            *err = statuses[i];
            break;
        }
        if (++i == n) i = 0;
    }
    s->next_start = (uint32_t)(((uint64_t)start + processed) % n);
    *nfeasible = found;
    *evaluated = processed;
    c->sample = sampled;
    if (c->rec) count_filter_evaluations(c, &plan, statuses, n, start, processed, found);
    return code == MS_ERROR ? MS_ERROR : MS_SUCCESS;
}

/* The snapshot index of each feasible node of a Filter pass that began at
 * `start` and looked at `evaluated` nodes (they are the pass's nodes with
 * Success, in order). Nodes the pass did not reach get no status (Success),
 * as upstream leaves them out of the diagnosis: an extender may now reject
 * every feasible node, and the FitError counts only nodes with a reason. */
static uint32_t *feasible_indexes(ms_scheduler *s, ms_cycle *c, uint32_t n, uint32_t start,
                                  uint32_t evaluated, uint32_t nfeasible) {
    uint32_t *where = MS_ARENA_NEW(c->arena, uint32_t, nfeasible);
    if (!where) return NULL;
    uint32_t k = 0;
    for (uint32_t p = 0; p < evaluated && k < nfeasible; p++) {
        uint32_t i = (uint32_t)(((uint64_t)start + p) % n);
        if (s->snap.nodes[i] != s->feasible[k]) continue;
        ms_status_ok(&s->statuses[i]);
        where[k++] = i;
    }
    for (uint32_t p = evaluated; p < n; p++) ms_status_ok(&s->statuses[((uint64_t)start + p) % n]);
    return k == nfeasible ? where : NULL;
}

/* upstream findNodesThatPassExtenders over s->feasible[0..*nfeasible):
 * each interested extender in turn keeps a subset; its failure reasons go
 * to s->statuses through `where` (NULL: the nominated node alone, whose
 * statuses do not matter). An ignorable extender's error is skipped;
 * another's stops the cycle (false, msg set). */
static bool run_extender_filters(ms_scheduler *s, ms_inflight *r, uint32_t *nfeasible,
                                 uint32_t *where, bool *rejected, char *msg, size_t nmsg) {
    ms_extenders *e = s->ext;
    ms_cycle *c = &r->cycle;
    for (uint32_t i = 0; i < ms_extenders_count(e) && *nfeasible > 0; i++) {
        if (!ms_extenders_interested(e, i, c->pod)) continue;
        uint32_t n = *nfeasible;
        ms_extender_filter_result res;
        ms_error err;
        if (ms_extenders_filter(e, i, c->pod, s->feasible, n, c->arena, &res, &err) != MS_OK) {
            if (ms_extenders_config(e, i)->ignorable && err.rc != MS_ENOMEM) continue;
            snprintf(msg, nmsg, "%s", err.msg);
            return false;
        }
        if (where)
            for (uint32_t k = 0; k < n; k++)
                if (res.statuses[k].code != MS_SUCCESS) s->statuses[where[k]] = res.statuses[k];
        if (res.nfeasible == n) continue;
        *rejected = true;
        ms_node_info **kept = MS_ARENA_NEW(c->arena, ms_node_info *, res.nfeasible + 1);
        uint32_t *kept_where = MS_ARENA_NEW(c->arena, uint32_t, res.nfeasible + 1);
        if (!kept || !kept_where) {
            snprintf(msg, nmsg, "out of memory");
            return false;
        }
        for (uint32_t k = 0; k < res.nfeasible; k++) {
            kept[k] = s->feasible[res.feasible[k]];
            if (where) kept_where[k] = where[res.feasible[k]];
        }
        memcpy(s->feasible, kept, res.nfeasible * sizeof *kept);
        if (where) memcpy(where, kept_where, res.nfeasible * sizeof *where);
        *nfeasible = res.nfeasible;
    }
    return true;
}

/* A rejection or error after the pod was assumed, in the scheduling cycle
 * (Reserve, Permit): the assumption is already undone. */
static void late_failure(ms_scheduler *s, ms_inflight *r, const char *point, const ms_status *st,
                         double now) {
    if (st->code == MS_ERROR) {
        cycle_plugin_error(s, r, point, st, now);
        return;
    }
    char msg[512];
    join_reasons(st, msg, sizeof msg);
    uint64_t plugins = st->plugin >= 0 && st->plugin < 64 ? 1ull << st->plugin : 0;
    requeue_unschedulable(s, r, plugins, ms_framework_interest(&s->profiles[r->profile], plugins),
                          msg, now);
}

/* Permit asked to wait: the pod stays assumed and reserved until its
 * deadline (ms_scheduler_tick decides then). */
static void park(ms_scheduler *s, ms_inflight *r, const ms_score_report *report, double deadline,
                 double now) {
    r->parked_at = now;
    if (ms_sched_park(s, r, report, deadline)) {
        if (s->nobservers) ms_sched_observe_result(s, MS_EXPLAIN_WAITING, NULL);
        return;
    }
    ms_map_del(&s->binding, r->qp->pod->meta.uid_hash);
    ms_framework_run_unreserve(&s->profiles[r->profile], &r->cycle, r->node);
    ms_cache_forget_pod(s->cache, r->assumed);
    cycle_error(s, r, "out of memory", now);
}

static void assume_and_bind(ms_scheduler *s, ms_inflight *r, ms_str node,
                            const ms_score_report *report, double now) {
    const ms_framework *fw = &s->profiles[r->profile];
    ms_cycle *c = &r->cycle;
    ms_pod *pod = r->qp->pod;
    ms_status st;

    ms_pod *assumed = ms_pod_with_node(pod, node);
    if (!assumed) {
        cycle_error(s, r, "out of memory", now);
        return;
    }
    ms_rc rc = ms_cache_assume_pod(s->cache, assumed);
    if (rc != MS_OK) {
        ms_pod_unref(assumed);
        char msg[128];
        snprintf(msg, sizeof msg, "assuming pod in the cache: %s", ms_rc_str(rc));
        cycle_error(s, r, msg, now);
        return;
    }
    r->assumed = assumed;
    r->node = node;
    /* From Reserve on, plugins see the pod as upstream's assumedPod. */
    c->pod = assumed;

    double t0 = point_start(c);
    ms_code rcode = ms_framework_run_reserve(fw, c, node, &st);
    point_done(c, MS_EP_RESERVE, rcode, t0);
    if (rcode != MS_SUCCESS) {
        /* The framework already ran every Unreserve. */
        ms_cache_forget_pod(s->cache, assumed);
        late_failure(s, r, "Reserve", &st, now);
        return;
    }
    double timeout = 0;
    t0 = point_start(c);
    ms_code code = ms_framework_run_permit(fw, c, node, &timeout, &st);
    point_done(c, MS_EP_PERMIT, code, t0);
    if (code != MS_SUCCESS && code != MS_WAIT) {
        ms_framework_run_unreserve(fw, c, node);
        ms_cache_forget_pod(s->cache, assumed);
        late_failure(s, r, "Permit", &st, now);
        return;
    }
    uint64_t uid = pod->meta.uid_hash;
    if (ms_map_put(&s->binding, uid, r) != 0) {
        ms_framework_run_unreserve(fw, c, node);
        ms_cache_forget_pod(s->cache, assumed);
        cycle_error(s, r, "out of memory", now);
        return;
    }
    if (code == MS_WAIT) {
        park(s, r, report, now + timeout, now);
        return;
    }
    ms_sched_start_binding(s, r, report, now);
}

void ms_sched_start_binding(ms_scheduler *s, ms_inflight *r, const ms_score_report *report,
                            double now) {
    if (s->reporter.scheduled) s->reporter.scheduled(s->reporter.ctx, r->qp->pod, r->node, report);
    r->prebind_next = 0;
    ms_sched_continue_binding(s, r, 0, now);
}

void ms_sched_continue_binding(ms_scheduler *s, ms_inflight *r, double timeout, double now) {
    const ms_framework *fw = &s->profiles[r->profile];
    ms_pod *pod = r->qp->pod;
    ms_pod *assumed = r->assumed;
    ms_str node = r->node;
    uint64_t uid = pod->meta.uid_hash;
    ms_status st;

    /* The record is findable before Bind, so that a binder that answers at
     * once (ms_scheduler_bind_done from inside bind) finds it. */
    bool final = timeout < 0;
    double t0 = point_start(&r->cycle);
    ms_code code = ms_framework_run_pre_bind(fw, &r->cycle, node, &r->prebind_next, &timeout, &st);
    if (code != MS_WAIT) point_done(&r->cycle, MS_EP_PRE_BIND, code, t0);
    if (code == MS_WAIT && !final) {
        /* Asked again after its events or at the deadline: the scheduler
         * thread goes on meanwhile. */
        if (r->prebinding || ms_sched_prebind_wait(s, r, st.plugin, timeout, now)) return;
        ms_status_set(&st, MS_ERROR, "out of memory");
        code = MS_ERROR;
    } else if (code == MS_WAIT) {
        ms_status_set(&st, MS_ERROR, "still waiting at its deadline");
        code = MS_ERROR;
    }
    if (r->prebinding) ms_sched_prebind_unlist(s, r);
    const char *point = "PreBind";
    if (code == MS_SUCCESS && s->ext) {
        /* upstream: an extender that binds comes before the Bind plugins.
         * Its call blocks the scheduler thread for one round trip. */
        bool bound = false;
        ms_error e;
        ms_rc rc = ms_extenders_bind(s->ext, assumed, node, &bound, &e);
        if (bound && rc == MS_OK) {
            ms_scheduler_bind_done(s, pod, true, false, NULL, now);
            return;
        }
        if (bound) {
            if (ms_map_get(&s->binding, uid) != r) return;
            ms_map_del(&s->binding, uid);
            char msg[600];
            snprintf(msg, sizeof msg, "binding rejected: %s", e.msg);
            ms_sched_binding_failed(s, r, msg, false, now);
            return;
        }
    }
    if (code == MS_SUCCESS) {
        point = "Bind";
        code = ms_framework_run_bind(fw, assumed, node, &st);
        if (code == MS_SUCCESS) return;   /* the outcome comes through bind_done */
    }
    /* The binder may have answered before failing; only a record still
     * waiting is ours to fail. */
    if (ms_map_get(&s->binding, uid) != r) return;
    ms_map_del(&s->binding, uid);
    char reasons[256], msg[512];
    join_reasons(&st, reasons, sizeof reasons);
    if (code == MS_SKIP)
        snprintf(msg, sizeof msg, "no bind plugin bound the pod");
    else
        snprintf(msg, sizeof msg, "running %s plugin \"%s\": %s", point,
                 ms_framework_plugin_name(fw, st.plugin), reasons);
    ms_sched_binding_failed(s, r, msg, false, now);
}

/* findNodesThatFitPod after PreFilter: the Filter plugins, then the
 * extenders' filters. false when the cycle ended in an error (reported). */
static bool find_fit(ms_scheduler *s, ms_inflight *r, uint32_t n, uint32_t *nfeasible, uint32_t *evaluated,
                     bool *ext_rejected, ms_status *st, double now) {
    const ms_framework *fw = &s->profiles[r->profile];
    ms_cycle *c = &r->cycle;
    uint32_t start = 0;
    bool via_nominated = false;
    double t0 = point_start(c);
    ms_code code = find_feasible(s, fw, c, n, false, nfeasible, evaluated, &start, &via_nominated, st);
    s->pass_start = start;
    s->pass_nominated = via_nominated;
    point_done(c, MS_EP_FILTER, code == MS_ERROR ? MS_ERROR : *nfeasible ? MS_SUCCESS : MS_UNSCHEDULABLE, t0);
    if (code == MS_ERROR) {
        cycle_plugin_error(s, r, "Filter", st, now);
        return false;
    }
    if (!s->ext || *nfeasible == 0) return true;
    char emsg[600];
    if (via_nominated) {
        if (!run_extender_filters(s, r, nfeasible, NULL, ext_rejected, emsg, sizeof emsg)) {
            cycle_error(s, r, emsg, now);
            return false;
        }
        /* upstream: the extenders turned the nominated node down, so
         * every node is evaluated */
        if (*nfeasible == 0) {
            *ext_rejected = false;
            if (find_feasible(s, fw, c, n, true, nfeasible, evaluated, &start, &via_nominated, st) == MS_ERROR) {
                cycle_plugin_error(s, r, "Filter", st, now);
                return false;
            }
            s->pass_start = start;
            s->pass_nominated = via_nominated;
        }
    }
    if (!via_nominated && *nfeasible > 0) {
        uint32_t *where = feasible_indexes(s, c, n, start, *evaluated, *nfeasible);
        if (!where) {
            cycle_error(s, r, "out of memory", now);
            return false;
        }
        if (!run_extender_filters(s, r, nfeasible, where, ext_rejected, emsg, sizeof emsg)) {
            cycle_error(s, r, emsg, now);
            return false;
        }
    }
    return true;
}

/* prioritizeNodes and selectHost over more than one feasible node: the
 * Score plugins, the extenders' weighted scores added to their totals
 * (*ext_out: theirs, one row per prioritizer, or NULL), a random choice
 * among the best; the chosen node's scores into report. false when the
 * cycle ended in an error (reported). */
static bool score_and_select(ms_scheduler *s, ms_inflight *r, uint32_t nfeasible, ms_score_report *report,
                             uint32_t *selected, const int64_t **ext_out, ms_status *st, double now) {
    const ms_framework *fw = &s->profiles[r->profile];
    const ms_profile_info *info = &s->info[r->profile];
    ms_cycle *c = &r->cycle;
    ms_node_info *const *feasible = s->feasible;
    double t0 = point_start(c);
    ms_code code = ms_framework_run_pre_score(fw, c, feasible, nfeasible, st);
    point_done(c, MS_EP_PRE_SCORE, code, t0);
    if (code != MS_SUCCESS) {
        cycle_plugin_error(s, r, "PreScore", st, now);
        return false;
    }
    int64_t *per_plugin = s->reporter.scheduled || s->trace_pods ? s->per_plugin : NULL;
    t0 = point_start(c);
    code = ms_framework_run_score_memo(fw, c, &s->memo, feasible, s->feasible_at, nfeasible, s->totals,
                                       per_plugin, st);
    point_done(c, MS_EP_SCORE, code, t0);
    if (code != MS_SUCCESS) {
        cycle_plugin_error(s, r, "Score", st, now);
        return false;
    }
    /* The trace keeps every node's scores; the report only the chosen one's. */
    if (per_plugin && s->trace_pods) {
        ms_framework_clear_skipped_scores(fw, c, per_plugin, nfeasible);
        ms_node_memo_fill_summed_rows(fw, &s->memo, s->feasible_at, nfeasible, per_plugin);
    }
    uint32_t nprio = ms_extenders_nprioritizers(s->ext);
    int64_t *ext_scores = NULL;
    if (nprio) {
        ext_scores = MS_ARENA_NEW(c->arena, int64_t, (size_t)nprio * nfeasible);
        if (!ext_scores) {
            cycle_error(s, r, "out of memory", now);
            return false;
        }
        ms_extenders_prioritize(s->ext, c->pod, feasible, nfeasible, ext_scores, NULL);
        for (uint32_t k = 0; k < nprio; k++)
            for (uint32_t j = 0; j < nfeasible; j++)
                s->totals[j] = ms_go_int64_add(s->totals[j], ext_scores[(size_t)k * nfeasible + j]);
    }
    *ext_out = ext_scores;
    *selected = ms_select_host(&s->rng, s->totals, nfeasible);
    report->total = s->totals[*selected];
    if (per_plugin) {
        report->nplugins = info->nscore;
        for (uint32_t k = 0; k < info->nscore; k++)
            s->report_scores[k] = ms_framework_score_skipped(fw, c, k)
                                      ? 0
                                      : ms_node_memo_weighted_score(fw, &s->memo, per_plugin, nfeasible, k, *selected,
                                                                    s->feasible_at[*selected]);
        for (uint32_t k = 0; k < nprio && report->nplugins < info->nreport; k++)
            s->report_scores[report->nplugins++] = ext_scores[(size_t)k * nfeasible + *selected];
    }
    return true;
}

static void run_cycle(ms_scheduler *s, ms_inflight *r, double now) {
    const ms_framework *fw = &s->profiles[r->profile];
    ms_cycle *c = &r->cycle;
    ms_status st;
    ms_status_ok(&st);

    if (ms_cache_update_snapshot(s->cache, &s->snap) != MS_OK) {
        cycle_error(s, r, "updating the snapshot: out of memory", now);
        return;
    }
    ms_sched_release_evicted(s);   /* the snapshot no longer borrows them */
    if (ms_framework_begin_cycle(fw, c) != MS_OK) {
        cycle_error(s, r, "out of memory", now);
        return;
    }
    uint32_t n = s->snap.nnodes;
    if (n == 0) {
        /* upstream ErrNoNodesAvailable. Unlike upstream (an error, retried
         * with backoff for ever) the pod waits for a node to be added. */
        requeue_unschedulable(s, r, 0, MS_EV_NODE_ADD, "no nodes available to schedule pods", now);
        return;
    }
    if (!ms_sched_grow_buffers(s, n)) {
        cycle_error(s, r, "out of memory", now);
        return;
    }

    double t0 = point_start(c);
    ms_code code = ms_framework_run_pre_filter(fw, c, &st);
    point_done(c, MS_EP_PRE_FILTER, code, t0);
    if (code == MS_ERROR) {
        cycle_plugin_error(s, r, "PreFilter", &st, now);
        return;
    }
    if (code != MS_SUCCESS) {
        /* Every node gets the PreFilter status (for PostFilter); the
         * message is the PreFilter's own. */
        for (uint32_t i = 0; i < n; i++) s->statuses[i] = st;
        char reason[512];
        join_reasons(&st, reason, sizeof reason);
        fit_error(s, r, n, reason, false, now);
        return;
    }

    uint32_t nfeasible = 0, evaluated = 0;
    bool ext_rejected = false;
    if (!find_fit(s, r, n, &nfeasible, &evaluated, &ext_rejected, &st, now)) return;
    if (nfeasible == 0) {
        fit_error(s, r, n, NULL, ext_rejected, now);
        return;
    }

    const ms_profile_info *info = &s->info[r->profile];
    ms_score_report report = {
        .nplugins = 0,
        .names = info->score_names,
        .scores = s->report_scores,
        .total = 0,
        .feasible = nfeasible,
        .evaluated = evaluated,
        .num_all_nodes = n,
    };
    uint32_t selected = 0;
    const int64_t *ext_scores = NULL;
    /* upstream: a single feasible node is taken without scoring. */
    if (nfeasible > 1 && !score_and_select(s, r, nfeasible, &report, &selected, &ext_scores, &st, now)) return;
    if (s->nobservers) {
        /* The observers judge the same nodes before the assume changes them. */
        ms_cycle_choice choice = {.nfeasible = nfeasible, .evaluated = evaluated, .selected = selected,
                                  .scored = nfeasible > 1, .ext_scores = ext_scores, .report = &report};
        ms_sched_observe_selected(s, r, &choice);
    }
    if (c->rec) ms_sched_metrics_algorithm(s->metrics, ms_clock_monotonic() - t0);
    assume_and_bind(s, r, s->feasible[selected]->name, &report, now);
}

bool ms_scheduler_schedule_one(ms_scheduler *s, double now) {
    ms_queued_pod *qp = ms_queue_pop(s->queue, now);
    if (!qp) return false;
    uint64_t cycle = ms_queue_cycle(s->queue);
    ms_pod *pod = qp->pod;
    int32_t profile = ms_scheduler_profile_index(s, pod->scheduler_name);
    /* upstream skipPodSchedule: being deleted, or already assumed/bound. */
    if (profile < 0 || pod->meta.deletion != 0 ||
        ms_cache_get_pod(s->cache, pod->meta.uid_hash) != NULL) {
        ms_queue_done(s->queue, qp);
        return true;
    }
    ms_inflight *r = ms_sched_record_take(s);
    if (!r) {
        if (s->reporter.error) s->reporter.error(s->reporter.ctx, pod, "out of memory");
        report_unschedulable(s, qp, "out of memory");
        ms_queue_add_backoff(s->queue, qp, now);
        return true;
    }
    r->qp = qp;
    r->profile = (uint32_t)profile;
    ms_cycle *c = &r->cycle;
    c->pod = pod;
    c->qp = qp;
    c->snap = &s->snap;
    c->arena = &r->arena;
    c->h = &s->handle;
    c->cycle = cycle;
    c->rec = s->metrics ? s->metrics->recorders[profile] : NULL;
    c->sample = c->rec && ms_metrics_recorder_sample(c->rec);
    s->now = now;
    if (s->nobservers) ms_sched_observe_begin(s, r, now);
    run_cycle(s, r, now);
    if (s->nobservers) ms_sched_observe_end(s);
    ms_sched_flush_permits(s, now);
    return true;
}
