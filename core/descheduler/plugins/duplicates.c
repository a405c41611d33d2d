/* RemoveDuplicates, as upstream's Balance: on each node, a pod whose
 * owners and container images equal those of a pod before it on that
 * node is a duplicate. Duplicates are then grouped per owner (namespace,
 * kind, name and the container images): for each owner, the pods it has
 * over all nodes divided by the nodes its duplicates could run on
 * (upstream's getTargetNodes; fewer than two: nothing to do), rounded up,
 * is how many may share a node, and the duplicates past that go. Pods
 * owned by excludeOwnerKinds are left alone. */
#include <stdlib.h>
#include <string.h>

#include "api/toleration.h"
#include "base/array.h"
#include "base/map.h"
#include "descheduler/pass.h"
#include "descheduler/plugin.h"

typedef struct duplicates_args {
    ms_desched_pod_scope scope;
    ms_desched_strs exclude_owner_kinds;
} duplicates_args;

static ms_rc decode(ms_desched_args_ctx *c, const cJSON *args, void *out) {
    duplicates_args *a = out;
    ms_rc rc;
    if (args && ((rc = ms_desched_args_namespaces(c, args, "namespaces", &a->scope)) != MS_OK ||
                 (rc = ms_desched_args_strs(c, args, "excludeOwnerKinds", &a->exclude_owner_kinds)) != MS_OK))
        return rc;
    return MS_OK;
}

/* ---- identities ---- */

static uint64_t mix(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

/* The containers' images, init containers' left out (upstream's). */
static const ms_str *images(const ms_pod *p, uint32_t *n) {
    *n = p->nimages - p->ninit_images;
    return p->images + p->ninit_images;
}

/* Order-independent (upstream sorts): a sum of per-item hashes. */
static uint64_t images_hash(const ms_pod *p) {
    uint32_t n;
    const ms_str *im = images(p, &n);
    uint64_t h = 0;
    for (uint32_t i = 0; i < n; i++) h += mix(im[i] + 0x9e3779b97f4a7c15ULL);
    return mix(h + n);
}

static uint64_t owners_hash(const ms_pod *p) {
    uint64_t h = 0;
    for (uint32_t i = 0; i < p->meta.nowners; i++)
        h += mix(((uint64_t)p->meta.owners[i].kind << 32) ^ p->meta.owners[i].name);
    return mix(h + p->meta.nowners);
}

/* Whether b's ids are a permutation of a's. */
static bool same_multiset(const ms_str *a, const ms_str *b, uint32_t n) {
    bool used[64] = {0};
    if (n > 64) return memcmp(a, b, n * sizeof *a) == 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = 0;
        while (k < n && (used[k] || b[k] != a[i])) k++;
        if (k == n) return false;
        used[k] = true;
    }
    return true;
}

static bool same_images(const ms_pod *a, const ms_pod *b) {
    uint32_t na, nb;
    const ms_str *ia = images(a, &na), *ib = images(b, &nb);
    return na == nb && same_multiset(ia, ib, na);
}

static bool same_owners(const ms_pod *a, const ms_pod *b) {
    if (a->meta.nowners != b->meta.nowners) return false;
    for (uint32_t i = 0; i < a->meta.nowners; i++) {
        bool found = false;
        for (uint32_t k = 0; k < b->meta.nowners && !found; k++)
            found = a->meta.owners[i].kind == b->meta.owners[k].kind && a->meta.owners[i].name == b->meta.owners[k].name;
        if (!found) return false;
    }
    return true;
}

/* ---- the pods of the pass ---- */

typedef struct entry {
    ms_pod *pod;
    uint32_t node;           /* index in the pass's nodes */
    uint64_t ident;          /* namespace, owners, images */
    bool dup;
} entry;

/* One owner key: namespace, owner kind and name, container images. */
typedef struct owner_key {
    const ms_pod *first;     /* a pod of it (its namespace and images) */
    const ms_owner_ref *ref;
    uint32_t occurrences;
    uint32_t *dups, ndups, dupcap;   /* entry indexes, in entry order */
} owner_key;

typedef struct dedup {
    ms_desched_pass *ps;
    entry *e;
    uint32_t n;
    owner_key *keys;
    uint32_t nkeys, keycap;
    ms_map by_hash;          /* owner key hash -> index + 1 of the first key of that hash */
} dedup;

static bool excluded_owner(const duplicates_args *a, const ms_pod *p) {
    for (uint32_t i = 0; i < p->meta.nowners; i++)
        if (ms_desched_strs_has(&a->exclude_owner_kinds, p->meta.owners[i].kind)) return true;
    return false;
}

