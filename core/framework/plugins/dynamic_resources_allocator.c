/* The structured allocator, in upstream's semantics: a node's candidate
 * devices are those of the ResourceSlices usable there (nodeName, a
 * matching nodeSelector, allNodes, or per device), from pools complete at
 * their newest generation; a device already allocated (or in flight) is
 * not taken again unless the request asks for admin access; each request
 * tries its alternatives in order (firstAvailable), takes `count` devices
 * (ExactCount) or every matching one (All), and the claim's matchAttribute
 * constraints must hold across its devices. The search backtracks over
 * the choices, as upstream's does, within a bound. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dynamic_resources.h"

/* Backtracking steps per node before giving up (a pathological claim must
 * not stall the cycle). */
#define MAX_STEPS 100000

uint64_t ms_dr_device_key(ms_str driver, ms_str pool, ms_str device) {
    uint64_t h = driver * 0x9e3779b97f4a7c15ULL;
    h = (h ^ pool) * 0xc2b2ae3d27d4eb4fULL;
    return (h ^ device) * 0x165667b19e3779f9ULL;
}

static const char *say(ms_arena *a, const char *fmt, const char *x, const char *y) {
    char buf[600];
    snprintf(buf, sizeof buf, fmt, x, y);
    const char *s = ms_arena_strdup(a, buf);
    return s ? s : "out of memory";
}

static ms_code prepare_alt(dr_alt *alt, const ms_dra_store *store, const ms_device_subrequest *r, ms_str result,
                           const char *req, ms_arena *a, const ms_interner *in, const char **why) {
    alt->result_name = result;
    alt->r = r;
    const char *cls = ms_str_get(in, r->device_class);
    const ms_dra_object *dc = ms_dra_store_get(store, MS_DK_DEVICE_CLASS, MS_STR_NONE, r->device_class);
    if (!dc) {
        *why = say(a, "request %s: device class %s does not exist", req, cls);
        return MS_UNSCHEDULABLE_AND_UNRESOLVABLE;
    }
    alt->dc = &dc->u.dc;
    alt->nsel = dc->u.dc.nselectors + r->nselectors;
    alt->sel = alt->nsel ? MS_ARENA_NEW(a, ms_cel_program, alt->nsel) : NULL;
    if (alt->nsel && !alt->sel) return MS_ERROR;
    for (uint32_t k = 0; k < alt->nsel; k++) {
        const char *expr = k < dc->u.dc.nselectors ? dc->u.dc.selectors[k].cel
                                                   : r->selectors[k - dc->u.dc.nselectors].cel;
        ms_error err = {0};
        if (ms_cel_compile(expr, a, &alt->sel[k], &err) != MS_OK) {
            *why = say(a, "request %s: selector: CEL compile error: %s", req, err.msg);
            return MS_ERROR;
        }
    }
    return MS_SUCCESS;
}

/* Slices by pool, newest generation first. */
static int by_pool(const void *a, const void *b) {
    const ms_resource_slice *x = &(*(const ms_dra_object *const *)a)->u.slice;
    const ms_resource_slice *y = &(*(const ms_dra_object *const *)b)->u.slice;
    if (x->driver != y->driver) return x->driver < y->driver ? -1 : 1;
    if (x->pool != y->pool) return x->pool < y->pool ? -1 : 1;
    return (x->generation < y->generation) - (x->generation > y->generation);
}

/* Slices by node name (none first), then by name. */
static int by_node(const void *a, const void *b) {
    const ms_dra_object *x = *(const ms_dra_object *const *)a, *y = *(const ms_dra_object *const *)b;
    if (x->u.slice.node_name != y->u.slice.node_name) return x->u.slice.node_name < y->u.slice.node_name ? -1 : 1;
    return (x->meta.name > y->meta.name) - (x->meta.name < y->meta.name);
}

/* Keeps the slices of each pool's newest generation when the pool has all
 * its slices (upstream: an incomplete pool is not allocated from). */
static uint32_t complete_pools(const ms_dra_object **s, uint32_t n) {
    if (n > 1) qsort(s, n, sizeof *s, by_pool);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n;) {
        const ms_resource_slice *first = &s[i]->u.slice;
        uint32_t j = i, newest = 0;
        while (j < n && s[j]->u.slice.driver == first->driver && s[j]->u.slice.pool == first->pool) {
            if (s[j]->u.slice.generation == first->generation) newest++;
            j++;
        }
        if (newest == first->slice_count)
            for (uint32_t k = i; k < i + newest; k++) s[kept++] = s[k];
        i = j;
    }
    return kept;
}

