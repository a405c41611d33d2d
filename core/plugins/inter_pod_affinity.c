/* InterPodAffinity: required pod affinity and anti-affinity in Filter (the
 * incoming pod's terms, and the existing pods' required anti-affinity
 * terms against the incoming pod), preferred terms (both ways) and the
 * existing pods' required affinity terms (hardPodAffinityWeight) in Score.
 *
 * Everything that depends on other pods is counted once per pod, per
 * topology pair (topologyKey id, value id), in PreFilter and PreScore;
 * Filter and Score are a few label and map lookups per node.
 *
 * Term matching follows upstream's AffinityTerm.Matches: the target pod's
 * namespace must be in the term's namespaces (the owner's own namespace when
 * the term names none and has no namespaceSelector) or its namespace's labels
 * must match namespaceSelector; then labelSelector must match the target's
 * labels. matchLabelKeys / mismatchLabelKeys add `key in (v)` / `key notin
 * (v)` with v the term owner's label value (what the API server merges into
 * labelSelector when the pod is created; applied here too for pods that
 * bypassed it, and harmless when already merged). */
#include <cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "moonsched/map.h"
#include "moonsched/namespaces.h"
#include "plugin_args.h"

#define PLUGIN "InterPodAffinity"

#define ERR_EXISTING_ANTI "node(s) didn't satisfy existing pods anti-affinity rules"
#define ERR_AFFINITY "node(s) didn't match pod affinity rules"
#define ERR_ANTI_AFFINITY "node(s) didn't match pod anti-affinity rules"

#define DEFAULT_HARD_POD_AFFINITY_WEIGHT 1
#define MAX_HARD_POD_AFFINITY_WEIGHT 100

/* ---- counts per topology pair ------------------------------------------ */

/* Counts (or scores) per (topologyKey, value), and the distinct topology
 * keys seen, so that a node is checked with one label lookup per key instead
 * of one map lookup per node label. Owned by the plugin and cleared, not
 * freed, per cycle: nothing is allocated once the arrays have grown. */
typedef struct pair_counts {
    ms_map slot;                   /* pair -> index + 1 into v */
    int64_t *v;
    uint32_t n, cap;
    ms_str *keys;
    uint32_t nkeys, keycap;
} pair_counts;

static inline uint64_t pair_of(ms_str key, ms_str value) { return (uint64_t)key << 32 | value; }

static void pc_free(pair_counts *pc) {
    ms_map_free(&pc->slot);
    free(pc->v);
    free(pc->keys);
    memset(pc, 0, sizeof *pc);
}

static void pc_clear(pair_counts *pc) {
    ms_map_clear(&pc->slot);
    pc->n = 0;
    pc->nkeys = 0;
}

static int grow(void **p, uint32_t *cap, uint32_t need, size_t size) {
    if (need <= *cap) return 0;
    uint32_t c = *cap ? *cap * 2 : 16;
    while (c < need) c *= 2;
    void *q = realloc(*p, (size_t)c * size);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* Adds d to the pair's count, creating the entry (upstream keeps an entry
 * once created, even when its sum is 0). 0 or -1 (out of memory). */
static int pc_add(pair_counts *pc, ms_str key, ms_str value, int64_t d) {
    uint64_t k = pair_of(key, value);
    uintptr_t i = (uintptr_t)ms_map_get(&pc->slot, k);
    if (i) {
        pc->v[i - 1] += d;
        return 0;
    }
    if (grow((void **)&pc->v, &pc->cap, pc->n + 1, sizeof *pc->v) != 0) return -1;
    if (ms_map_put(&pc->slot, k, (void *)(uintptr_t)(pc->n + 1)) != 0) return -1;
    pc->v[pc->n++] = d;
    for (uint32_t j = 0; j < pc->nkeys; j++)
        if (pc->keys[j] == key) return 0;
    if (grow((void **)&pc->keys, &pc->keycap, pc->nkeys + 1, sizeof *pc->keys) != 0) return -1;
    pc->keys[pc->nkeys++] = key;
    return 0;
}

