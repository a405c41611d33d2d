/* Storage objects from JSON: PersistentVolume, PersistentVolumeClaim,
 * StorageClass, CSINode, CSIDriver and CSIStorageCapacity, the fields the
 * volume plugins read (core/api/storage.h). Values the API server would
 * refuse (an unknown access mode, volumeBindingMode or phase) are errors
 * that quote the value. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "api/storage.h"
#include "base/quantity.h"
#include "base/quote.h"
#include "codec/decode_internal.h"
#include "codec/decode_storage.h"

/* ---- shared fields ---- */

/* parent[key] as one of `names` (NULL-terminated); absent keeps *out. */
static ms_rc dec_enum(ms_dec *x, const ms_obj *parent, const char *key, const char *const *names,
                      uint8_t *out) {
    const char *s;
    ms_rc rc = ms_dec_string(x, parent, key, &s);
    if (rc != MS_OK || !s || !*s) return rc;
    for (uint8_t i = 0; names[i]; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = i;
            return MS_OK;
        }
    return ms_json_unsupported(&x->r, key, s, names);
}

static const char *const access_mode_names[] = {"ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany",
                                                "ReadWriteOncePod", NULL};
static const char *const volume_mode_names[] = {"Filesystem", "Block", NULL};

static ms_rc dec_access_modes(ms_dec *x, const ms_obj *spec, uint8_t *out) {
    const cJSON *arr;
    ms_rc rc = ms_dec_array(x, spec, "accessModes", &arr);
    if (rc != MS_OK || !arr) return rc;
    size_t saved = ms_json_push(&x->r, "accessModes");
    size_t i = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, arr) {
        size_t at = ms_json_push_index(&x->r, i++);
        if (!cJSON_IsString(m)) return ms_json_type_error(&x->r, NULL, m, MS_JSON_STRING);
        uint8_t k = 0;
        while (access_mode_names[k] && strcmp(access_mode_names[k], m->valuestring) != 0) k++;
        if (!access_mode_names[k]) return ms_json_unsupported(&x->r, NULL, m->valuestring, access_mode_names);
        *out |= (uint8_t)(1u << k);
        ms_json_pop(&x->r, at);
    }
    ms_json_pop(&x->r, saved);
    return MS_OK;
}

/* parent[key] as a quantity in bytes (rounded up, as Quantity.Value). */
static ms_rc dec_bytes(ms_dec *x, const ms_obj *parent, const char *key, int64_t *out, bool *present) {
    const cJSON *j = ms_obj_get(parent, key);
    if (present) *present = false;
    if (!j || cJSON_IsNull(j)) return MS_OK;
    char buf[64];
    const char *text = ms_json_quantity_text(j, buf, sizeof buf);
    if (!text)
        return ms_json_fail(&x->r, key, "expected quantity (string or number), got %s", ms_json_type_name(j));
    ms_quantity q;
    ms_error qerr;
    if (ms_quantity_parse_cstr(text, &q, &qerr) != MS_OK) {
        char qt[MS_QUOTE_SIZE];
        return ms_json_fail(&x->r, key, "%s: %s", ms_quote(qt, text), qerr.msg);
    }
    *out = q.value;
    if (present) *present = true;
    return MS_OK;
}

/* "storage" of the map parent[key] (capacity, resources.requests). */
static ms_rc dec_storage_of(ms_dec *x, const ms_obj *parent, const char *key, int64_t *out) {
    ms_obj map;
    ms_rc rc = ms_dec_object(x, parent, key, &map);
    if (rc != MS_OK || !map.j) return rc;
    size_t saved = ms_json_push(&x->r, key);
    if ((rc = dec_bytes(x, &map, "storage", out, NULL)) == MS_OK) ms_json_pop(&x->r, saved);
    return rc;
}

/* upstream's GetPersistentVolume(Claim)Class: the beta annotation wins over
 * spec.storageClassName. */
static ms_rc dec_class(ms_dec *x, const ms_object_meta *m, const ms_obj *spec, ms_str *out) {
    ms_rc rc = ms_dec_str_id(x, spec, "storageClassName", true, out);
    if (rc != MS_OK) return rc;
    ms_str key = ms_intern_cstr(x->d->in, "volume.beta.kubernetes.io/storage-class");
    const char *beta = key == MS_STR_NONE ? NULL : ms_annotations_get(&m->annotations, key);
    if (!beta) return MS_OK;
    *out = *beta ? ms_intern_cstr(x->d->in, beta) : MS_STR_NONE;
    if (*beta && *out == MS_STR_NONE) return ms_json_nomem(&x->r);
    return MS_OK;
}

