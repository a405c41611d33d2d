/* PodTopologySpread's match counts per topology domain, kept across cycles.
 *
 * Upstream counts, in every PreFilter and PreScore, the matching pods of
 * every node: O(nodes + pods) per pod scheduled. Pods of one workload share
 * their constraints, so their counts are the same function of the cluster:
 * a table keyed by what the counts depend on (the signature) keeps them,
 * and follows the snapshot through its change journal, recounting only the
 * nodes that changed since the table last looked. */
#include <stdlib.h>
#include <string.h>

#include "pod_topology_spread.h"
#include "backend/cache_snapshot.h"
#include "base/array.h"

/* ---- signature ---- */

static bool sig_push(pts_tables *ts, uint32_t *n, uint32_t v) {
    if (!ms_array_grow((void **)&ts->sigbuf, &ts->sigcap, *n + 1, sizeof *ts->sigbuf))
        return false;
    ts->sigbuf[(*n)++] = v;
    return true;
}

static bool sig_reqs(pts_tables *ts, uint32_t *n, const ms_requirement *r, uint32_t nr) {
    bool ok = sig_push(ts, n, nr);
    for (uint32_t i = 0; ok && i < nr; i++) {
        ok = sig_push(ts, n, r[i].key) && sig_push(ts, n, r[i].op) &&
             sig_push(ts, n, (uint32_t)r[i].number) &&
             sig_push(ts, n, (uint32_t)((uint64_t)r[i].number >> 32)) &&
             sig_push(ts, n, r[i].nvalues);
        for (uint32_t v = 0; ok && v < r[i].nvalues; v++) ok = sig_push(ts, n, r[i].values[v]);
    }
    return ok;
}

/* Everything the counts depend on; maxSkew and minDomains do not. */
static bool signature(pts_tables *ts, const pts_set *s, uint32_t *len) {
    uint32_t n = 0;
    bool aff = false, taints = false;
    bool ok = sig_push(ts, &n, (uint32_t)s->require_all | (uint32_t)s->scoring << 1) &&
              sig_push(ts, &n, s->ns) && sig_push(ts, &n, s->n);
    for (uint32_t k = 0; ok && k < s->n; k++) {
        const pts_constraint *c = &s->c[k];
        aff |= c->honor_affinity;
        taints |= c->honor_taints;
        ok = sig_push(ts, &n, c->key) &&
             sig_push(ts, &n, (uint32_t)c->honor_affinity | (uint32_t)c->honor_taints << 1 |
                                  (uint32_t)c->per_node << 2 | (uint32_t)c->sel.nothing << 3) &&
             sig_reqs(ts, &n, c->sel.reqs, c->sel.n);
    }
    const ms_pod *pod = s->pod;
    if (ok && aff) {
        const ms_labels *l = &pod->node_selector;
        ok = sig_push(ts, &n, l->n);
        for (uint32_t i = 0; ok && i < l->n; i++)
            ok = sig_push(ts, &n, l->items[i].key) && sig_push(ts, &n, l->items[i].value);
        const ms_node_selector *ns = &pod->node_affinity_required;
        ok = ok && sig_push(ts, &n, pod->has_node_affinity_required ? ns->n + 1 : 0);
        for (uint32_t i = 0; ok && pod->has_node_affinity_required && i < ns->n; i++) {
            const ms_node_selector_term *t = &ns->terms[i];
            ok = sig_push(ts, &n, t->invalid) && sig_reqs(ts, &n, t->expr, t->nexpr) &&
                 sig_reqs(ts, &n, t->fields, t->nfields);
        }
    }
    if (ok && taints) {
        ok = sig_push(ts, &n, pod->ntolerations);
        for (uint32_t i = 0; ok && i < pod->ntolerations; i++) {
            const ms_toleration *t = &pod->tolerations[i];
            ok = sig_push(ts, &n, t->key) && sig_push(ts, &n, t->value) &&
                 sig_push(ts, &n, (uint32_t)t->op | (uint32_t)t->effect << 8);
        }
    }
    *len = n;
    return ok;
}

/* ---- domains ---- */

static void dom_free(pts_domains *ds) {
    ms_map_free(&ds->index);
    free(ds->value);
    free(ds->count);
    free(ds->nodes);
    free(ds->mark);
}

static void dom_reset(pts_domains *ds) {
    dom_free(ds);
    memset(ds, 0, sizeof *ds);
    ds->min = INT64_MAX;
}