static inline int64_t pc_get(const pair_counts *pc, ms_str key, ms_str value) {
    uintptr_t i = (uintptr_t)ms_map_get(&pc->slot, pair_of(key, value));
    return i ? pc->v[i - 1] : 0;
}

/* ---- terms ---------------------------------------------------------------- */

/* One of the incoming pod's terms, compiled for this cycle: the namespaces
 * it selects resolved to sorted ids (namespaceSelector listed against the
 * namespace store, as upstream's mergeAffinityTermNamespacesIfNotEmpty),
 * the label keys merged into the selector. */
typedef struct cterm {
    ms_str topology_key;
    int64_t weight;                /* Score: +weight affinity, -weight anti-affinity */
    bool all_namespaces;           /* namespaceSelector {} */
    uint32_t nns;
    ms_str *ns;                    /* sorted */
    ms_label_selector sel;
} cterm;

static int cmp_str(const void *a, const void *b) {
    ms_str x = *(const ms_str *)a, y = *(const ms_str *)b;
    return (x > y) - (x < y);
}

static bool has_id(const ms_str *ids, uint32_t n, ms_str id) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ids[mid] == id) return true;
        if (ids[mid] < id) lo = mid + 1;
        else hi = mid;
    }
    return false;
}

/* labelSelector with `key in (v)` per matchLabelKeys and `key notin (v)` per
 * mismatchLabelKeys, v read from the owner's labels (keys it lacks are
 * ignored). A nil selector stays nil: it matches nothing either way. */
static int merge_selector(ms_arena *a, const ms_pod_affinity_term *t, const ms_labels *owner,
                          ms_label_selector *out) {
    *out = t->selector;
    if (t->selector.nothing || (t->nmatch_label_keys == 0 && t->nmismatch_label_keys == 0)) return 0;
    uint32_t extra = t->nmatch_label_keys + t->nmismatch_label_keys;
    ms_requirement *reqs = MS_ARENA_NEW(a, ms_requirement, t->selector.n + extra);
    ms_str *vals = MS_ARENA_NEW(a, ms_str, extra);
    if (!reqs || !vals) return -1;
    if (t->selector.n) memcpy(reqs, t->selector.reqs, t->selector.n * sizeof *reqs);
    uint32_t n = t->selector.n, nv = 0;
    for (uint32_t i = 0; i < extra; i++) {
        bool match = i < t->nmatch_label_keys;
        ms_str key = match ? t->match_label_keys[i] : t->mismatch_label_keys[i - t->nmatch_label_keys];
        ms_str v = ms_labels_get(owner, key);
        if (v == MS_STR_NONE) continue;
        vals[nv] = v;
        reqs[n++] = (ms_requirement){.key = key, .op = match ? MS_OP_IN : MS_OP_NOT_IN,
                                     .nvalues = 1, .values = &vals[nv]};
        nv++;
    }
    out->n = n;
    out->reqs = reqs;
    return 0;
}

static int compile_term(ms_arena *a, const ms_pod *pod, const ms_pod_affinity_term *t,
                        int64_t weight, const ms_namespaces *nss, const ms_interner *in,
                        cterm *out) {
    memset(out, 0, sizeof *out);
    out->topology_key = t->topology_key;
    out->weight = weight;
    if (merge_selector(a, t, &pod->meta.labels, &out->sel) != 0) return -1;
    if (t->nnamespaces == 0 && !t->has_namespace_selector) {
        if (!(out->ns = MS_ARENA_NEW(a, ms_str, 1))) return -1;
        out->ns[0] = pod->meta.namespace_;
        out->nns = 1;
        return 0;
    }
    const ms_label_selector *nsel = t->has_namespace_selector ? &t->namespace_selector : NULL;
    if (nsel && !nsel->nothing && nsel->n == 0) {
        out->all_namespaces = true;
        return 0;
    }
    uint32_t cap = t->nnamespaces + (nsel && !nsel->nothing ? ms_namespaces_count(nss) : 0);
    if (cap == 0) return 0;
    if (!(out->ns = MS_ARENA_NEW(a, ms_str, cap))) return -1;
    for (uint32_t i = 0; i < t->nnamespaces; i++) out->ns[out->nns++] = t->namespaces[i];
    if (nsel && !nsel->nothing) {
        const ms_namespace *ns;
        for (size_t it = 0; (ns = ms_namespaces_next(nss, &it));)
            if (out->nns < cap && ms_label_selector_matches(nsel, &ns->meta.labels, in))
                out->ns[out->nns++] = ns->meta.name;
    }
    qsort(out->ns, out->nns, sizeof *out->ns, cmp_str);
    return 0;
}