/* ---- PersistentVolume ---- */

/* PV sources: csi, local, and the in-tree ones CSI migration translates
 * (their driver from ms_intree_csi_driver), with the field that names the
 * volume (its handle for NodeVolumeLimits). */
static const struct {
    const char *key;
    uint8_t source;
    uint8_t plugin;
    const char *id;
} pv_sources[] = {
    {"csi", MS_PV_SOURCE_CSI, 0, "volumeHandle"},
    {"local", MS_PV_SOURCE_LOCAL, 0, NULL},
    {"gcePersistentDisk", MS_PV_SOURCE_GCE_PD, MS_INTREE_GCE_PD, "pdName"},
    {"awsElasticBlockStore", MS_PV_SOURCE_AWS_EBS, MS_INTREE_AWS_EBS, "volumeID"},
    {"azureDisk", MS_PV_SOURCE_AZURE_DISK, MS_INTREE_AZURE_DISK, "diskURI"},
    {"azureFile", MS_PV_SOURCE_AZURE_FILE, MS_INTREE_AZURE_FILE, "shareName"},
    {"cinder", MS_PV_SOURCE_CINDER, MS_INTREE_CINDER, "volumeID"},
    {"vsphereVolume", MS_PV_SOURCE_VSPHERE, MS_INTREE_VSPHERE, "volumePath"},
    {"portworxVolume", MS_PV_SOURCE_PORTWORX, MS_INTREE_PORTWORX, "volumeID"},
};

static ms_rc dec_pv_source(ms_dec *x, const ms_obj *spec, ms_pv *pv) {
    for (size_t k = 0; k < sizeof pv_sources / sizeof pv_sources[0]; k++) {
        ms_obj src;
        ms_rc rc = ms_dec_object(x, spec, pv_sources[k].key, &src);
        if (rc != MS_OK) return rc;
        if (!src.j) continue;
        pv->source = pv_sources[k].source;
        pv->plugin = pv_sources[k].plugin;
        size_t saved = ms_json_push(&x->r, pv_sources[k].key);
        if (pv->source == MS_PV_SOURCE_CSI)
            rc = ms_dec_str_id(x, &src, "driver", true, &pv->csi_driver);
        else if (pv->plugin &&
                 (pv->csi_driver = ms_intern_cstr(x->d->in, ms_intree_csi_driver(pv->plugin))) == MS_STR_NONE)
            rc = ms_json_nomem(&x->r);
        if (rc == MS_OK && pv_sources[k].id)
            rc = ms_dec_str_id(x, &src, pv_sources[k].id, true, &pv->volume_handle);
        if (rc != MS_OK) return rc;
        ms_json_pop(&x->r, saved);
        return MS_OK;
    }
    return MS_OK;
}

static ms_rc dec_claim_ref(ms_dec *x, const ms_obj *spec, ms_pv *pv) {
    ms_obj ref;
    ms_rc rc = ms_dec_object(x, spec, "claimRef", &ref);
    if (rc != MS_OK || !ref.j) return rc;
    pv->has_claim_ref = true;
    size_t saved = ms_json_push(&x->r, "claimRef");
    const char *uid;
    if ((rc = ms_dec_str_id(x, &ref, "namespace", true, &pv->claim_namespace)) != MS_OK ||
        (rc = ms_dec_str_id(x, &ref, "name", true, &pv->claim_name)) != MS_OK ||
        (rc = ms_dec_string(x, &ref, "uid", &uid)) != MS_OK)
        return rc;
    if (!(pv->claim_uid = ms_arena_strdup(x->a, uid ? uid : ""))) return ms_json_nomem(&x->r);
    ms_json_pop(&x->r, saved);
    return MS_OK;
}

static ms_rc dec_pv_affinity(ms_dec *x, const ms_obj *spec, ms_pv *pv) {
    ms_obj aff;
    ms_rc rc = ms_dec_object(x, spec, "nodeAffinity", &aff);
    if (rc != MS_OK || !aff.j) return rc;
    const cJSON *req = ms_obj_get(&aff, "required");
    if (!req || cJSON_IsNull(req)) return MS_OK;
    pv->has_node_affinity = true;
    size_t saved = ms_json_push(&x->r, "nodeAffinity");
    size_t at = ms_json_push(&x->r, "required");
    rc = ms_node_selector_from_json(req, x->d->in, x->a, &pv->node_affinity, x->r.path, x->r.err);
    if (rc != MS_OK) return ms_dec_wrap(x, rc);
    ms_json_pop(&x->r, at);
    ms_json_pop(&x->r, saved);
    return MS_OK;
}

