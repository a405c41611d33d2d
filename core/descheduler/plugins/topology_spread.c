/* RemovePodsViolatingTopologySpreadConstraint: for each distinct spread
 * constraint of the pods of a namespace (DoNotSchedule ones, and
 * ScheduleAnyway when `constraints` lists it), each with its pod's
 * matchLabelKeys values merged into its selector and its pod's node
 * selector, affinity and tolerations deciding which nodes count (upstream's
 * node inclusion policies), counts the matching pods per topology domain
 * and, while the largest and smallest domains differ by more than maxSkew,
 * moves pods from the largest towards the ideal average (upstream's
 * balanceDomains: at most half the excess skew, no more than either side
 * can give or take). The pods taken are those that fit a node of a domain
 * below the average first, then the lowest priority ones without node
 * selector or affinity; with topologyBalanceNodeFit (the default) a pod
 * that fits no such node is counted as moved but not evicted. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/selector_build.h"
#include "api/toleration.h"
#include "base/array.h"
#include "descheduler/pass.h"
#include "descheduler/plugin.h"

typedef struct spread_args {
    ms_desched_pod_scope scope;
    bool do_not_schedule, schedule_anyway;
    bool node_fit;
} spread_args;

static ms_rc decode(ms_desched_args_ctx *c, const cJSON *args, void *out) {
    spread_args *a = out;
    ms_desched_strs constraints = {0};
    ms_rc rc;
    a->node_fit = true;
    if (args && ((rc = ms_desched_args_namespaces(c, args, "namespaces", &a->scope)) != MS_OK ||
                 (rc = ms_desched_args_selector(c, args, &a->scope)) != MS_OK ||
                 (rc = ms_desched_args_strs(c, args, "constraints", &constraints)) != MS_OK ||
                 (rc = ms_json_bool(c->r, "topologyBalanceNodeFit", ms_json_get(args, "topologyBalanceNodeFit"),
                                    &a->node_fit)) != MS_OK))
        return rc;
    for (uint32_t i = 0; i < constraints.n; i++) {
        const char *s = ms_str_get(c->in, constraints.v[i]);
        if (strcmp(s, "DoNotSchedule") == 0) a->do_not_schedule = true;
        else if (strcmp(s, "ScheduleAnyway") == 0) a->schedule_anyway = true;
        else ms_desched_args_invalid(c, "constraint %s is not one of map[DoNotSchedule:{} ScheduleAnyway:{}]", s);
    }
    if (!constraints.n) a->do_not_schedule = true;
    return MS_OK;
}

/* One topology domain of a constraint and its matching pods, ordered so
 * that the last ones are evicted first. */
typedef struct domain {
    ms_str value;
    uint32_t n, cap;
    ms_pod **pods;
    ms_str *nodes;
    bool *evictable;               /* DefaultEvictor's verdict, asked once per pod */
    bool *fits;                    /* fits a node below the average (a domain that gives) */
} domain;

/* One constraint as upstream's newTopologySpreadConstraint builds it: the
 * pod's matchLabelKeys values in the selector, and the pod whose node
 * selector, affinity and tolerations decide which nodes count. */
typedef struct constraint {
    const ms_topology_spread *c;
    ms_label_selector selector;
    const ms_pod *owner;
} constraint;

typedef struct balancing {
    ms_desched_pass *ps;
    const spread_args *a;
    const ms_pod *owner;            /* the pod that declared the constraint */
    const ms_topology_spread *c;
    const ms_label_selector *selector;   /* c's, matchLabelKeys merged */
    uint32_t ndomains, domcap;
    domain *domains;
    uint32_t total;
    /* Domains below the ideal average when balancing began (upstream's
     * nodesBelowIdealAvg): where moved pods must fit. */
    uint32_t nbelow;
    ms_str *below;
} balancing;

static bool requirement_equal(const ms_requirement *x, const ms_requirement *y) {
    if (x->key != y->key || x->op != y->op || x->nvalues != y->nvalues || x->number != y->number) return false;
    return !x->nvalues || memcmp(x->values, y->values, sizeof *x->values * x->nvalues) == 0;
}

static bool selector_equal(const ms_label_selector *x, const ms_label_selector *y) {
    if (x->nothing != y->nothing || x->n != y->n) return false;
    for (uint32_t i = 0; i < x->n; i++)
        if (!requirement_equal(&x->reqs[i], &y->reqs[i])) return false;
    return true;
}