static inline bool cterm_matches(const cterm *t, const ms_pod *target, const ms_interner *in) {
    if (!t->all_namespaces && !has_id(t->ns, t->nns, target->meta.namespace_)) return false;
    return ms_label_selector_matches(&t->sel, &target->meta.labels, in);
}

static bool matches_all(const cterm *terms, uint32_t n, const ms_pod *target, const ms_interner *in) {
    if (n == 0) return false;
    for (uint32_t i = 0; i < n; i++)
        if (!cterm_matches(&terms[i], target, in)) return false;
    return true;
}

/* An existing pod's (owner's) term against the incoming pod, uncompiled:
 * the same rules as compile_term + cterm_matches, evaluated in place so
 * that nothing is built per existing pod. ns_labels: the incoming pod's
 * namespace labels (empty when the namespace is unknown). */
static bool term_matches(const ms_pod_affinity_term *t, const ms_pod *owner, const ms_pod *target,
                         const ms_labels *ns_labels, const ms_interner *in) {
    if (t->selector.nothing) return false;
    ms_str tns = target->meta.namespace_;
    bool ns_ok = false;
    if (t->nnamespaces == 0 && !t->has_namespace_selector) {
        ns_ok = tns == owner->meta.namespace_;
    } else {
        for (uint32_t i = 0; i < t->nnamespaces && !ns_ok; i++) ns_ok = t->namespaces[i] == tns;
        if (!ns_ok && t->has_namespace_selector)
            ns_ok = ms_label_selector_matches(&t->namespace_selector, ns_labels, in);
    }
    if (!ns_ok || !ms_label_selector_matches(&t->selector, &target->meta.labels, in)) return false;
    const ms_labels *ol = &owner->meta.labels, *tl = &target->meta.labels;
    for (uint32_t i = 0; i < t->nmatch_label_keys; i++) {
        ms_str v = ms_labels_get(ol, t->match_label_keys[i]);
        if (v != MS_STR_NONE && ms_labels_get(tl, t->match_label_keys[i]) != v) return false;
    }
    for (uint32_t i = 0; i < t->nmismatch_label_keys; i++) {
        ms_str v = ms_labels_get(ol, t->mismatch_label_keys[i]);
        if (v != MS_STR_NONE && ms_labels_get(tl, t->mismatch_label_keys[i]) == v) return false;
    }
    return true;
}

/* ---- plugin --------------------------------------------------------------- */

typedef struct inter_pod_affinity {
    const ms_interner *in;
    const ms_handle *h;
    int64_t hard_pod_affinity_weight;
    bool ignore_preferred_terms_of_existing_pods;
    /* PreFilter's counts (upstream's preFilterState maps). */
    pair_counts existing_anti;     /* existing pods' anti-affinity terms matching the pod */
    pair_counts affinity;          /* existing pods matching all the pod's affinity terms */
    pair_counts anti;              /* existing pods matching the pod's anti-affinity terms */
    /* PreScore's topology scores. */
    pair_counts scores;
} inter_pod_affinity;

typedef struct filter_state {
    uint32_t naff, nanti;
    cterm *aff, *anti;
    bool self_match;               /* the pod matches all its own affinity terms */
    const ms_labels *ns_labels;    /* the pod's namespace labels */
    bool *extra_anti;              /* per anti-affinity term, for count_extra */
} filter_state;

typedef struct score_state {
    bool any;                      /* a topology score was recorded */
} score_state;

static const ms_labels no_labels = {0, NULL};

static const ms_labels *namespace_labels(const ms_handle *h, ms_str ns) {
    const ms_namespace *n = ms_namespaces_get(h->namespaces, ns);
    return n ? &n->meta.labels : &no_labels;
}

