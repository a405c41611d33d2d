/* InterPodAffinity: required pod affinity and anti-affinity in Filter (the
 * incoming pod's terms, and the existing pods' required anti-affinity
 * terms against the incoming pod), preferred terms (both ways) and the
 * existing pods' required affinity terms (hardPodAffinityWeight) in Score.
 *
 * Everything that depends on other pods is counted per topology pair
 * (topologyKey id, value id) in PreFilter and PreScore; Filter and Score are
 * a few label and map lookups per node. The counts are kept from one cycle
 * to the next: when the pod has the same shape as the previous one (same
 * namespace, labels and terms, as replicas of one workload do), only the
 * nodes the snapshot update changed are counted again; otherwise every node
 * is.
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
#include "plugin_args.h"
#include "api/namespace_store.h"
#include "backend/queue.h"
#include "backend/snapshot.h"
#include "base/map.h"

#define PLUGIN "InterPodAffinity"

#define ERR_EXISTING_ANTI "node(s) didn't satisfy existing pods anti-affinity rules"
#define ERR_AFFINITY "node(s) didn't match pod affinity rules"
#define ERR_ANTI_AFFINITY "node(s) didn't match pod anti-affinity rules"

#define DEFAULT_HARD_POD_AFFINITY_WEIGHT 1
#define MAX_HARD_POD_AFFINITY_WEIGHT 100

/* ---- counts per topology pair ------------------------------------------ */

/* Counts (or scores) per (topologyKey, value), and the distinct topology
 * keys seen, so that a node is checked with one label lookup per key instead
 * of one map lookup per node label. Owned by the plugin, kept between cycles
 * and cleared (not freed) when counting starts over: nothing is allocated
 * once the arrays have grown. */
