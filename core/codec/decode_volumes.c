/* A pod's spec.volumes: the kinds and identity fields the volume plugins
 * compare (VolumeRestrictions' disk conflicts, NodeVolumeLimits' counting);
 * the other kinds are only counted. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "codec/decode_internal.h"
#include "moonsched/pod.h"

/* API validation allows one source per volume; should a malformed object
 * carry several, the first in this order is the one kept. */
static const struct {
    const char *key;
    uint8_t kind;
    uint8_t plugin;                /* ms_intree_plugin */
    const char *id;                /* the identity field of a migratable source */
} sources[] = {
    {"gcePersistentDisk", MS_VOL_GCE_PD, MS_INTREE_GCE_PD, NULL},
    {"awsElasticBlockStore", MS_VOL_AWS_EBS, MS_INTREE_AWS_EBS, NULL},
    {"rbd", MS_VOL_RBD, 0, NULL},
    {"iscsi", MS_VOL_ISCSI, 0, NULL},
    {"persistentVolumeClaim", MS_VOL_PVC, 0, NULL},
    {"ephemeral", MS_VOL_EPHEMERAL, 0, NULL},
    {"azureDisk", MS_VOL_CSI_MIGRATABLE, MS_INTREE_AZURE_DISK, "diskURI"},
    {"azureFile", MS_VOL_CSI_MIGRATABLE, MS_INTREE_AZURE_FILE, "shareName"},
    {"cinder", MS_VOL_CSI_MIGRATABLE, MS_INTREE_CINDER, "volumeID"},
    {"vsphereVolume", MS_VOL_CSI_MIGRATABLE, MS_INTREE_VSPHERE, "volumePath"},
    {"portworxVolume", MS_VOL_CSI_MIGRATABLE, MS_INTREE_PORTWORX, "volumeID"},
};

#define NSOURCES (sizeof sources / sizeof sources[0])

static ms_rc dec_source(ms_dec *x, const ms_obj *src, const char *id_field, ms_volume *v) {
    ms_rc rc = MS_OK;
    int64_t lun;
    switch (v->kind) {
    case MS_VOL_GCE_PD:
        if ((rc = ms_dec_str_id(x, src, "pdName", true, &v->id)) == MS_OK)
            rc = ms_dec_bool(x, src, "readOnly", &v->read_only, NULL);
        break;
    case MS_VOL_AWS_EBS:
        if ((rc = ms_dec_str_id(x, src, "volumeID", true, &v->id)) == MS_OK)
            rc = ms_dec_bool(x, src, "readOnly", &v->read_only, NULL);
        break;
    case MS_VOL_RBD:
        if ((rc = ms_dec_str_list(x, src, "monitors", &v->nmonitors, &v->monitors)) != MS_OK ||
            (rc = ms_dec_str_id(x, src, "pool", true, &v->pool)) != MS_OK ||
            (rc = ms_dec_str_id(x, src, "image", true, &v->id)) != MS_OK ||
            (rc = ms_dec_bool(x, src, "readOnly", &v->read_only, NULL)) != MS_OK)
            break;
        /* API defaulting (SetDefaults_RBDVolumeSource): an empty pool is "rbd". */
        if (v->pool == MS_STR_NONE && (v->pool = ms_intern_cstr(x->d->in, "rbd")) == MS_STR_NONE)
            rc = ms_json_nomem(&x->r);
        break;
    case MS_VOL_ISCSI:
        if ((rc = ms_dec_str_id(x, src, "targetPortal", true, &v->target_portal)) != MS_OK ||
            (rc = ms_dec_str_id(x, src, "iqn", true, &v->id)) != MS_OK ||
            (rc = ms_dec_int(x, src, "lun", INT32_MIN, INT32_MAX, &lun, NULL)) != MS_OK ||
            (rc = ms_dec_bool(x, src, "readOnly", &v->read_only, NULL)) != MS_OK)
            break;
        v->lun = (int32_t)lun;
        break;
    case MS_VOL_PVC:
        if ((rc = ms_dec_str_id(x, src, "claimName", true, &v->id)) == MS_OK)
            rc = ms_dec_bool(x, src, "readOnly", &v->read_only, NULL);
        break;
    case MS_VOL_EPHEMERAL: {
        /* upstream's ephemeral.VolumeClaimName: the claim the ephemeral
         * controller creates is named <pod name>-<volume name>. */
        const char *vname = ms_str_get(x->d->in, v->name);
        char buf[512];
        int len = snprintf(buf, sizeof buf, "%s-%s", x->name ? x->name : "", vname ? vname : "");
        if (len < 0 || (size_t)len >= sizeof buf)
            return ms_json_invalid(&x->r, NULL, buf, "claim name longer than %zu characters", sizeof buf - 1);
        if ((v->id = ms_intern(x->d->in, buf, (size_t)len)) == MS_STR_NONE) rc = ms_json_nomem(&x->r);
        break;
    }
    case MS_VOL_CSI_MIGRATABLE:
        rc = ms_dec_str_id(x, src, id_field, true, &v->id);
        break;
    default:
        break;
    }
    return rc;
}

static ms_rc dec_volume(ms_dec *x, const cJSON *vj, ms_pod *p) {
    if (!cJSON_IsObject(vj)) return ms_json_type_error(&x->r, NULL, vj, MS_JSON_OBJECT);
    ms_obj vo;
    ms_obj_scan(&vo, vj);
    ms_volume v = {0};
    ms_rc rc = ms_dec_str_id(x, &vo, "name", true, &v.name);
    if (rc != MS_OK) return rc;
    for (size_t k = 0; k < NSOURCES; k++) {
        ms_obj src;
        if ((rc = ms_dec_object(x, &vo, sources[k].key, &src)) != MS_OK) return rc;
        if (!src.j || v.kind) continue;
        v.kind = sources[k].kind;
        v.plugin = sources[k].plugin;
        size_t saved = ms_json_push(&x->r, sources[k].key);
        if ((rc = dec_source(x, &src, sources[k].id, &v)) != MS_OK) return rc;
        ms_json_pop(&x->r, saved);
    }
    const cJSON *ed = ms_obj_get(&vo, "emptyDir"), *hp = ms_obj_get(&vo, "hostPath");
    if ((ed && !cJSON_IsNull(ed)) || (hp && !cJSON_IsNull(hp))) p->has_local_storage = true;
    if (v.kind) p->volumes[p->nvolumes++] = v;
    else p->nother_volumes++;
    return MS_OK;
}

ms_rc ms_dec_pod_volumes(ms_dec *x, const ms_obj *spec, ms_pod *p) {
    const cJSON *arr;
    ms_rc rc = ms_dec_array(x, spec, "volumes", &arr);
    if (rc != MS_OK || !arr) return rc;
    int count = cJSON_GetArraySize(arr);
    if (!count) return MS_OK;
    if (!(p->volumes = MS_ARENA_NEW(&p->arena, ms_volume, count))) return ms_json_nomem(&x->r);
    size_t saved = ms_json_push(&x->r, "volumes");
    size_t i = 0;
    const cJSON *vj;
    cJSON_ArrayForEach(vj, arr) {
        size_t s2 = ms_json_push_index(&x->r, i++);
        if ((rc = dec_volume(x, vj, p)) != MS_OK) return rc;
        ms_json_pop(&x->r, s2);
    }
    ms_json_pop(&x->r, saved);
    if (!p->nvolumes) p->volumes = NULL;
    return MS_OK;
}