/* A cycle without a snapshot (framework tests) sees an empty cluster. */
static const ms_snapshot *snapshot_of(const ms_cycle *c) {
    static const ms_snapshot none;
    return c->snap ? c->snap : &none;
}

static void ipa_destroy(void *self) {
    inter_pod_affinity *p = self;
    if (!p) return;
    pc_free(&p->existing_anti);
    pc_free(&p->affinity);
    pc_free(&p->anti);
    pc_free(&p->scores);
    free(p);
}

static ms_rc parse_args(inter_pod_affinity *p, const cJSON *args, ms_error *err) {
    static const char *const fields[] = {"hardPodAffinityWeight", "ignorePreferredTermsOfExistingPods",
                                         NULL};
    ms_rc rc = ms_args_check_object(args, fields, PLUGIN, "", err);
    if (rc) return rc;
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(args, "hardPodAffinityWeight");
    if (w && !cJSON_IsNull(w)) {
        int64_t v;
        if ((rc = ms_args_int(w, PLUGIN, "hardPodAffinityWeight", &v, err))) return rc;
        if (v < 0 || v > MAX_HARD_POD_AFFINITY_WEIGHT)
            return ms_error_set(err, MS_EINVAL,
                                PLUGIN " args: hardPodAffinityWeight: Invalid value: %lld: not in "
                                "valid range [0, %d]",
                                (long long)v, MAX_HARD_POD_AFFINITY_WEIGHT);
        p->hard_pod_affinity_weight = v;
    }
    const cJSON *ig = cJSON_GetObjectItemCaseSensitive(args, "ignorePreferredTermsOfExistingPods");
    if (ig && !cJSON_IsNull(ig)) {
        if (!cJSON_IsBool(ig))
            return ms_error_set(err, MS_EINVAL,
                                PLUGIN " args: ignorePreferredTermsOfExistingPods: expected a "
                                "boolean");
        p->ignore_preferred_terms_of_existing_pods = cJSON_IsTrue(ig);
    }
    return MS_OK;
}

static ms_rc ipa_create(const cJSON *args, const ms_handle *h, void **self, ms_error *err) {
    inter_pod_affinity *p = calloc(1, sizeof *p);
    if (!p) return ms_error_set(err, MS_ENOMEM, PLUGIN ": out of memory");
    p->in = h->in;
    p->h = h;
    p->hard_pod_affinity_weight = DEFAULT_HARD_POD_AFFINITY_WEIGHT;
    if (args && !cJSON_IsNull(args)) {
        ms_rc rc = parse_args(p, args, err);
        if (rc) {
            ipa_destroy(p);
            return rc;
        }
    }
    *self = p;
    return MS_OK;
}

static ms_code oom(ms_status *st) { return ms_status_set(st, MS_ERROR, "out of memory"); }

static int compile_required(ms_arena *a, const ms_pod *pod, const ms_pod_affinity *pa,
                            const ms_namespaces *nss, const ms_interner *in, cterm **out) {
    *out = NULL;
    if (pa->nrequired == 0) return 0;
    if (!(*out = MS_ARENA_NEW(a, cterm, pa->nrequired))) return -1;
    for (uint32_t i = 0; i < pa->nrequired; i++)
        if (compile_term(a, pod, &pa->required[i], 0, nss, in, &(*out)[i]) != 0) return -1;
    return 0;
}

/* upstream getExistingAntiAffinityCounts: only nodes with pods that have
 * required anti-affinity are visited. */
static int count_existing_anti(inter_pod_affinity *p, const ms_snapshot *snap, const ms_pod *pod,
                               const ms_labels *ns_labels) {
    for (uint32_t i = 0; i < snap->nhave_anti; i++) {
        const ms_node_info *ni = snap->have_pods_with_required_anti_affinity[i];
        if (!ni->node) continue;
        const ms_labels *nl = &ni->node->meta.labels;
        for (uint32_t k = 0; k < ni->npods; k++) {
            const ms_pod *e = ni->pods[k];
            const ms_pod_affinity *anti = &e->pod_anti_affinity;
            for (uint32_t t = 0; t < anti->nrequired; t++) {
                const ms_pod_affinity_term *term = &anti->required[t];
                ms_str v = ms_labels_get(nl, term->topology_key);
                if (v == MS_STR_NONE || !term_matches(term, e, pod, ns_labels, p->in)) continue;
                if (pc_add(&p->existing_anti, term->topology_key, v, 1) != 0) return -1;
            }
        }
    }
    return 0;
}

