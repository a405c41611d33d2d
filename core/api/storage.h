/* The storage objects the volume plugins read: PersistentVolume,
 * PersistentVolumeClaim, StorageClass, CSINode, CSIDriver and
 * CSIStorageCapacity. One reference-counted container (ms_storage_object)
 * with a kind tag holds any of them, so that the volume store, the
 * informers and simulate's loader handle the six kinds with one set of
 * functions. Decoded objects are immutable, like pods; every field lives in
 * the object's arena. */
#ifndef MOONSCHED_STORAGE_H
#define MOONSCHED_STORAGE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "moonsched/arena.h"
#include "moonsched/error.h"
#include "moonsched/intern.h"
#include "moonsched/meta.h"
#include "moonsched/pod.h"
#include "moonsched/selector.h"

typedef enum ms_storage_kind {
    MS_SK_PV = 0,                  /* PersistentVolume (cluster-scoped) */
    MS_SK_PVC,                     /* PersistentVolumeClaim (namespaced) */
    MS_SK_STORAGE_CLASS,           /* storage.k8s.io/v1 StorageClass */
    MS_SK_CSI_NODE,                /* storage.k8s.io/v1 CSINode (named after its node) */
    MS_SK_CSI_DRIVER,              /* storage.k8s.io/v1 CSIDriver */
    MS_SK_CSI_CAPACITY,            /* storage.k8s.io/v1 CSIStorageCapacity (namespaced) */
    MS_SK_COUNT,
} ms_storage_kind;

/* accessModes as bits. */
enum {
    MS_ACCESS_RWO = 1u << 0,       /* ReadWriteOnce */
    MS_ACCESS_ROX = 1u << 1,       /* ReadOnlyMany */
    MS_ACCESS_RWX = 1u << 2,       /* ReadWriteMany */
    MS_ACCESS_RWOP = 1u << 3,      /* ReadWriteOncePod */
};

typedef enum ms_volume_mode { MS_VOLUME_FILESYSTEM = 0, MS_VOLUME_BLOCK } ms_volume_mode;

typedef enum ms_pv_phase {
    MS_PV_PENDING = 0, MS_PV_AVAILABLE, MS_PV_BOUND, MS_PV_RELEASED, MS_PV_FAILED
} ms_pv_phase;

typedef enum ms_claim_phase { MS_CLAIM_PENDING = 0, MS_CLAIM_BOUND, MS_CLAIM_LOST } ms_claim_phase;

typedef enum ms_binding_mode {
    MS_BINDING_IMMEDIATE = 0,      /* volumeBindingMode absent or Immediate */
    MS_BINDING_WAIT_FOR_FIRST_CONSUMER,
} ms_binding_mode;

/* The in-tree volume source of a PV, when it has no csi source. Those CSI
 * migration translates carry their CSI driver in ms_pv.csi_driver. */
typedef enum ms_pv_source {
    MS_PV_SOURCE_OTHER = 0,        /* nfs, hostPath, ... : no driver, no limits */
    MS_PV_SOURCE_CSI,              /* spec.csi */
    MS_PV_SOURCE_LOCAL,            /* spec.local */
    MS_PV_SOURCE_GCE_PD,           /* gcePersistentDisk -> pd.csi.storage.gke.io */
    MS_PV_SOURCE_AWS_EBS,          /* awsElasticBlockStore -> ebs.csi.aws.com */
    MS_PV_SOURCE_AZURE_DISK,       /* azureDisk -> disk.csi.azure.com */
    MS_PV_SOURCE_AZURE_FILE,       /* azureFile -> file.csi.azure.com */
    MS_PV_SOURCE_CINDER,           /* cinder -> cinder.csi.openstack.org */
    MS_PV_SOURCE_VSPHERE,          /* vsphereVolume -> csi.vsphere.vmware.com */
    MS_PV_SOURCE_PORTWORX,         /* portworxVolume -> pxd.portworx.com */
} ms_pv_source;

typedef struct ms_pv {
    int64_t capacity;              /* spec.capacity.storage, bytes (0 when absent) */
    uint8_t access_modes;          /* MS_ACCESS_* bits */
    uint8_t volume_mode;           /* ms_volume_mode */
    uint8_t phase;                 /* status.phase; ms_pv_phase */
    uint8_t source;                /* ms_pv_source */
    uint8_t plugin;                /* ms_intree_plugin of an in-tree source, else 0 */
    /* spec.storageClassName, or the beta annotation
     * volume.beta.kubernetes.io/storage-class when set (upstream's
     * GetPersistentVolumeClass); MS_STR_NONE: no class (""). */
    ms_str storage_class;
    /* spec.claimRef: namespace, name, uid (MS_STR_NONE / "" when absent). */
    bool has_claim_ref;
    ms_str claim_namespace;
    ms_str claim_name;
    const char *claim_uid;
    /* spec.nodeAffinity.required; has_node_affinity false: every node. */
    bool has_node_affinity;
    ms_node_selector node_affinity;
    /* The CSI driver the volume attaches through: spec.csi.driver, or the
     * driver CSI migration translates an in-tree source to. MS_STR_NONE:
     * none (local, nfs, ...). */
    ms_str csi_driver;
    /* What makes two volumes the same for NodeVolumeLimits:
     * csi.volumeHandle, or the in-tree source's identity (pdName, volumeID,
     * diskURI, ...). MS_STR_NONE: the PV's name is used. */
    ms_str volume_handle;
} ms_pv;