/* Whether a node counts for the constraint (upstream's node inclusion
 * policies: nodeAffinityPolicy Honor by default, nodeTaintsPolicy Ignore). */
static bool node_included(const ms_desched_pass *ps, const ms_pod *p, const ms_topology_spread *c,
                          const ms_node *n) {
    if (c->node_affinity_policy != MS_POLICY_IGNORE) {
        if (!ms_labels_subset(&p->node_selector, &n->meta.labels)) return false;
        if (p->has_node_affinity_required &&
            !ms_node_selector_matches(&p->node_affinity_required, &n->meta.labels, n->meta.name, ps->in))
            return false;
    }
    if (c->node_taints_policy == MS_POLICY_HONOR &&
        ms_find_untolerated_taint(n->taints, n->ntaints, p->tolerations, p->ntolerations, MS_DO_NOT_SCHEDULE_EFFECTS))
        return false;
    return true;
}

static domain *domain_of(balancing *b, ms_str value) {
    for (uint32_t i = 0; i < b->ndomains; i++)
        if (b->domains[i].value == value) return &b->domains[i];
    if (!ms_array_grow((void **)&b->domains, &b->domcap, b->ndomains + 1, sizeof *b->domains)) return NULL;
    b->domains[b->ndomains] = (domain){.value = value};
    return &b->domains[b->ndomains++];
}

static bool domain_add(domain *d, ms_pod *p, ms_str node, bool evictable) {
    if (d->n == d->cap) {
        uint32_t cap = ms_array_capacity(d->cap, d->n + 1);
        ms_pod **pods = realloc(d->pods, sizeof *pods * cap);
        if (pods) d->pods = pods;
        ms_str *nodes = realloc(d->nodes, sizeof *nodes * cap);
        if (nodes) d->nodes = nodes;
        bool *ev = realloc(d->evictable, sizeof *ev * cap);
        if (ev) d->evictable = ev;
        if (!pods || !nodes || !ev) return false;
        d->cap = cap;
    }
    d->pods[d->n] = p;
    d->evictable[d->n] = evictable;
    d->nodes[d->n++] = node;
    return true;
}

/* Domains from the included nodes, then the namespace's matching pods. */
static bool build_domains(balancing *b) {
    ms_desched_pass *ps = b->ps;
    for (uint32_t i = 0; i < ps->nnodes; i++) {
        const ms_node *n = ps->nodes[i]->node;
        ms_str v = ms_labels_get(&n->meta.labels, b->c->topology_key);
        if (v != MS_STR_NONE && node_included(b->ps, b->owner, b->c, n) && !domain_of(b, v)) return false;
    }
    for (uint32_t i = 0; i < ps->nnodes; i++) {
        ms_node_info *ni = ps->nodes[i];
        ms_str v = ms_labels_get(&ni->node->meta.labels, b->c->topology_key);
        if (v == MS_STR_NONE || !node_included(b->ps, b->owner, b->c, ni->node)) continue;
        domain *d = domain_of(b, v);
        for (uint32_t k = 0; d && k < ni->npods; k++) {
            ms_pod *p = ni->pods[k];
            /* terminating pods are on their way out: not counted */
            if (p->meta.namespace_ != b->owner->meta.namespace_ || ms_pod_is_terminal(p) || p->meta.deletion > 0 ||
                ms_desched_pass_evicted(ps, p) || !ms_label_selector_matches(b->selector, &p->meta.labels, ps->in))
                continue;
            if (!domain_add(d, p, ni->name, !ms_desched_pod_evictable(ps, p, ni->name))) return false;
            b->total++;
        }
        if (!d) return false;
    }
    return true;
}

static bool has_selector_or_affinity(const ms_pod *p) {
    return p->node_selector.n || p->has_node_affinity_required || p->nnode_affinity_preferred;
}

/* upstream's order inside a domain: non-evictable pods first, then pods
 * with a node selector or affinity, then the rest; higher priority first
 * within each. The tail is evicted first. */
static bool goes_before(const balancing *b, const domain *d, uint32_t x, uint32_t y) {
    (void)b;
    const ms_pod *p = d->pods[x], *q = d->pods[y];
    if (d->evictable[x] != d->evictable[y]) return !d->evictable[x];
    bool sp = has_selector_or_affinity(p), sq = has_selector_or_affinity(q);
    if (sp != sq) return sp;
    int32_t pp = p->has_priority ? p->priority : 0, pq = q->has_priority ? q->priority : 0;
    return pp > pq;
}