/* upstream getIncomingAffinityAntiAffinityCounts over every node with pods.
 * The topology values of a node are read once per term, not per pod. */
static int count_incoming(inter_pod_affinity *p, ms_arena *a, const ms_snapshot *snap,
                          const filter_state *s) {
    uint32_t nt = s->naff + s->nanti;
    ms_str *vals = MS_ARENA_NEW(a, ms_str, nt);
    if (!vals) return -1;
    for (uint32_t i = 0; i < snap->nnodes; i++) {
        const ms_node_info *ni = snap->nodes[i];
        if (ni->npods == 0 || !ni->node) continue;
        const ms_labels *nl = &ni->node->meta.labels;
        bool any = false;
        for (uint32_t t = 0; t < nt; t++) {
            const cterm *term = t < s->naff ? &s->aff[t] : &s->anti[t - s->naff];
            vals[t] = ms_labels_get(nl, term->topology_key);
            any |= vals[t] != MS_STR_NONE;
        }
        if (!any) continue;
        for (uint32_t k = 0; k < ni->npods; k++) {
            const ms_pod *e = ni->pods[k];
            if (s->naff && matches_all(s->aff, s->naff, e, p->in))
                for (uint32_t t = 0; t < s->naff; t++)
                    if (vals[t] != MS_STR_NONE &&
                        pc_add(&p->affinity, s->aff[t].topology_key, vals[t], 1) != 0)
                        return -1;
            for (uint32_t t = 0; t < s->nanti; t++) {
                ms_str v = vals[s->naff + t];
                if (v != MS_STR_NONE && cterm_matches(&s->anti[t], e, p->in) &&
                    pc_add(&p->anti, s->anti[t].topology_key, v, 1) != 0)
                    return -1;
            }
        }
    }
    return 0;
}

static ms_code ipa_pre_filter(void *self, ms_cycle *c, ms_status *st) {
    inter_pod_affinity *p = self;
    const ms_pod *pod = c->pod;
    const ms_namespaces *nss = p->h->namespaces;
    pc_clear(&p->existing_anti);
    pc_clear(&p->affinity);
    pc_clear(&p->anti);
    filter_state *s = MS_ARENA_NEW(c->arena, filter_state, 1);
    if (!s) return oom(st);
    s->ns_labels = namespace_labels(p->h, pod->meta.namespace_);
    s->naff = pod->pod_affinity.nrequired;
    s->nanti = pod->pod_anti_affinity.nrequired;
    if (compile_required(c->arena, pod, &pod->pod_affinity, nss, p->in, &s->aff) != 0 ||
        compile_required(c->arena, pod, &pod->pod_anti_affinity, nss, p->in, &s->anti) != 0 ||
        (s->nanti && !(s->extra_anti = MS_ARENA_NEW(c->arena, bool, s->nanti))))
        return oom(st);
    const ms_snapshot *snap = snapshot_of(c);
    if (count_existing_anti(p, snap, pod, s->ns_labels) != 0) return oom(st);
    if ((s->naff || s->nanti) && count_incoming(p, c->arena, snap, s) != 0) return oom(st);
    if (p->existing_anti.n == 0 && s->naff == 0 && s->nanti == 0)
        return ms_status_set(st, MS_SKIP, NULL);
    s->self_match = matches_all(s->aff, s->naff, pod, p->in);
    c->state[c->current] = s;
    return MS_SUCCESS;
}

/* Nominated pods the framework added to a scratch copy of a NodeInfo
 * (pods of ni absent from the snapshot's NodeInfo of the same node): what
 * upstream's AddPod would add to the counts, restricted to this node's own
 * topology pairs, which are the only ones Filter looks at. */
