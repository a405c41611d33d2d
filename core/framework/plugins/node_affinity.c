/* NodeAffinity: the node must match the pod's nodeSelector and required node
 * affinity (and the scheduler-enforced addedAffinity); nodes score the sum
 * of the weights of the preferred terms they match, normalized to 0..100. */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "moonsched/selector.h"
#include "plugin_args.h"

#define PLUGIN "NodeAffinity"

#define ERR_REASON_POD "node(s) didn't match Pod's node affinity/selector"
#define ERR_REASON_ENFORCED "node(s) didn't match scheduler-enforced node affinity"
#define ERR_REASON_CONFLICT "pod affinity terms conflict"

typedef struct weighted_term {
    int64_t weight;
    const ms_node_selector_term *term;
} weighted_term;

typedef struct node_affinity {
    ms_arena arena;                /* the compiled addedAffinity */
    const ms_interner *in;
    bool has_added_required;
    ms_node_selector added_required;
    uint32_t nadded_preferred;
    weighted_term *added_preferred;
} node_affinity;

/* PreScore: the pod's preferred terms that can add to a score. */
typedef struct prescore_state {
    uint32_t n;
    weighted_term *terms;
} prescore_state;

static void na_destroy(void *self) {
    node_affinity *na = self;
    if (!na) return;
    ms_arena_free(&na->arena);
    free(na);
}

static bool term_empty(const ms_node_selector_term *t) { return t->nexpr == 0 && t->nfields == 0; }

static ms_rc parse_added(node_affinity *na, const cJSON *added, ms_interner *in, ms_error *err) {
    static const char *const fields[] = {"requiredDuringSchedulingIgnoredDuringExecution",
                                         "preferredDuringSchedulingIgnoredDuringExecution", NULL};
    static const char *const pref_fields[] = {"weight", "preference", NULL};
    ms_rc rc = ms_args_check_object(added, fields, PLUGIN, "addedAffinity", err);
    if (rc) return rc;
    char path[160];
    const cJSON *req =
        cJSON_GetObjectItemCaseSensitive(added, "requiredDuringSchedulingIgnoredDuringExecution");
    if (req && !cJSON_IsNull(req)) {
        const char *where = "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution";
        if ((rc = ms_node_selector_from_json(req, in, &na->arena, &na->added_required, where, err))) {
            ms_error_prefix(err, PLUGIN " args");
            return rc;
        }
        /* Unlike a pod's, the scheduler's own affinity must be valid. */
        for (uint32_t i = 0; i < na->added_required.n; i++)
            if (na->added_required.terms[i].invalid)
                return ms_error_set(err, MS_EINVAL,
                                    PLUGIN " args: %s.nodeSelectorTerms[%u]: Invalid value: "
                                    "invalid node selector requirement",
                                    where, i);
        na->has_added_required = true;
    }
    const cJSON *pref =
        cJSON_GetObjectItemCaseSensitive(added, "preferredDuringSchedulingIgnoredDuringExecution");
    int n;
    if ((rc = ms_args_list(pref, PLUGIN, "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution",
                           &n, err)))
        return rc;
    if (n == 0) return MS_OK;
    ms_node_selector_term *terms = MS_ARENA_NEW(&na->arena, ms_node_selector_term, n);
    na->added_preferred = MS_ARENA_NEW(&na->arena, weighted_term, n);
    if (!terms || !na->added_preferred) return ms_error_set(err, MS_ENOMEM, PLUGIN " args: out of memory");
    int i = 0;
    for (const cJSON *e = pref->child; e; e = e->next, i++) {
        snprintf(path, sizeof path, "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[%d]", i);
        if ((rc = ms_args_check_object(e, pref_fields, PLUGIN, path, err))) return rc;
        int64_t weight = 0;
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(e, "weight");
        char sub[200];
        snprintf(sub, sizeof sub, "%s.weight", path);
        if (w && (rc = ms_args_int(w, PLUGIN, sub, &weight, err))) return rc;
        snprintf(sub, sizeof sub, "%s.preference", path);
        if ((rc = ms_node_selector_term_from_json(cJSON_GetObjectItemCaseSensitive(e, "preference"), in,
                                                  &na->arena, &terms[i], sub, err))) {
            ms_error_prefix(err, PLUGIN " args");
            return rc;
        }
        /* NewPreferredSchedulingTerms drops terms that cannot add anything. */
        if (weight == 0 || term_empty(&terms[i])) continue;
        if (terms[i].invalid)
            return ms_error_set(err, MS_EINVAL,
                                PLUGIN " args: %s: Invalid value: invalid node selector requirement",
                                sub);
        na->added_preferred[na->nadded_preferred++] = (weighted_term){weight, &terms[i]};
    }
    return MS_OK;
}

static ms_rc na_create(const cJSON *args, const ms_handle *h, void **self, ms_error *err) {
    static const char *const fields[] = {"addedAffinity", NULL};
    node_affinity *na = calloc(1, sizeof *na);
    if (!na) return ms_error_set(err, MS_ENOMEM, PLUGIN " args: out of memory");
    ms_arena_init(&na->arena, 1024);
    na->in = h->in;
    if (args && !cJSON_IsNull(args)) {
        const cJSON *added = cJSON_GetObjectItemCaseSensitive(args, "addedAffinity");
        ms_rc rc = ms_args_check_object(args, fields, PLUGIN, "", err);
        if (!rc && added && !cJSON_IsNull(added)) rc = parse_added(na, added, h->in, err);
        if (rc) {
            na_destroy(na);
            return rc;
        }
    }
    *self = na;
    return MS_OK;
}

