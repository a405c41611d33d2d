/* The scheduler cache: NodeInfos and pod states (added, assumed, expiring).
 * See backend/cache.h. */
#include "backend/cache.h"

#include <stdlib.h>
#include <string.h>

#include "backend/node_tree.h"
#include "base/array.h"
#include "base/map.h"

/* A NodeInfo and its place in the most-recently-updated list (upstream's
 * nodeInfoListItem): UpdateSnapshot walks from the head and stops at the
 * first NodeInfo the snapshot already has, so it costs O(changed). */
typedef struct cache_node {
    ms_node_info *info;
    struct cache_node *prev, *next;
    ms_zone_key zone;            /* where the node sits in the tree */
    bool in_tree;                /* false for a NodeInfo kept only for its pods */
} cache_node;

typedef struct pod_state {
    ms_pod *pod;                 /* referenced; for an assumed pod, the copy with nodeName */
    bool assumed;
    bool binding_finished;       /* only then can an assumed pod expire */
    double deadline;
    uint32_t assumed_idx;        /* position in the assumed list */
    struct pod_state *next_free;
} pod_state;

/* upstream's imageState: the nodes that have an image. num_nodes of every
 * holder's entry is brought up to date lazily (refresh_images), so that
 * loading N nodes costs O(images), not O(N) per node. */
typedef struct image_state {
    ms_str name;
    int64_t size;                /* of the first node that reported it */
    uint32_t nholders, holdercap;
    cache_node **holders;
    bool dirty;
} image_state;

typedef struct ptr_vec {
    void **v;
    uint32_t n, cap;
} ptr_vec;

/* Dropped pods and nodes are released at the next snapshot update (a
 * snapshot may still point at them). When nobody updates a snapshot for a
 * long time the list is trimmed, releasing the oldest: a cycle drops far
 * fewer than DEAD_KEEP objects, so those cannot be in use. */
#define DEAD_KEEP 1024u

struct ms_cache {
    ms_interner *in;
    double ttl;
    uint64_t generation;         /* source of every NodeInfo generation */
    ms_map nodes;                /* node name -> cache_node* (ghosts included) */
    cache_node *head;
    ms_node_tree tree;
    uint64_t tree_version;       /* bumped whenever the node-tree order changes */
    ms_map pods;                 /* uid_hash -> pod_state* */
    ptr_vec assumed;             /* pod_state* */
    pod_state *free_states;
    ms_map images;               /* image name -> image_state* */
    ptr_vec dirty_images;
    ms_str *order;               /* node-tree order, rebuilt when stale */
    uint32_t norder, ordercap;
    uint64_t order_version;
    ptr_vec dead_pods, dead_nodes;
    ms_image_state *scratch;     /* a node's image list while it is built */
    uint32_t scratchcap;
};

static int vec_push(ptr_vec *v, void *p) {
    if (!ms_array_grow((void **)&v->v, &v->cap, v->n + 1, sizeof *v->v))
        return -1;
    v->v[v->n++] = p;
    return 0;
}

/* ---- deferred releases ---- */

/* Releases the `count` oldest entries of a list (all when count exceeds it). */
static void release_oldest(ptr_vec *v, uint32_t count, void (*release)(void *)) {
    uint32_t k = count < v->n ? count : v->n;
    if (k == 0) return;
    for (uint32_t i = 0; i < k; i++) release(v->v[i]);
    memmove(v->v, v->v + k, (v->n - k) * sizeof *v->v);
    v->n -= k;
}

static void unref_pod(void *p) {
    ms_pod_unref(p);
}

static void unref_node(void *n) {
    ms_node_unref(n);
}

static void release_dead(ms_cache *c) {
    release_oldest(&c->dead_pods, UINT32_MAX, unref_pod);
    release_oldest(&c->dead_nodes, UINT32_MAX, unref_node);
}