void ms_dr_slices_free(dr_slices *c) {
    free(c->slices);
    memset(c, 0, sizeof *c);
}

/* The cache current with the store's slices; false when out of memory. */
static bool refresh_slices(dr_slices *c, const ms_dra_store *store) {
    uint64_t version = ms_dra_store_kind_version(store, MS_DK_RESOURCE_SLICE);
    if (c->version == version + 1) return true;
    uint32_t ns = ms_dra_store_len(store, MS_DK_RESOURCE_SLICE);
    if (ns > c->cap) {
        const ms_dra_object **grown = realloc(c->slices, ns * sizeof *grown);
        if (!grown) return false;
        c->slices = grown;
        c->cap = ns;
    }
    c->n = 0;
    const ms_dra_object *o;
    for (size_t it = 0; ms_dra_store_next(store, MS_DK_RESOURCE_SLICE, &it, &o);) c->slices[c->n++] = o;
    c->n = complete_pools(c->slices, c->n);
    /* a fixed order, so that the same cluster gives the same devices */
    if (c->n > 1) qsort(c->slices, c->n, sizeof *c->slices, by_node);
    for (c->nshared = 0; c->nshared < c->n && c->slices[c->nshared]->u.slice.node_name == MS_STR_NONE;) c->nshared++;
    c->version = version + 1;   /* 0 stays "none yet" */
    return true;
}

ms_code ms_dr_prepare(dr_alloc *al, const ms_dra_store *store, dr_slices *cache, const ms_dra_object *const *claims,
                      uint32_t n, ms_arena *a, const char **why) {
    const ms_interner *in = al->in;
    al->nclaims = 0;
    al->claims = n ? MS_ARENA_NEW(a, dr_claim, n) : NULL;
    if (n && !al->claims) return MS_ERROR;
    for (uint32_t i = 0; i < n; i++) {
        const ms_claim_spec *spec = &claims[i]->u.claim.spec;
        dr_claim *c = &al->claims[al->nclaims++];
        c->obj = claims[i];
        c->nreq = spec->nrequests;
        c->reqs = c->nreq ? MS_ARENA_NEW(a, dr_request, c->nreq) : NULL;
        if (c->nreq && !c->reqs) return MS_ERROR;
        for (uint32_t k = 0; k < c->nreq; k++) {
            const ms_device_request *r = &spec->requests[k];
            dr_request *dr = &c->reqs[k];
            const char *req = ms_str_get(in, r->name);
            dr->name = r->name;
            dr->nalt = r->nfirst_available ? r->nfirst_available : 1;
            dr->alts = MS_ARENA_NEW(a, dr_alt, dr->nalt);
            if (!dr->alts) return MS_ERROR;
            for (uint32_t j = 0; j < dr->nalt; j++) {
                const ms_device_subrequest *sub = r->nfirst_available ? &r->first_available[j] : &r->exactly;
                ms_str result = r->name;
                if (r->nfirst_available) {
                    char buf[300];
                    snprintf(buf, sizeof buf, "%s/%s", req, ms_str_get(in, sub->name));
                    result = ms_intern_cstr((ms_interner *)in, buf);
                }
                ms_code code = prepare_alt(&dr->alts[j], store, sub, result, req, a, in, why);
                if (code != MS_SUCCESS) return code;
            }
        }
    }
    if (!refresh_slices(cache, store)) return MS_ERROR;
    al->slices = cache->slices;
    al->nslices = cache->n;
    al->nshared = cache->nshared;
    return MS_SUCCESS;
}

/* ---- one node ---- */

typedef struct cand {
    const ms_dra_object *slice;
    const ms_device *device;
    bool allocated;                /* in use by another claim */
    bool used;                     /* taken in this search */
} cand;

typedef struct search {
    const dr_alloc *al;
    cand *cands;
    uint32_t ncands;
    dr_pick *picks;
    uint32_t npicks, cap;
    ms_arena *a;
    long steps;
    const char *error;             /* a selector failed to evaluate */
    /* Enumerating (ms_dr_enumerate): each complete allocation is kept
     * and the search goes on until `max` are. */
    dr_option *found;
    uint32_t nfound, max;
    bool ok;                       /* the search's outcome */
} search;