static const char *const pv_phase_names[] = {"Pending", "Available", "Bound", "Released", "Failed", NULL};

static ms_rc dec_pv(ms_dec *x, const ms_obj *o, ms_storage_object *so) {
    ms_pv *pv = &so->u.pv;
    ms_obj spec, status;
    ms_rc rc;
    if ((rc = ms_dec_object(x, o, "spec", &spec)) != MS_OK ||
        (rc = ms_dec_object(x, o, "status", &status)) != MS_OK)
        return rc;
    size_t saved = ms_json_push(&x->r, "spec");
    if ((rc = dec_storage_of(x, &spec, "capacity", &pv->capacity)) != MS_OK ||
        (rc = dec_access_modes(x, &spec, &pv->access_modes)) != MS_OK ||
        (rc = dec_enum(x, &spec, "volumeMode", volume_mode_names, &pv->volume_mode)) != MS_OK ||
        (rc = dec_class(x, &so->meta, &spec, &pv->storage_class)) != MS_OK ||
        (rc = dec_claim_ref(x, &spec, pv)) != MS_OK || (rc = dec_pv_affinity(x, &spec, pv)) != MS_OK ||
        (rc = dec_pv_source(x, &spec, pv)) != MS_OK)
        return rc;
    ms_json_pop(&x->r, saved);
    saved = ms_json_push(&x->r, "status");
    if ((rc = dec_enum(x, &status, "phase", pv_phase_names, &pv->phase)) != MS_OK) return rc;
    ms_json_pop(&x->r, saved);
    return MS_OK;
}

/* ---- PersistentVolumeClaim ---- */

static const char *const claim_phase_names[] = {"Pending", "Bound", "Lost", NULL};

static ms_rc dec_pvc_annotations(ms_dec *x, ms_storage_object *so) {
    ms_pvc *pvc = &so->u.pvc;
    ms_interner *in = x->d->in;
    ms_str sel = ms_intern_cstr(in, "volume.kubernetes.io/selected-node");
    ms_str done = ms_intern_cstr(in, "pv.kubernetes.io/bind-completed");
    if (sel == MS_STR_NONE || done == MS_STR_NONE) return ms_json_nomem(&x->r);
    const char *node = ms_annotations_get(&so->meta.annotations, sel);
    if (node && *node && (pvc->selected_node = ms_intern_cstr(in, node)) == MS_STR_NONE)
        return ms_json_nomem(&x->r);
    pvc->bind_completed = ms_annotations_get(&so->meta.annotations, done) != NULL;
    return MS_OK;
}

static ms_rc dec_pvc(ms_dec *x, const ms_obj *o, ms_storage_object *so) {
    ms_pvc *pvc = &so->u.pvc;
    ms_obj spec, status, res;
    ms_rc rc;
    if ((rc = ms_dec_object(x, o, "spec", &spec)) != MS_OK ||
        (rc = ms_dec_object(x, o, "status", &status)) != MS_OK)
        return rc;
    size_t saved = ms_json_push(&x->r, "spec");
    if ((rc = dec_access_modes(x, &spec, &pvc->access_modes)) != MS_OK ||
        (rc = dec_enum(x, &spec, "volumeMode", volume_mode_names, &pvc->volume_mode)) != MS_OK ||
        (rc = dec_class(x, &so->meta, &spec, &pvc->storage_class)) != MS_OK ||
        (rc = ms_dec_str_id(x, &spec, "volumeName", true, &pvc->volume_name)) != MS_OK ||
        (rc = ms_dec_object(x, &spec, "resources", &res)) != MS_OK)
        return rc;
    if (res.j) {
        size_t at = ms_json_push(&x->r, "resources");
        if ((rc = dec_storage_of(x, &res, "requests", &pvc->request)) != MS_OK) return rc;
        ms_json_pop(&x->r, at);
    }
    const cJSON *sel = ms_obj_get(&spec, "selector");
    if (sel && !cJSON_IsNull(sel)) {
        pvc->has_selector = true;
        if ((rc = ms_dec_label_selector(x, &spec, "selector", &pvc->selector)) != MS_OK) return rc;
    }
    ms_json_pop(&x->r, saved);
    saved = ms_json_push(&x->r, "status");
    if ((rc = dec_enum(x, &status, "phase", claim_phase_names, &pvc->phase)) != MS_OK) return rc;
    ms_json_pop(&x->r, saved);
    return dec_pvc_annotations(x, so);
}

/* ---- StorageClass ---- */

/* allowedTopologies[i].matchLabelExpressions[j] {key, values} as a node
 * selector term of In requirements (upstream matches them the same way). */