static void swap_pods(domain *d, uint32_t x, uint32_t y) {
    ms_pod *tp = d->pods[x];
    d->pods[x] = d->pods[y];
    d->pods[y] = tp;
    bool te = d->evictable[x];
    d->evictable[x] = d->evictable[y];
    d->evictable[y] = te;
    ms_str tn = d->nodes[x];
    d->nodes[x] = d->nodes[y];
    d->nodes[y] = tn;
    if (d->fits) {
        bool tf = d->fits[x];
        d->fits[x] = d->fits[y];
        d->fits[y] = tf;
    }
}

static void sort_domain(const balancing *b, domain *d) {
    for (uint32_t i = 1; i < d->n; i++)
        for (uint32_t j = i; j > 0 && goes_before(b, d, j, j - 1); j--) swap_pods(d, j, j - 1);
}

static void sort_domains(balancing *b) {
    for (uint32_t i = 1; i < b->ndomains; i++)
        for (uint32_t j = i; j > 0 && b->domains[j].n < b->domains[j - 1].n; j--) {
            domain t = b->domains[j];
            b->domains[j] = b->domains[j - 1];
            b->domains[j - 1] = t;
        }
    for (uint32_t i = 0; i < b->ndomains; i++) sort_domain(b, &b->domains[i]);
}

/* upstream's PodFitsAnyOtherNode over nodesBelowIdealAvg: a node the
 * constraint counts, of a domain that was below the average. */
static bool fits_below_average(const balancing *b, const ms_pod *p, ms_str own) {
    const ms_desched_pass *ps = b->ps;
    for (uint32_t i = 0; i < ps->nnodes; i++) {
        const ms_node_info *ni = ps->nodes[i];
        if (ni->name == own || !node_included(ps, b->owner, b->c, ni->node)) continue;
        ms_str v = ms_labels_get(&ni->node->meta.labels, b->c->topology_key);
        bool below = false;
        for (uint32_t d = 0; d < b->nbelow && !below; d++) below = b->below[d] == v;
        if (below && ms_desched_pod_fits_node(ps, p, ni, true)) return true;
    }
    return false;
}

/* upstream's stable sort of the domain to give before its pods are taken
 * from its end: those that fit no node below the average to the front, so
 * that the pods taken are ones that can move. Records each pod's fit. */
static bool movable_last(const balancing *b, domain *d) {
    bool *fits = realloc(d->fits, sizeof *fits * (d->n ? d->n : 1));
    if (!fits) return false;
    d->fits = fits;
    for (uint32_t i = 0; i < d->n; i++) d->fits[i] = fits_below_average(b, d->pods[i], d->nodes[i]);
    for (uint32_t i = 1; i < d->n; i++)
        for (uint32_t j = i; j > 0 && !d->fits[j] && d->fits[j - 1]; j--) swap_pods(d, j, j - 1);
    return true;
}

/* upstream's balanceDomains; evicts the chosen pods. false: total limit. */
static bool balance_domains(balancing *b) {
    if (b->ndomains < 2) return true;
    double avg = (double)b->total / b->ndomains;
    if (!(b->below = malloc(sizeof *b->below * b->ndomains))) return b->ps->failed = true, false;
    for (uint32_t d = 0; d < b->ndomains; d++)
        if ((double)b->domains[d].n < avg) b->below[b->nbelow++] = b->domains[d].value;
    uint32_t i = 0, j = b->ndomains - 1;
    while (i < j) {
        domain *hi = &b->domains[j], *lo = &b->domains[i];
        if ((double)hi->n <= avg) {
            j--;
            continue;
        }
        double skew = (double)hi->n - (double)lo->n;
        if ((int32_t)skew <= b->c->max_skew) {
            i++;
            continue;
        }
        double give = ceil((double)hi->n - avg), take = ceil(avg - (double)lo->n);
        double half = ceil((skew - b->c->max_skew) / 2);
        int move = (int)fmin(fmin(give, take), half);
        if (move <= 0) {
            i++;
            continue;
        }
        if (!movable_last(b, hi)) return b->ps->failed = true, false;
        for (int k = 0; k < move; k++) {
            uint32_t at = hi->n - 1;
            ms_pod *p = hi->pods[at];
            ms_str node = hi->nodes[at];
            bool fits = hi->fits[at];
            hi->n--;
            domain_add(lo, p, node, false);   /* tracking only: it counts below from now on */
            if (b->a->node_fit && !fits) continue;
            if (!ms_desched_pod_filter(b->ps, &b->a->scope, p, node)) continue;
            if (ms_desched_evict(b->ps, p, node, "pod's topology domain is over its maxSkew") == MS_EVICT_TOTAL_LIMIT)
                return false;
        }
    }
    return true;
}