static bool node_ok(const ms_node_selector *sel, const ms_node_info *ni, const ms_interner *in) {
    return ms_node_selector_matches(sel, ni->node ? &ni->node->meta.labels : &(ms_labels){0, NULL}, ni->name, in);
}

static bool usable_on(const ms_resource_slice *s, const ms_device *d, const ms_node_info *ni, const ms_interner *in) {
    if (s->per_device_node_selection)
        return d->all_nodes || d->node_name == ni->name || (d->has_node_selector && node_ok(&d->node_selector, ni, in));
    return s->all_nodes || s->node_name == ni->name || (s->has_node_selector && node_ok(&s->node_selector, ni, in));
}

/* Do all selectors accept the device? false with s->error on an error. */
static bool matches(search *s, const dr_alt *alt, const cand *c) {
    const char *driver = ms_str_get(s->al->in, c->slice->u.slice.driver);
    ms_cel_device d = {driver, c->device, s->al->in};
    for (uint32_t k = 0; k < alt->nsel; k++) {
        ms_error err = {0};
        ms_cel_result r = ms_cel_eval(&alt->sel[k], &d, MS_CEL_MAX_COST, s->a, NULL, &err);
        if (r == MS_CEL_TRUE) continue;
        if (r == MS_CEL_ERROR && !s->error) s->error = say(s->a, "CEL runtime error: %s%s", err.msg, "");
        return false;
    }
    return true;
}

static const ms_device_attribute *attribute(const ms_device *d, ms_str domain, ms_str id) {
    for (uint32_t i = 0; i < d->nattributes; i++)
        if (d->attributes[i].domain == domain && d->attributes[i].id == id) return &d->attributes[i];
    return NULL;
}

static bool same_value(const ms_device_attribute *x, const ms_device_attribute *y) {
    if (x->type != y->type) return false;
    switch (x->type) {
    case MS_ATTR_INT: return x->i == y->i;
    case MS_ATTR_BOOL: return x->b == y->b;
    default: return x->s == y->s;
    }
}

static bool constrained(const ms_device_constraint *k, ms_str req, ms_str result) {
    if (k->nrequests == 0) return true;
    for (uint32_t i = 0; i < k->nrequests; i++)
        if (k->requests[i] == req || k->requests[i] == result) return true;
    return false;
}

/* The claim's matchAttribute constraints with the device added to its
 * picks for request `req` (alternative `alt`). */
static bool constraints_hold(const search *s, uint32_t ci, ms_str req, const dr_alt *alt, const ms_device *d) {
    const ms_claim_spec *spec = &s->al->claims[ci].obj->u.claim.spec;
    for (uint32_t k = 0; k < spec->nconstraints; k++) {
        const ms_device_constraint *c = &spec->constraints[k];
        if (!constrained(c, req, alt->result_name)) continue;
        const ms_device_attribute *mine = attribute(d, c->match_domain, c->match_id);
        if (!mine) return false;
        for (uint32_t p = 0; p < s->npicks; p++) {
            const dr_pick *pk = &s->picks[p];
            if (pk->claim != ci || !constrained(c, pk->req, pk->request)) continue;
            const ms_device_attribute *theirs = attribute(pk->device, c->match_domain, c->match_id);
            if (!theirs || !same_value(mine, theirs)) return false;
        }
    }
    return true;
}

static bool push(search *s, uint32_t ci, ms_str req, const dr_alt *alt, cand *c) {
    if (s->npicks == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 16;
        dr_pick *p = ms_arena_alloc(s->a, cap * sizeof *p);
        if (!p) return false;
        if (s->npicks) memcpy(p, s->picks, s->npicks * sizeof *p);
        s->picks = p;
        s->cap = cap;
    }
    s->picks[s->npicks++] = (dr_pick){ci, req, alt->result_name, c->slice, c->device, alt->r->admin_access};
    c->used = true;
    return true;
}

static void pop(search *s, uint32_t n) {
    while (n--) {
        dr_pick *p = &s->picks[--s->npicks];
        for (uint32_t k = 0; k < s->ncands; k++)
            if (s->cands[k].device == p->device) s->cands[k].used = false;
    }
}

static bool place(search *s, uint32_t ci, uint32_t ri);

static bool free_for(const cand *c, const dr_alt *alt) { return alt->r->admin_access || (!c->allocated && !c->used); }