typedef struct extra_counts {
    bool affinity_any;             /* some added pod matches all affinity terms */
    bool anti_any;                 /* s->extra_anti[t]: an added pod matches anti term t */
    bool existing_any;             /* an added pod's anti-affinity term matches the pod */
} extra_counts;

static bool count_extra(const inter_pod_affinity *p, const ms_cycle *c, const filter_state *s,
                        const ms_node_info *ni, extra_counts *x) {
    memset(x, 0, sizeof *x);
    const ms_node_info *base = ms_snapshot_get(snapshot_of(c), ni->name);
    if (!base || base == ni) return false;
    if (s->nanti) memset(s->extra_anti, 0, s->nanti * sizeof *s->extra_anti);
    const ms_labels *nl = &ni->node->meta.labels;
    bool found = false;
    for (uint32_t k = 0; k < ni->npods; k++) {
        const ms_pod *e = ni->pods[k];
        if (ms_node_info_find_pod(base, e->meta.uid_hash) >= 0) continue;
        found = true;
        if (s->naff && matches_all(s->aff, s->naff, e, p->in))
            for (uint32_t t = 0; t < s->naff; t++)
                x->affinity_any |= ms_labels_get(nl, s->aff[t].topology_key) != MS_STR_NONE;
        for (uint32_t t = 0; t < s->nanti; t++)
            if (cterm_matches(&s->anti[t], e, p->in)) x->anti_any = s->extra_anti[t] = true;
        const ms_pod_affinity *anti = &e->pod_anti_affinity;
        for (uint32_t t = 0; t < anti->nrequired; t++)
            x->existing_any |= ms_labels_get(nl, anti->required[t].topology_key) != MS_STR_NONE &&
                               term_matches(&anti->required[t], e, c->pod, s->ns_labels, p->in);
    }
    return found;
}

/* An anti-affinity term t of the pod counts an added pod at a lookup of key
 * `key` when some term with that key matched it (they share the pair). */
static bool extra_anti(const filter_state *s, const extra_counts *x, ms_str key) {
    if (!x->anti_any) return false;
    for (uint32_t t = 0; t < s->nanti; t++)
        if (s->extra_anti[t] && s->anti[t].topology_key == key) return true;
    return false;
}

static ms_code ipa_filter(void *self, ms_cycle *c, const ms_node_info *ni, ms_status *st) {
    const inter_pod_affinity *p = self;
    const filter_state *s = c->state[c->current];
    if (!s) return ms_status_set(st, MS_ERROR, PLUGIN ": PreFilter state missing");
    if (!ni->node) return ms_status_set(st, MS_ERROR, "node not found");
    const ms_labels *nl = &ni->node->meta.labels;
    extra_counts x;
    /* The framework's pass with nominated pods runs on the handle's scratch
     * NodeInfo: upstream updates its state with AddPod for those pods. */
    bool extra = ni == p->h->scratch && count_extra(p, c, s, ni, &x);

    /* satisfyPodAffinity */
    if (s->naff) {
        bool pods_exist = true;
        for (uint32_t t = 0; t < s->naff; t++) {
            ms_str v = ms_labels_get(nl, s->aff[t].topology_key);
            if (v == MS_STR_NONE)
                return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_AFFINITY);
            if (pc_get(&p->affinity, s->aff[t].topology_key, v) <= 0 && !(extra && x.affinity_any))
                pods_exist = false;
        }
        /* The first pod of a group whose terms select itself may go anywhere
         * its topology keys exist. */
        bool none_anywhere = p->affinity.n == 0 && !(extra && x.affinity_any);
        if (!pods_exist && !(none_anywhere && s->self_match))
            return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_AFFINITY);
    }

    /* satisfyPodAntiAffinity */
    if (s->nanti && (p->anti.n || (extra && x.anti_any)))
        for (uint32_t t = 0; t < s->nanti; t++) {
            ms_str key = s->anti[t].topology_key, v = ms_labels_get(nl, key);
            if (v != MS_STR_NONE && (pc_get(&p->anti, key, v) > 0 || (extra && extra_anti(s, &x, key))))
                return ms_status_set(st, MS_UNSCHEDULABLE, ERR_ANTI_AFFINITY);
        }

    /* satisfyExistingPodsAntiAffinity: only the keys that have counts can
     * match one of the node's labels. */
    if (extra && x.existing_any) return ms_status_set(st, MS_UNSCHEDULABLE, ERR_EXISTING_ANTI);
    const pair_counts *ea = &p->existing_anti;
    for (uint32_t k = 0; k < ea->nkeys; k++) {
        ms_str v = ms_labels_get(nl, ea->keys[k]);
        if (v != MS_STR_NONE && pc_get(ea, ea->keys[k], v) > 0)
            return ms_status_set(st, MS_UNSCHEDULABLE, ERR_EXISTING_ANTI);
    }
    return MS_SUCCESS;
}