static void defer(ptr_vec *v, void *obj, void (*release)(void *)) {
    if (!obj) return;
    if (v->n >= 2 * DEAD_KEEP) release_oldest(v, DEAD_KEEP, release);
    if (vec_push(v, obj) != 0) release(obj);
}

static void defer_pod(ms_cache *c, ms_pod *p) {
    defer(&c->dead_pods, p, unref_pod);
}

static void defer_node(ms_cache *c, ms_node *n) {
    defer(&c->dead_nodes, n, unref_node);
}

/* ---- the most-recently-updated list ---- */

static void unlink_node(ms_cache *c, cache_node *cn) {
    if (cn->prev) cn->prev->next = cn->next;
    if (cn->next) cn->next->prev = cn->prev;
    if (c->head == cn) c->head = cn->next;
    cn->prev = cn->next = NULL;
}

/* Every change to a NodeInfo goes through here: a new generation, and the
 * NodeInfo moves to the head of the list. */
static void touch(ms_cache *c, cache_node *cn) {
    cn->info->generation = ++c->generation;
    if (c->head == cn) return;
    unlink_node(c, cn);
    cn->next = c->head;
    if (c->head) c->head->prev = cn;
    c->head = cn;
}

static cache_node *get_node(const ms_cache *c, ms_str name) {
    return ms_map_get(&c->nodes, name);
}

static cache_node *new_node(ms_cache *c, ms_str name) {
    cache_node *cn = calloc(1, sizeof *cn);
    if (!cn) return NULL;
    cn->info = ms_node_info_new(name);
    if (!cn->info || ms_map_put(&c->nodes, name, cn) != 0) {
        ms_node_info_free(cn->info);
        free(cn);
        return NULL;
    }
    return cn;
}

/* Only for a NodeInfo with no node and no pods left. */
static void drop_node(ms_cache *c, cache_node *cn) {
    unlink_node(c, cn);
    ms_map_del(&c->nodes, cn->info->name);
    ms_node_info_free(cn->info);
    free(cn);
}

/* ---- image states ---- */

static void mark_dirty(ms_cache *c, image_state *is) {
    if (is->dirty) return;
    if (vec_push(&c->dirty_images, is) != 0) return;   /* counts lag until the next change */
    is->dirty = true;
}

static void image_drop_holder(ms_cache *c, ms_str name, cache_node *cn) {
    image_state *is = ms_map_get(&c->images, name);
    if (!is) return;
    for (uint32_t i = 0; i < is->nholders; i++) {
        if (is->holders[i] != cn) continue;
        is->holders[i] = is->holders[--is->nholders];
        mark_dirty(c, is);
        return;
    }
}

/* Emptied image states are kept (a later node re-creates nothing); their
 * size is reset by the next node that reports the image, as upstream. */
static image_state *image_add_holder(ms_cache *c, ms_str name, int64_t size, cache_node *cn) {
    image_state *is = ms_map_get(&c->images, name);
    if (!is) {
        is = calloc(1, sizeof *is);
        if (!is) return NULL;
        is->name = name;
        if (ms_map_put(&c->images, name, is) != 0) {
            free(is);
            return NULL;
        }
    }
    if (!ms_array_grow((void **)&is->holders, &is->holdercap, is->nholders + 1, sizeof *is->holders))
        return NULL;
    if (is->nholders == 0) is->size = size;
    is->holders[is->nholders++] = cn;
    mark_dirty(c, is);
    return is;
}

static void remove_node_images(ms_cache *c, cache_node *cn) {
    ms_node_info *ni = cn->info;
    for (uint32_t i = 0; i < ni->nimages; i++) image_drop_holder(c, ni->images[i].name, cn);
    ni->nimages = 0;
}

static int cmp_image(const void *a, const void *b) {
    ms_str x = ((const ms_image_state *)a)->name, y = ((const ms_image_state *)b)->name;
    return (x > y) - (x < y);
}

/* The node's image names, sorted and unique (the first image that lists a
 * name gives its size), into c->scratch. */