static int32_t dom_add(pts_domains *ds, ms_str value) {
    int32_t d = (int32_t)(uintptr_t)ms_map_get(&ds->index, value) - 1;
    if (d >= 0) return d;
    if (ds->n == ds->cap) {
        uint32_t cap = ms_array_capacity(ds->cap, ds->n + 1);
        ms_str *v = realloc(ds->value, cap * sizeof *v);
        if (v) ds->value = v;
        int64_t *c = realloc(ds->count, cap * sizeof *c);
        if (c) ds->count = c;
        uint32_t *nn = realloc(ds->nodes, cap * sizeof *nn);
        if (nn) ds->nodes = nn;
        uint32_t *mk = realloc(ds->mark, cap * sizeof *mk);
        if (mk) ds->mark = mk;
        if (!v || !c || !nn || !mk) return -1;
        ds->cap = cap;
    }
    if (ms_map_put(&ds->index, value, (void *)(uintptr_t)(ds->n + 1)) != 0) return -1;
    ds->value[ds->n] = value;
    ds->count[ds->n] = 0;
    ds->nodes[ds->n] = 0;
    ds->mark[ds->n] = 0;
    return (int32_t)ds->n++;
}

/* A node joins (dn = 1, its count dc) or leaves (dn = -1, -its count) a
 * domain; the minimum follows without a scan unless the last domain at the
 * minimum went up. */
static void dom_change(pts_domains *ds, int32_t d, int64_t dc, int32_t dn) {
    int64_t old = ds->count[d];
    bool was = ds->nodes[d] > 0;
    ds->count[d] += dc;
    ds->nodes[d] = (uint32_t)((int64_t)ds->nodes[d] + dn);
    int64_t now = ds->count[d];
    bool is = ds->nodes[d] > 0;
    if (was != is) ds->live = is ? ds->live + 1 : ds->live - 1;
    if (ds->live == 0) {
        ds->min = INT64_MAX;
        ds->nmin = 0;
        ds->dirty = false;
        return;
    }
    if (ds->dirty) return;
    if (was && old == ds->min) ds->nmin--;
    if (is) {
        if (now < ds->min) {
            ds->min = now;
            ds->nmin = 1;
        } else if (now == ds->min) {
            ds->nmin++;
        }
    }
    if (ds->nmin == 0) ds->dirty = true;
}

int64_t pts_min(pts_table *t, uint32_t k) {
    pts_domains *ds = &t->dom[k];
    if (ds->live == 0) return INT32_MAX;
    if (ds->dirty) {
        int64_t m = INT64_MAX;
        uint32_t nm = 0;
        for (uint32_t d = 0; d < ds->n; d++) {
            if (!ds->nodes[d]) continue;
            if (ds->count[d] < m) {
                m = ds->count[d];
                nm = 1;
            } else if (ds->count[d] == m) {
                nm++;
            }
        }
        ds->min = m;
        ds->nmin = nm;
        ds->dirty = false;
    }
    return ds->min;
}

int64_t pts_min_with(const pts_table *t, uint32_t k, int32_t d, int64_t delta) {
    const pts_domains *ds = &t->dom[k];
    int64_t cd = ds->count[d];
    if (delta <= 0) return cd + delta < ds->min ? cd + delta : ds->min;
    if (cd != ds->min || ds->nmin > 1) return ds->min;
    /* d held the minimum alone: the new minimum is the least of the others
     * and d's new count (upstream's two critical paths give the same). */
    int64_t m = cd + delta;
    for (uint32_t j = 0; j < ds->n; j++)
        if ((int32_t)j != d && ds->nodes[j] && ds->count[j] < m) m = ds->count[j];
    return m;
}

/* ---- positions ---- */

int32_t pts_node(const pts_table *t, const ms_node_info *ni) {
    /* The snapshot's NodeInfo, or a copy made with its position (a plain
     * struct copy) ... */
    uint32_t at = ni->index;
    if (at < t->nnodes && t->ni[at] && t->ni[at]->name == ni->name) return (int32_t)at;
    /* ... or without: the snapshot's NodeInfo of that name knows it. */
    const ms_node_info *base = t->snap ? ms_snapshot_get(t->snap, ni->name) : NULL;
    if (base && base->index < t->nnodes && t->ni[base->index] == base) return (int32_t)base->index;
    return -1;
}

/* ---- tables ---- */

