/* RemovePodsViolatingTopologySpreadConstraint: for each distinct spread
 * constraint of the pods of a namespace (DoNotSchedule ones, and
 * ScheduleAnyway when `constraints` lists it), counts the matching pods per
 * topology domain and, while the largest and smallest domains differ by
 * more than maxSkew, moves pods from the largest towards the ideal average
 * (upstream's balanceDomains: at most half the excess skew, no more than
 * either side can give or take). The pods chosen are the lowest priority
 * ones without node selector or affinity first; with topologyBalanceNodeFit
 * (the default) only pods that fit a node of a domain below the average. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
} domain;

typedef struct balancing {
    ms_desched_pass *ps;
    const spread_args *a;
    const ms_pod *owner;            /* the pod that declared the constraint */
    const ms_topology_spread *c;
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
static bool node_included(const balancing *b, const ms_node *n) {
    const ms_pod *p = b->owner;
    if (b->c->node_affinity_policy != MS_POLICY_IGNORE) {
        if (!ms_labels_subset(&p->node_selector, &n->meta.labels)) return false;
        if (p->has_node_affinity_required &&
            !ms_node_selector_matches(&p->node_affinity_required, &n->meta.labels, n->meta.name, b->ps->in))
            return false;
    }
    if (b->c->node_taints_policy == MS_POLICY_HONOR &&
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
        if (v != MS_STR_NONE && node_included(b, n) && !domain_of(b, v)) return false;
    }
    for (uint32_t i = 0; i < ps->nnodes; i++) {
        ms_node_info *ni = ps->nodes[i];
        ms_str v = ms_labels_get(&ni->node->meta.labels, b->c->topology_key);
        if (v == MS_STR_NONE || !node_included(b, ni->node)) continue;
        domain *d = domain_of(b, v);
        for (uint32_t k = 0; d && k < ni->npods; k++) {
            ms_pod *p = ni->pods[k];
            if (p->meta.namespace_ != b->owner->meta.namespace_ || ms_pod_is_terminal(p) ||
                ms_desched_pass_evicted(ps, p) || !ms_label_selector_matches(&b->c->selector, &p->meta.labels, ps->in))
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

static void sort_domain(const balancing *b, domain *d) {
    for (uint32_t i = 1; i < d->n; i++)
        for (uint32_t j = i; j > 0 && goes_before(b, d, j, j - 1); j--) {
            ms_pod *tp = d->pods[j];
            d->pods[j] = d->pods[j - 1];
            d->pods[j - 1] = tp;
            bool te = d->evictable[j];
            d->evictable[j] = d->evictable[j - 1];
            d->evictable[j - 1] = te;
            ms_str tn = d->nodes[j];
            d->nodes[j] = d->nodes[j - 1];
            d->nodes[j - 1] = tn;
        }
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

/* topologyBalanceNodeFit: fits a node of a domain that was below the
 * average. */
static bool fits_below_average(const balancing *b, const ms_pod *p, ms_str own) {
    const ms_desched_pass *ps = b->ps;
    for (uint32_t i = 0; i < ps->nnodes; i++) {
        const ms_node_info *ni = ps->nodes[i];
        if (ni->name == own) continue;
        ms_str v = ms_labels_get(&ni->node->meta.labels, b->c->topology_key);
        bool below = false;
        for (uint32_t d = 0; d < b->nbelow && !below; d++) below = b->below[d] == v;
        if (below && ms_desched_pod_fits_node(ps, p, ni, true)) return true;
    }
    return false;
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
        for (int k = 0; k < move; k++) {
            uint32_t at = hi->n - 1;
            ms_pod *p = hi->pods[at];
            ms_str node = hi->nodes[at];
            hi->n--;
            domain_add(lo, p, node, false);   /* tracking only: it counts below from now on */
            if (b->a->node_fit && !fits_below_average(b, p, node)) continue;
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

static bool same_constraint(const ms_topology_spread *d, const ms_topology_spread *c) {
    return d->topology_key == c->topology_key && d->max_skew == c->max_skew &&
           d->when_unsatisfiable == c->when_unsatisfiable && selector_equal(&d->selector, &c->selector);
}

static bool balance_constraint(ms_desched_pass *ps, const spread_args *a, const ms_pod *owner,
                               const ms_topology_spread *c) {
    balancing b = {.ps = ps, .a = a, .owner = owner, .c = c};
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
    }
    free(b.domains);
    free(b.below);
    return go_on && !ps->failed;
}

/* The distinct constraints of each namespace (upstream's
 * namespaceTopologySpreadConstraints): few next to the pods that repeat
 * them. */
typedef struct seen {
    ms_str ns;
    const ms_topology_spread *c;
} seen;

static bool already(const seen *list, uint32_t n, ms_str ns, const ms_topology_spread *c) {
    for (uint32_t i = 0; i < n; i++)
        if (list[i].ns == ns && same_constraint(list[i].c, c)) return true;
    return false;
}

static bool in_namespaces(const spread_args *a, ms_str ns) {
    return (!a->scope.include.n || ms_desched_strs_has(&a->scope.include, ns)) &&
           !ms_desched_strs_has(&a->scope.exclude, ns);
}

static void run(const void *args, ms_desched_pass *ps) {
    const spread_args *a = args;
    seen *done = NULL;
    uint32_t ndone = 0, cap = 0;
    for (uint32_t i = 0; i < ps->nnodes; i++) {
        const ms_node_info *ni = ps->nodes[i];
        for (uint32_t k = 0; k < ni->npods; k++) {
            const ms_pod *p = ni->pods[k];
            if (!p->ntopology_spread || !in_namespaces(a, p->meta.namespace_)) continue;
            for (uint32_t t = 0; t < p->ntopology_spread; t++) {
                const ms_topology_spread *c = &p->topology_spread[t];
                if (!constraint_applies(a, c) || already(done, ndone, p->meta.namespace_, c)) continue;
                if (!ms_array_grow((void **)&done, &cap, ndone + 1, sizeof *done)) {
                    ps->failed = true;
                    goto out;
                }
                done[ndone++] = (seen){p->meta.namespace_, c};
                if (!balance_constraint(ps, a, p, c)) goto out;
            }
        }
    }
out:
    free(done);
}

const ms_desched_plugin_def ms_desched_remove_pods_violating_topology_spread_constraint = {
    .name = "RemovePodsViolatingTopologySpreadConstraint",
    .balance = true,
    .args_size = sizeof(spread_args),
    .decode = decode,
    .run = run,
};
