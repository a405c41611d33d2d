/* One map per kind for the keys, one list per namespace for the readers. */
#include "api/object_set.h"

#include <stdlib.h>

#include "base/array.h"

typedef struct ns_list {
    uint32_t n, cap;
    void **items;
} ns_list;

static uint64_t key_of(ms_str ns, ms_str name) { return (uint64_t)ns << 32 | name; }

void ms_object_set_init(ms_object_set *s) {
    for (int k = 0; k < MS_OBJECT_SET_KINDS; k++) ms_map_init(&s->by_key[k]);
    ms_map_init(&s->by_ns);
    s->len = 0;
}

void ms_object_set_free(ms_object_set *s, void (*release)(void *item)) {
    uint64_t key;
    void *v;
    for (int k = 0; k < MS_OBJECT_SET_KINDS; k++) {
        for (size_t it = 0; release && ms_map_next(&s->by_key[k], &it, &key, &v);) release(v);
        ms_map_free(&s->by_key[k]);
    }
    for (size_t it = 0; ms_map_next(&s->by_ns, &it, &key, &v);) {
        ns_list *l = v;
        free(l->items);
        free(l);
    }
    ms_map_free(&s->by_ns);
    s->len = 0;
}

void *ms_object_set_get(const ms_object_set *s, unsigned kind, ms_str namespace_, ms_str name) {
    return kind < MS_OBJECT_SET_KINDS ? ms_map_get(&s->by_key[kind], key_of(namespace_, name)) : NULL;
}

/* The namespace's list with room for one more; NULL when out of memory. */
static ns_list *ns_list_reserve(ms_object_set *s, ms_str ns) {
    ns_list *l = ms_map_get(&s->by_ns, ns);
    if (!l) {
        if (!(l = calloc(1, sizeof *l))) return NULL;
        if (ms_map_put(&s->by_ns, ns, l) != 0) {
            free(l);
            return NULL;
        }
    }
    if (!ms_array_grow((void **)&l->items, &l->cap, l->n + 1, sizeof *l->items)) return NULL;
    return l;
}

ms_rc ms_object_set_add(ms_object_set *s, unsigned kind, ms_str namespace_, ms_str name, void *item) {
    if (kind >= MS_OBJECT_SET_KINDS) return MS_EINVAL;
    ns_list *l = ns_list_reserve(s, namespace_);
    if (!l || ms_map_put(&s->by_key[kind], key_of(namespace_, name), item) != 0) return MS_ENOMEM;
    l->items[l->n++] = item;
    s->len++;
    return MS_OK;
}

/* Replaces (with != NULL) or removes `old` in its namespace's list; a list
 * left empty goes, so that namespaces that come and go leave nothing. */
static void ns_list_replace(ms_object_set *s, ms_str ns, const void *old, void *with) {
    ns_list *l = ms_map_get(&s->by_ns, ns);
    for (uint32_t i = 0; l && i < l->n; i++) {
        if (l->items[i] != old) continue;
        if (with) l->items[i] = with;
        else l->items[i] = l->items[--l->n];
        break;
    }
    if (l && l->n == 0) {
        ms_map_del(&s->by_ns, ns);
        free(l->items);
        free(l);
    }
}

void *ms_object_set_replace(ms_object_set *s, unsigned kind, ms_str namespace_, ms_str name, void *with) {
    if (kind >= MS_OBJECT_SET_KINDS) return NULL;
    ms_map *m = &s->by_key[kind];
    uint64_t key = key_of(namespace_, name);
    void *old = ms_map_get(m, key);
    if (!old) return NULL;
    ns_list_replace(s, namespace_, old, with);
    /* The key is present: putting it again allocates nothing. */
    (void)ms_map_put(m, key, with);
    return old;
}

void *ms_object_set_remove(ms_object_set *s, unsigned kind, ms_str namespace_, ms_str name) {
    if (kind >= MS_OBJECT_SET_KINDS) return NULL;
    void *old = ms_map_del(&s->by_key[kind], key_of(namespace_, name));
    if (!old) return NULL;
    ns_list_replace(s, namespace_, old, NULL);
    s->len--;
    return old;
}

void *const *ms_object_set_in(const ms_object_set *s, ms_str namespace_, uint32_t *n) {
    const ns_list *l = ms_map_get(&s->by_ns, namespace_);
    *n = l ? l->n : 0;
    return l ? l->items : NULL;
}

void ms_object_set_each(const ms_object_set *s, void (*fn)(void *ctx, void *item), void *ctx) {
    uint64_t key;
    void *v;
    for (int k = 0; k < MS_OBJECT_SET_KINDS; k++)
        for (size_t it = 0; ms_map_next(&s->by_key[k], &it, &key, &v);) fn(ctx, v);
}

bool ms_object_set_selects(ms_str namespace_, const ms_label_selector *selector, const ms_pod *pod,
                           const ms_interner *in) {
    /* Upstream skips pods without labels before looking at selectors, so
     * even a DoesNotExist-only selector does not reach them. */
    if (pod->meta.labels.n == 0 || namespace_ != pod->meta.namespace_) return false;
    if (selector->nothing || selector->n == 0) return false;
    return ms_label_selector_matches(selector, &pod->meta.labels, in);
}