static int collect_images(ms_cache *c, const ms_node *node, uint32_t *out_n) {
    uint32_t total = 0;
    for (uint32_t i = 0; i < node->nimages; i++) total += node->images[i].nnames;
    if (total > c->scratchcap) {
        ms_image_state *s = realloc(c->scratch, total * sizeof *s);
        if (!s) return -1;
        c->scratch = s;
        c->scratchcap = total;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < node->nimages; i++)
        for (uint32_t j = 0; j < node->images[i].nnames; j++)
            if (node->images[i].names[j] != MS_STR_NONE)
                c->scratch[n++] = (ms_image_state){.name = node->images[i].names[j],
                                                   .size = node->images[i].size_bytes};
    /* Stable order for duplicates is not needed: qsort, then keep the entry
     * that came first in the node's list. */
    for (uint32_t i = 0; i < n; i++) c->scratch[i].num_nodes = i;   /* original position */
    if (n > 1) qsort(c->scratch, n, sizeof *c->scratch, cmp_image);
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (m && c->scratch[m - 1].name == c->scratch[i].name) {
            if (c->scratch[i].num_nodes < c->scratch[m - 1].num_nodes) c->scratch[m - 1] = c->scratch[i];
            continue;
        }
        c->scratch[m++] = c->scratch[i];
    }
    *out_n = m;
    return 0;
}

static bool same_image_names(const ms_node_info *ni, const ms_image_state *list, uint32_t n) {
    if (ni->nimages != n) return false;
    for (uint32_t i = 0; i < n; i++)
        if (ni->images[i].name != list[i].name) return false;
    return true;
}

static int set_node_images(ms_cache *c, cache_node *cn, const ms_node *node) {
    uint32_t n;
    if (collect_images(c, node, &n) != 0) return -1;
    if (same_image_names(cn->info, c->scratch, n)) return 0;   /* node updates rarely change images */
    remove_node_images(c, cn);
    for (uint32_t i = 0; i < n; i++) {
        image_state *is = image_add_holder(c, c->scratch[i].name, c->scratch[i].size, cn);
        if (!is) {
            for (uint32_t j = 0; j < i; j++) image_drop_holder(c, c->scratch[j].name, cn);
            return -1;
        }
        c->scratch[i].size = is->size;
        c->scratch[i].num_nodes = is->nholders;
    }
    if (ms_node_info_set_images(cn->info, c->scratch, n) != 0) {
        for (uint32_t j = 0; j < n; j++) image_drop_holder(c, c->scratch[j].name, cn);
        return -1;
    }
    return 0;
}

/* Writes current counts into every holder of an image whose count changed. */
static void refresh_images(ms_cache *c) {
    for (uint32_t i = 0; i < c->dirty_images.n; i++) {
        image_state *is = c->dirty_images.v[i];
        is->dirty = false;
        for (uint32_t h = 0; h < is->nholders; h++) {
            cache_node *cn = is->holders[h];
            ms_image_state *e = (ms_image_state *)ms_node_info_image(cn->info, is->name);
            if (!e || (e->num_nodes == is->nholders && e->size == is->size)) continue;
            e->num_nodes = is->nholders;
            e->size = is->size;
            touch(c, cn);
        }
    }
    c->dirty_images.n = 0;
}

static int refresh_order(ms_cache *c) {
    if (c->order_version == c->tree_version && c->norder == c->tree.num_nodes) return 0;
    if (!ms_array_grow((void **)&c->order, &c->ordercap, c->tree.num_nodes, sizeof *c->order))
        return -1;
    c->norder = ms_node_tree_list(&c->tree, c->order);
    c->order_version = c->tree_version;
    return 0;
}

/* ---- lifetime ---- */

