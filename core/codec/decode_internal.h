/* Shared by the decode_*.c files only: field access on cJSON trees with
 * errors that name the object and the field path. Not a public API. */
#ifndef MOONSCHED_DECODE_INTERNAL_H
#define MOONSCHED_DECODE_INTERNAL_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "codec/json_reader.h"
#include "moonsched/arena.h"
#include "moonsched/decode.h"
#include "moonsched/error.h"
#include "moonsched/meta.h"
#include "moonsched/resources.h"
#include "moonsched/selector.h"

/* One object being decoded: a JSON reader whose errors start with the
 * object ("Pod ns/name: spec.containers[0].name: ..."). */
typedef struct ms_dec {
    ms_json_reader r;
    const ms_decoder *d;
    ms_arena *a;              /* the object's arena */
    const char *kind;         /* "Pod", "Node" */
    const char *ns;           /* NULL for cluster-scoped objects */
    const char *name;         /* NULL until known */
    /* metadata.name is the object's own (a pod's): interned with a counted
     * reference that the object gives back. */
    bool counted_name;
} ms_dec;

void ms_dec_init(ms_dec *x, const ms_decoder *d, ms_arena *a, ms_error *err, const char *kind);

/* A JSON object with its children indexed by key length: a field lookup
 * compares a few integers in one cache line instead of walking cJSON's list
 * with strcmp, and absent fields (most of them) cost no string compare. */
#define MS_OBJ_MAX 32
typedef struct ms_obj_kid {
    size_t len;
    const cJSON *v;
} ms_obj_kid;
typedef struct ms_obj {
    const cJSON *j;           /* NULL: an absent object, every field absent */
    const cJSON *rest;        /* children beyond MS_OBJ_MAX, walked on lookup */
    uint32_t n;
    ms_obj_kid kid[MS_OBJ_MAX];
} ms_obj;

void ms_obj_scan(ms_obj *o, const cJSON *j);
/* The child named key (JSON null included), or NULL. A repeated key gives
 * its last value, as Go's encoding/json (and so the API server) does. */
static inline const cJSON *ms_obj_get(const ms_obj *o, const char *key) {
    size_t len = strlen(key);
    const cJSON *found = NULL;
    for (const cJSON *c = o->rest; c; c = c->next)
        if (c->string && strcmp(c->string, key) == 0) found = c;
    if (found) return found;
    for (uint32_t i = o->n; i-- > 0;)
        if (o->kid[i].len == len && memcmp(o->kid[i].v->string, key, len) == 0) return o->kid[i].v;
    return NULL;
}

/* Prefixes an error produced by another module ("field: message") with the
 * object's name. */
ms_rc ms_dec_wrap(ms_dec *x, ms_rc rc);

/* Typed access to parent[key]. Absent and JSON null both give "absent"
 * (*out NULL, out->j NULL, *present false), as the API server treats them. A value of
 * the wrong JSON type is an error naming path.key. */
ms_rc ms_dec_object(ms_dec *x, const ms_obj *parent, const char *key, ms_obj *out);
ms_rc ms_dec_array(ms_dec *x, const ms_obj *parent, const char *key, const cJSON **out);
ms_rc ms_dec_string(ms_dec *x, const ms_obj *parent, const char *key, const char **out);
ms_rc ms_dec_bool(ms_dec *x, const ms_obj *parent, const char *key, bool *out, bool *present);
ms_rc ms_dec_int(ms_dec *x, const ms_obj *parent, const char *key, int64_t min, int64_t max,
                 int64_t *out, bool *present);

/* Interned string field: absent gives MS_STR_NONE; with empty_is_none the
 * empty string does too (taint keys and values, node names), otherwise it is
 * MS_STR_EMPTY (label values). */
ms_rc ms_dec_str_id(ms_dec *x, const ms_obj *parent, const char *key, bool empty_is_none,
                    ms_str *out);
/* A name field that must be a DNS-1123 label (label) or subdomain, else
 * "Invalid value" with upstream's reason; absent or empty gives
 * MS_STR_NONE, left to the caller (Required, or optional). */
ms_rc ms_dec_dns_name(ms_dec *x, const ms_obj *parent, const char *key, bool label, ms_str *out);
/* []string field, interned, into the arena. */
ms_rc ms_dec_str_list(ms_dec *x, const ms_obj *parent, const char *key, uint32_t *n, ms_str **out);
/* parent[key] as a list of objects into an arena array of `size`-byte
 * elements (*out; NULL when absent or empty): `item` fills one element from
 * one object, with the path at key[i]; *n counts the elements filled, so a
 * failure leaves only finished ones counted. */
typedef ms_rc (*ms_dec_item_fn)(ms_dec *x, const ms_obj *obj, void *elem, void *ctx);
ms_rc ms_dec_objects(ms_dec *x, const ms_obj *parent, const char *key, ms_arena *a, size_t size,
                     void **out, uint32_t *n, ms_dec_item_fn item, void *ctx);