static ms_rc dec_topologies(ms_dec *x, const ms_obj *o, ms_storage_class *sc) {
    const cJSON *arr;
    ms_rc rc = ms_dec_array(x, o, "allowedTopologies", &arr);
    if (rc != MS_OK || !arr || !cJSON_GetArraySize(arr)) return rc;
    cJSON *terms = cJSON_CreateArray();
    if (!terms) return ms_json_nomem(&x->r);
    const cJSON *t;
    cJSON_ArrayForEach(t, arr) {
        cJSON *term = cJSON_CreateObject(), *exprs = cJSON_CreateArray();
        cJSON_AddItemToArray(terms, term);
        cJSON_AddItemToObject(term, "matchExpressions", exprs);
        const cJSON *mle = cJSON_IsObject(t) ? cJSON_GetObjectItemCaseSensitive(t, "matchLabelExpressions") : NULL;
        const cJSON *e;
        cJSON_ArrayForEach(e, mle) {
            cJSON *req = cJSON_Duplicate(e, true);
            if (req && cJSON_IsObject(req)) cJSON_AddStringToObject(req, "operator", "In");
            cJSON_AddItemToArray(exprs, req);
        }
    }
    cJSON *sel = cJSON_CreateObject();
    cJSON_AddItemToObject(sel, "nodeSelectorTerms", terms);
    size_t saved = ms_json_push(&x->r, "allowedTopologies");
    rc = ms_node_selector_from_json(sel, x->d->in, x->a, &sc->allowed_topologies, x->r.path, x->r.err);
    cJSON_Delete(sel);
    if (rc != MS_OK) return ms_dec_wrap(x, rc);
    ms_json_pop(&x->r, saved);
    sc->has_allowed_topologies = true;
    return MS_OK;
}

static const char *const binding_mode_names[] = {"Immediate", "WaitForFirstConsumer", NULL};

static ms_rc dec_storage_class(ms_dec *x, const ms_obj *o, ms_storage_object *so) {
    ms_storage_class *sc = &so->u.sc;
    ms_rc rc;
    if ((rc = ms_dec_str_id(x, o, "provisioner", true, &sc->provisioner)) != MS_OK ||
        (rc = dec_enum(x, o, "volumeBindingMode", binding_mode_names, &sc->binding_mode)) != MS_OK)
        return rc;
    return dec_topologies(x, o, sc);
}

/* ---- CSINode, CSIDriver, CSIStorageCapacity ---- */

static ms_rc dec_csi_node_driver(ms_dec *x, const ms_obj *d, void *elem, void *ctx) {
    (void)ctx;
    ms_csi_node_driver *dr = elem;
    ms_obj alloc;
    ms_rc rc;
    if ((rc = ms_dec_str_id(x, d, "name", true, &dr->name)) != MS_OK ||
        (rc = ms_dec_str_id(x, d, "nodeID", true, &dr->node_id)) != MS_OK ||
        (rc = ms_dec_str_list(x, d, "topologyKeys", &dr->ntopology_keys, &dr->topology_keys)) != MS_OK ||
        (rc = ms_dec_object(x, d, "allocatable", &alloc)) != MS_OK)
        return rc;
    if (!alloc.j) return MS_OK;
    size_t saved = ms_json_push(&x->r, "allocatable");
    int64_t count;
    if ((rc = ms_dec_int(x, &alloc, "count", 0, INT32_MAX, &count, &dr->has_count)) != MS_OK) return rc;
    dr->count = (int32_t)count;
    ms_json_pop(&x->r, saved);
    return MS_OK;
}

/* storage.alpha.kubernetes.io/migrated-plugins: "kubernetes.io/gce-pd,..." */
static ms_rc dec_migrated(ms_dec *x, ms_storage_object *so) {
    ms_csi_node *cn = &so->u.csi_node;
    ms_str key = ms_intern_cstr(x->d->in, "storage.alpha.kubernetes.io/migrated-plugins");
    if (key == MS_STR_NONE) return ms_json_nomem(&x->r);
    const char *v = ms_annotations_get(&so->meta.annotations, key);
    if (!v || !*v) return MS_OK;
    uint32_t n = 1;
    for (const char *p = v; *p; p++) n += *p == ',';
    if (!(cn->migrated = MS_ARENA_NEW(x->a, ms_str, n))) return ms_json_nomem(&x->r);
    for (const char *p = v;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        while (len && *p == ' ') p++, len--;
        while (len && p[len - 1] == ' ') len--;
        if (len && (cn->migrated[cn->nmigrated++] = ms_intern(x->d->in, p, len)) == MS_STR_NONE)
            return ms_json_nomem(&x->r);
        if (!end) break;
        p = end + 1;
    }
    return MS_OK;
}