/* ---- scoring -------------------------------------------------------------- */

typedef struct prescore_terms {
    uint32_t n;                    /* preferred affinity then anti-affinity terms */
    cterm *terms;
    ms_str *vals;                  /* per term: the current node's topology value */
    const ms_labels *ns_labels;
} prescore_terms;

static int add_score(inter_pod_affinity *p, score_state *ss, ms_str key, ms_str v, int64_t w) {
    ss->any = true;
    return pc_add(&p->scores, key, v, w);
}

/* upstream processExistingPod. */
static int score_existing(inter_pod_affinity *p, score_state *ss, const prescore_terms *pt,
                          const ms_pod *e, const ms_labels *nl, const ms_pod *pod) {
    for (uint32_t t = 0; t < pt->n; t++)
        if (pt->vals[t] != MS_STR_NONE && cterm_matches(&pt->terms[t], e, p->in) &&
            add_score(p, ss, pt->terms[t].topology_key, pt->vals[t], pt->terms[t].weight) != 0)
            return -1;
    if (p->hard_pod_affinity_weight > 0)
        for (uint32_t t = 0; t < e->pod_affinity.nrequired; t++) {
            const ms_pod_affinity_term *term = &e->pod_affinity.required[t];
            ms_str v = ms_labels_get(nl, term->topology_key);
            if (v != MS_STR_NONE && term_matches(term, e, pod, pt->ns_labels, p->in) &&
                add_score(p, ss, term->topology_key, v, p->hard_pod_affinity_weight) != 0)
                return -1;
        }
    for (int anti = 0; anti < 2; anti++) {
        const ms_pod_affinity *pa = anti ? &e->pod_anti_affinity : &e->pod_affinity;
        for (uint32_t t = 0; t < pa->npreferred; t++) {
            const ms_weighted_pod_affinity_term *wt = &pa->preferred[t];
            ms_str v = ms_labels_get(nl, wt->term.topology_key);
            if (v != MS_STR_NONE && term_matches(&wt->term, e, pod, pt->ns_labels, p->in) &&
                add_score(p, ss, wt->term.topology_key, v, anti ? -(int64_t)wt->weight : wt->weight) != 0)
                return -1;
        }
    }
    return 0;
}

static int compile_preferred(ms_arena *a, const ms_pod *pod, const ms_namespaces *nss,
                             const ms_interner *in, prescore_terms *pt) {
    const ms_pod_affinity *aff = &pod->pod_affinity, *anti = &pod->pod_anti_affinity;
    uint32_t n = aff->npreferred + anti->npreferred;
    pt->n = n;
    if (n == 0) return 0;
    pt->terms = MS_ARENA_NEW(a, cterm, n);
    pt->vals = MS_ARENA_NEW(a, ms_str, n);
    if (!pt->terms || !pt->vals) return -1;
    for (uint32_t i = 0; i < n; i++) {
        bool is_anti = i >= aff->npreferred;
        const ms_weighted_pod_affinity_term *wt =
            is_anti ? &anti->preferred[i - aff->npreferred] : &aff->preferred[i];
        if (compile_term(a, pod, &wt->term, is_anti ? -(int64_t)wt->weight : wt->weight, nss, in,
                         &pt->terms[i]) != 0)
            return -1;
    }
    return 0;
}