/* `left` more devices for request ri of claim ci, from candidate `from`. */
static bool pick(search *s, uint32_t ci, uint32_t ri, const dr_alt *alt, int64_t left, uint32_t from) {
    if (left == 0) return place(s, ci, ri + 1);
    ms_str req = s->al->claims[ci].reqs[ri].name;
    for (uint32_t k = from; k < s->ncands; k++) {
        if (++s->steps > MAX_STEPS || s->error) return false;
        cand *c = &s->cands[k];
        if (!free_for(c, alt) || !matches(s, alt, c) || !constraints_hold(s, ci, req, alt, c->device)) continue;
        if (!push(s, ci, req, alt, c)) return false;
        if (pick(s, ci, ri, alt, left - 1, k + 1)) return true;
        pop(s, 1);
    }
    return false;
}

/* All mode: every matching device, each of them free, at least one. */
static bool pick_all(search *s, uint32_t ci, uint32_t ri, const dr_alt *alt) {
    ms_str req = s->al->claims[ci].reqs[ri].name;
    uint32_t n = 0;
    for (uint32_t k = 0; k < s->ncands && !s->error; k++) {
        cand *c = &s->cands[k];
        if (!matches(s, alt, c)) continue;
        if (!free_for(c, alt) || !constraints_hold(s, ci, req, alt, c->device) || !push(s, ci, req, alt, c)) {
            pop(s, n);
            return false;
        }
        n++;
    }
    if (n && place(s, ci, ri + 1)) return true;
    pop(s, n);
    return false;
}

/* Enumerating: the allocation complete now, kept; true (stop) once
 * there are enough, or out of memory (s->error). */
static bool keep(search *s) {
    dr_pick *p = s->npicks ? MS_ARENA_NEW(s->a, dr_pick, s->npicks) : NULL;
    if (s->npicks && !p) {
        s->error = "out of memory";
        return true;
    }
    if (s->npicks) memcpy(p, s->picks, s->npicks * sizeof *p);
    s->found[s->nfound++] = (dr_option){p, s->npicks};
    return s->nfound >= s->max;
}

static bool place(search *s, uint32_t ci, uint32_t ri) {
    if (ci == s->al->nclaims) return s->found ? keep(s) : true;
    const dr_claim *c = &s->al->claims[ci];
    if (ri == c->nreq) return place(s, ci + 1, 0);
    const dr_request *r = &c->reqs[ri];
    for (uint32_t j = 0; j < r->nalt && !s->error; j++) {
        const dr_alt *alt = &r->alts[j];
        uint32_t before = s->nfound;
        bool ok = alt->r->allocation_mode == MS_ALLOC_ALL ? pick_all(s, ci, ri, alt) : pick(s, ci, ri, alt, alt->r->count, 0);
        if (ok) return true;
        /* the user's order of firstAvailable: a later entry only where
         * this one cannot be satisfied */
        if (s->nfound > before) return false;
    }
    return false;
}

/* The range of the node's own slices in al->slices. */
static void own_slices(const dr_alloc *al, ms_str node, uint32_t *from, uint32_t *to) {
    uint32_t lo = al->nshared, hi = al->nslices;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (al->slices[mid]->u.slice.node_name < node) lo = mid + 1;
        else hi = mid;
    }
    *from = lo;
    while (lo < al->nslices && al->slices[lo]->u.slice.node_name == node) lo++;
    *to = lo;
}

/* The node's candidate devices into s->cands; false with s->error when
 * out of memory. */
static bool collect_cands(search *s, const dr_alloc *al, const ms_node_info *ni, ms_arena *scratch) {
    s->al = al;
    s->a = scratch;
    uint32_t from, to, cap = 0;
    own_slices(al, ni->name, &from, &to);
    for (uint32_t i = 0; i < al->nshared; i++) cap += al->slices[i]->u.slice.ndevices;
    for (uint32_t i = from; i < to; i++) cap += al->slices[i]->u.slice.ndevices;
    s->cands = cap ? MS_ARENA_NEW(scratch, cand, cap) : NULL;
    if (cap && !s->cands) {
        s->error = "out of memory";
        return false;
    }
    /* the shared slices, then the node's own */
    for (uint32_t i = 0; i < to; i++) {
        if (i == al->nshared && from > i) i = from;
        if (i >= to) break;
        const ms_resource_slice *rs = &al->slices[i]->u.slice;
        for (uint32_t k = 0; k < rs->ndevices; k++) {
            const ms_device *d = &rs->devices[k];
            if (!usable_on(rs, d, ni, al->in)) continue;
            uint64_t key = ms_dr_device_key(rs->driver, rs->pool, d->name);
            bool in_use = al->allocated && ms_map_has(al->allocated, key) && !(al->freed && ms_map_has(al->freed, key));
            s->cands[s->ncands++] = (cand){al->slices[i], d, in_use, false};
        }
    }
    return true;
}

