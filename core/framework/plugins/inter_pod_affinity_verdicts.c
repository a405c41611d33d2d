/* InterPodAffinity's anti-affinity verdicts per node, kept in step with
 * PreFilter's C_ANTI and C_EXISTING_ANTI counts (see ipa_verdicts in
 * inter_pod_affinity.h). Filter's answer from them is the one it would
 * read from the counts: a node is blocked under a key exactly when the
 * count at its value for that key is > 0, and that changes only when a
 * count crosses 0 (the nodes with the pair's value told) or the node's
 * value changes (the verdicts then built again). */
#include <stdlib.h>
#include <string.h>

#include "backend/cache_snapshot.h"
#include "base/array.h"
#include "inter_pod_affinity.h"

void ipa_verdicts_free(ipa_verdicts *v) {
    free(v->node);
    free(v->value);
    free(v->next);
    free(v->blocked[0]);
    free(v->blocked[1]);
    ms_map_free(&v->heads);
    memset(v, 0, sizeof *v);
}

static int key_index(const ipa_verdicts *v, ms_str key) {
    for (uint32_t k = 0; k < v->nkeys; k++)
        if (v->keys[k] == key) return (int)k;
    return -1;
}

static int slot_of(uint32_t which) { return which == C_ANTI ? 0 : 1; }

void ipa_verdicts_check(ipa_verdicts *v, const ms_snapshot *snap) {
    if (!v->valid) return;
    if (v->snap != snap || snap->updated_all || snap->tree_version != v->tree_version ||
        (snap->update_seq != v->seq && snap->update_seq != v->seq + 1)) {
        v->valid = false;
        return;
    }
    if (snap->update_seq == v->seq) return;
    /* An update copies NodeInfos in place: a node keeps its NodeInfo (and
     * its position, as the list is rebuilt only with the tree or for a
     * new NodeInfo, which is not the one kept there), and only a new Node
     * object can bring new values. */
    for (uint32_t i = 0; i < snap->nupdated; i++) {
        const ms_node_info *ni = snap->updated[i];
        if (ni->index >= v->cap || v->node[ni->index] != ni || !ni->node) {
            v->valid = false;
            return;
        }
        for (uint32_t k = 0; k < v->nkeys; k++)
            if (ms_labels_get(&ni->node->meta.labels, v->keys[k]) != v->value[(size_t)k * v->cap + ni->index]) {
                v->valid = false;
                return;
            }
    }
    v->seq = snap->update_seq;
}

void ipa_verdicts_crossed(ipa_verdicts *v, uint32_t which, ms_str key, ms_str value, int d) {
    if (!v->valid) return;
    int k = key_index(v, key);
    if (k < 0) {
        v->valid = false;   /* a key without values: built again after counting */
        return;
    }
    uint8_t *b = v->blocked[slot_of(which)];
    const uint32_t *next = v->next + (size_t)k * v->cap;
    for (uintptr_t n = (uintptr_t)ms_map_get(&v->heads, ipa_pair_of(key, value)); n; n = next[n - 1])
        b[n - 1] = (uint8_t)(b[n - 1] + d);
}

void ipa_verdicts_cleared(ipa_verdicts *v) {
    if (!v->valid) return;
    memset(v->blocked[0], 0, v->cap);
    memset(v->blocked[1], 0, v->cap);
}

/* The keys of both counts, or false when there are more than fit. */
static bool collect_keys(ipa_verdicts *v, const ipa_plugin *p) {
    v->nkeys = 0;
    for (uint32_t w = 0; w < 2; w++) {
        const ipa_pair_counts *pc = &p->counts[w == 0 ? C_ANTI : C_EXISTING_ANTI];
        for (uint32_t i = 0; i < pc->nkeys; i++) {
            if (key_index(v, pc->keys[i]) >= 0) continue;
            if (v->nkeys == IPA_VERDICT_KEYS) return false;
            v->keys[v->nkeys++] = pc->keys[i];
        }
    }
    return true;
}

static bool reserve(ipa_verdicts *v, uint32_t cap) {
    size_t kc = (size_t)v->nkeys * cap;
    if (kc > UINT32_MAX) return false;
    return ms_array_grow((void **)&v->node, &v->node_cap, cap, sizeof *v->node) &&
           ms_array_grow((void **)&v->value, &v->value_cap, (uint32_t)kc, sizeof *v->value) &&
           ms_array_grow((void **)&v->next, &v->next_cap, (uint32_t)kc, sizeof *v->next) &&
           ms_array_grow((void **)&v->blocked[0], &v->blocked_cap[0], cap, 1) &&
           ms_array_grow((void **)&v->blocked[1], &v->blocked_cap[1], cap, 1);
}

/* The nodes of each value, and the verdicts from the counts' pairs. */
static bool build(ipa_verdicts *v, const ipa_plugin *p, const ms_snapshot *snap) {
    uint32_t cap = snap->nnodes;
    if (!reserve(v, cap)) return false;
    v->cap = cap;
    memset(v->blocked[0], 0, cap);
    memset(v->blocked[1], 0, cap);
    ms_map_clear(&v->heads);
    for (uint32_t i = 0; i < snap->nnodes; i++) {
        const ms_node_info *ni = snap->nodes[i];
        v->node[i] = ni;
        for (uint32_t k = 0; k < v->nkeys; k++) {
            size_t at = (size_t)k * cap + i;
            ms_str val = ni->node ? ms_labels_get(&ni->node->meta.labels, v->keys[k]) : MS_STR_NONE;
            v->value[at] = val;
            v->next[at] = 0;
            if (val == MS_STR_NONE) continue;
            uint64_t pair = ipa_pair_of(v->keys[k], val);
            v->next[at] = (uint32_t)(uintptr_t)ms_map_get(&v->heads, pair);
            if (ms_map_put(&v->heads, pair, (void *)(uintptr_t)(i + 1)) != 0) return false;
        }
    }
    v->valid = true;
    for (uint32_t w = 0; w < 2; w++) {
        uint32_t which = w == 0 ? C_ANTI : C_EXISTING_ANTI;
        const ipa_pair_counts *pc = &p->counts[which];
        uint64_t pair;
        void *slot;
        for (size_t it = 0; ms_map_next(&pc->slot, &it, &pair, &slot);)
            if (pc->v[(uintptr_t)slot - 1] > 0)
                ipa_verdicts_crossed(v, which, (ms_str)(pair >> 32), (ms_str)(pair & UINT32_MAX), 1);
    }
    return v->valid;
}

void ipa_verdicts_finish(ipa_verdicts *v, const ipa_plugin *p, const ms_snapshot *snap) {
    if (v->valid) return;
    if (!collect_keys(v, p) || v->nkeys == 0) return;
    v->snap = snap;
    v->seq = snap->update_seq;
    v->tree_version = snap->tree_version;
    if (!build(v, p, snap)) v->valid = false;
}
