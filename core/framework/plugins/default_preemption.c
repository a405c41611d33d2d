/* DefaultPreemption: the PostFilter that makes room for a pod by evicting
 * lower-priority pods (upstream's defaultpreemption plugin and its
 * preemption.Evaluator). See include/moonsched/preemption.h for the steps.
 *
 * The dry run visits up to every node of a large cluster per preemptor, so
 * it is kept cheap without changing a decision: the one NodeInfo it edits
 * is a scratch copy reused from call to call, per-node arrays are reused,
 * and where NodeResourcesFit alone already rules a step out (the pod does
 * not fit even without every lower-priority pod; a victim does not fit
 * back) that step is decided without a copy or a Filter run. Statuses of
 * nodes ruled out that way are computed only when a message needs them.
 * Those counted outcomes are kept per node for the next preemptor (see
 * kept_dry): between two preemptors of one signature only the nodes the
 * last preemption touched change. */
#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "plugin_args.h"
#include "api/pdb_set.h"
#include "backend/queue.h"
#include "base/array.h"
#include "base/buf.h"
#include "base/map.h"
#include "base/rng.h"
#include "framework/node_memo.h"
#include "framework/plugins/preemption.h"
#include "framework/runners.h"
#include "moonsched/framework.h"
#include "moonsched/pdb.h"

#define PLUGIN "DefaultPreemption"

/* upstream's reasons and messages, kept word for word */
#define NO_VICTIMS "No preemption victims found for incoming pod"
#define NOT_HELPFUL "Preemption is not helpful for scheduling"
#define NEVER "preemption: not eligible due to preemptionPolicy=Never."
#define TERMINATING "preemption: not eligible due to a terminating pod on the nominated node."

typedef struct ranked {
    ms_pod *pod;
    uint32_t at;           /* position on the node: the tie-break, for a stable order */
} ranked;

/* A node's outcome in a counted dry run (can_count), kept per snapshot
 * index: it holds while the NodeInfo (object and generation), the node's
 * nominated pods (the nominator's stamp), the pod's signature (epoch) and
 * priority are those it was found under, and the cycle is one where
 * nothing else enters it (can_keep: no PDB, no deletion requested, the
 * pod nominated nowhere). */
enum { KEPT_NONE, KEPT_NO_VICTIMS, KEPT_RULED_OUT, KEPT_CANDIDATE };
#define KEPT_VICTIMS 8

typedef struct kept_dry {
    const ms_node_info *ni;
    uint64_t generation;
    uint64_t nominees;
    uint64_t epoch;
    int32_t priority;
    uint8_t outcome;
    uint8_t nvictims;
    uint8_t at[KEPT_VICTIMS];      /* the victims' positions in ni->pods, most important first */
} kept_dry;

typedef struct dp {
    const ms_handle *h;
    int32_t min_pct, min_abs;
    /* The node being dry-run: a borrowed copy, so filling it never touches
     * pod references. Distinct from h->scratch, which the Filter runner
     * uses for nominated pods while this one is in use. */
    ms_node_info *scratch;
    const ms_preemption_hooks *hooks;
    ms_preemption_result last;
    /* Text of the last message built here; reasons point into it, so it
     * lives until the next PostFilter of this profile. */
    ms_buf msg;
    /* Per-node work arrays, kept from call to call: they are as large as
     * the cluster, too large to take from the cycle arena each time. */
    ms_status *dry;                /* valid where looked[i] */
    uint8_t *looked;               /* 1: dry-run, 2: ruled out by fits_without */
    uint32_t *potential;
    uint32_t nodecap;
    /* Per-node dry-run arrays, as large as the most lower-priority pods a
     * node had so far; a candidate's victims are copied to the arena. */
    ranked *pv;
    ms_pod **order, **victims;
    bool *violating;
    uint32_t pvcap;
    /* This PostFilter's Filter plugins other than NodeResourcesFit, when
     * the dry runs can be done by arithmetic (can_count). */
    ms_filter_plan others;
    /* The candidates of a search (2 * want) and the victims of those
     * taken from kept outcomes (KEPT_VICTIMS each), kept from call to
     * call. */
    ms_preemption_candidate *cands;
    ms_pod **pool;
    uint32_t candcap, pooled;
    /* Kept outcomes (per snapshot index, nodecap of them) and what their
     * epoch stands for: the signature's pod (a reference) and the
     * PreFilter skips of its cycle. */
    kept_dry *kept;
    ms_pod *sig;
    uint64_t sig_skip, epoch;
} dp;

/* ---- helpers shared with policies and tests ---- */

/* A pod this scheduler asked the API server to delete, whose deletion the
 * informer has not shown yet: another preemption must neither count on its
 * resources (they are already promised) nor delete it again. */
static bool deletion_requested(const ms_handle *h, const ms_pod *pod) {
    const ms_map *m = h->deletion_requested;
    return m && m->len && ms_map_has(m, pod->meta.uid_hash);
}

/* Going away already: a deletionTimestamp, or a deletion requested. */
static bool terminating(const ms_handle *h, const ms_pod *pod) {
    return pod->meta.deletion != 0 || deletion_requested(h, pod);
}

/* GetPodStartTime: a pod that has not started reads as starting now, which
 * is after every recorded start. */
static double start_of(const ms_pod *p) { return p->start_time != 0 ? p->start_time : INFINITY; }

bool ms_more_important_pod(const ms_pod *a, const ms_pod *b) {
    if (a->priority != b->priority) return a->priority > b->priority;
    return start_of(a) < start_of(b);
}

uint32_t ms_preemption_num_candidates(uint32_t num_nodes, int32_t min_pct, int32_t min_abs) {
    uint64_t n = (uint64_t)num_nodes * (uint64_t)(min_pct > 0 ? min_pct : 0) / 100;
    if (n < (uint64_t)(min_abs > 0 ? min_abs : 0)) n = (uint64_t)min_abs;
    return n > num_nodes ? num_nodes : (uint32_t)n;
}

/* GetEarliestPodStartTime: the earliest start among the victims of the
 * highest priority. */
static double earliest_top_start(const ms_preemption_candidate *c) {
    if (c->nvictims == 0) return -INFINITY;
    int32_t top = c->victims[0]->priority;
    double t = start_of(c->victims[0]);
    for (uint32_t i = 1; i < c->nvictims; i++) {
        const ms_pod *v = c->victims[i];
        if (v->priority == top && start_of(v) < t) {
            t = start_of(v);
        } else if (v->priority > top) {
            top = v->priority;
            t = start_of(v);
        }
    }
    return t;
}

static int64_t priority_sum(const ms_preemption_candidate *c) {
    int64_t sum = 0;
    for (uint32_t i = 0; i < c->nvictims; i++)
        sum += (int64_t)c->victims[i]->priority + ((int64_t)INT32_MAX + 1);
    return sum;
}

