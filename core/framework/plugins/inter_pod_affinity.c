/* InterPodAffinity: required pod affinity and anti-affinity in Filter (the
 * incoming pod's terms, and the existing pods' required anti-affinity
 * terms against the incoming pod), preferred terms (both ways) and the
 * existing pods' required affinity terms (hardPodAffinityWeight) in Score.
 *
 * Everything that depends on other pods is counted per topology pair
 * (topologyKey id, value id) in PreFilter and PreScore; Filter and Score are
 * a few label and map lookups per node, and for the anti-affinity terms
 * Filter reads a verdict kept per node instead (inter_pod_affinity_verdicts.c). The counts are kept from one cycle
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
#include "inter_pod_affinity.h"

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "moonsched/namespaces.h"
#include "plugin_args.h"
#include "api/namespace_store.h"
#include "backend/queue.h"
#include "backend/cache_snapshot.h"
#include "base/map.h"

#define DEFAULT_HARD_POD_AFFINITY_WEIGHT 1
#define MAX_HARD_POD_AFFINITY_WEIGHT 100

static const ms_labels no_labels = {0, NULL};

const ms_labels *ipa_namespace_labels(const ms_handle *h, ms_str ns) {
    const ms_namespace *n = ms_namespaces_get(h->namespaces, ns);
    return n ? &n->meta.labels : &no_labels;
}

/* A cycle without a snapshot (framework tests) sees an empty cluster. */
const ms_snapshot *ipa_snapshot_of(const ms_cycle *c) {
    static const ms_snapshot none;
    return c->snap ? c->snap : &none;
}

ms_code ipa_oom(ms_status *st) { return ms_status_set(st, MS_ERROR, "out of memory"); }

static void ipa_destroy(void *self) {
    ipa_plugin *p = self;
    if (!p) return;
    for (int i = 0; i < C_COUNT; i++) ipa_pc_free(&p->counts[i]);
    ipa_tracker_free(&p->filter_tracker);
    ipa_tracker_free(&p->score_tracker);
    ipa_verdicts_free(&p->verdicts);
    free(p->delta_buf);
    free(p);
}

static ms_rc parse_args(ipa_plugin *p, const cJSON *args, ms_error *err) {
    static const char *const fields[] = {"hardPodAffinityWeight", "ignorePreferredTermsOfExistingPods",
                                         NULL};
    ms_rc rc = ms_args_check_object(args, fields, IPA_NAME, "", err);
    if (rc) return rc;
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(args, "hardPodAffinityWeight");
    if (w && !cJSON_IsNull(w)) {
        int64_t v;
        if ((rc = ms_args_int(w, IPA_NAME, "hardPodAffinityWeight", &v, err))) return rc;
        if (v < 0 || v > MAX_HARD_POD_AFFINITY_WEIGHT)
            return ms_error_set(err, MS_EINVAL,
                                IPA_NAME " args: hardPodAffinityWeight: Invalid value: %lld: not in "
                                "valid range [0, %d]",
                                (long long)v, MAX_HARD_POD_AFFINITY_WEIGHT);
        p->hard_pod_affinity_weight = v;
    }
    const cJSON *ig = cJSON_GetObjectItemCaseSensitive(args, "ignorePreferredTermsOfExistingPods");
    if (ig && !cJSON_IsNull(ig)) {
        if (!cJSON_IsBool(ig))
            return ms_error_set(err, MS_EINVAL,
                                IPA_NAME " args: ignorePreferredTermsOfExistingPods: expected a "
                                "boolean");
        p->ignore_preferred_terms_of_existing_pods = cJSON_IsTrue(ig);
    }
    return MS_OK;
}

static ms_rc ipa_create(const cJSON *args, const ms_handle *h, void **self, ms_error *err) {
    ipa_plugin *p = calloc(1, sizeof *p);
    if (!p) return ms_error_set(err, MS_ENOMEM, IPA_NAME ": out of memory");
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

/* ---- terms ---------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b) {
    ms_str x = *(const ms_str *)a, y = *(const ms_str *)b;
    return (x > y) - (x < y);
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

int ipa_compile_term(ms_arena *a, const ms_pod *pod, const ms_pod_affinity_term *t,
                        int64_t weight, const ms_namespaces *nss, const ms_interner *in,
                        ipa_cterm *out) {
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

int ipa_compile_required(ms_arena *a, const ms_pod *pod, const ms_pod_affinity *pa,
                            const ms_namespaces *nss, const ms_interner *in, ipa_cterm **out) {
    *out = NULL;
    if (pa->nrequired == 0) return 0;
    if (!(*out = MS_ARENA_NEW(a, ipa_cterm, pa->nrequired))) return -1;
    for (uint32_t i = 0; i < pa->nrequired; i++)
        if (ipa_compile_term(a, pod, &pa->required[i], 0, nss, in, &(*out)[i]) != 0) return -1;
    return 0;
}

bool ipa_term_matches(const ms_pod_affinity_term *t, const ms_pod *owner, const ms_pod *target,
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

const ms_plugin_ops ms_plugin_inter_pod_affinity = {
    .name = IPA_NAME,
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