ms_cache *ms_cache_new(ms_interner *in, double assumed_ttl) {
    ms_cache *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->in = in;
    c->ttl = assumed_ttl;
    ms_map_init(&c->nodes);
    ms_map_init(&c->pods);
    ms_map_init(&c->images);
    ms_node_tree_init(&c->tree, in);
    c->order_version = UINT64_MAX;
    return c;
}

void ms_cache_free(ms_cache *c) {
    if (!c) return;
    void *v;
    for (size_t it = 0; ms_map_next(&c->nodes, &it, NULL, &v);) {
        cache_node *cn = v;
        ms_node_info_free(cn->info);
        free(cn);
    }
    for (size_t it = 0; ms_map_next(&c->pods, &it, NULL, &v);) {
        pod_state *st = v;
        ms_pod_unref(st->pod);
        free(st);
    }
    while (c->free_states) {
        pod_state *st = c->free_states;
        c->free_states = st->next_free;
        free(st);
    }
    for (size_t it = 0; ms_map_next(&c->images, &it, NULL, &v);) {
        image_state *is = v;
        free(is->holders);
        free(is);
    }
    release_dead(c);
    ms_map_free(&c->nodes);
    ms_map_free(&c->pods);
    ms_map_free(&c->images);
    ms_node_tree_free(&c->tree);
    free(c->assumed.v);
    free(c->dirty_images.v);
    free(c->dead_pods.v);
    free(c->dead_nodes.v);
    free(c->order);
    free(c->scratch);
    free(c);
}

/* ---- nodes ---- */

/* upstream AddNode and UpdateNode do the same thing: create the NodeInfo
 * when missing, place the node in the tree, refresh its images. */
static ms_rc upsert_node(ms_cache *c, ms_node *node) {
    ms_str name = node->meta.name;
    if (name == MS_STR_NONE) return MS_EINVAL;
    cache_node *cn = get_node(c, name);
    bool created = false;
    if (!cn) {
        cn = new_node(c, name);
        if (!cn) return MS_ENOMEM;
        created = true;
    }
    ms_zone_key zone = ms_node_tree_zone_key(&c->tree, node);
    if (!cn->in_tree || cn->zone.region != zone.region || cn->zone.zone != zone.zone) {
        int rc = cn->in_tree ? ms_node_tree_update(&c->tree, name, cn->zone, zone)
                             : ms_node_tree_add(&c->tree, name, zone);
        if (rc == MS_ENOMEM) {
            if (cn->in_tree) {   /* update removed it from the old zone */
                cn->in_tree = false;
                c->tree_version++;
            }
            if (created) drop_node(c, cn);
            return MS_ENOMEM;
        }
        cn->in_tree = true;
        cn->zone = zone;
        c->tree_version++;
    }
    if (set_node_images(c, cn, node) != 0) {
        /* Keep the node without image counts rather than lose it. */
        remove_node_images(c, cn);
    }
    ms_node *old = cn->info->node;
    cn->info->node = ms_node_ref(node);
    defer_node(c, old);
    touch(c, cn);
    return MS_OK;
}

ms_rc ms_cache_add_node(ms_cache *c, ms_node *node) {
    return upsert_node(c, node);
}

ms_rc ms_cache_update_node(ms_cache *c, ms_node *node) {
    return upsert_node(c, node);
}

ms_rc ms_cache_remove_node(ms_cache *c, ms_str name) {
    cache_node *cn = get_node(c, name);
    if (!cn || !cn->info->node) return MS_ENOENT;
    remove_node_images(c, cn);
    if (cn->in_tree) {
        (void)ms_node_tree_remove(&c->tree, name, cn->zone);
        cn->in_tree = false;
        c->tree_version++;
    }
    defer_node(c, cn->info->node);
    cn->info->node = NULL;
    /* Pods whose deletion has not arrived yet keep a NodeInfo without a node
     * (upstream's ghost node); snapshots skip it. */
    if (cn->info->npods == 0) drop_node(c, cn);
    else touch(c, cn);
    return MS_OK;
}

/* ---- pods ---- */