static void table_reset(pts_table *t) {
    t->nnodes = 0;
    for (uint32_t k = 0; k < t->nc; k++) dom_reset(&t->dom[k]);
    t->synced = false;
}

static void table_free(pts_table *t) {
    if (!t) return;
    for (uint32_t k = 0; k < t->nc; k++) dom_free(&t->dom[k]);
    free(t->dom);
    free(t->sig);
    free(t->ni);
    free(t->gen);
    free(t->has_keys);
    free(t->dc);
    free(t->missing);
    free(t);
}

static pts_table *table_new(const pts_tables *ts, uint32_t siglen, uint64_t hash, const pts_set *s) {
    pts_table *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->sig = malloc(siglen * sizeof *t->sig);
    t->dom = calloc(s->n ? s->n : 1, sizeof *t->dom);
    if (!t->sig || !t->dom) {
        table_free(t);
        return NULL;
    }
    memcpy(t->sig, ts->sigbuf, siglen * sizeof *t->sig);
    t->siglen = siglen;
    t->sighash = hash;
    t->nc = s->n;
    t->require_all = s->require_all;
    for (uint32_t k = 0; k < t->nc; k++) dom_reset(&t->dom[k]);
    return t;
}

static void entry_clear(pts_table *t, uint32_t j) {
    size_t per = (size_t)t->nc * 2;
    t->ni[j] = NULL;
    t->gen[j] = 0;
    t->has_keys[j] = 0;
    for (size_t k = 0; k < per; k += 2) t->dc[j * per + k] = -1;
    memset(t->missing + (size_t)j * t->nc, 1, t->nc);
}

/* Room for position i; new entries are empty. */
static int table_reach(pts_table *t, int32_t i) {
    if ((uint32_t)i < t->nnodes) return 0;
    size_t per = (size_t)t->nc * 2;
    if ((uint32_t)i >= t->nodecap) {
        uint32_t cap = ms_array_capacity(t->nodecap, (uint32_t)i + 1);
        const ms_node_info **ni = realloc(t->ni, cap * sizeof *ni);
        if (ni) t->ni = ni;
        uint64_t *gen = realloc(t->gen, cap * sizeof *gen);
        if (gen) t->gen = gen;
        uint8_t *hk = realloc(t->has_keys, cap);
        if (hk) t->has_keys = hk;
        int32_t *dc = realloc(t->dc, (per ? cap * per : 1) * sizeof *dc);
        if (dc) t->dc = dc;
        uint8_t *mi = realloc(t->missing, t->nc ? (size_t)cap * t->nc : 1);
        if (mi) t->missing = mi;
        if (!ni || !gen || !hk || !dc || !mi) return -1;
        t->nodecap = cap;
    }
    for (uint32_t j = t->nnodes; j <= (uint32_t)i; j++) entry_clear(t, j);
    t->nnodes = (uint32_t)i + 1;
    return 0;
}

/* Takes the node's counts out of its domains. */
static void node_retract(pts_table *t, int32_t i) {
    for (uint32_t k = 0; k < t->nc; k++) {
        int32_t *dc = &t->dc[((size_t)i * t->nc + k) * 2];
        if (dc[0] < 0) continue;
        dom_change(&t->dom[k], dc[0], -(int64_t)dc[1], -1);
        dc[0] = -1;
    }
}

/* upstream's per-node step of calPreFilterState / PreScore, and Score's
 * count of a node for per node constraints: the entry at position i. */
static int node_update(pts_tables *ts, pts_table *t, const pts_set *s, const ms_node_info *ni,
                       int32_t i, const ms_interner *in) {
    if (table_reach(t, i) != 0) return -1;
    node_retract(t, i);
    t->ni[i] = ni;
    t->gen[i] = ni->generation;
    const ms_node *node = ni->node;
    int32_t *dc = &t->dc[(size_t)i * t->nc * 2];
    uint8_t *missing = &t->missing[(size_t)i * t->nc];
    ms_str *value = ts->values;
    bool keys = true;
    for (uint32_t k = 0; k < t->nc; k++) {
        value[k] = ms_labels_get(&node->meta.labels, s->c[k].key);
        missing[k] = value[k] == MS_STR_NONE;
        keys &= !missing[k];
        dc[2 * k + 1] = 0;
    }
    t->has_keys[i] = keys;
    if (t->require_all && !keys) return 0;
    for (uint32_t k = 0; k < t->nc; k++) {
        const pts_constraint *c = &s->c[k];
        if (c->per_node) {
            dc[2 * k + 1] = pts_count_matching(ni, &c->sel, s->ns, in);
            continue;
        }
        if (!pts_node_included(s, k, node, in)) continue;
        int32_t d = dom_add(&t->dom[k], missing[k] ? MS_STR_EMPTY : value[k]);
        if (d < 0) return -1;
        int32_t cnt = pts_count_matching(ni, &c->sel, s->ns, in);
        dc[2 * k] = d;
        dc[2 * k + 1] = cnt;
        dom_change(&t->dom[k], d, cnt, 1);
    }
    return 0;
}

