/* The order in which a cycle visits nodes: round-robin across zones. See
 * backend/node_tree.h. */
#include "backend/node_tree.h"

#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "moonsched/error.h"
#include "moonsched/labels.h"

void ms_node_tree_init(ms_node_tree *t, ms_interner *in) {
    memset(t, 0, sizeof *t);
    ms_map_init(&t->zone_index);
    t->label_zone_beta = ms_intern_cstr(in, "failure-domain.beta.kubernetes.io/zone");
    t->label_region_beta = ms_intern_cstr(in, "failure-domain.beta.kubernetes.io/region");
    t->label_zone = ms_intern_cstr(in, "topology.kubernetes.io/zone");
    t->label_region = ms_intern_cstr(in, "topology.kubernetes.io/region");
}

void ms_node_tree_free(ms_node_tree *t) {
    for (uint32_t i = 0; i < t->nzones; i++) {
        free(t->zones[i].names);
        ms_map_free(&t->zones[i].members);
    }
    free(t->zones);
    ms_map_free(&t->zone_index);
    t->zones = NULL;
    t->nzones = t->zonecap = t->num_nodes = 0;
}

/* Upstream reads the first label that is present, even when its value is
 * empty; an empty value then counts as no value. */
static ms_str label_or(const ms_labels *l, ms_str first, ms_str second) {
    ms_str v = ms_labels_get(l, first);
    if (v == MS_STR_NONE) v = ms_labels_get(l, second);
    return v == MS_STR_EMPTY ? MS_STR_NONE : v;
}

ms_zone_key ms_node_tree_zone_key(const ms_node_tree *t, const ms_node *node) {
    const ms_labels *l = &node->meta.labels;
    return (ms_zone_key){
        .region = label_or(l, t->label_region_beta, t->label_region),
        .zone = label_or(l, t->label_zone_beta, t->label_zone),
    };
}

static uint64_t zone_id(ms_zone_key key) {
    return (uint64_t)key.region << 32 | key.zone;
}

/* Loads add nodes by the thousand: zones and names are found through maps,
 * never by scanning. */
static ms_tree_zone *find_zone(const ms_node_tree *t, ms_zone_key key) {
    uintptr_t i = (uintptr_t)ms_map_get(&t->zone_index, zone_id(key));
    return i ? &t->zones[i - 1] : NULL;
}

static ms_tree_zone *new_zone(ms_node_tree *t, ms_zone_key key) {
    if (!ms_array_grow((void **)&t->zones, &t->zonecap, t->nzones + 1, sizeof *t->zones))
        return NULL;
    if (ms_map_put(&t->zone_index, zone_id(key), (void *)(uintptr_t)(t->nzones + 1)) != 0)
        return NULL;
    ms_tree_zone *z = &t->zones[t->nzones++];
    *z = (ms_tree_zone){.key = key};
    ms_map_init(&z->members);
    return z;
}

/* Keeps the order of the zones that remain: it decides which nodes a cycle
 * looks at first. */
static void drop_zone(ms_node_tree *t, ms_tree_zone *z) {
    uint32_t zi = (uint32_t)(z - t->zones);
    free(z->names);
    ms_map_free(&z->members);
    ms_map_del(&t->zone_index, zone_id(z->key));
    memmove(&t->zones[zi], &t->zones[zi + 1], (t->nzones - zi - 1) * sizeof *t->zones);
    t->nzones--;
    /* Rewriting existing keys never allocates. */
    for (uint32_t i = zi; i < t->nzones; i++)
        ms_map_put(&t->zone_index, zone_id(t->zones[i].key), (void *)(uintptr_t)(i + 1));
}

int ms_node_tree_add(ms_node_tree *t, ms_str name, ms_zone_key key) {
    ms_tree_zone *z = find_zone(t, key);
    if (z && ms_map_has(&z->members, name)) return MS_EEXIST;
    if (!z && !(z = new_zone(t, key))) return MS_ENOMEM;
    if (!ms_array_grow((void **)&z->names, &z->cap, z->n + 1, sizeof *z->names)) {
        if (z->n == 0) drop_zone(t, z);   /* the zone was just created */
        return MS_ENOMEM;
    }
    if (ms_map_put(&z->members, name, (void *)1) != 0) {
        if (z->n == 0) drop_zone(t, z);
        return MS_ENOMEM;
    }
    z->names[z->n++] = name;
    t->num_nodes++;
    return MS_OK;
}

int ms_node_tree_remove(ms_node_tree *t, ms_str name, ms_zone_key key) {
    ms_tree_zone *z = find_zone(t, key);
    if (!z || !ms_map_del(&z->members, name)) return MS_ENOENT;
    for (uint32_t i = 0; i < z->n; i++) {
        if (z->names[i] != name) continue;
        /* Keep the order: it decides which nodes a cycle looks at first. */
        memmove(&z->names[i], &z->names[i + 1], (z->n - i - 1) * sizeof *z->names);
        z->n--;
        t->num_nodes--;
        if (z->n == 0) drop_zone(t, z);
        return MS_OK;
    }
    return MS_ENOENT;
}

int ms_node_tree_update(ms_node_tree *t, ms_str name, ms_zone_key old_key, ms_zone_key new_key) {
    if (old_key.region == new_key.region && old_key.zone == new_key.zone) return MS_OK;
    (void)ms_node_tree_remove(t, name, old_key);   /* as upstream: absent is fine */
    return ms_node_tree_add(t, name, new_key);
}

uint32_t ms_node_tree_list(const ms_node_tree *t, ms_str *out) {
    uint32_t n = 0;
    for (uint32_t idx = 0; n < t->num_nodes; idx++) {
        bool any = false;
        for (uint32_t zi = 0; zi < t->nzones; zi++) {
            const ms_tree_zone *z = &t->zones[zi];
            if (idx >= z->n) continue;
            out[n++] = z->names[idx];
            any = true;
        }
        if (!any) break;   /* all zones exhausted */
    }
    return n;
}