static pod_state *state_new(ms_cache *c) {
    pod_state *st = c->free_states;
    if (st) c->free_states = st->next_free;
    else st = malloc(sizeof *st);
    if (st) memset(st, 0, sizeof *st);
    return st;
}

static void state_free(ms_cache *c, pod_state *st) {
    st->next_free = c->free_states;
    c->free_states = st;
}

static ms_rc add_to_node(ms_cache *c, ms_pod *pod) {
    cache_node *cn = get_node(c, pod->node_name);
    if (!cn) {
        cn = new_node(c, pod->node_name);   /* the node may arrive later */
        if (!cn) return MS_ENOMEM;
    }
    if (ms_node_info_add_pod(cn->info, pod, c->in) != 0) {
        if (!cn->info->node && cn->info->npods == 0) drop_node(c, cn);
        return MS_ENOMEM;
    }
    touch(c, cn);
    return MS_OK;
}

static void remove_from_node(ms_cache *c, const ms_pod *pod) {
    cache_node *cn = get_node(c, pod->node_name);
    if (!cn) return;
    ms_pod *stored = ms_node_info_take_pod(cn->info, pod->meta.uid_hash, c->in);
    if (!stored) return;
    defer_pod(c, stored);
    if (!cn->info->node && cn->info->npods == 0) drop_node(c, cn);
    else touch(c, cn);
}

static void unassume(ms_cache *c, pod_state *st) {
    if (!st->assumed) return;
    pod_state *last = c->assumed.v[--c->assumed.n];
    c->assumed.v[st->assumed_idx] = last;
    last->assumed_idx = st->assumed_idx;
    st->assumed = false;
}

static void remove_state(ms_cache *c, pod_state *st) {
    remove_from_node(c, st->pod);
    unassume(c, st);
    ms_map_del(&c->pods, st->pod->meta.uid_hash);
    defer_pod(c, st->pod);
    state_free(c, st);
}

static void set_state_pod(ms_cache *c, pod_state *st, ms_pod *pod) {
    if (st->pod == pod) return;
    ms_pod_ref(pod);
    defer_pod(c, st->pod);
    st->pod = pod;
}

/* A new state for a pod, accounted on its node. */
static ms_rc insert_state(ms_cache *c, ms_pod *pod, bool assumed) {
    pod_state *st = state_new(c);
    if (!st) return MS_ENOMEM;
    if (assumed && vec_push(&c->assumed, st) != 0) {
        state_free(c, st);
        return MS_ENOMEM;
    }
    if (ms_map_put(&c->pods, pod->meta.uid_hash, st) != 0) {
        if (assumed) c->assumed.n--;
        state_free(c, st);
        return MS_ENOMEM;
    }
    ms_rc rc = add_to_node(c, pod);
    if (rc != MS_OK) {
        ms_map_del(&c->pods, pod->meta.uid_hash);
        if (assumed) c->assumed.n--;
        state_free(c, st);
        return rc;
    }
    st->pod = ms_pod_ref(pod);
    st->assumed = assumed;
    if (assumed) st->assumed_idx = c->assumed.n - 1;
    return MS_OK;
}

/* The informer's pod replaces what the cache has, on whatever node it is. */
static ms_rc replace_pod(ms_cache *c, pod_state *st, ms_pod *pod) {
    remove_from_node(c, st->pod);
    ms_rc rc = add_to_node(c, pod);
    if (rc != MS_OK) {
        unassume(c, st);
        ms_map_del(&c->pods, st->pod->meta.uid_hash);
        defer_pod(c, st->pod);
        state_free(c, st);
        return rc;
    }
    set_state_pod(c, st, pod);
    return MS_OK;
}

