/* The informer resources of the storage objects the volume plugins read
 * (PersistentVolumes, PersistentVolumeClaims, StorageClasses, CSINodes,
 * CSIDrivers, CSIStorageCapacities): their collection paths, which of them
 * scheduling can do without, and their decoders (api/storage.h). See
 * client/informer.h. */
#include "api/storage.h"
#include "client/informer.h"
#include "codec/decode_storage.h"

/* The resource's kind says which storage kind: MS_KIND_PV + kind. */
static ms_rc decode_storage(const void *ctx, ms_object_kind kind, const cJSON *obj, void **out, ms_error *err) {
    ms_storage_object *o = NULL;
    ms_rc rc = ms_storage_decode(ctx, (ms_storage_kind)(kind - MS_KIND_PV), obj, &o, err);
    *out = o;
    return rc;
}

static void *ref_storage(void *obj) { return ms_storage_ref(obj); }
static void unref_storage(void *obj) { ms_storage_unref(obj); }
#define STORAGE_OPS .decode = decode_storage, .ref = ref_storage, .unref = unref_storage

/* Upstream's scheduler waits for these four caches: a pod placed before
 * the PVs are known would be refused by VolumeBinding for no reason. */
const ms_informer_resource ms_informer_pvs = {
    .kind = MS_KIND_PV,
    .path = "/api/v1/persistentvolumes",
    STORAGE_OPS,
};

const ms_informer_resource ms_informer_pvcs = {
    .kind = MS_KIND_PVC,
    .path = "/api/v1/persistentvolumeclaims",
    STORAGE_OPS,
};

const ms_informer_resource ms_informer_storage_classes = {
    .kind = MS_KIND_STORAGE_CLASS,
    .path = "/apis/storage.k8s.io/v1/storageclasses",
    STORAGE_OPS,
};

const ms_informer_resource ms_informer_csi_nodes = {
    .kind = MS_KIND_CSI_NODE,
    .path = "/apis/storage.k8s.io/v1/csinodes",
    STORAGE_OPS,
};

/* Only storage capacity tracking reads them (a driver's storageCapacity),
 * and before 1.21 system:kube-scheduler may not: optional. */
const ms_informer_resource ms_informer_csi_drivers = {
    .kind = MS_KIND_CSI_DRIVER,
    .path = "/apis/storage.k8s.io/v1/csidrivers",
    .optional = true,
    STORAGE_OPS,
};

/* storage.k8s.io/v1 from 1.24, v1beta1 from 1.21; neither on older
 * servers (1.20 serves only an alpha version behind a feature gate):
 * optional, so an absent resource counts as synced with none. */
const ms_informer_resource ms_informer_csi_capacities = {
    .kind = MS_KIND_CSI_CAPACITY,
    .path = "/apis/storage.k8s.io/v1/csistoragecapacities",
    .fallback_path = "/apis/storage.k8s.io/v1beta1/csistoragecapacities",
    .optional = true,
    STORAGE_OPS,
};