typedef struct ms_pvc {
    int64_t request;               /* spec.resources.requests.storage, bytes */
    uint8_t access_modes;          /* MS_ACCESS_* bits */
    uint8_t volume_mode;           /* ms_volume_mode */
    uint8_t phase;                 /* status.phase; ms_claim_phase */
    /* upstream's GetPersistentVolumeClaimClass: the beta annotation
     * volume.beta.kubernetes.io/storage-class, else spec.storageClassName;
     * MS_STR_NONE: "" (no class). */
    ms_str storage_class;
    bool has_selector;             /* spec.selector present */
    ms_label_selector selector;
    ms_str volume_name;            /* spec.volumeName; MS_STR_NONE when unbound */
    /* annotation volume.kubernetes.io/selected-node (MS_STR_NONE: absent). */
    ms_str selected_node;
    /* annotation pv.kubernetes.io/bind-completed present. */
    bool bind_completed;
    /* ms_object_meta.deletion != 0: being deleted. */
} ms_pvc;

typedef struct ms_storage_class {
    ms_str provisioner;
    uint8_t binding_mode;          /* ms_binding_mode */
    /* allowedTopologies as a node selector (each term's
     * matchLabelExpressions become In requirements): terms are ORed,
     * requirements ANDed. has_allowed_topologies false: any node. */
    bool has_allowed_topologies;
    ms_node_selector allowed_topologies;
} ms_storage_class;

typedef struct ms_csi_node_driver {
    ms_str name;
    ms_str node_id;
    bool has_count;                /* allocatable.count present */
    int32_t count;
    uint32_t ntopology_keys;
    ms_str *topology_keys;
} ms_csi_node_driver;

typedef struct ms_csi_node {
    uint32_t ndrivers;
    ms_csi_node_driver *drivers;   /* spec.drivers */
    /* annotation storage.alpha.kubernetes.io/migrated-plugins, split at
     * commas: the in-tree plugin names (kubernetes.io/gce-pd, ...) this
     * node has migrated to CSI. */
    uint32_t nmigrated;
    ms_str *migrated;
} ms_csi_node;

typedef struct ms_csi_driver {
    bool attach_required;          /* spec.attachRequired; default true */
    bool storage_capacity;         /* spec.storageCapacity; default false */
} ms_csi_driver;

typedef struct ms_csi_capacity {
    ms_str storage_class;          /* storageClassName */
    ms_label_selector node_topology;   /* nil matches nothing (upstream) */
    bool has_capacity;
    int64_t capacity;              /* bytes */
    bool has_max_volume_size;
    int64_t max_volume_size;       /* bytes */
} ms_csi_capacity;

typedef struct ms_storage_object {
    _Atomic int32_t refs;
    ms_arena arena;
    /* Set on copies (ms_storage_copy): the object whose arena holds the
     * pointer fields, referenced by the copy. */
    struct ms_storage_object *base;
    uint8_t kind;                  /* ms_storage_kind */
    ms_object_meta meta;
    /* metadata.resourceVersion as a number (0 when absent or not a
     * number): the assume layer compares versions, as upstream's
     * assume cache does. */
    int64_t version;
    /* The object's JSON as decoded, in the arena; NULL unless the decoder
     * had keep_raw (a running scheduler's /debug/snapshot). */
    const char *raw;
    size_t raw_len;
    union {
        ms_pv pv;
        ms_pvc pvc;
        ms_storage_class sc;
        ms_csi_node csi_node;
        ms_csi_driver csi_driver;
        ms_csi_capacity capacity;
    } u;
} ms_storage_object;

/* "PersistentVolume", "PersistentVolumeClaim", ...; NULL beyond COUNT. */
const char *ms_storage_kind_name(ms_storage_kind kind);
/* The kind for an object kind name (as in a List), or -1. */
int ms_storage_kind_from_name(const char *kind);

/* Heap-allocated with refs == 1 and the kind set; fields in its arena. */
ms_storage_object *ms_storage_alloc(ms_storage_kind kind);
static inline ms_storage_object *ms_storage_ref(ms_storage_object *o) {
    atomic_fetch_add_explicit(&o->refs, 1, memory_order_relaxed);
    return o;
}
void ms_storage_unref(ms_storage_object *o);

/* A copy sharing the pointer fields of `o` (which it references, and so
 * everything `o` references): used by the
 * assume layer for a PV with a claimRef, or a PVC with a volumeName, that
 * exists only in the scheduler's memory. */
ms_storage_object *ms_storage_copy(ms_storage_object *o);

/* upstream's in-tree plugin name ("kubernetes.io/gce-pd") and the CSI
 * driver CSI migration translates it to; NULL for MS_INTREE_NONE. */
const char *ms_intree_plugin_name(uint8_t plugin);
const char *ms_intree_csi_driver(uint8_t plugin);

/* Does `pv` allow the node (spec.nodeAffinity.required)? */
bool ms_pv_matches_node(const ms_pv *pv, const ms_labels *node_labels, ms_str node_name,
                        const ms_interner *in);
/* Is every bit of `want` in `have` (upstream's CheckAccessModes)? */
static inline bool ms_access_modes_contain(uint8_t have, uint8_t want) {
    return (have & want) == want;
}

#endif