static ms_rc dec_csi_node(ms_dec *x, const ms_obj *o, ms_storage_object *so) {
    ms_csi_node *cn = &so->u.csi_node;
    ms_obj spec;
    ms_rc rc = ms_dec_object(x, o, "spec", &spec);
    if (rc != MS_OK) return rc;
    size_t saved = ms_json_push(&x->r, "spec");
    void *drivers;
    rc = ms_dec_objects(x, &spec, "drivers", x->a, sizeof *cn->drivers, &drivers, &cn->ndrivers,
                        dec_csi_node_driver, NULL);
    cn->drivers = drivers;
    if (rc != MS_OK) return rc;
    ms_json_pop(&x->r, saved);
    return dec_migrated(x, so);
}

static ms_rc dec_csi_driver(ms_dec *x, const ms_obj *o, ms_storage_object *so) {
    ms_csi_driver *cd = &so->u.csi_driver;
    ms_obj spec;
    bool present;
    ms_rc rc = ms_dec_object(x, o, "spec", &spec);
    if (rc != MS_OK) return rc;
    size_t saved = ms_json_push(&x->r, "spec");
    if ((rc = ms_dec_bool(x, &spec, "attachRequired", &cd->attach_required, &present)) != MS_OK) return rc;
    if (!present) cd->attach_required = true;   /* API defaulting */
    if ((rc = ms_dec_bool(x, &spec, "storageCapacity", &cd->storage_capacity, NULL)) != MS_OK) return rc;
    ms_json_pop(&x->r, saved);
    return MS_OK;
}

static ms_rc dec_csi_capacity(ms_dec *x, const ms_obj *o, ms_storage_object *so) {
    ms_csi_capacity *cc = &so->u.capacity;
    ms_rc rc;
    if ((rc = ms_dec_str_id(x, o, "storageClassName", true, &cc->storage_class)) != MS_OK ||
        (rc = ms_dec_label_selector(x, o, "nodeTopology", &cc->node_topology)) != MS_OK ||
        (rc = dec_bytes(x, o, "capacity", &cc->capacity, &cc->has_capacity)) != MS_OK)
        return rc;
    return dec_bytes(x, o, "maximumVolumeSize", &cc->max_volume_size, &cc->has_max_volume_size);
}

/* ---- entry ---- */

typedef ms_rc (*dec_kind_fn)(ms_dec *x, const ms_obj *o, ms_storage_object *so);

static const dec_kind_fn kind_decoders[MS_SK_COUNT] = {
    [MS_SK_PV] = dec_pv,
    [MS_SK_PVC] = dec_pvc,
    [MS_SK_STORAGE_CLASS] = dec_storage_class,
    [MS_SK_CSI_NODE] = dec_csi_node,
    [MS_SK_CSI_DRIVER] = dec_csi_driver,
    [MS_SK_CSI_CAPACITY] = dec_csi_capacity,
};

static int64_t version_number(const char *rv) {
    char *end;
    long long v = rv && *rv ? strtoll(rv, &end, 10) : 0;
    return rv && *rv && !*end ? (int64_t)v : 0;
}

ms_rc ms_storage_decode(const ms_decoder *d, ms_storage_kind kind, const cJSON *obj,
                        ms_storage_object **out, ms_error *err) {
    *out = NULL;
    const char *kind_name = ms_storage_kind_name(kind);
    if (!kind_name) return ms_error_set(err, MS_EINVAL, "unknown storage kind %d", (int)kind);
    if (!cJSON_IsObject(obj))
        return ms_error_set(err, MS_EINVAL, "%s: expected an object, got %s", kind_name, ms_json_type_name(obj));
    ms_storage_object *so = ms_storage_alloc(kind);
    if (!so) return ms_error_set(err, MS_ENOMEM, "%s: out of memory", kind_name);
    ms_dec x;
    ms_dec_init(&x, d, &so->arena, err, kind_name);
    ms_obj o;
    ms_obj_scan(&o, obj);
    bool namespaced = kind == MS_SK_PVC || kind == MS_SK_CSI_CAPACITY;
    ms_rc rc = ms_dec_meta(&x, &o, namespaced, &so->meta);
    if (rc == MS_OK) rc = kind_decoders[kind](&x, &o, so);
    if (rc == MS_OK) rc = ms_dec_raw(&x, obj, &so->raw, &so->raw_len);
    if (rc != MS_OK) {
        ms_storage_unref(so);
        return rc;
    }
    so->version = version_number(so->meta.resource_version);
    *out = so;
    return MS_OK;
}