static ms_code ipa_pre_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                             ms_status *st) {
    (void)nodes;
    (void)n;
    inter_pod_affinity *p = self;
    const ms_pod *pod = c->pod;
    const ms_handle *h = p->h;
    bool has_constraints = pod->pod_affinity.npreferred || pod->pod_anti_affinity.npreferred;
    if (p->ignore_preferred_terms_of_existing_pods && !has_constraints)
        return ms_status_set(st, MS_SKIP, NULL);
    pc_clear(&p->scores);
    score_state *ss = MS_ARENA_NEW(c->arena, score_state, 1);
    prescore_terms pt = {0};
    if (!ss || compile_preferred(c->arena, pod, h->namespaces, p->in, &pt) != 0) return oom(st);
    pt.ns_labels = namespace_labels(h, pod->meta.namespace_);

    /* Without preferred terms of its own, the pod can only be scored by
     * existing pods that have affinity terms. */
    const ms_snapshot *snap = snapshot_of(c);
    ms_node_info *const *list = has_constraints ? snap->nodes : snap->have_pods_with_affinity;
    uint32_t nlist = has_constraints ? snap->nnodes : snap->nhave_affinity;
    for (uint32_t i = 0; i < nlist; i++) {
        const ms_node_info *ni = list[i];
        if (ni->npods == 0 || !ni->node || ni->node->meta.labels.n == 0) continue;
        const ms_labels *nl = &ni->node->meta.labels;
        for (uint32_t t = 0; t < pt.n; t++) pt.vals[t] = ms_labels_get(nl, pt.terms[t].topology_key);
        for (uint32_t k = 0; k < ni->npods; k++) {
            const ms_pod *e = ni->pods[k];
            if (!has_constraints && !ms_pod_has_affinity(e)) continue;
            if (score_existing(p, ss, &pt, e, nl, pod) != 0) return oom(st);
        }
    }
    if (!ss->any) return ms_status_set(st, MS_SKIP, NULL);
    c->state[c->current] = ss;
    return MS_SUCCESS;
}

static ms_code ipa_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                         int64_t *scores, ms_status *st) {
    (void)st;
    const inter_pod_affinity *p = self;
    const pair_counts *sc = &p->scores;
    bool have = c->state[c->current] != NULL;
    for (uint32_t i = 0; i < n; i++) {
        int64_t s = 0;
        const ms_node *node = nodes[i]->node;
        if (have && node)
            for (uint32_t k = 0; k < sc->nkeys; k++) {
                ms_str v = ms_labels_get(&node->meta.labels, sc->keys[k]);
                if (v != MS_STR_NONE) s += pc_get(sc, sc->keys[k], v);
            }
        scores[i] = s;
    }
    return MS_SUCCESS;
}

/* Min-max to 0..MaxNodeScore: anti-affinity makes raw scores negative. */
static ms_code ipa_normalize(void *self, ms_cycle *c, int64_t *scores, uint32_t n, ms_status *st) {
    (void)self;
    (void)st;
    const score_state *ss = c->state[c->current];
    if (!ss || !ss->any || n == 0) return MS_SUCCESS;
    int64_t min = scores[0], max = scores[0];
    for (uint32_t i = 1; i < n; i++) {
        if (scores[i] < min) min = scores[i];
        if (scores[i] > max) max = scores[i];
    }
    int64_t diff = max - min;
    for (uint32_t i = 0; i < n; i++) {
        double f = 0;
        if (diff > 0) f = (double)MS_MAX_NODE_SCORE * ((double)(scores[i] - min) / (double)diff);
        scores[i] = (int64_t)f;
    }
    return MS_SUCCESS;
}

const ms_plugin_ops ms_plugin_inter_pod_affinity = {
    .name = "InterPodAffinity",
    .events = MS_EV_ASSIGNED_POD_ADD | MS_EV_ASSIGNED_POD_UPDATE | MS_EV_ASSIGNED_POD_DELETE |
              MS_EV_NODE_ADD | MS_EV_NODE_LABEL,
    .create = ipa_create,
    .destroy = ipa_destroy,
    .pre_filter = ipa_pre_filter,
    .filter = ipa_filter,
    .pre_score = ipa_pre_score,
    .score = ipa_score,
    .normalize_score = ipa_normalize,
};