ms_rc ms_cache_add_pod(ms_cache *c, ms_pod *pod) {
    if (pod->node_name == MS_STR_NONE) return MS_EINVAL;
    pod_state *st = ms_map_get(&c->pods, pod->meta.uid_hash);
    if (ms_pod_is_terminal(pod)) {
        if (st) remove_state(c, st);
        return MS_OK;
    }
    if (st && st->assumed) {
        unassume(c, st);
        if (st->pod->node_name != pod->node_name) return replace_pod(c, st, pod);
        /* Confirmed where it was assumed: the NodeInfo keeps the assumed
         * copy (same spec), so nothing changes for the snapshot. */
        set_state_pod(c, st, pod);
        return MS_OK;
    }
    if (st) return MS_EEXIST;
    return insert_state(c, pod, false);
}

ms_rc ms_cache_update_pod(ms_cache *c, ms_pod *old_pod, ms_pod *new_pod) {
    if (new_pod->node_name == MS_STR_NONE) return MS_EINVAL;
    if (old_pod && old_pod->meta.uid_hash != new_pod->meta.uid_hash) {
        /* Deleted and re-created under the same name: two different pods. */
        pod_state *old_st = ms_map_get(&c->pods, old_pod->meta.uid_hash);
        if (old_st) remove_state(c, old_st);
        return ms_cache_add_pod(c, new_pod);
    }
    pod_state *st = ms_map_get(&c->pods, new_pod->meta.uid_hash);
    if (!st) return ms_pod_is_terminal(new_pod) ? MS_OK : MS_ENOENT;
    /* The informer reporting an assumed pod confirms it, as an add would. */
    if (st->assumed) return ms_cache_add_pod(c, new_pod);
    if (ms_pod_is_terminal(new_pod)) {
        remove_state(c, st);
        return MS_OK;
    }
    return replace_pod(c, st, new_pod);
}

ms_rc ms_cache_remove_pod(ms_cache *c, const ms_pod *pod) {
    pod_state *st = ms_map_get(&c->pods, pod->meta.uid_hash);
    if (!st) return MS_ENOENT;
    remove_state(c, st);
    return MS_OK;
}

ms_rc ms_cache_assume_pod(ms_cache *c, ms_pod *pod) {
    if (pod->node_name == MS_STR_NONE) return MS_EINVAL;
    if (ms_map_has(&c->pods, pod->meta.uid_hash)) return MS_EEXIST;
    return insert_state(c, pod, true);
}

ms_rc ms_cache_finish_binding(ms_cache *c, const ms_pod *pod, double now) {
    pod_state *st = ms_map_get(&c->pods, pod->meta.uid_hash);
    if (!st) return MS_ENOENT;
    if (st->assumed) {
        st->binding_finished = true;
        st->deadline = now + c->ttl;
    }
    return MS_OK;
}

ms_rc ms_cache_forget_pod(ms_cache *c, const ms_pod *pod) {
    pod_state *st = ms_map_get(&c->pods, pod->meta.uid_hash);
    if (!st) return MS_ENOENT;
    if (!st->assumed) return MS_ESTATE;
    if (pod->node_name != MS_STR_NONE && pod->node_name != st->pod->node_name) return MS_ESTATE;
    remove_state(c, st);
    return MS_OK;
}

bool ms_cache_is_assumed(const ms_cache *c, const ms_pod *pod) {
    const pod_state *st = ms_map_get(&c->pods, pod->meta.uid_hash);
    return st && st->assumed;
}

uint32_t ms_cache_cleanup_assumed(ms_cache *c, double now) {
    if (c->ttl <= 0) return 0;
    uint32_t expired = 0;
    /* Backwards: removal moves the last entry into the hole, already seen. */
    for (uint32_t i = c->assumed.n; i-- > 0;) {
        pod_state *st = c->assumed.v[i];
        if (!st->binding_finished || !(now > st->deadline)) continue;
        remove_state(c, st);
        expired++;
    }
    return expired;
}

ms_pod *ms_cache_get_pod(const ms_cache *c, uint64_t uid_hash) {
    const pod_state *st = ms_map_get(&c->pods, uid_hash);
    return st ? st->pod : NULL;
}

