/* Storage objects' lifetime, kind names and the node-affinity check of a
 * PersistentVolume. */
#include "api/storage.h"

#include <stdlib.h>
#include <string.h>

static const char *const kind_names[MS_SK_COUNT] = {
    [MS_SK_PV] = "PersistentVolume",
    [MS_SK_PVC] = "PersistentVolumeClaim",
    [MS_SK_STORAGE_CLASS] = "StorageClass",
    [MS_SK_CSI_NODE] = "CSINode",
    [MS_SK_CSI_DRIVER] = "CSIDriver",
    [MS_SK_CSI_CAPACITY] = "CSIStorageCapacity",
};

const char *ms_storage_kind_name(ms_storage_kind kind) {
    return (unsigned)kind < MS_SK_COUNT ? kind_names[kind] : NULL;
}

int ms_storage_kind_from_name(const char *kind) {
    for (int k = 0; kind && k < MS_SK_COUNT; k++)
        if (strcmp(kind, kind_names[k]) == 0) return k;
    return -1;
}

ms_storage_object *ms_storage_alloc(ms_storage_kind kind) {
    ms_storage_object *o = calloc(1, sizeof *o);
    if (!o) return NULL;
    atomic_init(&o->refs, 1);
    ms_arena_init(&o->arena, 512);
    o->kind = (uint8_t)kind;
    return o;
}

void ms_storage_unref(ms_storage_object *o) {
    if (!o) return;
    if (atomic_fetch_sub_explicit(&o->refs, 1, memory_order_acq_rel) != 1) return;
    ms_storage_unref(o->base);
    ms_arena_free(&o->arena);
    free(o);
}

ms_storage_object *ms_storage_copy(ms_storage_object *o) {
    ms_storage_object *c = malloc(sizeof *c);
    if (!c) return NULL;
    memcpy(c, o, sizeof *c);
    atomic_init(&c->refs, 1);
    ms_arena_init(&c->arena, 256);
    /* A copy of a copy references the copy: its own arena may hold
     * fields (a claimRef's uid) the copy points at. */
    c->base = ms_storage_ref(o);
    return c;
}

static const struct {
    const char *name;
    const char *driver;
} intree[] = {
    [MS_INTREE_GCE_PD] = {"kubernetes.io/gce-pd", "pd.csi.storage.gke.io"},
    [MS_INTREE_AWS_EBS] = {"kubernetes.io/aws-ebs", "ebs.csi.aws.com"},
    [MS_INTREE_AZURE_DISK] = {"kubernetes.io/azure-disk", "disk.csi.azure.com"},
    [MS_INTREE_AZURE_FILE] = {"kubernetes.io/azure-file", "file.csi.azure.com"},
    [MS_INTREE_CINDER] = {"kubernetes.io/cinder", "cinder.csi.openstack.org"},
    [MS_INTREE_VSPHERE] = {"kubernetes.io/vsphere-volume", "csi.vsphere.vmware.com"},
    [MS_INTREE_PORTWORX] = {"kubernetes.io/portworx-volume", "pxd.portworx.com"},
};

const char *ms_intree_plugin_name(uint8_t plugin) {
    return plugin && plugin < sizeof intree / sizeof intree[0] ? intree[plugin].name : NULL;
}

const char *ms_intree_csi_driver(uint8_t plugin) {
    return plugin && plugin < sizeof intree / sizeof intree[0] ? intree[plugin].driver : NULL;
}

bool ms_pv_matches_node(const ms_pv *pv, const ms_labels *node_labels, ms_str node_name,
                        const ms_interner *in) {
    return !pv->has_node_affinity ||
           ms_node_selector_matches(&pv->node_affinity, node_labels, node_name, in);
}