/* What pickOneNodeForPreemption compares, per candidate, computed once;
 * the start only when the other rules tie (NAN until then). */
typedef struct pick_key {
    uint32_t pdb;
    int64_t top;                   /* priority of the most important victim */
    int64_t sum;
    uint32_t count;
    double start;
    const ms_preemption_candidate *c;
} pick_key;

static pick_key key_of(const ms_preemption_candidate *c) {
    return (pick_key){.pdb = c->num_pdb_violations,
                      .top = c->nvictims ? c->victims[0]->priority : INT64_MIN,
                      .sum = priority_sum(c),
                      .count = c->nvictims,
                      .start = NAN,
                      .c = c};
}

static double start_key(pick_key *k) {
    if (isnan(k->start)) k->start = earliest_top_start(k->c);
    return k->start;
}

/* true when a is preferred to b: the first rule on which they differ
 * decides (fewer violations, lower top priority, lower sum, fewer victims,
 * later start). */
static bool preferred(pick_key *a, pick_key *b) {
    if (a->pdb != b->pdb) return a->pdb < b->pdb;
    if (a->top != b->top) return a->top < b->top;
    if (a->sum != b->sum) return a->sum < b->sum;
    if (a->count != b->count) return a->count < b->count;
    return start_key(a) > start_key(b);
}

uint32_t ms_pick_one_node_for_preemption(const ms_preemption_candidate *cands, uint32_t n) {
    /* Upstream narrows the candidates rule by rule to those tied for the
     * best; that leaves the lexicographic best under the rules in order, and
     * among full ties the first found: one pass, keeping only a strictly
     * better one. */
    if (n <= 1) return 0;
    uint32_t best = 0;
    pick_key bk = key_of(&cands[0]);
    for (uint32_t i = 1; i < n; i++) {
        pick_key k = key_of(&cands[i]);
        if (preferred(&k, &bk)) {
            best = i;
            bk = k;
        }
    }
    return best;
}

/* ---- plugin instance ---- */

static ms_rc args_error(ms_error *err, const char *field, int64_t v, const char *what) {
    return ms_error_set(err, MS_EINVAL, PLUGIN " args: %s: Invalid value: %lld: %s", field,
                        (long long)v, what);
}

static ms_rc parse_args(dp *p, const cJSON *args, ms_error *err) {
    static const char *const fields[] = {"minCandidateNodesPercentage",
                                         "minCandidateNodesAbsolute", NULL};
    int64_t pct = MS_MIN_CANDIDATE_NODES_PERCENTAGE, abs = MS_MIN_CANDIDATE_NODES_ABSOLUTE;
    if (args && !cJSON_IsNull(args)) {
        ms_rc rc = ms_args_check_object(args, fields, PLUGIN, "", err);
        if (rc != MS_OK) return rc;
        const cJSON *jp = cJSON_GetObjectItemCaseSensitive(args, fields[0]);
        const cJSON *ja = cJSON_GetObjectItemCaseSensitive(args, fields[1]);
        if (jp && !cJSON_IsNull(jp) && (rc = ms_args_int(jp, PLUGIN, fields[0], &pct, err)))
            return rc;
        if (ja && !cJSON_IsNull(ja) && (rc = ms_args_int(ja, PLUGIN, fields[1], &abs, err)))
            return rc;
    }
    if (pct < 0 || pct > 100) return args_error(err, fields[0], pct, "not in valid range [0, 100]");
    if (abs < 0 || abs > INT32_MAX)
        return args_error(err, fields[1], abs, "not in valid range [0, inf)");
    if (pct == 0 && abs == 0)
        return args_error(err, fields[0], pct,
                          "cannot be zero at the same time as minCandidateNodesAbsolute");
    p->min_pct = (int32_t)pct;
    p->min_abs = (int32_t)abs;
    return MS_OK;
}

static void dp_destroy(void *self) {
    dp *p = self;
    if (!p) return;
    ms_node_info_free(p->scratch);
    ms_buf_free(&p->msg);
    free(p->dry);
    free(p->looked);
    free(p->potential);
    free(p->pv);
    free(p->order);
    free(p->victims);
    free(p->violating);
    free(p->cands);
    free(p->pool);
    free(p->kept);
    if (p->sig) ms_pod_unref(p->sig);
    free(p);
}

static ms_rc dp_create(const cJSON *args, const ms_handle *h, void **self, ms_error *err) {
    dp *p = calloc(1, sizeof *p);
    if (!p || !(p->scratch = ms_node_info_new(MS_STR_NONE))) {
        dp_destroy(p);
        return ms_error_set(err, MS_ENOMEM, PLUGIN ": out of memory");
    }
    p->scratch->scratch = true;
    p->h = h;
    ms_rc rc = parse_args(p, args, err);
    if (rc != MS_OK) {
        dp_destroy(p);
        return rc;
    }
    *self = p;
    return MS_OK;
}

/* The plugin's instance in a profile, or NULL. */
static dp *instance(const ms_framework *fw) {
    for (uint32_t i = 0; fw && i < fw->nplugins; i++)
        if (fw->plugins[i].ops == &ms_plugin_default_preemption) return fw->plugins[i].self;
    return NULL;
}

bool ms_default_preemption_set_hooks(const ms_framework *fw, const ms_preemption_hooks *hooks) {
    dp *p = instance(fw);
    if (!p) return false;
    p->hooks = hooks;
    return true;
}

const ms_preemption_result *ms_default_preemption_last(const ms_framework *fw) {
    dp *p = instance(fw);
    return p ? &p->last : NULL;
}

void ms_default_preemption_forget(const ms_framework *fw) {
    dp *p = instance(fw);
    if (p) p->epoch++;
}

/* ---- messages ---- */

static ms_code fail(ms_status *st, ms_code code, const char *reason) {
    ms_status_set(st, code, reason);
    st->plugin = -1;
    return code;
}

/* A reason built for one call, in the cycle arena: it stays put until the
 * cycle's arena is reset, after the scheduler has used the status. */
static const char *cycle_text(ms_cycle *c, const char *fmt, const char *a, const char *b) {
    int need = snprintf(NULL, 0, fmt, a, b);
    char *t = need < 0 ? NULL : ms_arena_alloc(c->arena, (size_t)need + 1);
    if (t) snprintf(t, (size_t)need + 1, fmt, a, b);
    return t;
}

/* ---- SelectVictimsOnNode ---- */

static int cmp_importance(const void *va, const void *vb) {
    const ranked *a = va, *b = vb;
    if (ms_more_important_pod(a->pod, b->pod)) return -1;
    if (ms_more_important_pod(b->pod, a->pod)) return 1;
    return a->at < b->at ? -1 : a->at > b->at;
}