static int table_sync(pts_tables *ts, pts_table *t, const pts_set *s, const ms_snapshot *snap,
                      const ms_interner *in) {
    const ms_snapshot_change *ch;
    uint32_t nch;
    bool in_step = snap->nnodes == snap->by_name.len;
    if (t->synced && t->snap == snap && t->tree_version == snap->tree_version && in_step &&
        ms_snapshot_changes(snap, t->seen, &ch, &nch)) {
        /* An update copies NodeInfos in place, and positions move only
         * with the node tree or for a new NodeInfo (not the one kept at
         * its position): anything else is counted again from scratch. */
        for (uint32_t j = 0; j < nch; j++) {
            const ms_node_info *ni = ms_snapshot_get(snap, ch[j].name);
            if (!ni || !ni->node || ni->index >= t->nnodes || t->ni[ni->index] != ni) goto recount;
            /* The journal names a node once per change: seen already. */
            int32_t i = (int32_t)ni->index;
            if (t->gen[i] == ni->generation) continue;
            if (node_update(ts, t, s, ni, i, in) != 0) goto fail;
        }
        goto synced;
    }
recount:
    table_reset(t);
    if (in_step) {
        for (uint32_t j = 0; j < snap->nnodes; j++)
            if (snap->nodes[j]->node && node_update(ts, t, s, snap->nodes[j], (int32_t)j, in) != 0)
                goto fail;
    } else {
        /* The list is out of step (a failed snapshot update): the positions
         * mean nothing, so the map's nodes are counted through one entry
         * and none is kept; the next sync counts again. */
        uint64_t name;
        void *v;
        for (size_t it = 0; ms_map_next(&snap->by_name, &it, &name, &v);) {
            const ms_node_info *ni = v;
            if (!ni->node) continue;
            if (table_reach(t, 0) != 0) goto fail;
            entry_clear(t, 0);
            if (node_update(ts, t, s, ni, 0, in) != 0) goto fail;
        }
        t->nnodes = 0;
    }
synced:
    t->snap = snap;
    t->seen = snap->generation;
    t->tree_version = snap->tree_version;
    t->synced = in_step;
    return 0;
fail:
    t->synced = false;
    return -1;
}

pts_table *pts_tables_sync(pts_tables *ts, const pts_set *s, const ms_snapshot *snap,
                           const ms_interner *in) {
    if (s->n > ts->nvalues) {
        ms_str *v = realloc(ts->values, s->n * sizeof *v);
        if (!v) return NULL;
        ts->values = v;
        ts->nvalues = s->n;
    }
    uint32_t len;
    if (!signature(ts, s, &len)) return NULL;
    uint64_t hash = ms_hash_bytes(ts->sigbuf, len * sizeof *ts->sigbuf);
    pts_table *t = NULL;
    for (uint32_t i = 0; i < ts->n && !t; i++) {
        pts_table *x = ts->t[i];
        if (x->sighash == hash && x->siglen == len &&
            memcmp(x->sig, ts->sigbuf, len * sizeof *ts->sigbuf) == 0)
            t = x;
    }
    if (!t) {
        if (!(t = table_new(ts, len, hash, s))) return NULL;
        if (ts->n < PTS_MAX_TABLES) {
            ts->t[ts->n++] = t;
        } else {
            uint32_t lru = 0;
            for (uint32_t i = 1; i < ts->n; i++)
                if (ts->t[i]->last_used < ts->t[lru]->last_used) lru = i;
            table_free(ts->t[lru]);
            ts->t[lru] = t;
        }
    }
    t->last_used = ++ts->clock;
    return table_sync(ts, t, s, snap, in) == 0 ? t : NULL;
}

void pts_tables_free(pts_tables *ts) {
    for (uint32_t i = 0; i < ts->n; i++) table_free(ts->t[i]);
    free(ts->sigbuf);
    free(ts->values);
    memset(ts, 0, sizeof *ts);
}