/* For an ms_dec_item_fn that compares an element with the ones before it
 * (duplicate names): ms_dec_objects fills the array in order from its
 * first element, which the first call records. Starts zeroed. */
typedef struct ms_dec_seen {
    const void *first;
} ms_dec_seen;
static inline uint32_t ms_dec_seen_before(ms_dec_seen *s, const void *elem, size_t size) {
    if (!s->first) s->first = elem;
    return (uint32_t)(((const char *)elem - (const char *)s->first) / size);
}
/* parent[key] as a metav1.LabelSelector (absent or null: the nil selector,
 * which matches nothing). */
ms_rc ms_dec_label_selector(ms_dec *x, const ms_obj *parent, const char *key, ms_label_selector *out);
/* map[string]string field into sorted label pairs. */
ms_rc ms_dec_labels(ms_dec *x, const ms_obj *parent, const char *key, ms_labels *out);
/* RFC 3339 timestamp field; absent gives 0. */
/* A taint's and a toleration's effects, as upstream lists them. */
extern const char *const ms_taint_effects[];

ms_rc ms_dec_time(ms_dec *x, const ms_obj *parent, const char *key, double *out);

/* Quantity text of a string or number node into buf; NULL when j is neither. */
const char *ms_json_quantity_text(const cJSON *j, char *buf, size_t n);

/* ObjectMeta. Sets x->name / x->ns first so that later errors name the
 * object. namespaced: default the namespace to "default". */
ms_rc ms_dec_meta(ms_dec *x, const ms_obj *obj, bool namespaced, ms_object_meta *m);

/* When the decoder keeps raw JSON: obj printed compactly into x's arena.
 * MS_OK with *raw NULL when it does not. */
ms_rc ms_dec_raw(ms_dec *x, const cJSON *obj, const char **raw, size_t *len);

/* A resource list under decoding: built-ins with presence bits (upstream
 * distinguishes "absent" from "zero" for defaults), scalar resources in a
 * small unsorted array grown in a scratch arena. */
typedef struct ms_rlist {
    int64_t v[MS_RES_NBUILTIN];
    uint8_t has;              /* bit i: built-in i present */
    uint32_t nraw;            /* keys in the JSON map, including ignored ones */
    uint32_t n, cap;
    ms_scalar *s;
} ms_rlist;

/* Quantities saturate instead of overflowing, as ms_quantity does. */
static inline int64_t ms_sat_add(int64_t a, int64_t b) {
    if (b > 0 && a > INT64_MAX - b) return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b) return INT64_MIN;
    return a + b;
}

static inline void ms_rlist_clear(ms_rlist *r) {
    for (int i = 0; i < MS_RES_NBUILTIN; i++) r->v[i] = 0;
    r->has = 0;
    r->nraw = 0;
    r->n = 0;
}
static inline bool ms_rlist_has(const ms_rlist *r, int i) { return (r->has >> i) & 1u; }
int ms_rlist_find(const ms_rlist *r, ms_str name);
int ms_rlist_set(ms_rlist *r, ms_arena *scratch, ms_str name, int64_t value);
int ms_rlist_add(ms_rlist *dst, ms_arena *scratch, const ms_rlist *src);   /* dst += src */
int ms_rlist_max(ms_rlist *dst, ms_arena *scratch, const ms_rlist *src);   /* per key max */
/* The map parent[key] (ResourceList): cpu in millis, other built-ins and
 * scalar resources in units, other names checked and ignored. */
ms_rc ms_dec_resource_list(ms_dec *x, const ms_obj *parent, const char *key, ms_arena *scratch,
                           ms_rlist *out);
/* Copy into an arena-owned ms_resources with scalars sorted by name id. */
int ms_rlist_export(const ms_rlist *r, ms_arena *a, ms_resources *out);

/* upstream ImageLocality's normalizedImageName, interned. */
ms_str ms_dec_image_name(ms_dec *x, const char *image);

/* spec.volumes into p->volumes / p->nother_volumes (decode_volumes.c). */
struct ms_pod;
ms_rc ms_dec_pod_volumes(ms_dec *x, const ms_obj *spec, struct ms_pod *p);
/* spec.resourceClaims and status.resourceClaimStatuses (decode_pod_claims.c);
 * the statuses after the claims, whose names they must match. */
ms_rc ms_dec_pod_resource_claims(ms_dec *x, const ms_obj *spec, struct ms_pod *p);
ms_rc ms_dec_pod_resource_claim_statuses(ms_dec *x, const ms_obj *status, struct ms_pod *p);

/* A quantity field: j may be a string or a number (a YAML number's exact
 * text is used; a JSON number is read back in its shortest form). Errors
 * read "<field>: ...". */
ms_rc ms_json_quantity(const cJSON *j, int64_t *value, int64_t *milli, const char *field,
                       ms_error *err);
/* RFC 3339 timestamp ("2024-01-02T03:04:05Z", fractional seconds and offsets
 * accepted) to unix seconds. */
ms_rc ms_parse_rfc3339(const char *s, double *out);

#endif
