/* The per-cycle view of the cluster, refreshed from the cache by
 * generation. */
#include "backend/cache_snapshot.h"

#include <stdlib.h>
#include <string.h>

#include "base/array.h"

void ms_snapshot_init(ms_snapshot *s) {
    memset(s, 0, sizeof *s);
    ms_map_init(&s->by_name);
    /* Differs from any cache's version, so the first update builds the lists. */
    s->tree_version = UINT64_MAX;
}

/* Enough for many cycles of single-node changes between two looks by a
 * consumer; a consumer further behind rebuilds, which costs what the journal
 * saves. */
#define JOURNAL_MAX 8192u

void ms_snapshot_free(ms_snapshot *s) {
    void *v;
    for (size_t it = 0; ms_map_next(&s->by_name, &it, NULL, &v);) ms_node_info_free(v);
    ms_map_free(&s->by_name);
    free(s->nodes);
    free(s->have_pods_with_affinity);
    free(s->have_pods_with_required_anti_affinity);
    free(s->changes);
    free(s->updated);
    memset(s, 0, sizeof *s);
}

ms_node_info *ms_snapshot_get(const ms_snapshot *s, ms_str node_name) {
    return ms_map_get(&s->by_name, node_name);
}

/* Consumers that last looked at a generation whose changes are lost must
 * rebuild: raising changes_from past it says so. */
static void journal_forget(ms_snapshot *s, uint32_t drop) {
    if (drop == 0) return;
    uint64_t lost = s->changes[drop - 1].since + 1;
    if (lost > s->changes_from) s->changes_from = lost;
    memmove(s->changes, s->changes + drop, (size_t)(s->nchanges - drop) * sizeof *s->changes);
    s->nchanges -= drop;
}

static void journal(ms_snapshot *s, ms_str name) {
    if (s->nchanges == s->changecap) {
        if (s->changecap >= JOURNAL_MAX) {
            journal_forget(s, s->nchanges / 2);
        } else if (!ms_array_grow((void **)&s->changes, &s->changecap, s->nchanges + 1,
                                  sizeof *s->changes)) {
            /* Nobody can rely on the journal up to now. */
            s->nchanges = 0;
            s->changes_from = s->generation + 1;
            return;
        }
    }
    s->changes[s->nchanges++] = (ms_snapshot_change){name, s->generation};
}

bool ms_snapshot_changes(const ms_snapshot *s, uint64_t seen, const ms_snapshot_change **out,
                         uint32_t *n) {
    *out = s->changes;
    *n = 0;
    if (seen < s->changes_from || seen > s->generation) return false;
    /* Entries are ordered by `since`: the first one not older than `seen`. */
    uint32_t lo = 0, hi = s->nchanges;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->changes[mid].since < seen) lo = mid + 1;
        else hi = mid;
    }
    *out = s->changes + lo;
    *n = s->nchanges - lo;
    return true;
}

ms_node_info *ms_snapshot_slot(ms_snapshot *s, ms_str node_name, bool *created) {
    journal(s, node_name);
    ms_node_info *ni = ms_map_get(&s->by_name, node_name);
    *created = false;
    if (ni) return ni;
    ni = ms_node_info_new(node_name);
    if (!ni) return NULL;
    ni->borrowed = true;
    if (ms_map_put(&s->by_name, node_name, ni) != 0) {
        ms_node_info_free(ni);
        return NULL;
    }
    *created = true;
    return ni;
}

void ms_snapshot_drop(ms_snapshot *s, ms_str node_name) {
    journal(s, node_name);
    ms_node_info_free(ms_map_del(&s->by_name, node_name));
}

void ms_snapshot_begin_update(ms_snapshot *s) {
    s->update_seq++;
    s->nupdated = 0;
    s->updated_all = false;
}

void ms_snapshot_note_updated(ms_snapshot *s, ms_node_info *ni) {
    if (s->updated_all) return;
    if (!ms_array_grow((void **)&s->updated, &s->updcap, s->nupdated + 1, sizeof *s->updated)) {
        s->updated_all = true;
        return;
    }
    s->updated[s->nupdated++] = ni;
}

int ms_snapshot_rebuild_lists(ms_snapshot *s, const ms_str *order, uint32_t n) {
    if (!ms_array_grow((void **)&s->nodes, &s->nodecap, n, sizeof *s->nodes)) return -1;
    s->nnodes = 0;
    for (uint32_t i = 0; i < n; i++) {
        ms_node_info *ni = ms_map_get(&s->by_name, order[i]);
        if (!ni) continue;
        ni->index = s->nnodes;
        s->nodes[s->nnodes++] = ni;
    }
    if (!ms_array_grow((void **)&s->have_pods_with_affinity, &s->affcap, s->nnodes,
                       sizeof *s->have_pods_with_affinity))
        return -1;
    if (!ms_array_grow((void **)&s->have_pods_with_required_anti_affinity, &s->anticap, s->nnodes,
                       sizeof *s->have_pods_with_required_anti_affinity))
        return -1;
    s->nhave_affinity = s->nhave_anti = 0;
    for (uint32_t i = 0; i < s->nnodes; i++) {
        ms_node_info *ni = s->nodes[i];
        if (ni->npods_with_affinity) s->have_pods_with_affinity[s->nhave_affinity++] = ni;
        if (ni->npods_with_required_anti_affinity)
            s->have_pods_with_required_anti_affinity[s->nhave_anti++] = ni;
    }
    return 0;
}

/* Removal is a search: nodes lose their last affinity pod far less often
 * than they gain a first one, and the lists hold only such nodes. */
static int list_update(ms_node_info ***list, uint32_t *n, uint32_t *cap, ms_node_info *ni, bool had,
                       bool has) {
    if (had == has) return 0;
    if (has) {
        if (!ms_array_grow((void **)list, cap, *n + 1, sizeof **list)) return -1;
        (*list)[(*n)++] = ni;
        return 0;
    }
    for (uint32_t i = 0; i < *n; i++)
        if ((*list)[i] == ni) {
            (*list)[i] = (*list)[--*n];
            return 0;
        }
    return 0;
}

int ms_snapshot_note_affinity(ms_snapshot *s, ms_node_info *ni, bool had_affinity, bool had_anti) {
    if (list_update(&s->have_pods_with_affinity, &s->nhave_affinity, &s->affcap, ni, had_affinity,
                    ni->npods_with_affinity > 0) != 0)
        return -1;
    return list_update(&s->have_pods_with_required_anti_affinity, &s->nhave_anti, &s->anticap, ni,
                       had_anti, ni->npods_with_required_anti_affinity > 0);
}
