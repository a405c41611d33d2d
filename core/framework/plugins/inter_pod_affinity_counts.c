/* InterPodAffinity's counts per topology pair, kept from one cycle to the
 * next (see inter_pod_affinity.c), and PreFilter's state: the existing
 * pods' anti-affinity terms matching the pod, the existing pods matching
 * the pod's affinity and anti-affinity terms (upstream's preFilterState),
 * and updateWithPod for a working copy of a node (AddPod / RemovePod). */
#include "base/array.h"
#include "inter_pod_affinity.h"

#include <stdlib.h>
#include <string.h>

#include "moonsched/namespaces.h"
#include "backend/queue.h"
#include "backend/cache_snapshot.h"
#include "api/namespace_store.h"

void ipa_pc_free(ipa_pair_counts *pc) {
    ms_map_free(&pc->slot);
    free(pc->v);
    free(pc->keys);
    free(pc->value_bits);
    memset(pc, 0, sizeof *pc);
}

void ipa_pc_clear(ipa_pair_counts *pc) {
    ms_map_clear(&pc->slot);
    pc->n = 0;
    pc->nonzero = 0;
    pc->nkeys = 0;
    pc->nvalue_words = 0;   /* zeroed again as they come back into use */
}

static int mark_value(ipa_pair_counts *pc, ms_str value) {
    uint32_t w = value >> 6;
    if (w >= pc->nvalue_words) {
        if (!ms_array_grow((void **)&pc->value_bits, &pc->value_word_cap, w + 1, sizeof *pc->value_bits))
            return -1;
        memset(pc->value_bits + pc->nvalue_words, 0, (size_t)(w + 1 - pc->nvalue_words) * sizeof *pc->value_bits);
        pc->nvalue_words = w + 1;
    }
    pc->value_bits[w] |= UINT64_C(1) << (value & 63);
    return 0;
}

/* Adds d (which may be negative: a node counted again first takes back
 * what it added) to the pair's count. 0 or -1 (out of memory). */
int ipa_pc_add(ipa_pair_counts *pc, ms_str key, ms_str value, int64_t d) {
    uint64_t k = ipa_pair_of(key, value);
    uintptr_t i = (uintptr_t)ms_map_get(&pc->slot, k);
    if (i) {
        int64_t old = pc->v[i - 1];
        pc->v[i - 1] += d;
        pc->nonzero += (old == 0) - (pc->v[i - 1] == 0);
        return 0;
    }
    if (!ms_array_grow((void **)&pc->v, &pc->cap, pc->n + 1, sizeof *pc->v)) return -1;
    if (mark_value(pc, value) != 0) return -1;
    if (ms_map_put(&pc->slot, k, (void *)(uintptr_t)(pc->n + 1))) return -1;
    pc->v[pc->n++] = d;
    pc->nonzero += d != 0;
    for (uint32_t j = 0; j < pc->nkeys; j++)
        if (pc->keys[j] == key) return 0;
    if (!ms_array_grow((void **)&pc->keys, &pc->keycap, pc->nkeys + 1, sizeof *pc->keys)) return -1;
    pc->keys[pc->nkeys++] = key;
    return 0;
}