/* ---- snapshot ---- */

/* Upstream removeDeletedNodesFromSnapshot: only when the snapshot has more
 * nodes than the tree, which only node removal causes. */
static void remove_deleted_nodes(ms_cache *c, ms_snapshot *s) {
    uint64_t name;
    void *v;
    for (size_t it = 0; ms_map_next(&s->by_name, &it, &name, &v);) {
        const cache_node *cn = get_node(c, (ms_str)name);
        if (!cn || !cn->info->node) ms_snapshot_drop(s, (ms_str)name);   /* deleting keeps the iteration valid */
    }
}

ms_rc ms_cache_update_snapshot(ms_cache *c, ms_snapshot *s) {
    refresh_images(c);
    ms_snapshot_begin_update(s);
    bool all = s->tree_version != c->tree_version;
    for (cache_node *cn = c->head; cn && cn->info->generation > s->generation; cn = cn->next) {
        const ms_node_info *ni = cn->info;
        if (!ni->node) continue;
        bool created;
        ms_node_info *dst = ms_snapshot_slot(s, ni->name, &created);
        if (!dst) goto fail;
        all |= created;
        bool had_affinity = dst->npods_with_affinity > 0;
        bool had_anti = dst->npods_with_required_anti_affinity > 0;
        if (ms_node_info_copy_into(dst, ni) != 0) goto fail;
        ms_snapshot_note_updated(s, dst);
        /* When `all`, the lists are rebuilt below anyway. */
        if (!all && ms_snapshot_note_affinity(s, dst, had_affinity, had_anti) != 0) goto fail;
    }
    if (s->by_name.len > c->tree.num_nodes) {
        remove_deleted_nodes(c, s);
        s->updated_all = true;
        all = true;
    }
    if (all) {
        if (refresh_order(c) != 0) goto fail;
        if (ms_snapshot_rebuild_lists(s, c->order, c->norder) != 0) goto fail;
    }
    s->generation = c->generation;
    s->tree_version = c->tree_version;
    /* Nothing in the snapshot points at what the cache dropped any more. */
    release_dead(c);
    return MS_OK;
fail:
    /* The next update redoes the copies (generation unchanged) and rebuilds
     * every list; until then the lists are empty rather than dangling. */
    s->nnodes = s->nhave_affinity = s->nhave_anti = 0;
    s->tree_version = UINT64_MAX;
    s->updated_all = true;
    return MS_ENOMEM;
}

/* ---- accessors ---- */

uint32_t ms_cache_node_count(const ms_cache *c) {
    return c->tree.num_nodes;
}

uint32_t ms_cache_pod_count(const ms_cache *c) {
    return (uint32_t)c->pods.len;
}

uint32_t ms_cache_assumed_count(const ms_cache *c) { return (uint32_t)c->assumed.n; }

const ms_node_info *ms_cache_node_info(const ms_cache *c, ms_str name) {
    /* The cache object itself is never const: settling pending image counts
     * here keeps reports exact without making node events pay for them. */
    refresh_images((ms_cache *)c);
    const cache_node *cn = get_node(c, name);
    return cn ? cn->info : NULL;
}

const ms_node_info *ms_cache_node_info_next(const ms_cache *c, size_t *it) {
    refresh_images((ms_cache *)c);   /* see ms_cache_node_info */
    uint64_t k;
    void *v;
    return ms_map_next(&c->nodes, it, &k, &v) ? ((const cache_node *)v)->info : NULL;
}

const ms_node_info *ms_cache_node_at(const ms_cache *c, uint32_t i) {
    ms_cache *m = (ms_cache *)c;   /* see ms_cache_node_info */
    refresh_images(m);
    if (refresh_order(m) != 0 || i >= c->norder) return NULL;
    const cache_node *cn = get_node(c, c->order[i]);
    return cn ? cn->info : NULL;
}