static bool collect(dedup *d, const duplicates_args *a) {
    ms_desched_pass *ps = d->ps;
    uint32_t total = 0;
    for (uint32_t i = 0; i < ps->nnodes; i++) total += ps->nodes[i]->npods;
    if (!(d->e = malloc(sizeof *d->e * (total ? total : 1)))) return false;
    for (uint32_t i = 0; i < ps->nnodes; i++) {
        ms_node_info *ni = ps->nodes[i];
        uint32_t first = d->n;
        for (uint32_t k = 0; k < ni->npods; k++) {
            ms_pod *p = ni->pods[k];
            if (!p->meta.nowners || excluded_owner(a, p) || ms_pod_is_terminal(p)) continue;
            if (!ms_desched_pod_filter(ps, &a->scope, p, ni->name)) continue;
            entry *e = &d->e[d->n++];
            *e = (entry){p, i, mix(mix(p->meta.namespace_) ^ owners_hash(p)) ^ images_hash(p), false};
            /* a duplicate of a pod before it on this node */
            for (uint32_t j = first; j + 1 < d->n && !e->dup; j++)
                e->dup = d->e[j].ident == e->ident && d->e[j].pod->meta.namespace_ == p->meta.namespace_ &&
                         same_owners(d->e[j].pod, p) && same_images(d->e[j].pod, p);
        }
    }
    return true;
}

/* The key of (p, ref), added when new; NULL when out of memory. */
static owner_key *key_of(dedup *d, const ms_pod *p, const ms_owner_ref *ref) {
    uint64_t h = mix(mix(p->meta.namespace_) ^ mix(((uint64_t)ref->kind << 32) ^ ref->name)) ^ images_hash(p);
    for (uintptr_t i = (uintptr_t)ms_map_get(&d->by_hash, h); i && i <= d->nkeys; i++) {
        owner_key *k = &d->keys[i - 1];
        if (k->ref->kind == ref->kind && k->ref->name == ref->name &&
            k->first->meta.namespace_ == p->meta.namespace_ && same_images(k->first, p))
            return k;
    }
    if (!ms_array_grow((void **)&d->keys, &d->keycap, d->nkeys + 1, sizeof *d->keys)) return NULL;
    owner_key *k = &d->keys[d->nkeys++];
    *k = (owner_key){.first = p, .ref = ref};
    if (!ms_map_get(&d->by_hash, h) && ms_map_put(&d->by_hash, h, (void *)(uintptr_t)d->nkeys) != 0) return NULL;
    return k;
}

/* Occurrences of every owner key; each duplicate under each of its
 * owners. */
static bool group(dedup *d) {
    for (uint32_t i = 0; i < d->n; i++) {
        const ms_pod *p = d->e[i].pod;
        for (uint32_t o = 0; o < p->meta.nowners; o++) {
            owner_key *k = key_of(d, p, &p->meta.owners[o]);
            if (!k) return false;
            k->occurrences++;
            if (!d->e[i].dup) continue;
            if (!ms_array_grow((void **)&k->dups, &k->dupcap, k->ndups + 1, sizeof *k->dups)) return false;
            k->dups[k->ndups++] = i;
        }
    }
    return true;
}

/* Whether p could run on the node by its NoSchedule and NoExecute taints,
 * node selector and required node affinity (upstream's getTargetNodes). */
static bool could_run(const ms_desched_pass *ps, const ms_pod *p, const ms_node *node) {
    if (ms_find_untolerated_taint(node->taints, node->ntaints, p->tolerations, p->ntolerations,
                                  MS_EFFECT_BIT(MS_EFFECT_NO_SCHEDULE) | MS_EFFECT_BIT(MS_EFFECT_NO_EXECUTE)))
        return false;
    if (!ms_labels_subset(&p->node_selector, &node->meta.labels)) return false;
    return !p->has_node_affinity_required ||
           ms_node_selector_matches(&p->node_affinity_required, &node->meta.labels, node->meta.name, ps->in);
}

/* The nodes any duplicate of the key could run on, counting a pod's only
 * when it has more than one. */