static int cmp_importance_pods(const void *va, const void *vb) {
    const ms_pod *a = *(ms_pod *const *)va, *b = *(ms_pod *const *)vb;
    if (ms_more_important_pod(a, b)) return -1;
    if (ms_more_important_pod(b, a)) return 1;
    return 0;
}

/* Victims are compared by importance only; equal ones keep the order in
 * which they were found (a stable insertion sort: lists are short). */
static void sort_victims(ms_pod **v, uint32_t n) {
    for (uint32_t i = 1; i < n; i++) {
        ms_pod *x = v[i];
        uint32_t j = i;
        while (j > 0 && cmp_importance_pods(&x, &v[j - 1]) < 0) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

/* The dry run's Filter (RunFilterPluginsWithNominatedPods) on the scratch
 * copy: the profile's whole Filter phase, batch plugins (policies)
 * included, so that a node a policy rejects is no candidate unless it
 * passes once the victims are gone. The node's nominated pods do not change while it is dry-run: they
 * are looked up once per node. (Adding them to the scratch copy and taking
 * them out again instead of copying it was measured: no cheaper.) */
typedef struct nominees {
    ms_pod *const *pods;
    uint32_t n;
} nominees;

static nominees node_nominees(const ms_handle *h, const ms_node_info *ni) {
    nominees nm = {NULL, 0};
    if (h->queue && ni->node && ms_queue_nominated_count(h->queue) > 0)
        nm.pods = ms_queue_nominated_for(h->queue, ni->name, &nm.n);
    return nm;
}

static inline ms_code dry_filter(dp *p, ms_cycle *c, const nominees *nm, ms_status *st) {
    /* Without batch plugins the per-node runner is the whole phase. */
    if (!(c->fw->batch_filters & ~c->skip_filter))
        return ms_framework_run_filter_with_nominees(c->fw, c, p->scratch, nm->pods, nm->n, st);
    return ms_framework_run_filter_node_with_nominees(c->fw, c, p->scratch, nm->pods, nm->n, st);
}

/* Removes / re-adds pods on the scratch copy and runs the PreFilter
 * extensions (AddPod/RemovePod) for them, as upstream does on its copy of
 * the cycle state: policies that count in pre_filter follow the dry run.
 * Built-in plugins with per-cycle counts (InterPodAffinity,
 * PodTopologySpread) instead compare the copy with the snapshot's
 * NodeInfo in Filter. An extension's rejection rules the node out. */
static inline ms_code scratch_remove(dp *p, ms_cycle *c, ms_pod *const *pods, uint32_t n, ms_status *st) {
    for (uint32_t i = 0; i < n; i++)
        if (ms_node_info_remove_pod(p->scratch, pods[i], p->h->in) != 0)
            return fail(st, MS_ERROR, "preemption: victim not on node");
    return ms_framework_run_pre_filter_extension(c->fw, c, false, pods, n, p->scratch, st);
}
static inline ms_code scratch_add(dp *p, ms_cycle *c, ms_pod *pod, ms_status *st) {
    if (ms_node_info_add_pod(p->scratch, pod, p->h->in) != 0) return fail(st, MS_ERROR, "out of memory");
    return ms_framework_run_pre_filter_extension(c->fw, c, true, &pod, 1, p->scratch, st);
}

static uint32_t count_pdb_violations(dp *p, ms_pod *const *victims, uint32_t n) {
    ms_pdb_set *pdbs = p->h->pdbs;
    if (!pdbs || ms_pdb_set_len(pdbs) == 0) return 0;
    uint32_t k = 0;
    ms_pdb_budget_reset(pdbs);
    for (uint32_t i = 0; i < n; i++) k += ms_pdb_budget_take(pdbs, victims[i], p->h->in);
    return k;
}

/* A policy's select_victims on one node. MS_SKIP: use the default. */
static ms_code hooked_select(dp *p, ms_cycle *c, const ms_node_info *ni, const nominees *nm,
                             ranked *pv, uint32_t npv, ms_preemption_candidate *out, ms_status *st) {
    ms_pod **potential = MS_ARENA_NEW(c->arena, ms_pod *, npv);
    uint32_t *chosen = MS_ARENA_NEW(c->arena, uint32_t, npv);
    bool *taken = MS_ARENA_NEW(c->arena, bool, npv);
    if (!potential || !chosen || !taken) return fail(st, MS_ERROR, "out of memory");
    for (uint32_t i = 0; i < npv; i++) potential[i] = pv[npv - 1 - i].pod;   /* least important first */
    uint32_t nchosen = 0;
    ms_status hst;
    ms_status_ok(&hst);
    ms_code code = p->hooks->select_victims(p->hooks->ctx, c, ni, potential, npv, chosen, &nchosen,
                                            &hst);
    if (code == MS_SKIP) return MS_SKIP;
    if (code == MS_ERROR) {
        *st = hst;
        st->code = MS_ERROR;
        return MS_ERROR;
    }
    if (code != MS_SUCCESS || nchosen == 0)
        return fail(st, MS_UNSCHEDULABLE, hst.nreasons ? hst.reasons[0] : NO_VICTIMS);
    if (nchosen > npv) return fail(st, MS_ERROR, "preemption: select_victims chose too many pods");
    ms_pod **victims = MS_ARENA_NEW(c->arena, ms_pod *, nchosen);
    if (!victims) return fail(st, MS_ERROR, "out of memory");
    for (uint32_t i = 0; i < nchosen; i++) {
        if (chosen[i] >= npv || taken[chosen[i]])
            return fail(st, MS_ERROR, "preemption: select_victims chose an invalid pod");
        taken[chosen[i]] = true;
        victims[i] = potential[chosen[i]];
    }
    if ((code = scratch_remove(p, c, victims, nchosen, st)) != MS_SUCCESS) return code;
    /* The policy's choice must actually make room. */
    code = dry_filter(p, c, nm, st);
    if (code != MS_SUCCESS) return code;
    sort_victims(victims, nchosen);
    *out = (ms_preemption_candidate){.node = ni->name, .ni = ni, .nvictims = nchosen,
                                     .victims = victims,
                                     .num_pdb_violations = count_pdb_violations(p, victims, nchosen)};
    ms_status_ok(st);
    return MS_SUCCESS;
}

static bool reserve_victims(dp *p, uint32_t n) {
    if (n <= p->pvcap) return true;
    uint32_t cap = ms_array_capacity(p->pvcap, n);
    ranked *pv = realloc(p->pv, cap * sizeof *pv);
    if (pv) p->pv = pv;
    ms_pod **o = realloc(p->order, cap * sizeof *o);
    if (o) p->order = o;
    ms_pod **v = realloc(p->victims, cap * sizeof *v);
    if (v) p->victims = v;
    bool *b = realloc(p->violating, cap * sizeof *b);
    if (b) p->violating = b;
    if (!pv || !o || !v || !b) return false;
    p->pvcap = cap;
    return true;
}

/* NodeResourcesFit's check (fit_filter) for the pod on a node of
 * allocatable `a` holding `npods` pods that request `used`. */
static bool fit_check(const ms_pod *pod, const int64_t *a, int64_t npods, const int64_t *used) {
    if (npods + 1 > a[MS_RES_PODS]) return false;
    const int64_t *want = pod->requests.v;
    static const int checked[] = {MS_RES_CPU, MS_RES_MEMORY, MS_RES_EPHEMERAL};
    for (size_t k = 0; k < sizeof checked / sizeof checked[0]; k++) {
        int r = checked[k];
        if (want[r] > 0 && want[r] > a[r] - used[r]) return false;
    }
    return true;
}

/* What Filter's first pass adds to the node: the nominated pods of at
 * least the pod's priority (ms_framework_run_filter_with_nominees). */
typedef struct nominee_load {
    int64_t npods;
    int64_t used[MS_RES_NBUILTIN];
} nominee_load;

static void nominee_load_of(const ms_pod *pod, const nominees *nm, nominee_load *out) {
    memset(out, 0, sizeof *out);
    for (uint32_t i = 0; i < nm->n; i++) {
        const ms_pod *q = nm->pods[i];
        if (q->priority < pod->priority || q->meta.uid_hash == pod->meta.uid_hash) continue;
        out->npods++;
        for (int r = 0; r < MS_RES_NBUILTIN; r++) out->used[r] += q->requests.v[r];
    }
}

/* fit_check on ni's pods minus `minus` (count and requests) plus `plus`
 * (a pod put back, or NULL) plus the nominated pods. When it fails, the
 * dry run's Filter fails too: in its first pass with nominated pods, or
 * without any, in its only one (requests only add up). The status would
 * say which plugin failed first, which matters only for a message. */
static bool fits_resources(const ms_pod *pod, const ms_node_info *ni, int64_t minus_pods,
                           const int64_t *minus, const ms_pod *plus, const nominee_load *nl) {
    if (!ni->node) return true;
    int64_t used[MS_RES_NBUILTIN];
    for (int r = 0; r < MS_RES_NBUILTIN; r++)
        used[r] = ni->requested.v[r] - minus[r] + nl->used[r] + (plus ? plus->requests.v[r] : 0);
    int64_t npods = (int64_t)ni->npods - minus_pods + nl->npods + (plus != NULL);
    return fit_check(pod, ni->node->allocatable.v, npods, used);
}

/* The shortcut above holds when this cycle's Filter runs NodeResourcesFit
 * and no policy chooses the victims. */
static bool can_precheck(const dp *p, const ms_cycle *c) {
    if (p->hooks && p->hooks->select_victims) return false;
    const ms_framework *fw = c->fw;
    for (uint32_t k = 0; k < fw->norder[MS_EP_FILTER]; k++) {
        uint32_t i = fw->order[MS_EP_FILTER][k];
        if (fw->plugins[i].ops == &ms_plugin_node_resources_fit && fw->plugins[i].ops->filter)
            return !(c->skip_filter >> i & 1);
    }
    return false;
}

/* The dry runs can be counted rather than filtered when, besides
 * NodeResourcesFit (can_precheck), the Filter phase holds only plugins
 * that read the node alone (none in pod_reading_filters), nothing hears
 * of pods added or removed (PreFilter extensions, policies) and the pod
 * requests no scalar resource: then fits_resources is NodeResourcesFit's
 * exact verdict, and the other plugins, run once on the node (p->others),
 * the rest of it. */
static bool can_count(dp *p, const ms_cycle *c, bool precheck) {
    const ms_framework *fw = c->fw;
    if (!precheck || c->pod->requests.nscalar ||
        ((fw->pre_filter_extensions | fw->batch_filters | fw->pod_reading_filters) & ~c->skip_filter))
        return false;
    ms_filter_plan all;
    ms_framework_filter_plan(fw, c, &all);
    p->others.n = 0;
    for (uint32_t k = 0; k < all.n; k++)
        if (fw->plugins[all.steps[k].plugin].ops != &ms_plugin_node_resources_fit)
            p->others.steps[p->others.n++] = all.steps[k];
    return true;
}

/* The node's pods of lower priority than the pod into p->pv, most
 * important first (reprieve order); their count. A node holds few victims
 * and cmp_importance is a total order (position breaks ties): an insertion
 * sort, without qsort's call overhead and scratch buffer. */
static uint32_t rank_victims(dp *p, const ms_pod *pod, const ms_node_info *ni) {
    ranked *pv = p->pv;
    uint32_t npv = 0;
    for (uint32_t i = 0; i < ni->npods; i++)
        if (ni->pods[i]->priority < pod->priority && !deletion_requested(p->h, ni->pods[i]))
            pv[npv++] = (ranked){ni->pods[i], i};
    if (npv > 16) qsort(pv, npv, sizeof *pv, cmp_importance);
    for (uint32_t i = 1; npv <= 16 && i < npv; i++) {
        ranked x = pv[i];
        uint32_t j = i;
        while (j > 0 && cmp_importance(&x, &pv[j - 1]) < 0) {
            pv[j] = pv[j - 1];
            j--;
        }
        pv[j] = x;
    }
    return npv;
}

/* filterPodsWithPDBViolation: the ranked list split, keeping its order,
 * into pods whose eviction would violate a PDB and the others, in that
 * order into p->order; how many violate. */
static uint32_t split_by_pdb(dp *p, uint32_t npv) {
    const ranked *pv = p->pv;
    bool *violating = p->violating;
    memset(violating, 0, npv * sizeof *violating);
    uint32_t nviolating = 0;
    ms_pdb_set *pdbs = p->h->pdbs;
    if (pdbs && ms_pdb_set_len(pdbs)) {
        ms_pdb_budget_reset(pdbs);
        for (uint32_t i = 0; i < npv; i++) {
            violating[i] = ms_pdb_budget_take(pdbs, pv[i].pod, p->h->in);
            nviolating += violating[i];
        }
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < npv; i++)
        if (violating[i]) p->order[k++] = pv[i].pod;
    for (uint32_t i = 0; i < npv; i++)
        if (!violating[i]) p->order[k++] = pv[i].pod;
    return nviolating;
}

/* Reprieve, on the copy without any victim: put each pod of p->order back
 * and keep it when the pod still fits; the others go to p->victims. */
static ms_code reprieve(dp *p, ms_cycle *c, const nominees *nm, const nominee_load *nl, bool precheck, uint32_t npv,
                        uint32_t nviolating, uint32_t *nvictims, uint32_t *num_violations, ms_status *st) {
    static const int64_t zero[MS_RES_NBUILTIN];
    *nvictims = *num_violations = 0;
    for (uint32_t i = 0; i < npv; i++) {
        ms_pod *v = p->order[i];
        /* A pod whose requests do not fit back is a victim without a Filter
         * run (the pass would fail on resources). */
        if (precheck && !fits_resources(c->pod, p->scratch, 0, zero, v, nl)) {
            p->victims[(*nvictims)++] = v;
            *num_violations += i < nviolating;
            continue;
        }
        ms_status fst;
        ms_code code = scratch_add(p, c, v, &fst);
        if (code == MS_ERROR) return fail(st, MS_ERROR, fst.nreasons ? fst.reasons[0] : "out of memory");
        if (code == MS_SUCCESS && dry_filter(p, c, nm, &fst) == MS_SUCCESS) continue;
        if ((code = scratch_remove(p, c, &v, 1, &fst)) == MS_ERROR) {
            *st = fst;
            return MS_ERROR;
        }
        p->victims[(*nvictims)++] = v;
        *num_violations += i < nviolating;
    }
    return MS_SUCCESS;
}

static ms_code candidate_of(dp *p, ms_cycle *c, const ms_node_info *ni, uint32_t npv,
                            uint32_t nviolating, uint32_t nvictims, uint32_t num_violations,
                            ms_preemption_candidate *out, ms_status *st);

/* SelectVictimsOnNode's dry run on the scratch copy of ni, the npv
 * lower-priority pods ranked in p->pv. */
static ms_code dry_run_node(dp *p, ms_cycle *c, const ms_node_info *ni, const nominees *nm,
                            const nominee_load *nl, bool precheck, uint32_t npv,
                            ms_preemption_candidate *out, ms_status *st) {
    if (ms_node_info_copy_into(p->scratch, ni) != 0) return fail(st, MS_ERROR, "out of memory");
    p->scratch->index = ni->index; /* as nominated.c's copy: no lookup by name */
    if (p->hooks && p->hooks->select_victims) {
        /* MS_SKIP leaves the copy untouched: the default goes on with it. */
        ms_code code = hooked_select(p, c, ni, nm, p->pv, npv, out, st);
        if (code != MS_SKIP) return code;
    }

    /* p->order is free until split_by_pdb: the victims as one array, so
     * that the extensions hear of them in one call. */
    for (uint32_t i = 0; i < npv; i++) p->order[i] = p->pv[i].pod;
    ms_code code = scratch_remove(p, c, p->order, npv, st);
    if (code != MS_SUCCESS) return code;
    /* Not even without every lower-priority pod: this node cannot help.
     * (Affinity to a victim is not considered, as upstream.) */
    code = dry_filter(p, c, nm, st);
    if (code != MS_SUCCESS) return code;

    uint32_t nviolating = split_by_pdb(p, npv);
    uint32_t nvictims, num_violations;
    code = reprieve(p, c, nm, nl, precheck, npv, nviolating, &nvictims, &num_violations, st);
    if (code != MS_SUCCESS) return code;
    return candidate_of(p, c, ni, npv, nviolating, nvictims, num_violations, out, st);
}

/* The candidate from p->victims[0..nvictims), as SelectVictimsOnNode
 * returns it. */
static ms_code candidate_of(dp *p, ms_cycle *c, const ms_node_info *ni, uint32_t npv,
                            uint32_t nviolating, uint32_t nvictims, uint32_t num_violations,
                            ms_preemption_candidate *out, ms_status *st) {
    if (nvictims == 0) {
        const char *why = cycle_text(c, "preemption: expected at least one victim pod on node %s%s",
                                     ms_str_get(p->h->in, ni->name), "");
        return fail(st, MS_ERROR, why ? why : "preemption: expected at least one victim pod");
    }
    /* Both groups contributed: back to one importance order, so that
     * victims[0] is the most important (pickOneNodeForPreemption reads it). */
    ms_pod **victims = p->victims;
    if (nviolating && nviolating < npv) sort_victims(victims, nvictims);
    ms_pod **kept = MS_ARENA_NEW(c->arena, ms_pod *, nvictims);
    if (!kept) return fail(st, MS_ERROR, "out of memory");
    memcpy(kept, victims, nvictims * sizeof *kept);
    *out = (ms_preemption_candidate){.node = ni->name, .ni = ni, .nvictims = nvictims,
                                     .victims = kept, .num_pdb_violations = num_violations};
    ms_status_ok(st);
    return MS_SUCCESS;
}

/* SelectVictimsOnNode by counting (can_count), once the pod is known to
 * fit with every lower-priority pod gone: the reprieve of reprieve() on
 * running sums, with no copy of the node and no Filter run. `freed` holds
 * the requests of the npv pods ranked in p->pv. */
static ms_code dry_run_counted(dp *p, ms_cycle *c, const ms_node_info *ni, const nominee_load *nl,
                               uint32_t npv, const int64_t *freed, kept_dry *keep,
                               ms_preemption_candidate *out, ms_status *st) {
    int64_t minus[MS_RES_NBUILTIN];
    memcpy(minus, freed, sizeof minus);
    int64_t minus_pods = npv;
    uint32_t nviolating = split_by_pdb(p, npv), nvictims = 0, num_violations = 0;
    for (uint32_t i = 0; i < npv; i++) {
        ms_pod *v = p->order[i];
        if (fits_resources(c->pod, ni, minus_pods, minus, v, nl)) {
            minus_pods--;
            for (int r = 0; r < MS_RES_NBUILTIN; r++) minus[r] -= v->requests.v[r];
            continue;
        }
        /* Without PDBs (can_keep) p->order is p->pv's order. */
        if (keep && nvictims < KEPT_VICTIMS && p->pv[i].at <= UINT8_MAX) keep->at[nvictims] = (uint8_t)p->pv[i].at;
        else keep = NULL;
        p->victims[nvictims++] = v;
        num_violations += i < nviolating;
    }
    ms_code code = candidate_of(p, c, ni, npv, nviolating, nvictims, num_violations, out, st);
    if (keep && code == MS_SUCCESS) {
        keep->outcome = KEPT_CANDIDATE;
        keep->nvictims = (uint8_t)nvictims;
    }
    return code;
}

/* SelectVictimsOnNode. MS_SUCCESS fills *out; otherwise st says why this
 * node is no candidate (for the message) or carries an error. */
static ms_code select_victims_on_node(dp *p, ms_cycle *c, const ms_node_info *ni, bool precheck,
                                      bool counted, kept_dry *keep, ms_preemption_candidate *out,
                                      ms_status *st, bool *deferred) {
    const ms_pod *pod = c->pod;
    uint32_t npv = 0;
    int64_t freed[MS_RES_NBUILTIN] = {0};
    for (uint32_t i = 0; i < ni->npods; i++)
        if (ni->pods[i]->priority < pod->priority && !deletion_requested(p->h, ni->pods[i])) {
            npv++;
            for (int r = 0; r < MS_RES_NBUILTIN; r++) freed[r] += ni->pods[i]->requests.v[r];
        }
    /* Nothing to remove: the node stays as Filter saw it. */
    if (npv == 0) {
        if (keep) keep->outcome = KEPT_NO_VICTIMS;
        return fail(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE, NO_VICTIMS);
    }
    const nominees nm = node_nominees(p->h, ni);
    nominee_load nl = {0};
    if (precheck) nominee_load_of(pod, &nm, &nl);
    /* Not even with every lower-priority pod gone: no candidate. */
    if (precheck && !fits_resources(pod, ni, npv, freed, NULL, &nl)) {
        if (keep) keep->outcome = KEPT_RULED_OUT;
        *deferred = true;
        return MS_UNSCHEDULABLE;
    }

    if (!reserve_victims(p, npv)) return fail(st, MS_ERROR, "out of memory");
    npv = rank_victims(p, pod, ni);
    /* The other plugins rejecting the node is rare: the full dry run then
     * gives the status its message needs. */
    ms_status ost;
    if (counted && ni->node && ms_framework_run_filter_plan(&p->others, c, ni, &ost) == MS_SUCCESS) {
        p->last.ncounted++;
        return dry_run_counted(p, c, ni, &nl, npv, freed, keep, out, st);
    }
    uint32_t outer = ms_framework_dry_begin(c);
    ms_code code = dry_run_node(p, c, ni, &nm, &nl, precheck, npv, out, st);
    ms_framework_dry_end(c, outer);
    return code;
}

/* ---- PostFilter ---- */

/* The node the pod is nominated to. The nominator is the live record (it
 * starts from status.nominatedNodeName and follows nominations made and
 * cleared in memory, which the pod object may not show yet); the pod's own
 * field is only read without a queue. */
static ms_str nomination_of(const ms_handle *h, const ms_pod *pod) {
    if (h->queue) return ms_queue_nominated_node(h->queue, pod->meta.uid_hash);
    return pod->nominated_node_name;
}

static int32_t snapshot_index(const ms_snapshot *snap, const ms_node_info *ni) {
    for (uint32_t i = 0; i < snap->nnodes; i++)
        if (snap->nodes[i] == ni) return (int32_t)i;
    return -1;
}

/* PodEligibleToPreemptOthers: NULL when eligible, else the message. */
static const char *not_eligible(const ms_cycle *c, const ms_status *statuses, ms_str nominated) {
    const ms_pod *pod = c->pod;
    if (pod->preemption_policy == MS_PREEMPT_NEVER) return NEVER;
    if (nominated == MS_STR_NONE) return NULL;
    const ms_node_info *ni = ms_snapshot_get(c->snap, nominated);
    if (!ni || !ni->node) return NULL;
    /* Filters now rule that node out for good: look elsewhere. */
    int32_t i = snapshot_index(c->snap, ni);
    if (i >= 0 && statuses[i].code == MS_UNSCHEDULABLE_AND_UNRESOLVABLE) return NULL;
    /* Upstream waits only for pods a preemption is deleting: a pod stuck
     * on a finalizer would stall the preemptor for ever. */
    bool any = c->h->no_disruption_conditions;
    for (uint32_t k = 0; k < ni->npods; k++) {
        const ms_pod *q = ni->pods[k];
        if (q->priority >= pod->priority) continue;
        if ((q->meta.deletion != 0 && (any || q->disruption_by_preemption)) || deletion_requested(c->h, q))
            return TERMINATING;
    }
    return NULL;
}

static void clear_own_nomination(dp *p, ms_cycle *c, ms_str nominated) {
    if (nominated != MS_STR_NONE && p->h->clear_nomination)
        p->h->clear_nomination(p->h->preempt_ctx, c->pod);
}

/* No candidate: upstream's FitError over the dry run's statuses, nodes it
 * did not look at counting as "Preemption is not helpful for scheduling". */
static ms_code no_candidates(dp *p, const ms_cycle *c, ms_status *dry, ms_status *st) {
    uint32_t n = c->snap->nnodes;
    for (uint32_t i = 0; i < n; i++)
        if (!p->looked[i] || dry[i].code == MS_SUCCESS) {
            ms_status_set(&dry[i], MS_UNSCHEDULABLE_AND_UNRESOLVABLE, NOT_HELPFUL);
            dry[i].plugin = -1;
        }
    static const char prefix[] = "preemption: ";
    size_t need = ms_fit_error_message(NULL, 0, n, dry, n, NULL);
    ms_buf *m = &p->msg;
    ms_buf_reset(m);
    ms_buf_append(m, prefix, sizeof prefix - 1);
    if (!ms_buf_reserve(m, need)) return fail(st, MS_UNSCHEDULABLE, "preemption: " NOT_HELPFUL);
    ms_fit_error_message(m->data + m->len, m->cap - m->len, n, dry, n, NULL);
    m->len += need;
    return fail(st, MS_UNSCHEDULABLE, m->data);
}

/* PrepareCandidate: evict the victims, then clear the nominations of
 * lower-priority pods nominated to the node (they may no longer fit). */
static ms_code prepare(dp *p, ms_cycle *c, const ms_preemption_candidate *cand, ms_status *st) {
    const ms_handle *h = p->h;
    ms_pod *pod = c->pod;
    for (uint32_t i = 0; i < cand->nvictims; i++) {
        ms_pod *v = cand->victims[i];
        /* Already going away: another request would change nothing. */
        if (terminating(h, v)) continue;
        if (!h->evict) return fail(st, MS_ERROR, "preemption: the scheduler cannot evict pods");
        ms_rc rc = h->evict(h->preempt_ctx, v, pod, cand->node);
        if (rc != MS_OK) {
            char key[320];
            ms_pod_key(v, h->in, key, sizeof key);
            const char *why = cycle_text(c, "preemption: evicting pod %s: %s", key, ms_rc_str(rc));
            return fail(st, MS_ERROR, why ? why : "preemption: evicting a victim failed");
        }
    }
    if (!h->queue) return MS_SUCCESS;
    uint32_t n = 0;
    ms_pod *const *nominated = ms_queue_nominated_for(h->queue, cand->node, &n);
    uint32_t nlower = 0;
    for (uint32_t i = 0; i < n; i++) nlower += nominated[i]->priority < pod->priority;
    if (nlower == 0) return MS_SUCCESS;
    /* Copied and referenced first: clearing a nomination changes the
     * nominator's list and may drop its reference. */
    ms_pod **lower = MS_ARENA_NEW(c->arena, ms_pod *, nlower);
    if (!lower) return fail(st, MS_ERROR, "out of memory");
    nlower = 0;
    for (uint32_t i = 0; i < n; i++)
        if (nominated[i]->priority < pod->priority) lower[nlower++] = ms_pod_ref(nominated[i]);
    for (uint32_t i = 0; i < nlower; i++) {
        if (h->clear_nomination) h->clear_nomination(h->preempt_ctx, lower[i]);
        ms_pod_unref(lower[i]);
    }
    p->last.ncleared = h->clear_nomination ? nlower : 0;
    return MS_SUCCESS;
}

static ms_code choose(dp *p, ms_cycle *c, const ms_preemption_candidate *cands, uint32_t n,
                      uint32_t *chosen, ms_status *st) {
    *chosen = 0;
    const ms_preemption_hooks *hk = p->hooks;
    if (hk && hk->pick && (n > 1 || hk->always_pick)) {
        ms_status hst;
        ms_status_ok(&hst);
        ms_code code = hk->pick(hk->ctx, c, cands, n, chosen, &hst);
        if (code == MS_SUCCESS) {
            if (*chosen < n) return MS_SUCCESS;
            return fail(st, MS_ERROR, "preemption: pick_preemption chose no option");
        }
        if (code != MS_SKIP) {
            *st = hst;
            st->code = (uint8_t)(code == MS_ERROR ? MS_ERROR : MS_UNSCHEDULABLE);
            st->plugin = -1;
            if (!st->nreasons) ms_status_add_reason(st, "preemption: no candidate node for preemption");
            return (ms_code)st->code;
        }
    }
    *chosen = ms_pick_one_node_for_preemption(cands, n);
    return MS_SUCCESS;
}

/* Grows the per-node arrays by the one doubling rule, so that a cluster
 * growing a node at a time reallocates them a logarithmic number of
 * times. The kept outcomes keep their entries: each is checked against
 * the NodeInfo at its position (object and generation; generations come
 * from one counter, so a new NodeInfo at a freed one's address is told
 * apart) before use, whatever the count of nodes, so a new position
 * starts empty and an old one holds only for the node it was found on. */
static bool reserve_nodes(dp *p, uint32_t n) {
    if (n <= p->nodecap) return true;
    const uint32_t cap = ms_array_capacity(p->nodecap, n);
    ms_status *d = realloc(p->dry, (size_t)cap * sizeof *d);
    if (d) p->dry = d;
    uint8_t *l = realloc(p->looked, cap);
    if (l) p->looked = l;
    uint32_t *pot = realloc(p->potential, (size_t)cap * sizeof *pot);
    if (pot) p->potential = pot;
    kept_dry *kept = realloc(p->kept, (size_t)cap * sizeof *kept);
    if (kept) {
        p->kept = kept;
        memset(kept + p->nodecap, 0, (size_t)(cap - p->nodecap) * sizeof *kept);
    }
    if (!d || !l || !pot || !kept) return false;
    p->nodecap = cap;
    return true;
}

static bool reserve_candidates(dp *p, uint32_t n) {
    if (n <= p->candcap) return true;
    ms_preemption_candidate *c = realloc(p->cands, n * sizeof *c);
    if (c) p->cands = c;
    ms_pod **pool = realloc(p->pool, (size_t)n * KEPT_VICTIMS * sizeof *pool);
    if (pool) p->pool = pool;
    if (!c || !pool) return false;
    p->candcap = n;
    return true;
}

/* Whether this search may use and keep outcomes (see kept_dry): counted
 * dry runs, and nothing a kept outcome does not stand for: PDBs (their
 * budgets change with every eviction), pods whose deletion is requested
 * (kept outcomes were found with none), a nomination of the pod's own
 * (it leaves itself out of its node's nominees). A new signature or other
 * PreFilter skips start a new epoch. */
static bool can_keep(dp *p, const ms_cycle *c, bool counted, ms_str nom) {
    const ms_map *deleting = p->h->deletion_requested;
    if (!counted || !p->kept || nom != MS_STR_NONE || (p->h->pdbs && ms_pdb_set_len(p->h->pdbs)) ||
        (deleting && deleting->len))
        return false;
    if (!p->sig || p->sig_skip != c->skip_filter || !ms_pod_same_signature(p->sig, c->pod)) {
        if (p->sig) ms_pod_unref(p->sig);
        p->sig = ms_pod_ref(c->pod);
        p->sig_skip = c->skip_filter;
        p->epoch++;
    }
    return true;
}

/* SelectVictimsOnNode's answer from a kept outcome: the same status, or
 * the same victims in the same order. */
static ms_code kept_outcome(dp *p, const ms_node_info *ni, const kept_dry *kd,
                            ms_preemption_candidate *out, ms_status *st, bool *deferred) {
    if (kd->outcome == KEPT_NO_VICTIMS) return fail(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE, NO_VICTIMS);
    if (kd->outcome == KEPT_RULED_OUT) {
        *deferred = true;
        return MS_UNSCHEDULABLE;
    }
    /* Kept outcomes are used only without PDBs (can_keep), so every success
     * is a candidate and the search stops at want of them: the pool, sized
     * for the candidates, has room. Checked, not assumed, since a change
     * there would otherwise write past it. */
    if (p->pooled + kd->nvictims > (size_t)p->candcap * KEPT_VICTIMS)
        return fail(st, MS_ERROR, "kept preemption victims: no room left");
    ms_pod **victims = p->pool + p->pooled;
    p->pooled += kd->nvictims;
    for (uint32_t k = 0; k < kd->nvictims; k++) victims[k] = ni->pods[kd->at[k]];
    p->last.ncounted++;
    *out = (ms_preemption_candidate){.node = ni->name, .ni = ni, .nvictims = kd->nvictims, .victims = victims};
    ms_status_ok(st);
    return MS_SUCCESS;
}

/* upstream DryRunPreemption: SelectVictimsOnNode on the potential nodes,
 * from `offset` on, until `want` candidates are found with at least one
 * that violates no PDB. cands has room for 2 * want; the candidates
 * without violations come first. Returns how many there are. */
static uint32_t dry_run_preemption(dp *p, ms_cycle *c, uint32_t np, uint32_t offset, uint32_t want,
                                   ms_str nom, ms_preemption_candidate *cands) {
    ms_preemption_candidate *violating = cands + want;
    uint32_t nok = 0, nbad = 0;
    bool precheck = can_precheck(p, c);
    bool counted = can_count(p, c, precheck);
    const bool keep = can_keep(p, c, counted, nom);
    const int32_t priority = c->pod->priority;
    uint32_t nstamps = 0;
    const uint64_t *stamps = keep && p->h->queue ? ms_queue_nominated_stamps(p->h->queue, &nstamps) : NULL;
    p->pooled = 0;
    for (uint32_t k = 0; k < np; k++) {
        uint32_t i = p->potential[(offset + k) % np];
        const ms_node_info *ni = c->snap->nodes[i];
        ms_preemption_candidate cand;
        bool deferred = false;
        ms_code code;
        kept_dry *kd = keep ? &p->kept[i] : NULL;
        const uint64_t stamp = ms_nominated_stamp_at(stamps, nstamps, ni->name);
        if (kd && kd->outcome != KEPT_NONE && kd->ni == ni && kd->generation == ni->generation &&
            kd->nominees == stamp && kd->epoch == p->epoch && kd->priority == priority) {
            p->last.nkept++;
            code = kept_outcome(p, ni, kd, &cand, &p->dry[i], &deferred);
        } else {
            if (kd)
                *kd = (kept_dry){.ni = ni, .generation = ni->generation, .nominees = stamp, .epoch = p->epoch,
                                 .priority = priority, .outcome = KEPT_NONE};
            code = select_victims_on_node(p, c, ni, precheck, counted, kd, &cand, &p->dry[i], &deferred);
        }
        p->looked[i] = deferred ? 2 : 1;
        p->last.nevaluated++;
        if (code == MS_SUCCESS) {
            if (cand.num_pdb_violations == 0) {
                if (nok < want) cands[nok++] = cand;
            } else if (nbad < want) {
                violating[nbad++] = cand;
            }
            if (nok > 0 && nok + nbad >= want) break;
        }
    }
    if (nbad) memmove(cands + nok, violating, nbad * sizeof *cands);
    return nok + nbad;
}

/* No candidate anywhere. The message and the error need every visited
 * node's own status: the nodes the precheck ruled out are dry-run (they
 * still give no candidate). */
static ms_code dry_run_found_none(dp *p, ms_cycle *c, uint32_t np, uint32_t offset, ms_str nom, ms_status *st) {
    ms_status *dry = p->dry;
    int32_t first_error = -1;
    for (uint32_t k = 0; k < p->last.nevaluated; k++) {
        uint32_t i = p->potential[(offset + k) % np];
        if (p->looked[i] == 2) {
            ms_preemption_candidate cand;
            bool deferred = false;
            select_victims_on_node(p, c, c->snap->nodes[i], false, false, NULL, &cand, &dry[i], &deferred);
            p->looked[i] = 1;
        }
        if (dry[i].code == MS_ERROR && first_error < 0) first_error = (int32_t)i;
    }
    if (first_error >= 0) {
        *st = dry[first_error];
        st->code = MS_ERROR;
        st->plugin = -1;
        return MS_ERROR;
    }
    clear_own_nomination(p, c, nom);
    return no_candidates(p, c, dry, st);
}

static ms_code dp_post_filter(void *self, ms_cycle *c, const ms_status *statuses,
                              ms_str *nominated, ms_status *st) {
    dp *p = self;
    memset(&p->last, 0, sizeof p->last);
    p->last.chosen = -1;
    *nominated = MS_STR_NONE;
    if (!c->fw || !c->snap || !statuses)
        return fail(st, MS_ERROR, "preemption: the cycle has no framework, snapshot or statuses");

    /* 1) eligibility */
    ms_str nom = nomination_of(p->h, c->pod);
    const char *why = not_eligible(c, statuses, nom);
    if (why) {
        p->last.not_eligible = why;
        return fail(st, MS_UNSCHEDULABLE, why);
    }
    const ms_snapshot *snap = c->snap;
    uint32_t n = snap->nnodes;
    if (n == 0) return fail(st, MS_ERROR, "preemption: no nodes available");
    p->last.attempted = true;

    /* 2) candidates: nodes where removing pods might help */
    if (!reserve_nodes(p, n)) return fail(st, MS_ERROR, "out of memory");
    ms_status *dry = p->dry;
    uint32_t *potential = p->potential;
    /* Statuses are written only for the nodes dry-run; the others are
     * filled in when a message needs them (no_candidates). */
    memset(p->looked, 0, n);
    uint32_t np = 0;
    for (uint32_t i = 0; i < n; i++)
        if (statuses[i].code == MS_UNSCHEDULABLE) potential[np++] = i;
    p->last.npotential = np;
    if (np == 0) {
        clear_own_nomination(p, c, nom);
        return no_candidates(p, c, dry, st);
    }
    uint32_t offset = p->h->rng ? (uint32_t)ms_rng_below(p->h->rng, np) : 0;
    uint32_t want = ms_preemption_num_candidates(np, p->min_pct, p->min_abs);
    p->last.offset = offset;
    p->last.want = want;
    /* Not from the arena, which would clear room for 2 * want each call. */
    if (!reserve_candidates(p, 2 * want)) return fail(st, MS_ERROR, "out of memory");
    ms_preemption_candidate *cands = p->cands;
    uint32_t ncands = dry_run_preemption(p, c, np, offset, want, nom, cands);
    p->last.candidates = cands;
    p->last.ncandidates = ncands;
    if (ncands == 0) return dry_run_found_none(p, c, np, offset, nom, st);

    /* Extenders with a preempt verb may drop candidates or change their
     * victims (upstream's callExtenders), before the choice. */
    if (c->h && c->h->extenders_preempt) {
        ms_error eerr;
        if (c->h->extenders_preempt(c->h->preempt_ctx, c->pod, c->snap, &cands, &ncands, c->arena,
                                    &eerr) != MS_OK) {
            const char *msg = ms_arena_strdup(c->arena, eerr.msg);
            return fail(st, MS_ERROR, msg ? msg : "preemption: extender failed");
        }
        p->last.candidates = cands;
        p->last.ncandidates = ncands;
        if (ncands == 0)
            return fail(st, MS_UNSCHEDULABLE, "preemption: extenders left no candidate node");
    }

    /* 3) the best candidate */
    uint32_t chosen;
    ms_code code = choose(p, c, cands, ncands, &chosen, st);
    if (code != MS_SUCCESS) return code;
    p->last.chosen = (int32_t)chosen;

    /* 4) make room, then nominate */
    if ((code = prepare(p, c, &cands[chosen], st)) != MS_SUCCESS) return code;
    *nominated = cands[chosen].node;
    ms_status_ok(st);
    return MS_SUCCESS;
}

const ms_plugin_ops ms_plugin_default_preemption = {
    .name = PLUGIN,
    .create = dp_create,
    .destroy = dp_destroy,
    .post_filter = dp_post_filter,
};
