/* resource.k8s.io/v1 objects: DeviceClass, ResourceSlice, ResourceClaim
 * and ResourceClaimTemplate, checked as the API server validates what the
 * allocator relies on (names, exactly one of a set of fields, counts), in
 * its words. CEL expressions are kept as text here; they are compiled where
 * they are used. */
#include "api/dra.h"
#include "api/validation.h"
#include "base/quantity.h"
#include "base/quote.h"
#include "codec/decode_internal.h"
#include "codec/decode_dra.h"

#include <stdio.h>
#include <string.h>

/* upstream's limits (resource/v1 types.go) */
#define MAX_REQUESTS 32
#define MAX_SUBREQUESTS 8
#define MAX_DEVICES 128
#define MAX_ID_LENGTH 32
#define MAX_DOMAIN_LENGTH 63
#define MAX_STRING_LENGTH 64
#define MAX_RESERVED_FOR 256

static const char *const allocation_modes[] = {"All", "ExactCount", NULL};

static ms_rc required(ms_dec *x, const char *key) { return ms_json_fail(&x->r, key, "Required value"); }

static ms_rc duplicate(ms_dec *x, const char *key, ms_str v) {
    return ms_json_fail(&x->r, key, "Duplicate value: \"%s\"", ms_str_get(x->d->in, v));
}

/* ---- names ---- */