static uint32_t target_nodes(const dedup *d, const owner_key *k, bool *target) {
    const ms_desched_pass *ps = d->ps;
    uint32_t count = 0;
    memset(target, 0, ps->nnodes * sizeof *target);
    for (uint32_t i = 0; i < k->ndups; i++) {
        const ms_pod *p = d->e[k->dups[i]].pod;
        uint32_t fits = 0;
        for (uint32_t n = 0; n < ps->nnodes && fits < 2; n++) fits += could_run(ps, p, ps->nodes[n]->node);
        if (fits < 2) continue;
        for (uint32_t n = 0; n < ps->nnodes; n++)
            if (!target[n] && could_run(ps, p, ps->nodes[n]->node)) target[n] = true, count++;
    }
    return count;
}

/* One owner key: on each node, the duplicates past ceil(occurrences /
 * targets) - 1 go. false when the total limit was reached. */
static bool balance_key(dedup *d, const owner_key *k, bool *target) {
    ms_desched_pass *ps = d->ps;
    uint32_t targets = target_nodes(d, k, target);
    if (targets < 2) return true;
    uint32_t upper = (k->occurrences + targets - 1) / targets;
    for (uint32_t i = 0; i < k->ndups;) {
        uint32_t node = d->e[k->dups[i]].node, j = i;
        while (j < k->ndups && d->e[k->dups[j]].node == node) j++;
        /* j - i duplicates plus the node's first pod */
        for (uint32_t m = i + (upper ? upper - 1 : 0); j - i + 1 > upper && m < j; m++) {
            ms_pod *p = d->e[k->dups[m]].pod;
            if (ms_desched_pass_evicted(ps, p)) continue;   /* under another of its owners */
            ms_evict_result r = ms_desched_evict(ps, p, ps->nodes[node]->name, "pod is a duplicate of others on its node");
            if (r == MS_EVICT_TOTAL_LIMIT) return false;
            if (r == MS_EVICT_NODE_LIMIT) break;
        }
        i = j;
    }
    return true;
}

static void run(const void *args, ms_desched_pass *ps) {
    dedup d = {.ps = ps};
    ms_map_init(&d.by_hash);
    bool *target = calloc(ps->nnodes ? ps->nnodes : 1, sizeof *target);
    bool ok = target && collect(&d, args) && group(&d);
    for (uint32_t i = 0; ok && i < d.nkeys; i++)
        if (d.keys[i].ndups && !balance_key(&d, &d.keys[i], target)) break;
    if (!ok) ps->failed = true;
    for (uint32_t i = 0; i < d.nkeys; i++) free(d.keys[i].dups);
    free(d.keys);
    free(d.e);
    free(target);
    ms_map_free(&d.by_hash);
}

/* Whether q counts under p's owner `ref` (same namespace, owner and
 * container images). */
static bool same_owner_key(const ms_pod *q, const ms_pod *p, const ms_owner_ref *ref) {
    if (q->meta.namespace_ != p->meta.namespace_ || ms_pod_is_terminal(q) || !same_images(q, p)) return false;
    for (uint32_t o = 0; o < q->meta.nowners; o++)
        if (q->meta.owners[o].kind == ref->kind && q->meta.owners[o].name == ref->name) return true;
    return false;
}

static uint32_t count_on(const ms_node_info *ni, const ms_pod *p, const ms_owner_ref *ref) {
    uint32_t n = 0;
    for (uint32_t k = 0; k < ni->npods; k++) n += same_owner_key(ni->pods[k], p, ref);
    return n;
}

/* A new violation where the pod lands: the target then runs more pods of
 * one of its owners than ceil(the owner's pods / the nodes the pod could
 * run on), counted on the pass's nodes as they are now. */
static const char *target_violation(const void *args, const ms_desched_pass *ps, const ms_pod *p,
                                    const ms_node_info *target) {
    if (!p->meta.nowners || excluded_owner(args, p)) return NULL;
    uint32_t targets = 0;
    for (uint32_t n = 0; n < ps->nnodes; n++) targets += could_run(ps, p, ps->nodes[n]->node);
    if (targets < 2) return NULL;
    for (uint32_t o = 0; o < p->meta.nowners; o++) {
        const ms_owner_ref *ref = &p->meta.owners[o];
        uint32_t total = 0;
        for (uint32_t n = 0; n < ps->nnodes; n++) total += count_on(ms_desched_live_node(ps, n), p, ref);
        if (count_on(target, p, ref) > (total + targets - 1) / targets)
            return "it would make the node it lands on run more duplicates than an even spread allows";
    }
    return NULL;
}

const ms_desched_plugin_def ms_desched_remove_duplicates = {
    .name = "RemoveDuplicates",
    .balance = true,
    .args_size = sizeof(duplicates_args),
    .decode = decode,
    .run = run,
    .target_violation = target_violation,
};