/* Upstream's PreFilter narrows the candidates to the node names that every
 * term's matchFields metadata.name In requirements allow; when every term
 * names nodes but no term can match any (contradictory names within each
 * term), the pod can never be placed. The narrowing itself is left to
 * Filter, which checks matchFields against the node name anyway. */
static bool name_terms_conflict(const ms_node_selector *ns) {
    if (ns->n == 0) return false;
    for (uint32_t i = 0; i < ns->n; i++) {
        const ms_node_selector_term *t = &ns->terms[i];
        ms_str name = MS_STR_NONE;
        bool restricted = false, empty = false;
        for (uint32_t k = 0; k < t->nfields; k++) {
            const ms_requirement *r = &t->fields[k];
            if (!r->number || r->op != MS_OP_IN || r->nvalues != 1) continue;
            if (!restricted) name = r->values[0];
            else if (r->values[0] != name) empty = true;
            restricted = true;
        }
        if (!restricted || !empty) return false;
    }
    return true;
}

static ms_code na_pre_filter(void *self, ms_cycle *c, ms_status *st) {
    const node_affinity *na = self;
    const ms_pod *pod = c->pod;
    if (!pod->has_node_affinity_required && !na->has_added_required && pod->node_selector.n == 0)
        return ms_status_set(st, MS_SKIP, NULL);
    if (pod->has_node_affinity_required && name_terms_conflict(&pod->node_affinity_required))
        return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_CONFLICT);
    return MS_SUCCESS;
}

/* Everything is compiled on the pod and the plugin: Filter is integer
 * comparisons only, with no cycle state to read. */
static ms_code na_filter(void *self, ms_cycle *c, const ms_node_info *ni, ms_status *st) {
    const node_affinity *na = self;
    const ms_node *node = ni->node;
    if (!node) return ms_status_set(st, MS_ERROR, "node not found");
    const ms_labels *labels = &node->meta.labels;
    if (na->has_added_required &&
        !ms_node_selector_matches(&na->added_required, labels, node->meta.name, na->in))
        return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_ENFORCED);
    const ms_pod *pod = c->pod;
    if ((pod->node_selector.n && !ms_labels_subset(&pod->node_selector, labels)) ||
        (pod->has_node_affinity_required &&
         !ms_node_selector_matches(&pod->node_affinity_required, labels, node->meta.name, na->in)))
        return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_POD);
    return MS_SUCCESS;
}

/* The pod's preferred terms that can add to a score, into the cycle arena.
 * Upstream fails the cycle on a preferred term it cannot parse. */
static prescore_state *collect_preferred(ms_cycle *c, ms_status *st) {
    const ms_pod *pod = c->pod;
    prescore_state *s = MS_ARENA_NEW(c->arena, prescore_state, 1);
    weighted_term *terms = pod->nnode_affinity_preferred
                               ? MS_ARENA_NEW(c->arena, weighted_term, pod->nnode_affinity_preferred)
                               : NULL;
    if (!s || (pod->nnode_affinity_preferred && !terms)) {
        ms_status_set(st, MS_ERROR, "out of memory");
        return NULL;
    }
    for (uint32_t i = 0; i < pod->nnode_affinity_preferred; i++) {
        const ms_preferred_term *p = &pod->node_affinity_preferred[i];
        if (p->weight == 0 || term_empty(&p->term)) continue;
        if (p->term.invalid) {
            ms_status_set(st, MS_ERROR,
                          "invalid requirement in "
                          "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution");
            return NULL;
        }
        terms[s->n++] = (weighted_term){p->weight, &p->term};
    }
    s->terms = terms;
    return s;
}

static ms_code na_pre_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                            ms_status *st) {
    (void)nodes;
    (void)n;
    const node_affinity *na = self;
    if (c->pod->nnode_affinity_preferred == 0 && na->nadded_preferred == 0)
        return ms_status_set(st, MS_SKIP, NULL);
    prescore_state *s = collect_preferred(c, st);
    if (!s) return MS_ERROR;
    c->state[c->current] = s;
    return MS_SUCCESS;
}

static int64_t sum_matching(const weighted_term *terms, uint32_t n, const ms_node *node,
                            const ms_interner *in) {
    int64_t sum = 0;
    for (uint32_t i = 0; i < n; i++)
        if (ms_node_selector_term_matches(terms[i].term, &node->meta.labels, node->meta.name, in))
            sum += terms[i].weight;
    return sum;
}

static ms_code na_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                        int64_t *scores, ms_status *st) {
    const node_affinity *na = self;
    const prescore_state *s = c->state[c->current];
    if (!s && !(s = collect_preferred(c, st))) return MS_ERROR;
    for (uint32_t i = 0; i < n; i++) {
        const ms_node *node = nodes[i]->node;
        scores[i] = node ? sum_matching(na->added_preferred, na->nadded_preferred, node, na->in) +
                               sum_matching(s->terms, s->n, node, na->in)
                         : 0;
    }
    return MS_SUCCESS;
}

static ms_code na_normalize(void *self, ms_cycle *c, int64_t *scores, uint32_t n, ms_status *st) {
    (void)self;
    (void)c;
    (void)st;
    ms_default_normalize_score(MS_MAX_NODE_SCORE, false, scores, n);
    return MS_SUCCESS;
}

const ms_plugin_ops ms_plugin_node_affinity = {
    .name = "NodeAffinity",
    .events = MS_EV_NODE_ADD | MS_EV_NODE_LABEL,
    .create = na_create,
    .destroy = na_destroy,
    .pre_filter = na_pre_filter,
    .filter = na_filter,
    .pre_score = na_pre_score,
    .score = na_score,
    .normalize_score = na_normalize,
    .node_local = true,
};