static bool balanced(const balancing *b) {
    if (b->ndomains < 2) return true;
    uint32_t min = UINT32_MAX, max = 0;
    for (uint32_t i = 0; i < b->ndomains; i++) {
        if (b->domains[i].n < min) min = b->domains[i].n;
        if (b->domains[i].n > max) max = b->domains[i].n;
    }
    return (int64_t)max - (int64_t)min <= b->c->max_skew;
}

static bool constraint_applies(const spread_args *a, const ms_topology_spread *c) {
    return c->when_unsatisfiable == MS_DO_NOT_SCHEDULE ? a->do_not_schedule : a->schedule_anyway;
}

static bool constrained(const ms_pod *p) {
    return p->node_selector.n || p->has_node_affinity_required;
}

/* Whether the two pods' node selectors, affinities and tolerations let the
 * constraint count the same nodes. upstream compares them as written; the
 * same nodes give the same balancing, which moonsched, evicting as it
 * goes, must not run twice. */
static bool same_nodes(const ms_desched_pass *ps, const ms_topology_spread *c, const ms_pod *x, const ms_pod *y) {
    bool affinity = c->node_affinity_policy != MS_POLICY_IGNORE, taints = c->node_taints_policy == MS_POLICY_HONOR;
    if (x == y || (!taints && (!affinity || (!constrained(x) && !constrained(y))))) return true;
    for (uint32_t i = 0; i < ps->nnodes; i++)
        if (node_included(ps, x, c, ps->nodes[i]->node) != node_included(ps, y, c, ps->nodes[i]->node)) return false;
    return true;
}

static bool same_constraint(const ms_desched_pass *ps, const constraint *d, const constraint *k) {
    const ms_topology_spread *x = d->c, *y = k->c;
    return x->topology_key == y->topology_key && x->max_skew == y->max_skew &&
           x->when_unsatisfiable == y->when_unsatisfiable && x->node_affinity_policy == y->node_affinity_policy &&
           x->node_taints_policy == y->node_taints_policy && selector_equal(&d->selector, &k->selector) &&
           same_nodes(ps, x, d->owner, k->owner);
}

static bool balance_constraint(ms_desched_pass *ps, const spread_args *a, const constraint *k) {
    balancing b = {.ps = ps, .a = a, .owner = k->owner, .c = k->c, .selector = &k->selector};
    bool go_on = true;
    if (!build_domains(&b)) ps->failed = true;
    else if (!balanced(&b)) {
        sort_domains(&b);
        go_on = balance_domains(&b);
    }
    for (uint32_t i = 0; i < b.ndomains; i++) {
        free(b.domains[i].pods);
        free(b.domains[i].nodes);
        free(b.domains[i].evictable);
        free(b.domains[i].fits);
    }
    free(b.domains);
    free(b.below);
    return go_on && !ps->failed;
}

/* The distinct constraints of each namespace (upstream's
 * namespaceTopologySpreadConstraints): few next to the pods that repeat
 * them. */
static bool already(const ms_desched_pass *ps, const constraint *list, uint32_t n, const constraint *k) {
    for (uint32_t i = 0; i < n; i++)
        if (list[i].owner->meta.namespace_ == k->owner->meta.namespace_ && same_constraint(ps, &list[i], k))
            return true;
    return false;
}

static bool in_namespaces(const spread_args *a, ms_str ns) {
    return (!a->scope.include.n || ms_desched_strs_has(&a->scope.include, ns)) &&
           !ms_desched_strs_has(&a->scope.exclude, ns);
}