/* A Filter count changed by d: the verdicts hear when it crosses 0. */
static int add_count(ipa_plugin *p, uint32_t which, ms_str key, ms_str value, int64_t d) {
    if (which != C_ANTI && which != C_EXISTING_ANTI) return ipa_pc_add(&p->counts[which], key, value, d);
    int64_t before = ipa_pc_lookup(&p->counts[which], key, value);
    if (ipa_pc_add(&p->counts[which], key, value, d)) return -1;
    if ((before > 0) != (before + d > 0))
        ipa_verdicts_crossed(&p->verdicts, which, key, value, before > 0 ? -1 : 1);
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
int ipa_emit(ipa_plugin *p, ipa_tracker *tr, ipa_node_rec **rp, ms_str name, uint32_t which,
                ms_str key, ms_str value, int32_t delta) {
    ipa_node_rec *r = *rp;
    if (!r) {
        if (!(r = calloc(1, sizeof *r))) return -1;
        if (ms_map_put(&tr->recs, name, r) != 0) {
            free(r);
            return -1;
        }
        *rp = r;
    }
    if (!ms_array_grow((void **)&r->items, &r->cap, r->n + 1, sizeof *r->items)) return -1;
    if (add_count(p, which, key, value, delta)) return -1;
    r->items[r->n++] = (ipa_contrib){key, value, delta, which};
    tr->entries++;
    return 0;
}

/* Takes back what a node added; returns its record (emptied) or NULL. */
ipa_node_rec *ipa_retract(ipa_plugin *p, ipa_tracker *tr, ms_str name) {
    ipa_node_rec *r = ms_map_get(&tr->recs, name);
    if (!r) return NULL;
    for (uint32_t i = 0; i < r->n; i++) {
        const ipa_contrib *x = &r->items[i];
        add_count(p, x->which, x->key, x->value, -(int64_t)x->delta);   /* slot exists */
    }
    tr->entries -= r->n;
    r->n = 0;
    return r;
}

/* Starting over: every record emptied, those of nodes that left the
 * snapshot freed. */
void ipa_tracker_reset(ipa_tracker *tr, const ms_snapshot *snap) {
    uint64_t name;
    void *v;
    for (size_t it = 0; ms_map_next(&tr->recs, &it, &name, &v);) {
        ipa_node_rec *r = v;
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
bool ipa_tracker_current(const ipa_tracker *tr, const ms_snapshot *snap, const ms_pod *pod,
                            uint64_t ns_generation, bool required) {
    return tr->valid && tr->snap == snap && tr->ns_generation == ns_generation &&
           !snap->updated_all &&
           (snap->update_seq == tr->seq || snap->update_seq == tr->seq + 1) &&
           same_shape(tr->shape, pod, required);
}

void ipa_tracker_commit(ipa_tracker *tr, const ms_snapshot *snap, ms_pod *pod, uint64_t ns_generation) {
    tr->snap = snap;
    tr->seq = snap->update_seq;
    tr->ns_generation = ns_generation;
    if (tr->shape != pod) {
        ms_pod_unref(tr->shape);
        tr->shape = ms_pod_ref(pod);
    }
    tr->valid = true;
}

uint64_t ipa_ns_generation_of(const ms_handle *h) {
    return h->namespaces ? h->namespaces->generation : 0;
}

void ipa_tracker_free(ipa_tracker *tr) {
    void *v;
    for (size_t it = 0; ms_map_next(&tr->recs, &it, NULL, &v);) {
        ipa_node_rec *r = v;
        free(r->items);
        free(r);
    }
    ms_map_free(&tr->recs);
    ms_pod_unref(tr->shape);
    memset(tr, 0, sizeof *tr);
}

/* ---- PreFilter counts ------------------------------------------------------- */

/* What one node adds to the PreFilter counts: its pods' anti-affinity terms
 * that select the pod (upstream getExistingAntiAffinityCounts), and its pods
 * that the pod's terms select (getIncomingAffinityAntiAffinityCounts). The
 * node's topology values are read once per term, not per pod. */
static int count_filter_node(ipa_plugin *p, const ipa_filter_state *s, const ms_pod *pod,
                             const ms_node_info *ni, ms_str *vals) {
    ipa_tracker *tr = &p->filter_tracker;
    ipa_node_rec *r = ipa_retract(p, tr, ni->name);
    if (!ni->node || ni->npods == 0) return 0;
    const ms_labels *nl = &ni->node->meta.labels;
    if (ni->npods_with_required_anti_affinity)
        for (uint32_t k = 0; k < ni->npods; k++) {
            const ms_pod *e = ni->pods[k];
            const ms_pod_affinity *anti = &e->pod_anti_affinity;
            for (uint32_t t = 0; t < anti->nrequired; t++) {
                const ms_pod_affinity_term *term = &anti->required[t];
                ms_str v = ms_labels_get(nl, term->topology_key);
                if (v != MS_STR_NONE && ipa_term_matches(term, e, pod, s->ns_labels, p->in) &&
                    ipa_emit(p, tr, &r, ni->name, C_EXISTING_ANTI, term->topology_key, v, 1) != 0)
                    return -1;
            }
        }
    uint32_t nt = s->naff + s->nanti;
    bool any = false;
    for (uint32_t t = 0; t < nt; t++) {
        const ipa_cterm *term = t < s->naff ? &s->aff[t] : &s->anti[t - s->naff];
        vals[t] = ms_labels_get(nl, term->topology_key);
        any |= vals[t] != MS_STR_NONE;
    }
    if (!any) return 0;
    for (uint32_t k = 0; k < ni->npods; k++) {
        const ms_pod *e = ni->pods[k];
        if (s->naff && ipa_matches_all(s->aff, s->naff, e, p->in))
            for (uint32_t t = 0; t < s->naff; t++)
                if (vals[t] != MS_STR_NONE &&
                    ipa_emit(p, tr, &r, ni->name, C_AFFINITY, s->aff[t].topology_key, vals[t], 1) != 0)
                    return -1;
        for (uint32_t t = 0; t < s->nanti; t++) {
            ms_str v = vals[s->naff + t];
            if (v != MS_STR_NONE && ipa_cterm_matches(&s->anti[t], e, p->in) &&
                ipa_emit(p, tr, &r, ni->name, C_ANTI, s->anti[t].topology_key, v, 1) != 0)
                return -1;
        }
    }
    return 0;
}

static int count_filter(ipa_plugin *p, ms_cycle *c, const ipa_filter_state *s) {
    ipa_tracker *tr = &p->filter_tracker;
    const ms_snapshot *snap = ipa_snapshot_of(c);
    uint64_t nsgen = ipa_ns_generation_of(p->h);
    ms_str *vals = MS_ARENA_NEW(c->arena, ms_str, s->naff + s->nanti + 1);
    if (!vals) return -1;
    bool current = ipa_tracker_current(tr, snap, c->pod, nsgen, true);
    tr->valid = false;
    ipa_verdicts_check(&p->verdicts, snap);
    if (current) {
        if (snap->update_seq != tr->seq)
            for (uint32_t i = 0; i < snap->nupdated; i++)
                if (count_filter_node(p, s, c->pod, snap->updated[i], vals)) return -1;
    } else {
        ipa_pc_clear(&p->counts[C_EXISTING_ANTI]);
        ipa_pc_clear(&p->counts[C_AFFINITY]);
        ipa_pc_clear(&p->counts[C_ANTI]);
        ipa_verdicts_cleared(&p->verdicts);
        ipa_tracker_reset(tr, snap);
        /* Without terms of its own, only nodes with anti-affinity pods count. */
        bool terms = s->naff || s->nanti;
        ms_node_info *const *list = terms ? snap->nodes : snap->have_pods_with_required_anti_affinity;
        uint32_t n = terms ? snap->nnodes : snap->nhave_anti;
        for (uint32_t i = 0; i < n; i++)
            if (count_filter_node(p, s, c->pod, list[i], vals)) return -1;
    }
    ipa_tracker_commit(tr, snap, c->pod, nsgen);
    ipa_verdicts_finish(&p->verdicts, p, snap);
    return 0;
}

ms_code ipa_pre_filter(void *self, ms_cycle *c, ms_status *st) {
    ipa_plugin *p = self;
    const ms_pod *pod = c->pod;
    const ms_namespaces *nss = p->h->namespaces;
    ipa_filter_state *s = MS_ARENA_NEW(c->arena, ipa_filter_state, 1);
    if (!s) return ipa_oom(st);
    s->serial = ++p->filter_serial;
    s->ns_labels = ipa_namespace_labels(p->h, pod->meta.namespace_);
    s->naff = pod->pod_affinity.nrequired;
    s->nanti = pod->pod_anti_affinity.nrequired;
    if (ipa_compile_required(c->arena, pod, &pod->pod_affinity, nss, p->in, &s->aff) != 0 ||
        ipa_compile_required(c->arena, pod, &pod->pod_anti_affinity, nss, p->in, &s->anti) != 0)
        return ipa_oom(st);
    if (count_filter(p, c, s) != 0) return ipa_oom(st);
    /* Upstream never skips: a nominated pod's required anti-affinity can
     * still reject the pod in the pass with nominated pods (AddPod). So
     * skipping waits until no nominated pod has such terms. */
    if (p->counts[C_EXISTING_ANTI].nonzero == 0 && s->naff == 0 && s->nanti == 0 &&
        !(p->h->queue && ms_queue_nominated_anti_affinity_count(p->h->queue) > 0))
        return ms_status_set(st, MS_SKIP, NULL);
    s->self_match = ipa_matches_all(s->aff, s->naff, pod, p->in);
    c->state[c->current] = s;
    return MS_SUCCESS;
}

/* ---- PreFilter extensions: AddPod / RemovePod --------------------------- */

static int delta_add(ipa_plugin *p, ipa_node_delta *nd, uint32_t which, ms_str key, int64_t d) {
    for (uint32_t i = 0; i < nd->n; i++)
        if (nd->v[i].which == which && nd->v[i].key == key) {
            nd->v[i].d += d;
            return 0;
        }
    if (!ms_array_grow((void **)&p->delta_buf, &p->delta_cap, nd->n + 1, sizeof *p->delta_buf)) return -1;
    nd->v = p->delta_buf;
    nd->v[nd->n++] = (ipa_pair_delta){which, key, d};
    return 0;
}

/* upstream's updateWithPod for pod e on node labels nl, multiplier sign. */
static int update_with_pod(ipa_plugin *p, const ms_cycle *c, const ipa_filter_state *s,
                           const ms_labels *nl, const ms_pod *e, int64_t sign, ipa_node_delta *nd) {
    const ms_pod_affinity *anti = &e->pod_anti_affinity;
    for (uint32_t t = 0; t < anti->nrequired; t++) {
        const ms_pod_affinity_term *term = &anti->required[t];
        if (ms_labels_get(nl, term->topology_key) != MS_STR_NONE &&
            ipa_term_matches(term, e, c->pod, s->ns_labels, p->in) &&
            delta_add(p, nd, C_EXISTING_ANTI, term->topology_key, sign) != 0)
            return -1;
    }
    if (s->naff && ipa_matches_all(s->aff, s->naff, e, p->in))
        for (uint32_t t = 0; t < s->naff; t++)
            if (ms_labels_get(nl, s->aff[t].topology_key) != MS_STR_NONE &&
                delta_add(p, nd, C_AFFINITY, s->aff[t].topology_key, sign) != 0)
                return -1;
    for (uint32_t t = 0; t < s->nanti; t++)
        if (ms_labels_get(nl, s->anti[t].topology_key) != MS_STR_NONE &&
            ipa_cterm_matches(&s->anti[t], e, p->in) &&
            delta_add(p, nd, C_ANTI, s->anti[t].topology_key, sign) != 0)
            return -1;
    return 0;
}

/* The copy's difference from the snapshot's NodeInfo of the same node:
 * RemovePod for the pods only the snapshot has, AddPod for those only the
 * copy has. 0 or -1 (out of memory). */
int ipa_node_difference(ipa_plugin *p, const ms_cycle *c, const ipa_filter_state *s,
                           const ms_node_info *ni, ipa_node_delta *nd) {
    nd->n = 0;
    nd->v = p->delta_buf;
    const ms_node_info *base = ms_snapshot_get(ipa_snapshot_of(c), ni->name);
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

