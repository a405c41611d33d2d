/* Node names grouped by zone, listed round-robin across zones: the order in
 * which a scheduling cycle visits nodes. Mirrors upstream's internal/cache
 * nodeTree. Used by the cache; not thread-safe. */
#ifndef MOONSCHED_NODE_TREE_H
#define MOONSCHED_NODE_TREE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/map.h"
#include "moonsched/intern.h"
#include "moonsched/node.h"

/* A zone is upstream's GetZoneKey: (region, zone) label values, MS_STR_NONE
 * for an absent or empty value; (NONE, NONE) is the zone of unlabelled nodes. */
typedef struct ms_zone_key {
    ms_str region;
    ms_str zone;
} ms_zone_key;

typedef struct ms_tree_zone {
    ms_zone_key key;
    uint32_t n, cap;
    ms_str *names;               /* in insertion order */
    ms_map members;              /* name -> non-NULL: duplicate checks without a scan */
} ms_tree_zone;

typedef struct ms_node_tree {
    uint32_t nzones, zonecap;
    ms_tree_zone *zones;         /* in order of first appearance */
    ms_map zone_index;           /* (region << 32 | zone) -> index in zones + 1 */
    uint32_t num_nodes;
    /* Label key ids, interned once. */
    ms_str label_zone_beta, label_region_beta, label_zone, label_region;
} ms_node_tree;

void ms_node_tree_init(ms_node_tree *t, ms_interner *in);
void ms_node_tree_free(ms_node_tree *t);

/* upstream GetZoneKey: failure-domain.beta.kubernetes.io/{zone,region}
 * first, then topology.kubernetes.io/{zone,region}. */
ms_zone_key ms_node_tree_zone_key(const ms_node_tree *t, const ms_node *node);

/* MS_OK; MS_EEXIST when the name is already in that zone; MS_ENOMEM. */
int ms_node_tree_add(ms_node_tree *t, ms_str name, ms_zone_key key);
/* MS_OK or MS_ENOENT. An emptied zone is dropped from the zone list. */
int ms_node_tree_remove(ms_node_tree *t, ms_str name, ms_zone_key key);
/* Moves a node whose zone changed; nothing when it did not. */
int ms_node_tree_update(ms_node_tree *t, ms_str name, ms_zone_key old_key, ms_zone_key new_key);
/* Writes num_nodes names into out: the first node of every zone, then the
 * second of every zone that has one, and so on. Returns the count. */
uint32_t ms_node_tree_list(const ms_node_tree *t, ms_str *out);

#endif