static bool c_identifier(const char *s, size_t n) {
    if (n == 0 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_')) return false;
    for (size_t i = 1; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
            return false;
    }
    return true;
}

/* An attribute or capacity name: [domain/]id. The domain is a DNS subdomain
 * of at most 63 characters, the id a C identifier of at most 32; a name
 * without domain is the driver's (upstream's resolution). `what` is the
 * field (the map key) for errors. */
static ms_rc qualified_name(ms_dec *x, const char *key, const char *name, ms_str driver, ms_str *domain,
                            ms_str *id) {
    const char *slash = strchr(name, '/');
    const char *ids = slash ? slash + 1 : name;
    size_t idn = strlen(ids);
    if (slash) {
        size_t dn = (size_t)(slash - name);
        if (dn > MAX_DOMAIN_LENGTH) return ms_json_invalid(&x->r, key, name, "must be no more than 63 characters");
        const char *why = ms_dns1123_subdomain_problem(name, dn);
        if (why) return ms_json_invalid(&x->r, key, name, "%s", why);
        *domain = ms_intern(x->d->in, name, dn);
    } else {
        *domain = driver;
    }
    if (idn > MAX_ID_LENGTH) return ms_json_invalid(&x->r, key, name, "must be no more than 32 characters");
    if (!c_identifier(ids, idn))
        return ms_json_invalid(&x->r, key, name,
                               "a valid C identifier must start with alphabetic character or '_', followed by a "
                               "string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or "
                               "'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')");
    *id = ms_intern(x->d->in, ids, idn);
    return *id == MS_STR_NONE || (slash && *domain == MS_STR_NONE) ? ms_json_nomem(&x->r) : MS_OK;
}

/* ---- selectors ---- */

static ms_rc dec_selector(ms_dec *x, const ms_obj *o, void *elem, void *ctx) {
    (void)ctx;
    ms_device_selector *s = elem;
    ms_obj cel;
    const char *expr;
    ms_rc rc;
    if ((rc = ms_dec_object(x, o, "cel", &cel)) != MS_OK) return rc;
    if (!cel.j) return required(x, "cel");
    size_t saved = ms_json_push(&x->r, "cel");
    if ((rc = ms_dec_string(x, &cel, "expression", &expr)) != MS_OK) return rc;
    if (!expr || !*expr) return required(x, "expression");
    if (!(s->cel = ms_arena_strdup(x->a, expr))) return ms_json_nomem(&x->r);
    ms_json_pop(&x->r, saved);
    return MS_OK;
}

static ms_rc dec_selectors(ms_dec *x, const ms_obj *o, uint32_t *n, ms_device_selector **out) {
    void *sels;
    ms_rc rc = ms_dec_objects(x, o, "selectors", x->a, sizeof **out, &sels, n, dec_selector, NULL);
    *out = sels;
    return rc;
}

/* ---- DeviceClass ---- */

static ms_rc dec_device_class(ms_dec *x, const ms_obj *o, ms_dra_object *d) {
    ms_obj spec;
    ms_rc rc = ms_dec_object(x, o, "spec", &spec);
    if (rc != MS_OK) return rc;
    size_t saved = ms_json_push(&x->r, "spec");
    if ((rc = dec_selectors(x, &spec, &d->u.dc.nselectors, &d->u.dc.selectors)) != MS_OK) return rc;
    ms_json_pop(&x->r, saved);
    return MS_OK;
}

/* ---- ResourceSlice ---- */

typedef struct device_ctx {
    ms_dec_seen s;
    const ms_resource_slice *slice;
} device_ctx;

static ms_rc node_selector(ms_dec *x, const ms_obj *o, const char *key, bool *has, ms_node_selector *out) {
    const cJSON *j = ms_obj_get(o, key);
    *has = j && !cJSON_IsNull(j);
    if (!*has) return MS_OK;
    size_t saved = ms_json_push(&x->r, key);
    ms_rc rc = ms_node_selector_from_json(j, x->d->in, x->a, out, x->r.path, x->r.err);
    if (rc != MS_OK) return ms_dec_wrap(x, rc);
    ms_json_pop(&x->r, saved);
    return MS_OK;
}

/* One attributes entry (o: its value object, path at its key). */
static ms_rc dec_attribute(ms_dec *x, const ms_obj *o, ms_str domain, ms_str id, void *elem) {
    ms_device_attribute *a = elem;
    a->domain = domain;
    a->id = id;
    static const char *const keys[4] = {"int", "bool", "string", "version"};
    int set = 0;
    for (int k = 0; k < 4; k++) {
        const cJSON *f = ms_obj_get(o, keys[k]);
        if (!f || cJSON_IsNull(f)) continue;
        set++;
        a->type = (uint8_t)k;
    }
    if (set == 0) return ms_json_fail(&x->r, NULL, "Required value: exactly one value must be specified");
    if (set > 1) return ms_json_fail(&x->r, NULL, "Invalid value: exactly one value must be specified");
    const char *s = NULL;
    ms_rc rc;
    switch (a->type) {
    case MS_ATTR_INT: rc = ms_dec_int(x, o, "int", INT64_MIN, INT64_MAX, &a->i, NULL); break;
    case MS_ATTR_BOOL: rc = ms_dec_bool(x, o, "bool", &a->b, NULL); break;
    default: rc = ms_dec_string(x, o, keys[a->type], &s); break;
    }
    if (rc != MS_OK || !s) return rc;
    if (strlen(s) > MAX_STRING_LENGTH)
        return ms_json_fail(&x->r, keys[a->type], "Too long: may not be more than 64 bytes");
    return ms_dec_str_id(x, o, keys[a->type], false, &a->s);
}

/* One capacity entry. */
static ms_rc dec_capacity(ms_dec *x, const ms_obj *o, ms_str domain, ms_str id, void *elem) {
    ms_device_capacity *c = elem;
    c->domain = domain;
    c->id = id;
    const cJSON *q = ms_obj_get(o, "value");
    if (!q || cJSON_IsNull(q)) return required(x, "value");
    ms_error qerr;
    if (ms_json_quantity(q, &c->value, &c->milli, "value", &qerr) != MS_OK)
        return ms_json_fail(&x->r, NULL, "%s", qerr.msg);
    return MS_OK;
}

/* A map of qualified names to objects (attributes, capacity) into an
 * arena array of `size`-byte elements, which `fn` fills from the name and
 * the value object. */
typedef ms_rc (*map_entry_fn)(ms_dec *x, const ms_obj *o, ms_str domain, ms_str id, void *elem);

static ms_rc dec_map(ms_dec *x, const ms_obj *o, const char *key, size_t size, ms_str driver, map_entry_fn fn,
                     void **out, uint32_t *n) {
    const cJSON *m = ms_obj_get(o, key);
    *out = NULL;
    *n = 0;
    if (!m || cJSON_IsNull(m)) return MS_OK;
    if (!cJSON_IsObject(m)) return ms_json_type_error(&x->r, key, m, MS_JSON_OBJECT);
    int count = cJSON_GetArraySize(m);
    if (!count) return MS_OK;
    char *items = ms_arena_alloc(x->a, (size_t)count * size);
    if (!items) return ms_json_nomem(&x->r);
    memset(items, 0, (size_t)count * size);
    size_t saved = ms_json_push(&x->r, key);
    const cJSON *c;
    cJSON_ArrayForEach(c, m) {
        ms_str domain, id;
        ms_rc rc = qualified_name(x, c->string, c->string, driver, &domain, &id);
        if (rc != MS_OK) return rc;
        if (!cJSON_IsObject(c)) return ms_json_type_error(&x->r, c->string, c, MS_JSON_OBJECT);
        ms_obj v;
        ms_obj_scan(&v, c);
        size_t s2 = ms_json_push(&x->r, c->string);
        if ((rc = fn(x, &v, domain, id, items + (size_t)*n * size)) != MS_OK) return rc;
        ms_json_pop(&x->r, s2);
        (*n)++;
    }
    ms_json_pop(&x->r, saved);
    *out = items;
    return MS_OK;
}

#define DEVICE_NODE_FIELDS "exactly one of `nodeName`, `nodeSelector`, `allNodes` is required"

static ms_rc dec_device(ms_dec *x, const ms_obj *o, void *elem, void *ctx) {
    device_ctx *dc = ctx;
    ms_device *d = elem;
    uint32_t k = ms_dec_seen_before(&dc->s, elem, sizeof *d);
    const ms_device *earlier = d - k;
    ms_rc rc;
    void *attrs, *caps;
    if ((rc = ms_dec_dns_name(x, o, "name", true, &d->name)) != MS_OK) return rc;
    if (d->name == MS_STR_NONE) return required(x, "name");
    for (uint32_t i = 0; i < k; i++)
        if (earlier[i].name == d->name) return duplicate(x, "name", d->name);
    if ((rc = dec_map(x, o, "attributes", sizeof *d->attributes, dc->slice->driver, dec_attribute, &attrs,
                      &d->nattributes)) != MS_OK ||
        (rc = dec_map(x, o, "capacity", sizeof *d->capacity, dc->slice->driver, dec_capacity, &caps,
                      &d->ncapacity)) != MS_OK)
        return rc;
    d->attributes = attrs;
    d->capacity = caps;
    if ((rc = ms_dec_dns_name(x, o, "nodeName", false, &d->node_name)) != MS_OK ||
        (rc = ms_dec_bool(x, o, "allNodes", &d->all_nodes, NULL)) != MS_OK ||
        (rc = node_selector(x, o, "nodeSelector", &d->has_node_selector, &d->node_selector)) != MS_OK)
        return rc;
    /* upstream counts allNodes only when true */
    int set = (d->node_name != MS_STR_NONE) + d->all_nodes + d->has_node_selector;
    if (dc->slice->per_device_node_selection && set != 1)
        return set ? ms_json_fail(&x->r, NULL, "Invalid value: " DEVICE_NODE_FIELDS)
                   : ms_json_fail(&x->r, NULL, "Required value: " DEVICE_NODE_FIELDS);
    if (!dc->slice->per_device_node_selection && set)
        return ms_json_fail(&x->r, d->node_name != MS_STR_NONE ? "nodeName"
                                   : d->all_nodes                ? "allNodes"
                                                                 : "nodeSelector",
                            "Forbidden: only allowed when `perDeviceNodeSelection` is set");
    return MS_OK;
}

#define SLICE_NODE_FIELDS "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"

static ms_rc dec_pool(ms_dec *x, const ms_obj *spec, ms_resource_slice *s) {
    ms_obj pool;
    const char *name;
    ms_rc rc = ms_dec_object(x, spec, "pool", &pool);
    if (rc != MS_OK) return rc;
    if (!pool.j) return required(x, "pool");
    size_t saved = ms_json_push(&x->r, "pool");
    if ((rc = ms_dec_string(x, &pool, "name", &name)) != MS_OK ||
        (rc = ms_dec_int(x, &pool, "generation", 0, INT64_MAX, &s->generation, NULL)) != MS_OK ||
        (rc = ms_dec_int(x, &pool, "resourceSliceCount", 0, INT64_MAX, &s->slice_count, NULL)) != MS_OK)
        return rc;
    if (!name || !*name) return required(x, "name");
    /* a pool name is DNS subdomains separated by slashes */
    for (const char *p = name;;) {
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        const char *why = ms_dns1123_subdomain_problem(p, n);
        if (why) return ms_json_invalid(&x->r, "name", name, "%s", why);
        if (!e) break;
        p = e + 1;
    }
    if (s->slice_count <= 0)
        return ms_json_invalid(&x->r, "resourceSliceCount", "0", "must be greater than zero");
    if ((rc = ms_dec_str_id(x, &pool, "name", true, &s->pool)) != MS_OK) return rc;
    ms_json_pop(&x->r, saved);
    return MS_OK;
}

static ms_rc dec_slice(ms_dec *x, const ms_obj *o, ms_dra_object *d) {
    ms_resource_slice *s = &d->u.slice;
    ms_obj spec;
    ms_rc rc = ms_dec_object(x, o, "spec", &spec);
    if (rc != MS_OK) return rc;
    if (!spec.j) return required(x, "spec");
    size_t saved = ms_json_push(&x->r, "spec");
    if ((rc = ms_dec_dns_name(x, &spec, "driver", false, &s->driver)) != MS_OK) return rc;
    if (s->driver == MS_STR_NONE) return required(x, "driver");
    if (strlen(ms_str_get(x->d->in, s->driver)) > MAX_DOMAIN_LENGTH)
        return ms_json_invalid(&x->r, "driver", ms_str_get(x->d->in, s->driver), "must be no more than 63 characters");
    if ((rc = dec_pool(x, &spec, s)) != MS_OK ||
        (rc = ms_dec_dns_name(x, &spec, "nodeName", false, &s->node_name)) != MS_OK ||
        (rc = ms_dec_bool(x, &spec, "allNodes", &s->all_nodes, NULL)) != MS_OK ||
        (rc = ms_dec_bool(x, &spec, "perDeviceNodeSelection", &s->per_device_node_selection, NULL)) != MS_OK ||
        (rc = node_selector(x, &spec, "nodeSelector", &s->has_node_selector, &s->node_selector)) != MS_OK)
        return rc;
    int set = (s->node_name != MS_STR_NONE) + s->all_nodes + s->per_device_node_selection + s->has_node_selector;
    if (set == 0) return ms_json_fail(&x->r, NULL, "Required value: " SLICE_NODE_FIELDS);
    if (set > 1) return ms_json_fail(&x->r, NULL, "Invalid value: " SLICE_NODE_FIELDS);
    void *devs;
    device_ctx dc = {{NULL}, s};
    if ((rc = ms_dec_objects(x, &spec, "devices", x->a, sizeof *s->devices, &devs, &s->ndevices, dec_device, &dc)) !=
        MS_OK)
        return rc;
    s->devices = devs;
    if (s->ndevices > MAX_DEVICES)
        return ms_json_fail(&x->r, "devices", "Too many: %u: must have at most %d items", s->ndevices, MAX_DEVICES);
    ms_json_pop(&x->r, saved);
    return MS_OK;
}

/* ---- claims ---- */

/* The fields an exactly request and a subrequest share. */
static ms_rc dec_subrequest_fields(ms_dec *x, const ms_obj *o, ms_device_subrequest *r) {
    const char *mode;
    bool has_count;
    ms_rc rc;
    if ((rc = ms_dec_dns_name(x, o, "deviceClassName", false, &r->device_class)) != MS_OK) return rc;
    if (r->device_class == MS_STR_NONE) return required(x, "deviceClassName");
    if ((rc = dec_selectors(x, o, &r->nselectors, &r->selectors)) != MS_OK ||
        (rc = ms_dec_string(x, o, "allocationMode", &mode)) != MS_OK ||
        (rc = ms_dec_int(x, o, "count", INT64_MIN, INT64_MAX, &r->count, &has_count)) != MS_OK)
        return rc;
    if (!mode || !*mode || strcmp(mode, "ExactCount") == 0) r->allocation_mode = MS_ALLOC_EXACT_COUNT;
    else if (strcmp(mode, "All") == 0) r->allocation_mode = MS_ALLOC_ALL;
    else return ms_json_unsupported(&x->r, "allocationMode", mode, allocation_modes);
    if (r->allocation_mode == MS_ALLOC_ALL && has_count && r->count != 0)
        return ms_json_fail(&x->r, "count", "Invalid value: %lld: must not be specified when allocationMode is 'All'",
                            (long long)r->count);
    if (r->allocation_mode == MS_ALLOC_EXACT_COUNT) {
        if (!has_count) r->count = 1;
        else if (r->count <= 0)
            return ms_json_fail(&x->r, "count", "Invalid value: %lld: must be greater than zero", (long long)r->count);
    }
    return MS_OK;
}

static ms_rc dec_subrequest(ms_dec *x, const ms_obj *o, void *elem, void *ctx) {
    ms_device_subrequest *r = elem;
    uint32_t k = ms_dec_seen_before(ctx, elem, sizeof *r);
    ms_rc rc = ms_dec_dns_name(x, o, "name", true, &r->name);
    if (rc != MS_OK) return rc;
    if (r->name == MS_STR_NONE) return required(x, "name");
    for (uint32_t i = 0; i < k; i++)
        if ((r - k)[i].name == r->name) return duplicate(x, "name", r->name);
    return dec_subrequest_fields(x, o, r);
}

#define REQUEST_KINDS "exactly one of `exactly` or `firstAvailable` is required"

static ms_rc dec_request(ms_dec *x, const ms_obj *o, void *elem, void *ctx) {
    ms_device_request *r = elem;
    uint32_t k = ms_dec_seen_before(ctx, elem, sizeof *r);
    ms_obj exactly;
    const cJSON *fa;
    ms_rc rc;
    if ((rc = ms_dec_dns_name(x, o, "name", true, &r->name)) != MS_OK) return rc;
    if (r->name == MS_STR_NONE) return required(x, "name");
    for (uint32_t i = 0; i < k; i++)
        if ((r - k)[i].name == r->name) return duplicate(x, "name", r->name);
    if ((rc = ms_dec_object(x, o, "exactly", &exactly)) != MS_OK || (rc = ms_dec_array(x, o, "firstAvailable", &fa)) != MS_OK)
        return rc;
    if (exactly.j && fa) return ms_json_fail(&x->r, NULL, "Invalid value: " REQUEST_KINDS ", but multiple fields are set");
    if (!exactly.j && (!fa || cJSON_GetArraySize(fa) == 0))
        return ms_json_fail(&x->r, NULL, "Required value: " REQUEST_KINDS);
    if (exactly.j) {
        size_t saved = ms_json_push(&x->r, "exactly");
        if ((rc = dec_subrequest_fields(x, &exactly, &r->exactly)) != MS_OK ||
            (rc = ms_dec_bool(x, &exactly, "adminAccess", &r->exactly.admin_access, NULL)) != MS_OK)
            return rc;
        ms_json_pop(&x->r, saved);
        return MS_OK;
    }
    void *subs;
    ms_dec_seen s = {NULL};
    if ((rc = ms_dec_objects(x, o, "firstAvailable", x->a, sizeof *r->first_available, &subs, &r->nfirst_available,
                             dec_subrequest, &s)) != MS_OK)
        return rc;
    r->first_available = subs;
    if (r->nfirst_available > MAX_SUBREQUESTS)
        return ms_json_fail(&x->r, "firstAvailable", "Too many: %u: must have at most %d items", r->nfirst_available,
                            MAX_SUBREQUESTS);
    return MS_OK;
}

/* "req" or "req/sub" naming a request (and one of its subrequests) of the claim. */
static bool names_request(const ms_claim_spec *spec, const ms_interner *in, const char *ref) {
    const char *slash = strchr(ref, '/');
    size_t n = slash ? (size_t)(slash - ref) : strlen(ref);
    for (uint32_t i = 0; i < spec->nrequests; i++) {
        const ms_device_request *r = &spec->requests[i];
        const char *name = ms_str_get(in, r->name);
        if (strlen(name) != n || memcmp(name, ref, n) != 0) continue;
        if (!slash) return true;
        for (uint32_t j = 0; j < r->nfirst_available; j++)
            if (strcmp(ms_str_get(in, r->first_available[j].name), slash + 1) == 0) return true;
    }
    return false;
}

static ms_rc dec_constraint(ms_dec *x, const ms_obj *o, void *elem, void *ctx) {
    const ms_claim_spec *spec = ctx;
    ms_device_constraint *c = elem;
    const char *attr;
    ms_rc rc;
    if ((rc = ms_dec_str_list(x, o, "requests", &c->nrequests, &c->requests)) != MS_OK ||
        (rc = ms_dec_string(x, o, "matchAttribute", &attr)) != MS_OK)
        return rc;
    for (uint32_t i = 0; i < c->nrequests; i++) {
        const char *ref = ms_str_get(x->d->in, c->requests[i]);
        if (names_request(spec, x->d->in, ref)) continue;
        char key[32];
        snprintf(key, sizeof key, "requests[%u]", i);
        return ms_json_invalid(&x->r, key, ref,
                               "must be the name of a request in the claim or the name of a request and a "
                               "subrequest separated by '/'");
    }
    if (!attr || !*attr) return required(x, "matchAttribute");
    if (!strchr(attr, '/'))
        return ms_json_invalid(&x->r, "matchAttribute", attr, "a fully qualified attribute name must include a domain");
    return qualified_name(x, "matchAttribute", attr, MS_STR_NONE, &c->match_domain, &c->match_id);
}

static ms_rc dec_claim_spec(ms_dec *x, const ms_obj *spec, ms_claim_spec *cs) {
    ms_obj devices;
    ms_rc rc = ms_dec_object(x, spec, "devices", &devices);
    if (rc != MS_OK || !devices.j) return rc;
    size_t saved = ms_json_push(&x->r, "devices");
    void *reqs, *cons;
    ms_dec_seen s = {NULL};
    if ((rc = ms_dec_objects(x, &devices, "requests", x->a, sizeof *cs->requests, &reqs, &cs->nrequests, dec_request,
                             &s)) != MS_OK)
        return rc;
    cs->requests = reqs;
    if (cs->nrequests > MAX_REQUESTS)
        return ms_json_fail(&x->r, "requests", "Too many: %u: must have at most %d items", cs->nrequests, MAX_REQUESTS);
    if ((rc = ms_dec_objects(x, &devices, "constraints", x->a, sizeof *cs->constraints, &cons, &cs->nconstraints,
                             dec_constraint, cs)) != MS_OK)
        return rc;
    cs->constraints = cons;
    ms_json_pop(&x->r, saved);
    return MS_OK;
}

static ms_rc dec_result(ms_dec *x, const ms_obj *o, void *elem, void *ctx) {
    (void)ctx;
    ms_device_result *r = elem;
    static const char *const keys[4] = {"request", "driver", "pool", "device"};
    ms_str *outs[4] = {&r->request, &r->driver, &r->pool, &r->device};
    ms_rc rc;
    for (int k = 0; k < 4; k++) {
        if ((rc = ms_dec_str_id(x, o, keys[k], true, outs[k])) != MS_OK) return rc;
        if (*outs[k] == MS_STR_NONE) return required(x, keys[k]);
    }
    return ms_dec_bool(x, o, "adminAccess", &r->admin_access, NULL);
}

static ms_rc dec_consumer(ms_dec *x, const ms_obj *o, void *elem, void *ctx) {
    (void)ctx;
    ms_claim_consumer *c = elem;
    const char *uid;
    ms_rc rc;
    if ((rc = ms_dec_str_id(x, o, "apiGroup", true, &c->api_group)) != MS_OK ||
        (rc = ms_dec_str_id(x, o, "resource", true, &c->resource)) != MS_OK ||
        (rc = ms_dec_str_id(x, o, "name", true, &c->name)) != MS_OK || (rc = ms_dec_string(x, o, "uid", &uid)) != MS_OK)
        return rc;
    if (c->resource == MS_STR_NONE) return required(x, "resource");
    if (c->name == MS_STR_NONE) return required(x, "name");
    if (!uid || !*uid) return required(x, "uid");
    return (c->uid = ms_arena_strdup(x->a, uid)) ? MS_OK : ms_json_nomem(&x->r);
}

static ms_rc dec_allocation(ms_dec *x, const ms_obj *status, ms_resource_claim *c) {
    ms_obj alloc, devices;
    ms_rc rc = ms_dec_object(x, status, "allocation", &alloc);
    if (rc != MS_OK || !alloc.j) return rc;
    c->allocated = true;
    size_t saved = ms_json_push(&x->r, "allocation");
    if ((rc = ms_dec_object(x, &alloc, "devices", &devices)) != MS_OK ||
        (rc = node_selector(x, &alloc, "nodeSelector", &c->has_node_selector, &c->node_selector)) != MS_OK)
        return rc;
    size_t s2 = ms_json_push(&x->r, "devices");
    void *results;
    if ((rc = ms_dec_objects(x, &devices, "results", x->a, sizeof *c->results, &results, &c->nresults, dec_result,
                             NULL)) != MS_OK)
        return rc;
    c->results = results;
    ms_json_pop(&x->r, s2);
    ms_json_pop(&x->r, saved);
    return MS_OK;
}

static ms_rc dec_claim(ms_dec *x, const ms_obj *o, ms_dra_object *d) {
    ms_resource_claim *c = &d->u.claim;
    ms_obj spec, status;
    ms_rc rc;
    if ((rc = ms_dec_object(x, o, "spec", &spec)) != MS_OK || (rc = ms_dec_object(x, o, "status", &status)) != MS_OK)
        return rc;
    size_t saved = ms_json_push(&x->r, "spec");
    if ((rc = dec_claim_spec(x, &spec, &c->spec)) != MS_OK) return rc;
    ms_json_pop(&x->r, saved);
    saved = ms_json_push(&x->r, "status");
    void *consumers;
    if ((rc = dec_allocation(x, &status, c)) != MS_OK ||
        (rc = ms_dec_objects(x, &status, "reservedFor", x->a, sizeof *c->reserved_for, &consumers, &c->nreserved_for,
                             dec_consumer, NULL)) != MS_OK)
        return rc;
    c->reserved_for = consumers;
    if (c->nreserved_for > MAX_RESERVED_FOR)
        return ms_json_fail(&x->r, "reservedFor", "Too many: %u: must have at most %d items", c->nreserved_for,
                            MAX_RESERVED_FOR);
    ms_json_pop(&x->r, saved);
    return MS_OK;
}

static ms_rc dec_template(ms_dec *x, const ms_obj *o, ms_dra_object *d) {
    ms_obj spec, inner;
    ms_rc rc;
    if ((rc = ms_dec_object(x, o, "spec", &spec)) != MS_OK) return rc;
    size_t saved = ms_json_push(&x->r, "spec");
    if ((rc = ms_dec_object(x, &spec, "spec", &inner)) != MS_OK) return rc;
    size_t s2 = ms_json_push(&x->r, "spec");
    if ((rc = dec_claim_spec(x, &inner, &d->u.tmpl.spec)) != MS_OK) return rc;
    ms_json_pop(&x->r, s2);
    ms_json_pop(&x->r, saved);
    return MS_OK;
}

typedef ms_rc (*kind_decoder)(ms_dec *x, const ms_obj *o, ms_dra_object *d);

static const kind_decoder kind_decoders[MS_DK_COUNT] = {
    [MS_DK_DEVICE_CLASS] = dec_device_class,
    [MS_DK_RESOURCE_SLICE] = dec_slice,
    [MS_DK_RESOURCE_CLAIM] = dec_claim,
    [MS_DK_RESOURCE_CLAIM_TEMPLATE] = dec_template,
};

ms_rc ms_dra_decode(const ms_decoder *d, ms_dra_kind kind, const cJSON *obj, ms_dra_object **out, ms_error *err) {
    *out = NULL;
    const char *kind_name = ms_dra_kind_name(kind);
    if (!kind_name) return ms_error_set(err, MS_EINVAL, "unknown resource.k8s.io kind %d", (int)kind);
    if (!cJSON_IsObject(obj))
        return ms_error_set(err, MS_EINVAL, "%s: expected an object, got %s", kind_name, ms_json_type_name(obj));
    ms_dra_object *o = ms_dra_alloc(kind);
    if (!o) return ms_error_set(err, MS_ENOMEM, "%s: out of memory", kind_name);
    ms_dec x;
    ms_dec_init(&x, d, &o->arena, err, kind_name);
    ms_obj top;
    ms_obj_scan(&top, obj);
    bool namespaced = kind == MS_DK_RESOURCE_CLAIM || kind == MS_DK_RESOURCE_CLAIM_TEMPLATE;
    ms_rc rc = ms_dec_meta(&x, &top, namespaced, &o->meta);
    if (rc == MS_OK) rc = kind_decoders[kind](&x, &top, o);
    if (rc == MS_OK) rc = ms_dec_raw(&x, obj, &o->raw, &o->raw_len);
    if (rc != MS_OK) {
        ms_dra_unref(o);
        return rc;
    }
    *out = o;
    return MS_OK;
}