/* The search over the node's candidate devices, into s. */
static void run_search(search *s, const dr_alloc *al, const ms_node_info *ni, ms_arena *scratch) {
    if (collect_cands(s, al, ni, scratch)) s->ok = place(s, 0, 0);
}

ms_code ms_dr_allocate(const dr_alloc *al, const ms_node_info *ni, ms_arena *scratch, dr_pick **picks,
                       uint32_t *npicks, const char **why) {
    search s = {0};
    run_search(&s, al, ni, scratch);
    bool ok = s.ok;
    if (s.error) {
        *why = s.error;
        return MS_ERROR;
    }
    if (!ok) return MS_UNSCHEDULABLE_AND_UNRESOLVABLE;
    *picks = s.picks;
    *npicks = s.npicks;
    return MS_SUCCESS;
}

ms_code ms_dr_enumerate(const dr_alloc *al, const ms_node_info *ni, ms_arena *a, uint32_t max, dr_option **options,
                        uint32_t *noptions, const char **why) {
    search s = {.max = max ? max : 1};
    s.found = MS_ARENA_NEW(a, dr_option, s.max);
    if (!s.found) return MS_ERROR;
    run_search(&s, al, ni, a);
    if (s.error) {
        *why = s.error;
        return MS_ERROR;
    }
    if (s.nfound == 0) return MS_UNSCHEDULABLE_AND_UNRESOLVABLE;
    *options = s.found;
    *noptions = s.nfound;
    return MS_SUCCESS;
}

/* "class C: E, E; selectors E" for an alternative's selectors, into b. */
static void describe_selectors(const dr_alt *alt, const ms_interner *in, char *b, size_t n) {
    uint32_t ndc = alt->dc->nselectors;
    size_t len = (size_t)snprintf(b, n, "class %s", ms_str_get(in, alt->r->device_class));
    for (uint32_t k = 0; k < alt->nsel && len < n; k++) {
        bool own = k >= ndc;
        const char *sep = own ? (k == ndc ? "; selectors " : ", ") : (k == 0 ? ": " : ", ");
        len += (size_t)snprintf(b + len, n - len, "%s%s", sep, own ? alt->r->selectors[k - ndc].cel : alt->dc->selectors[k].cel);
    }
}

const char *ms_dr_explain(const dr_alloc *al, const ms_node_info *ni, ms_arena *a) {
    search s = {0};
    if (!collect_cands(&s, al, ni, a)) return "out of memory";
    char buf[1024];
    for (uint32_t ci = 0; ci < al->nclaims; ci++) {
        const dr_claim *c = &al->claims[ci];
        for (uint32_t ri = 0; ri < c->nreq; ri++) {
            const dr_request *r = &c->reqs[ri];
            bool alone = false;
            uint32_t matching = 0, free = 0;
            const dr_alt *last = NULL;
            for (uint32_t j = 0; j < r->nalt && !alone; j++) {
                last = &r->alts[j];
                matching = free = 0;
                for (uint32_t k = 0; k < s.ncands; k++) {
                    if (!matches(&s, last, &s.cands[k])) continue;
                    matching++;
                    free += free_for(&s.cands[k], last);
                }
                if (s.error) return s.error;
                alone = last->r->allocation_mode == MS_ALLOC_ALL ? matching > 0 && free == matching
                                                                 : free >= (uint64_t)last->r->count;
            }
            if (alone || !last) continue;
            char sel[700];
            describe_selectors(last, al->in, sel, sizeof sel);
            char need[32];
            if (last->r->allocation_mode == MS_ALLOC_ALL) snprintf(need, sizeof need, "all");
            else snprintf(need, sizeof need, "%lld", (long long)last->r->count);
            snprintf(buf, sizeof buf, "claim %s, request %s: %s needed, %u device(s) on the node match (%s), %u of them free",
                     ms_str_get(al->in, c->obj->meta.name), ms_str_get(al->in, last->result_name), need, matching, sel,
                     free);
            const char *out = ms_arena_strdup(a, buf);
            return out ? out : "out of memory";
        }
    }
    return "each request could be satisfied alone, not all together (the devices they share, or a matchAttribute "
           "constraint)";
}
