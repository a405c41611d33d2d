/* The informer resources of the storage objects the volume plugins read
 * (PersistentVolumes, PersistentVolumeClaims, StorageClasses, CSINodes,
 * CSIDrivers, CSIStorageCapacities): their collection paths, which of them
 * scheduling can do without, and their decoders (api/storage.h). See
 * client/informer.h. */
#include "api/storage.h"
#include "client/informer.h"
#include "codec/decode_storage.h"

static ms_rc decode_as(ms_storage_kind kind, const void *ctx, const cJSON *obj, void **out, ms_error *err) {
    ms_storage_object *o = NULL;
    ms_rc rc = ms_storage_decode(ctx, kind, obj, &o, err);
    *out = o;
    return rc;
}

/* One decoder per kind: the informer's decode takes no kind. */
#define STORAGE_DECODER(fn, kind) \
    static ms_rc fn(const void *ctx, const cJSON *obj, void **out, ms_error *err) { \
        return decode_as(kind, ctx, obj, out, err); \
    }
STORAGE_DECODER(decode_pv, MS_SK_PV)
STORAGE_DECODER(decode_pvc, MS_SK_PVC)
STORAGE_DECODER(decode_sc, MS_SK_STORAGE_CLASS)
STORAGE_DECODER(decode_csi_node, MS_SK_CSI_NODE)
STORAGE_DECODER(decode_csi_driver, MS_SK_CSI_DRIVER)
STORAGE_DECODER(decode_capacity, MS_SK_CSI_CAPACITY)

static void *ref_storage(void *obj) { return ms_storage_ref(obj); }
static void unref_storage(void *obj) { ms_storage_unref(obj); }
#define STORAGE_OPS(decoder) .decode = decoder, .ref = ref_storage, .unref = unref_storage

/* Upstream's scheduler waits for these four caches: a pod placed before
 * the PVs are known would be refused by VolumeBinding for no reason. */
const ms_informer_resource ms_informer_pvs = {
    .kind = MS_KIND_PV,
    .path = "/api/v1/persistentvolumes",
    STORAGE_OPS(decode_pv),
};

const ms_informer_resource ms_informer_pvcs = {
    .kind = MS_KIND_PVC,
    .path = "/api/v1/persistentvolumeclaims",
    STORAGE_OPS(decode_pvc),
};

const ms_informer_resource ms_informer_storage_classes = {
    .kind = MS_KIND_STORAGE_CLASS,
    .path = "/apis/storage.k8s.io/v1/storageclasses",
    STORAGE_OPS(decode_sc),
};

const ms_informer_resource ms_informer_csi_nodes = {
    .kind = MS_KIND_CSI_NODE,
    .path = "/apis/storage.k8s.io/v1/csinodes",
    STORAGE_OPS(decode_csi_node),
};

/* Only storage capacity tracking reads them (a driver's storageCapacity),
 * and before 1.21 system:kube-scheduler may not: optional. */
const ms_informer_resource ms_informer_csi_drivers = {
    .kind = MS_KIND_CSI_DRIVER,
    .path = "/apis/storage.k8s.io/v1/csidrivers",
    .optional = true,
    STORAGE_OPS(decode_csi_driver),
};

/* storage.k8s.io/v1 from 1.24, v1beta1 from 1.21; neither on older
 * servers (1.20 serves only an alpha version behind a feature gate):
 * optional, so an absent resource counts as synced with none. */
const ms_informer_resource ms_informer_csi_capacities = {
    .kind = MS_KIND_CSI_CAPACITY,
    .path = "/apis/storage.k8s.io/v1/csistoragecapacities",
    .fallback_path = "/apis/storage.k8s.io/v1beta1/csistoragecapacities",
    .optional = true,
    STORAGE_OPS(decode_capacity),
};