typedef struct pair_counts {
    ms_map slot;                   /* pair -> index + 1 into v */
    int64_t *v;
    uint32_t n, cap;
    uint32_t nonzero;              /* pairs whose count is not 0 */
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
    pc->nonzero = 0;
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

/* Adds d (which may be negative: a node counted again first takes back
 * what it added) to the pair's count. 0 or -1 (out of memory). */
static int pc_add(pair_counts *pc, ms_str key, ms_str value, int64_t d) {
    uint64_t k = pair_of(key, value);
    uintptr_t i = (uintptr_t)ms_map_get(&pc->slot, k);
    if (i) {
        int64_t old = pc->v[i - 1];
        pc->v[i - 1] += d;
        pc->nonzero += (old == 0) - (pc->v[i - 1] == 0);
        return 0;
    }
    if (grow((void **)&pc->v, &pc->cap, pc->n + 1, sizeof *pc->v) != 0) return -1;
    if (ms_map_put(&pc->slot, k, (void *)(uintptr_t)(pc->n + 1)) != 0) return -1;
    pc->v[pc->n++] = d;
    pc->nonzero += d != 0;
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

/* ---- counts kept between cycles ------------------------------------------ */

enum { C_EXISTING_ANTI, C_AFFINITY, C_ANTI, C_SCORE, C_COUNT };

/* One count a node added: taken back when the node is counted again. */
typedef struct contrib {
    ms_str key, value;
    int32_t delta;
    uint32_t which;                /* C_* */
} contrib;

typedef struct node_rec {
    uint32_t n, cap;
    contrib *items;
} node_rec;

/* What a set of counts was taken from: a snapshot at an update, a pod
 * shape, the namespace store at a generation. */
typedef struct tracker {
    ms_map recs;                   /* node name -> node_rec* */
    uint64_t entries;              /* contributions over all records */
    const ms_snapshot *snap;
    uint64_t seq;
    uint64_t ns_generation;
    ms_pod *shape;                 /* referenced */
    bool valid;
} tracker;

typedef struct inter_pod_affinity {
    const ms_interner *in;
    const ms_handle *h;
    int64_t hard_pod_affinity_weight;
    bool ignore_preferred_terms_of_existing_pods;
    /* C_EXISTING_ANTI: existing pods' anti-affinity terms matching the pod;
     * C_AFFINITY: existing pods matching all the pod's affinity terms;
     * C_ANTI: existing pods matching the pod's anti-affinity terms
     * (upstream's preFilterState maps); C_SCORE: PreScore's topology scores. */
    pair_counts counts[C_COUNT];
    tracker filter_tracker, score_tracker;
    uint64_t filter_serial, score_serial;
    /* Filter's difference for a working copy of a node (node_delta). */
    struct pair_delta *delta_buf;
    uint32_t delta_cap;
} inter_pod_affinity;

/* The counts live in the plugin, so a cycle's state is only good until the
 * next cycle's PreFilter (PreScore): `serial` says which one it was. */
typedef struct filter_state {
    uint64_t serial;
    uint32_t naff, nanti;
    cterm *aff, *anti;
    bool self_match;               /* the pod matches all its own affinity terms */
    const ms_labels *ns_labels;    /* the pod's namespace labels */
} filter_state;

typedef struct score_state {
    uint64_t serial;
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

static void tracker_free(tracker *tr) {
    void *v;
    for (size_t it = 0; ms_map_next(&tr->recs, &it, NULL, &v);) {
        node_rec *r = v;
        free(r->items);
        free(r);
    }
    ms_map_free(&tr->recs);
    ms_pod_unref(tr->shape);
    memset(tr, 0, sizeof *tr);
}

static void ipa_destroy(void *self) {
    inter_pod_affinity *p = self;
    if (!p) return;
    for (int i = 0; i < C_COUNT; i++) pc_free(&p->counts[i]);
    tracker_free(&p->filter_tracker);
    tracker_free(&p->score_tracker);
    free(p->delta_buf);
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

/* ---- pod shapes ------------------------------------------------------------ */

static bool strs_equal(const ms_str *a, uint32_t na, const ms_str *b, uint32_t nb) {
    return na == nb && (na == 0 || memcmp(a, b, na * sizeof *a) == 0);
}

static bool selector_equal(const ms_label_selector *a, const ms_label_selector *b) {
    if (a->nothing != b->nothing || a->n != b->n) return false;
    for (uint32_t i = 0; i < a->n; i++) {
        const ms_requirement *x = &a->reqs[i], *y = &b->reqs[i];
        if (x->key != y->key || x->op != y->op || x->number != y->number ||
            !strs_equal(x->values, x->nvalues, y->values, y->nvalues))
            return false;
    }
    return true;
}

static bool term_equal(const ms_pod_affinity_term *a, const ms_pod_affinity_term *b) {
    return a->topology_key == b->topology_key && selector_equal(&a->selector, &b->selector) &&
           strs_equal(a->namespaces, a->nnamespaces, b->namespaces, b->nnamespaces) &&
           a->has_namespace_selector == b->has_namespace_selector &&
           (!a->has_namespace_selector || selector_equal(&a->namespace_selector, &b->namespace_selector)) &&
           strs_equal(a->match_label_keys, a->nmatch_label_keys, b->match_label_keys,
                      b->nmatch_label_keys) &&
           strs_equal(a->mismatch_label_keys, a->nmismatch_label_keys, b->mismatch_label_keys,
                      b->nmismatch_label_keys);
}

static bool required_equal(const ms_pod_affinity *a, const ms_pod_affinity *b) {
    if (a->nrequired != b->nrequired) return false;
    for (uint32_t i = 0; i < a->nrequired; i++)
        if (!term_equal(&a->required[i], &b->required[i])) return false;
    return true;
}

static bool preferred_equal(const ms_pod_affinity *a, const ms_pod_affinity *b) {
    if (a->npreferred != b->npreferred) return false;
    for (uint32_t i = 0; i < a->npreferred; i++)
        if (a->preferred[i].weight != b->preferred[i].weight ||
            !term_equal(&a->preferred[i].term, &b->preferred[i].term))
            return false;
    return true;
}

/* Pods the counts do not tell apart: the same namespace and labels (what
 * existing pods' terms select, and matchLabelKeys values) and the same
 * terms of the kind (required for Filter, preferred for Score). */
static bool same_shape(const ms_pod *a, const ms_pod *b, bool required) {
    if (a == b) return true;
    if (!a || !b || a->meta.namespace_ != b->meta.namespace_ ||
        a->meta.labels.n != b->meta.labels.n ||
        (a->meta.labels.n &&
         memcmp(a->meta.labels.items, b->meta.labels.items, a->meta.labels.n * sizeof(ms_label)) != 0))
        return false;
    return required ? required_equal(&a->pod_affinity, &b->pod_affinity) &&
                          required_equal(&a->pod_anti_affinity, &b->pod_anti_affinity)
                    : preferred_equal(&a->pod_affinity, &b->pod_affinity) &&
                          preferred_equal(&a->pod_anti_affinity, &b->pod_anti_affinity);
}

/* ---- per-node records ----------------------------------------------------- */

/* Adds one count for node `name`, remembering it in the node's record
 * (created at the first count). 0 or -1. */
static int emit(inter_pod_affinity *p, tracker *tr, node_rec **rp, ms_str name, uint32_t which,
                ms_str key, ms_str value, int32_t delta) {
    node_rec *r = *rp;
    if (!r) {
        if (!(r = calloc(1, sizeof *r))) return -1;
        if (ms_map_put(&tr->recs, name, r) != 0) {
            free(r);
            return -1;
        }
        *rp = r;
    }
    if (grow((void **)&r->items, &r->cap, r->n + 1, sizeof *r->items) != 0) return -1;
    if (pc_add(&p->counts[which], key, value, delta) != 0) return -1;
    r->items[r->n++] = (contrib){key, value, delta, which};
    tr->entries++;
    return 0;
}

/* Takes back what a node added; returns its record (emptied) or NULL. */
static node_rec *retract(inter_pod_affinity *p, tracker *tr, ms_str name) {
    node_rec *r = ms_map_get(&tr->recs, name);
    if (!r) return NULL;
    for (uint32_t i = 0; i < r->n; i++) {
        const contrib *x = &r->items[i];
        pc_add(&p->counts[x->which], x->key, x->value, -(int64_t)x->delta);   /* slot exists */
    }
    tr->entries -= r->n;
    r->n = 0;
    return r;
}

/* Starting over: every record emptied, those of nodes that left the
 * snapshot freed. */
static void tracker_reset(tracker *tr, const ms_snapshot *snap) {
    uint64_t name;
    void *v;
    for (size_t it = 0; ms_map_next(&tr->recs, &it, &name, &v);) {
        node_rec *r = v;
        r->n = 0;
        if (!ms_snapshot_get(snap, (ms_str)name)) {
            ms_map_del(&tr->recs, name);   /* deleting keeps the iteration valid */
            free(r->items);
            free(r);
        }
    }
    tr->entries = 0;
}

/* The counts can be brought up to date from the snapshot's change list:
 * same pod shape, same namespaces, and at most one update since. */
static bool tracker_current(const tracker *tr, const ms_snapshot *snap, const ms_pod *pod,
                            uint64_t ns_generation, bool required) {
    return tr->valid && tr->snap == snap && tr->ns_generation == ns_generation &&
           !snap->updated_all &&
           (snap->update_seq == tr->seq || snap->update_seq == tr->seq + 1) &&
           same_shape(tr->shape, pod, required);
}

static void tracker_commit(tracker *tr, const ms_snapshot *snap, ms_pod *pod, uint64_t ns_generation) {
    tr->snap = snap;
    tr->seq = snap->update_seq;
    tr->ns_generation = ns_generation;
    if (tr->shape != pod) {
        ms_pod_unref(tr->shape);
        tr->shape = ms_pod_ref(pod);
    }
    tr->valid = true;
}

static uint64_t ns_generation_of(const ms_handle *h) {
    return h->namespaces ? h->namespaces->generation : 0;
}

/* ---- PreFilter counts ------------------------------------------------------- */

/* What one node adds to the PreFilter counts: its pods' anti-affinity terms
 * that select the pod (upstream getExistingAntiAffinityCounts), and its pods
 * that the pod's terms select (getIncomingAffinityAntiAffinityCounts). The
 * node's topology values are read once per term, not per pod. */
static int count_filter_node(inter_pod_affinity *p, const filter_state *s, const ms_pod *pod,
                             const ms_node_info *ni, ms_str *vals) {
    tracker *tr = &p->filter_tracker;
    node_rec *r = retract(p, tr, ni->name);
    if (!ni->node || ni->npods == 0) return 0;
    const ms_labels *nl = &ni->node->meta.labels;
    if (ni->npods_with_required_anti_affinity)
        for (uint32_t k = 0; k < ni->npods; k++) {
            const ms_pod *e = ni->pods[k];
            const ms_pod_affinity *anti = &e->pod_anti_affinity;
            for (uint32_t t = 0; t < anti->nrequired; t++) {
                const ms_pod_affinity_term *term = &anti->required[t];
                ms_str v = ms_labels_get(nl, term->topology_key);
                if (v != MS_STR_NONE && term_matches(term, e, pod, s->ns_labels, p->in) &&
                    emit(p, tr, &r, ni->name, C_EXISTING_ANTI, term->topology_key, v, 1) != 0)
                    return -1;
            }
        }
    uint32_t nt = s->naff + s->nanti;
    bool any = false;
    for (uint32_t t = 0; t < nt; t++) {
        const cterm *term = t < s->naff ? &s->aff[t] : &s->anti[t - s->naff];
        vals[t] = ms_labels_get(nl, term->topology_key);
        any |= vals[t] != MS_STR_NONE;
    }
    if (!any) return 0;
    for (uint32_t k = 0; k < ni->npods; k++) {
        const ms_pod *e = ni->pods[k];
        if (s->naff && matches_all(s->aff, s->naff, e, p->in))
            for (uint32_t t = 0; t < s->naff; t++)
                if (vals[t] != MS_STR_NONE &&
                    emit(p, tr, &r, ni->name, C_AFFINITY, s->aff[t].topology_key, vals[t], 1) != 0)
                    return -1;
        for (uint32_t t = 0; t < s->nanti; t++) {
            ms_str v = vals[s->naff + t];
            if (v != MS_STR_NONE && cterm_matches(&s->anti[t], e, p->in) &&
                emit(p, tr, &r, ni->name, C_ANTI, s->anti[t].topology_key, v, 1) != 0)
                return -1;
        }
    }
    return 0;
}

static int count_filter(inter_pod_affinity *p, ms_cycle *c, const filter_state *s) {
    tracker *tr = &p->filter_tracker;
    const ms_snapshot *snap = snapshot_of(c);
    uint64_t nsgen = ns_generation_of(p->h);
    ms_str *vals = MS_ARENA_NEW(c->arena, ms_str, s->naff + s->nanti + 1);
    if (!vals) return -1;
    bool current = tracker_current(tr, snap, c->pod, nsgen, true);
    tr->valid = false;
    if (current) {
        if (snap->update_seq != tr->seq)
            for (uint32_t i = 0; i < snap->nupdated; i++)
                if (count_filter_node(p, s, c->pod, snap->updated[i], vals) != 0) return -1;
    } else {
        pc_clear(&p->counts[C_EXISTING_ANTI]);
        pc_clear(&p->counts[C_AFFINITY]);
        pc_clear(&p->counts[C_ANTI]);
        tracker_reset(tr, snap);
        /* Without terms of its own, only nodes with anti-affinity pods count. */
        bool terms = s->naff || s->nanti;
        ms_node_info *const *list = terms ? snap->nodes : snap->have_pods_with_required_anti_affinity;
        uint32_t n = terms ? snap->nnodes : snap->nhave_anti;
        for (uint32_t i = 0; i < n; i++)
            if (count_filter_node(p, s, c->pod, list[i], vals) != 0) return -1;
    }
    tracker_commit(tr, snap, c->pod, nsgen);
    return 0;
}

static ms_code ipa_pre_filter(void *self, ms_cycle *c, ms_status *st) {
    inter_pod_affinity *p = self;
    const ms_pod *pod = c->pod;
    const ms_namespaces *nss = p->h->namespaces;
    filter_state *s = MS_ARENA_NEW(c->arena, filter_state, 1);
    if (!s) return oom(st);
    s->serial = ++p->filter_serial;
    s->ns_labels = namespace_labels(p->h, pod->meta.namespace_);
    s->naff = pod->pod_affinity.nrequired;
    s->nanti = pod->pod_anti_affinity.nrequired;
    if (compile_required(c->arena, pod, &pod->pod_affinity, nss, p->in, &s->aff) != 0 ||
        compile_required(c->arena, pod, &pod->pod_anti_affinity, nss, p->in, &s->anti) != 0)
        return oom(st);
    if (count_filter(p, c, s) != 0) return oom(st);
    /* Upstream never skips: a nominated pod's required anti-affinity can
     * still reject the pod in the pass with nominated pods (AddPod). So
     * skipping waits until no nominated pod has such terms. */
    if (p->counts[C_EXISTING_ANTI].nonzero == 0 && s->naff == 0 && s->nanti == 0 &&
        !(p->h->queue && ms_queue_nominated_anti_affinity_count(p->h->queue) > 0))
        return ms_status_set(st, MS_SKIP, NULL);
    s->self_match = matches_all(s->aff, s->naff, pod, p->in);
    c->state[c->current] = s;
    return MS_SUCCESS;
}

/* ---- PreFilter extensions: AddPod / RemovePod --------------------------- */

/* Filter may be handed a working copy of a node instead of the snapshot's
 * NodeInfo: the framework's pass with nominated pods added, or preemption's
 * dry run with victims removed (and some put back). Upstream updates its
 * PreFilter state for those pods with AddPod / RemovePod (updateWithPod,
 * +1 / -1 on the three maps). Here the counts belong to the snapshot and are
 * shared by every node, so the copy's difference is kept aside instead:
 * every pair such a pod touches is one of this node's own (key, the node's
 * value for key), so a change is one (map, key, delta) entry, and Filter
 * reads count + delta. */
typedef struct pair_delta {
    uint32_t which;                /* C_EXISTING_ANTI, C_AFFINITY, C_ANTI */
    ms_str key;                    /* the value is the node's label for key */
    int64_t d;
} pair_delta;

typedef struct node_delta {
    uint32_t n;
    pair_delta *v;                 /* p->delta_buf */
} node_delta;

static int delta_add(inter_pod_affinity *p, node_delta *nd, uint32_t which, ms_str key, int64_t d) {
    for (uint32_t i = 0; i < nd->n; i++)
        if (nd->v[i].which == which && nd->v[i].key == key) {
            nd->v[i].d += d;
            return 0;
        }
    if (grow((void **)&p->delta_buf, &p->delta_cap, nd->n + 1, sizeof *p->delta_buf) != 0) return -1;
    nd->v = p->delta_buf;
    nd->v[nd->n++] = (pair_delta){which, key, d};
    return 0;
}

static int64_t delta_of(const node_delta *nd, uint32_t which, ms_str key) {
    int64_t d = 0;
    for (uint32_t i = 0; i < nd->n; i++)
        if (nd->v[i].which == which && nd->v[i].key == key) d += nd->v[i].d;
    return d;
}

/* upstream's updateWithPod for pod e on node labels nl, multiplier sign. */
static int update_with_pod(inter_pod_affinity *p, const ms_cycle *c, const filter_state *s,
                           const ms_labels *nl, const ms_pod *e, int64_t sign, node_delta *nd) {
    const ms_pod_affinity *anti = &e->pod_anti_affinity;
    for (uint32_t t = 0; t < anti->nrequired; t++) {
        const ms_pod_affinity_term *term = &anti->required[t];
        if (ms_labels_get(nl, term->topology_key) != MS_STR_NONE &&
            term_matches(term, e, c->pod, s->ns_labels, p->in) &&
            delta_add(p, nd, C_EXISTING_ANTI, term->topology_key, sign) != 0)
            return -1;
    }
    if (s->naff && matches_all(s->aff, s->naff, e, p->in))
        for (uint32_t t = 0; t < s->naff; t++)
            if (ms_labels_get(nl, s->aff[t].topology_key) != MS_STR_NONE &&
                delta_add(p, nd, C_AFFINITY, s->aff[t].topology_key, sign) != 0)
                return -1;
    for (uint32_t t = 0; t < s->nanti; t++)
        if (ms_labels_get(nl, s->anti[t].topology_key) != MS_STR_NONE &&
            cterm_matches(&s->anti[t], e, p->in) &&
            delta_add(p, nd, C_ANTI, s->anti[t].topology_key, sign) != 0)
            return -1;
    return 0;
}

/* The copy's difference from the snapshot's NodeInfo of the same node:
 * RemovePod for the pods only the snapshot has, AddPod for those only the
 * copy has. 0 or -1 (out of memory). */
static int node_difference(inter_pod_affinity *p, const ms_cycle *c, const filter_state *s,
                           const ms_node_info *ni, node_delta *nd) {
    nd->n = 0;
    nd->v = p->delta_buf;
    const ms_node_info *base = ms_snapshot_get(snapshot_of(c), ni->name);
    if (!base || base == ni) return 0;
    if (base->npods == ni->npods &&
        (ni->npods == 0 || memcmp(base->pod_uids, ni->pod_uids, ni->npods * sizeof *ni->pod_uids) == 0))
        return 0;
    const ms_labels *nl = &ni->node->meta.labels;
    for (uint32_t k = 0; k < base->npods; k++)
        if (ms_node_info_find_pod(ni, base->pod_uids[k]) < 0 &&
            update_with_pod(p, c, s, nl, base->pods[k], -1, nd) != 0)
            return -1;
    for (uint32_t k = 0; k < ni->npods; k++)
        if (ms_node_info_find_pod(base, ni->pod_uids[k]) < 0 &&
            update_with_pod(p, c, s, nl, ni->pods[k], 1, nd) != 0)
            return -1;
    return 0;
}

/* A count as the copy sees it. */
static inline int64_t count_at(const inter_pod_affinity *p, const node_delta *nd, uint32_t which,
                               ms_str key, ms_str value) {
    int64_t v = pc_get(&p->counts[which], key, value);
    return nd->n ? v + delta_of(nd, which, key) : v;
}

/* How many pairs of a map are not 0 once the copy's delta is applied
 * (upstream deletes a pair whose count drops to 0: len(map)). */
static uint32_t nonzero_at(const inter_pod_affinity *p, const node_delta *nd, uint32_t which,
                           const ms_labels *nl) {
    int64_t n = p->counts[which].nonzero;
    for (uint32_t i = 0; i < nd->n; i++) {
        if (nd->v[i].which != which || nd->v[i].d == 0) continue;
        int64_t old = pc_get(&p->counts[which], nd->v[i].key, ms_labels_get(nl, nd->v[i].key));
        n += (old + nd->v[i].d != 0) - (old != 0);
    }
    return n > 0 ? (uint32_t)n : 0;
}

static ms_code ipa_filter(void *self, ms_cycle *c, const ms_node_info *ni, ms_status *st) {
    inter_pod_affinity *p = self;
    const filter_state *s = c->state[c->current];
    if (!s) return ms_status_set(st, MS_ERROR, PLUGIN ": PreFilter state missing");
    if (s->serial != p->filter_serial)
        return ms_status_set(st, MS_ERROR, PLUGIN ": PreFilter state of another cycle");
    if (!ni->node) return ms_status_set(st, MS_ERROR, "node not found");
    const ms_labels *nl = &ni->node->meta.labels;
    node_delta nd = {0, NULL};
    if ((ni->scratch || ni == p->h->scratch) && node_difference(p, c, s, ni, &nd) != 0)
        return oom(st);

    /* satisfyPodAffinity */
    if (s->naff) {
        bool pods_exist = true;
        for (uint32_t t = 0; t < s->naff; t++) {
            ms_str key = s->aff[t].topology_key, v = ms_labels_get(nl, key);
            if (v == MS_STR_NONE)
                return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_AFFINITY);
            if (count_at(p, &nd, C_AFFINITY, key, v) <= 0) pods_exist = false;
        }
        /* The first pod of a group whose terms select itself may go anywhere
         * its topology keys exist. */
        if (!pods_exist && !(s->self_match && nonzero_at(p, &nd, C_AFFINITY, nl) == 0))
            return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_AFFINITY);
    }

    /* satisfyPodAntiAffinity */
    if (s->nanti && nonzero_at(p, &nd, C_ANTI, nl))
        for (uint32_t t = 0; t < s->nanti; t++) {
            ms_str key = s->anti[t].topology_key, v = ms_labels_get(nl, key);
            if (v != MS_STR_NONE && count_at(p, &nd, C_ANTI, key, v) > 0)
                return ms_status_set(st, MS_UNSCHEDULABLE, ERR_ANTI_AFFINITY);
        }

    /* satisfyExistingPodsAntiAffinity: only the keys that have counts can
     * match one of the node's labels (an added pod's key is in the delta). */
    const pair_counts *ea = &p->counts[C_EXISTING_ANTI];
    for (uint32_t k = 0; ea->nonzero && k < ea->nkeys; k++) {
        ms_str v = ms_labels_get(nl, ea->keys[k]);
        if (v != MS_STR_NONE && count_at(p, &nd, C_EXISTING_ANTI, ea->keys[k], v) > 0)
            return ms_status_set(st, MS_UNSCHEDULABLE, ERR_EXISTING_ANTI);
    }
    for (uint32_t i = 0; i < nd.n; i++)
        if (nd.v[i].which == C_EXISTING_ANTI && nd.v[i].d > 0 &&
            count_at(p, &nd, C_EXISTING_ANTI, nd.v[i].key, ms_labels_get(nl, nd.v[i].key)) > 0)
            return ms_status_set(st, MS_UNSCHEDULABLE, ERR_EXISTING_ANTI);
    return MS_SUCCESS;
}

/* ---- scoring -------------------------------------------------------------- */

typedef struct prescore_terms {
    uint32_t n;                    /* preferred affinity then anti-affinity terms */
    cterm *terms;
    ms_str *vals;                  /* per term: the current node's topology value */
    const ms_labels *ns_labels;
} prescore_terms;

/* What one node adds to the topology scores (upstream processExistingPod
 * for each of its pods). Without preferred terms of its own the pod is
 * scored only by existing pods that have affinity terms. */
static int count_score_node(inter_pod_affinity *p, const prescore_terms *pt, const ms_pod *pod,
                            const ms_node_info *ni, bool has_constraints) {
    tracker *tr = &p->score_tracker;
    node_rec *r = retract(p, tr, ni->name);
    if (ni->npods == 0 || !ni->node || ni->node->meta.labels.n == 0) return 0;
    if (!has_constraints && ni->npods_with_affinity == 0) return 0;
    const ms_labels *nl = &ni->node->meta.labels;
    ms_str name = ni->name;
    for (uint32_t t = 0; t < pt->n; t++) pt->vals[t] = ms_labels_get(nl, pt->terms[t].topology_key);
    for (uint32_t k = 0; k < ni->npods; k++) {
        const ms_pod *e = ni->pods[k];
        if (!has_constraints && !ms_pod_has_affinity(e)) continue;
        for (uint32_t t = 0; t < pt->n; t++)
            if (pt->vals[t] != MS_STR_NONE && cterm_matches(&pt->terms[t], e, p->in) &&
                emit(p, tr, &r, name, C_SCORE, pt->terms[t].topology_key, pt->vals[t],
                     (int32_t)pt->terms[t].weight) != 0)
                return -1;
        if (p->hard_pod_affinity_weight > 0)
            for (uint32_t t = 0; t < e->pod_affinity.nrequired; t++) {
                const ms_pod_affinity_term *term = &e->pod_affinity.required[t];
                ms_str v = ms_labels_get(nl, term->topology_key);
                if (v != MS_STR_NONE && term_matches(term, e, pod, pt->ns_labels, p->in) &&
                    emit(p, tr, &r, name, C_SCORE, term->topology_key, v,
                         (int32_t)p->hard_pod_affinity_weight) != 0)
                    return -1;
            }
        for (int anti = 0; anti < 2; anti++) {
            const ms_pod_affinity *pa = anti ? &e->pod_anti_affinity : &e->pod_affinity;
            for (uint32_t t = 0; t < pa->npreferred; t++) {
                const ms_weighted_pod_affinity_term *wt = &pa->preferred[t];
                ms_str v = ms_labels_get(nl, wt->term.topology_key);
                if (v != MS_STR_NONE && term_matches(&wt->term, e, pod, pt->ns_labels, p->in) &&
                    emit(p, tr, &r, name, C_SCORE, wt->term.topology_key, v,
                         anti ? -wt->weight : wt->weight) != 0)
                    return -1;
            }
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

static int count_scores(inter_pod_affinity *p, ms_cycle *c, const prescore_terms *pt,
                        bool has_constraints) {
    tracker *tr = &p->score_tracker;
    const ms_snapshot *snap = snapshot_of(c);
    uint64_t nsgen = ns_generation_of(p->h);
    bool current = tracker_current(tr, snap, c->pod, nsgen, false);
    tr->valid = false;
    if (current) {
        if (snap->update_seq != tr->seq)
            for (uint32_t i = 0; i < snap->nupdated; i++)
                if (count_score_node(p, pt, c->pod, snap->updated[i], has_constraints) != 0) return -1;
    } else {
        pc_clear(&p->counts[C_SCORE]);
        tracker_reset(tr, snap);
        ms_node_info *const *list = has_constraints ? snap->nodes : snap->have_pods_with_affinity;
        uint32_t n = has_constraints ? snap->nnodes : snap->nhave_affinity;
        for (uint32_t i = 0; i < n; i++)
            if (count_score_node(p, pt, c->pod, list[i], has_constraints) != 0) return -1;
    }
    tracker_commit(tr, snap, c->pod, nsgen);
    return 0;
}

static ms_code ipa_pre_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                             ms_status *st) {
    (void)nodes;
    (void)n;
    inter_pod_affinity *p = self;
    const ms_pod *pod = c->pod;
    p->score_serial++;
    bool has_constraints = pod->pod_affinity.npreferred || pod->pod_anti_affinity.npreferred;
    if (p->ignore_preferred_terms_of_existing_pods && !has_constraints)
        return ms_status_set(st, MS_SKIP, NULL);
    score_state *ss = MS_ARENA_NEW(c->arena, score_state, 1);
    prescore_terms pt = {0};
    if (!ss || compile_preferred(c->arena, pod, p->h->namespaces, p->in, &pt) != 0) return oom(st);
    pt.ns_labels = namespace_labels(p->h, pod->meta.namespace_);
    if (pt.n == 0 && !(pt.vals = MS_ARENA_NEW(c->arena, ms_str, 1))) return oom(st);
    if (count_scores(p, c, &pt, has_constraints) != 0) return oom(st);
    /* upstream: nothing matched anywhere, nothing to score. */
    if (p->score_tracker.entries == 0) return ms_status_set(st, MS_SKIP, NULL);
    ss->serial = p->score_serial;
    c->state[c->current] = ss;
    return MS_SUCCESS;
}

static ms_code check_score_state(const inter_pod_affinity *p, const ms_cycle *c, ms_status *st) {
    const score_state *ss = c->state[c->current];
    if (!ss) return ms_status_set(st, MS_ERROR, PLUGIN ": PreScore state missing");
    if (ss->serial != p->score_serial)
        return ms_status_set(st, MS_ERROR, PLUGIN ": PreScore state of another cycle");
    return MS_SUCCESS;
}

static ms_code ipa_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                         int64_t *scores, ms_status *st) {
    const inter_pod_affinity *p = self;
    if (check_score_state(p, c, st) != MS_SUCCESS) return MS_ERROR;
    const pair_counts *sc = &p->counts[C_SCORE];
    for (uint32_t i = 0; i < n; i++) {
        int64_t s = 0;
        const ms_node *node = nodes[i]->node;
        if (node)
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
    if (check_score_state(self, c, st) != MS_SUCCESS) return MS_ERROR;
    if (n == 0) return MS_SUCCESS;
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
    /* Namespace label changes decide which namespaces a namespaceSelector
     * term covers. Upstream registers no namespace event and leaves such
     * pods to the periodic flush (up to 5 minutes); they are rare and
     * cheap to move, so moonsched moves them at once. */
    .events = MS_EV_ASSIGNED_POD_ADD | MS_EV_ASSIGNED_POD_UPDATE | MS_EV_ASSIGNED_POD_DELETE |
              MS_EV_NODE_ADD | MS_EV_NODE_LABEL | MS_EV_NAMESPACE,
    .create = ipa_create,
    .destroy = ipa_destroy,
    .pre_filter = ipa_pre_filter,
    .filter = ipa_filter,
    .pre_score = ipa_pre_score,
    .score = ipa_score,
    .normalize_score = ipa_normalize,
};