static void run(const void *args, ms_desched_pass *ps) {
    const spread_args *a = args;
    constraint *done = NULL;
    uint32_t ndone = 0, cap = 0;
    ms_arena selectors;
    ms_arena_init(&selectors, 1024);
    for (uint32_t i = 0; i < ps->nnodes; i++) {
        const ms_node_info *ni = ps->nodes[i];
        for (uint32_t k = 0; k < ni->npods; k++) {
            const ms_pod *p = ni->pods[k];
            if (!p->ntopology_spread || !in_namespaces(a, p->meta.namespace_)) continue;
            for (uint32_t t = 0; t < p->ntopology_spread; t++) {
                constraint c = {.c = &p->topology_spread[t], .owner = p};
                if (!constraint_applies(a, c.c)) continue;
                if (!ms_label_selector_merge_label_keys(&selectors, &c.c->selector, c.c->match_label_keys,
                                                        c.c->nmatch_label_keys, &p->meta.labels, &c.selector)) {
                    ps->failed = true;
                    goto out;
                }
                if (already(ps, done, ndone, &c)) continue;
                if (!ms_array_grow((void **)&done, &cap, ndone + 1, sizeof *done)) {
                    ps->failed = true;
                    goto out;
                }
                done[ndone++] = c;
                if (!balance_constraint(ps, a, &c)) goto out;
            }
        }
    }
out:
    free(done);
    ms_arena_free(&selectors);
}

/* The pods of p's namespace the constraint selects on a node. */
static uint32_t matching_on(const ms_desched_pass *ps, const ms_pod *p, const ms_label_selector *sel,
                            const ms_node_info *ni) {
    uint32_t n = 0;
    for (uint32_t k = 0; k < ni->npods; k++) {
        const ms_pod *q = ni->pods[k];
        n += q->meta.namespace_ == p->meta.namespace_ && !ms_pod_is_terminal(q) &&
             q->meta.deletion <= 0 && ms_label_selector_matches(sel, &q->meta.labels, ps->in);
    }
    return n;
}

/* One constraint: whether the domain the pod lands in (target's) is then
 * more than maxSkew over the smallest domain, counted on the pass's
 * included nodes as they are now. */
static bool lands_over_skew(const ms_desched_pass *ps, const ms_pod *p, const ms_topology_spread *c,
                            const ms_label_selector *sel, const ms_node_info *target) {
    ms_str tv = ms_labels_get(&target->node->meta.labels, c->topology_key);
    if (tv == MS_STR_NONE || !node_included(ps, p, c, target->node)) return false;
    /* domains by value: counts summed over their nodes */
    ms_str values[64];
    uint32_t counts[64], nd = 0;
    for (uint32_t i = 0; i < ps->nnodes; i++) {
        const ms_node_info *ni = ms_desched_live_node(ps, i);
        ms_str v = ms_labels_get(&ni->node->meta.labels, c->topology_key);
        if (v == MS_STR_NONE || !node_included(ps, p, c, ni->node)) continue;
        uint32_t d = 0;
        while (d < nd && values[d] != v) d++;
        if (d == nd) {
            if (nd == 64) return false;   /* beyond what this check follows */
            values[nd] = v, counts[nd++] = 0;
        }
        counts[d] += matching_on(ps, p, sel, ni);
    }
    uint32_t min = UINT32_MAX, at = UINT32_MAX;
    for (uint32_t d = 0; d < nd; d++) {
        if (counts[d] < min) min = counts[d];
        if (values[d] == tv) at = counts[d];
    }
    return nd >= 2 && at != UINT32_MAX && (int64_t)at - (int64_t)min > c->max_skew;
}

/* A new violation where the pod lands: one of its constraints this
 * strategy balances is over maxSkew in the target's domain. */
static const char *target_violation(const void *args, const ms_desched_pass *ps, const ms_pod *p,
                                    const ms_node_info *target) {
    const char *why = NULL;
    ms_arena a;
    ms_arena_init(&a, 256);
    for (uint32_t i = 0; i < p->ntopology_spread && !why; i++) {
        const ms_topology_spread *c = &p->topology_spread[i];
        ms_label_selector sel;
        if (!constraint_applies(args, c)) continue;
        /* out of memory: the unmerged selector, wider than it should be */
        if (!ms_label_selector_merge_label_keys(&a, &c->selector, c->match_label_keys, c->nmatch_label_keys,
                                                &p->meta.labels, &sel))
            sel = c->selector;
        if (lands_over_skew(ps, p, c, &sel, target)) why = "it would make its topology domain exceed maxSkew where it lands";
    }
    ms_arena_free(&a);
    return why;
}

const ms_desched_plugin_def ms_desched_remove_pods_violating_topology_spread_constraint = {
    .name = "RemovePodsViolatingTopologySpreadConstraint",
    .balance = true,
    .args_size = sizeof(spread_args),
    .decode = decode,
    .run = run,
    .target_violation = target_violation,
};
