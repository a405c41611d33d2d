/* Decoding PersistentVolumes, claims, StorageClasses, CSINodes, CSIDrivers
 * and CSIStorageCapacities: the fields the volume plugins read, API
 * defaults, and errors that name the object and field and quote the bad
 * value. */
#include "testutil.h"

#include "api/storage.h"
#include "fixtures.h"
#include "codec/decode_storage.h"

FX_DECODER_FIXTURE


static void test_pv(void **state) {
    (void)state;
    ms_storage_object *o = fx_storage(&env.d, MS_SK_PV,
        "apiVersion: v1\nkind: PersistentVolume\n"
        "metadata: {name: pv1, resourceVersion: \"42\", labels: {topology.kubernetes.io/zone: z1},"
        " annotations: {volume.beta.kubernetes.io/storage-class: beta}}\n"
        "spec:\n"
        "  capacity: {storage: 10Gi}\n"
        "  accessModes: [ReadWriteOnce, ReadOnlyMany]\n"
        "  storageClassName: fast\n"
        "  volumeMode: Block\n"
        "  claimRef: {namespace: ns1, name: data, uid: u-1}\n"
        "  awsElasticBlockStore: {volumeID: vol-1}\n"
        "  nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: [{key: k, operator: In, values: [v]}]}]}}\n"
        "status: {phase: Available}\n");
    const ms_pv *pv = &o->u.pv;
    assert_int_equal(o->kind, MS_SK_PV);
    assert_int_equal(o->version, 42);
    assert_int_equal(pv->capacity, 10LL << 30);
    assert_int_equal(pv->access_modes, MS_ACCESS_RWO | MS_ACCESS_ROX);
    assert_int_equal(pv->volume_mode, MS_VOLUME_BLOCK);
    /* the beta annotation wins over spec.storageClassName, as upstream */
    assert_string_equal(T(pv->storage_class), "beta");
    assert_true(pv->has_claim_ref);
    assert_string_equal(T(pv->claim_namespace), "ns1");
    assert_string_equal(T(pv->claim_name), "data");
    assert_string_equal(pv->claim_uid, "u-1");
    assert_int_equal(pv->source, MS_PV_SOURCE_AWS_EBS);
    assert_int_equal(pv->plugin, MS_INTREE_AWS_EBS);
    assert_string_equal(T(pv->csi_driver), "ebs.csi.aws.com");
    assert_string_equal(T(pv->volume_handle), "vol-1");
    assert_true(pv->has_node_affinity);
    assert_int_equal(pv->node_affinity.n, 1);
    assert_int_equal(pv->phase, MS_PV_AVAILABLE);
    ms_storage_unref(o);

    o = fx_storage(&env.d, MS_SK_PV, "metadata: {name: pv2}\nspec: {csi: {driver: d.example.com, volumeHandle: h}}");
    assert_int_equal(o->u.pv.source, MS_PV_SOURCE_CSI);
    assert_int_equal(o->u.pv.plugin, MS_INTREE_NONE);
    assert_string_equal(T(o->u.pv.csi_driver), "d.example.com");
    assert_int_equal(o->u.pv.storage_class, MS_STR_NONE);
    assert_false(o->u.pv.has_claim_ref);
    assert_int_equal(o->u.pv.phase, MS_PV_PENDING);
    assert_int_equal(o->version, 0);
    ms_storage_unref(o);
}

static void test_pvc(void **state) {
    (void)state;
    ms_storage_object *o = fx_storage(&env.d, MS_SK_PVC,
        "metadata: {name: data, namespace: ns1, uid: u-1, deletionTimestamp: \"2024-01-02T03:04:05Z\","
        " annotations: {volume.kubernetes.io/selected-node: n1, pv.kubernetes.io/bind-completed: \"yes\"}}\n"
        "spec:\n"
        "  accessModes: [ReadWriteOncePod]\n"
        "  resources: {requests: {storage: 1500Mi}}\n"
        "  storageClassName: local\n"
        "  selector: {matchLabels: {disk: ssd}}\n"
        "  volumeName: pv1\n"
        "status: {phase: Bound}\n");
    const ms_pvc *pvc = &o->u.pvc;
    assert_string_equal(T(o->meta.namespace_), "ns1");
    assert_int_equal(pvc->request, 1500LL << 20);
    assert_int_equal(pvc->access_modes, MS_ACCESS_RWOP);
    assert_string_equal(T(pvc->storage_class), "local");
    assert_true(pvc->has_selector);
    assert_int_equal(pvc->selector.n, 1);
    assert_string_equal(T(pvc->volume_name), "pv1");
    assert_int_equal(pvc->selected_node, S("n1"));
    assert_true(pvc->bind_completed);
    assert_int_equal(pvc->phase, MS_CLAIM_BOUND);
    assert_true(o->meta.deletion > 0);
    ms_storage_unref(o);
    /* a claim without a namespace is in "default" */
    o = fx_storage(&env.d, MS_SK_PVC, "metadata: {name: c}");
    assert_string_equal(T(o->meta.namespace_), "default");
    assert_false(o->u.pvc.has_selector);
    assert_int_equal(o->u.pvc.selected_node, MS_STR_NONE);
    ms_storage_unref(o);
}

static void test_class_and_csi(void **state) {
    (void)state;
    ms_storage_object *o = fx_storage(&env.d, MS_SK_STORAGE_CLASS,
        "metadata: {name: zonal}\nprovisioner: pd.csi.storage.gke.io\nvolumeBindingMode: WaitForFirstConsumer\n"
        "allowedTopologies: [{matchLabelExpressions: [{key: topology.kubernetes.io/zone, values: [a, b]}]}]");
    assert_string_equal(T(o->u.sc.provisioner), "pd.csi.storage.gke.io");
    assert_int_equal(o->u.sc.binding_mode, MS_BINDING_WAIT_FOR_FIRST_CONSUMER);
    assert_true(o->u.sc.has_allowed_topologies);
    assert_int_equal(o->u.sc.allowed_topologies.n, 1);
    assert_int_equal(o->u.sc.allowed_topologies.terms[0].nexpr, 1);
    ms_storage_unref(o);
    o = fx_storage(&env.d, MS_SK_STORAGE_CLASS, "metadata: {name: std}\nprovisioner: x");
    assert_int_equal(o->u.sc.binding_mode, MS_BINDING_IMMEDIATE);
    assert_false(o->u.sc.has_allowed_topologies);
    ms_storage_unref(o);

    o = fx_storage(&env.d, MS_SK_CSI_NODE,
        "metadata: {name: n1, annotations: {storage.alpha.kubernetes.io/migrated-plugins: "
        "\"kubernetes.io/gce-pd, kubernetes.io/portworx-volume\"}}\n"
        "spec: {drivers: [{name: ebs.csi.aws.com, nodeID: i-1, topologyKeys: [topology.ebs.csi.aws.com/zone],"
        " allocatable: {count: 25}}, {name: other, nodeID: x}]}");
    const ms_csi_node *cn = &o->u.csi_node;
    assert_int_equal(cn->ndrivers, 2);
    assert_true(cn->drivers[0].has_count);
    assert_int_equal(cn->drivers[0].count, 25);
    assert_int_equal(cn->drivers[0].ntopology_keys, 1);
    assert_false(cn->drivers[1].has_count);
    assert_int_equal(cn->nmigrated, 2);
    assert_string_equal(T(cn->migrated[1]), "kubernetes.io/portworx-volume");
    ms_storage_unref(o);

    o = fx_storage(&env.d, MS_SK_CSI_DRIVER, "metadata: {name: d}\nspec: {storageCapacity: true}");
    assert_true(o->u.csi_driver.attach_required);    /* API default */
    assert_true(o->u.csi_driver.storage_capacity);
    ms_storage_unref(o);

    o = fx_storage(&env.d, MS_SK_CSI_CAPACITY,
        "metadata: {name: cap1, namespace: kube-system}\nstorageClassName: fast\n"
        "nodeTopology: {matchLabels: {zone: a}}\ncapacity: 100Gi\nmaximumVolumeSize: 10Gi");
    assert_string_equal(T(o->u.capacity.storage_class), "fast");
    assert_true(o->u.capacity.has_capacity);
    assert_int_equal(o->u.capacity.max_volume_size, 10LL << 30);
    assert_false(o->u.capacity.node_topology.nothing);
    ms_storage_unref(o);
}

static const char *error_of(ms_storage_kind kind, const char *text) {
    static ms_error err;
    cJSON *doc = fx_yaml(text);
    ms_storage_object *o = NULL;
    assert_int_equal(ms_storage_decode(&env.d, kind, doc, &o, &err), MS_EINVAL);
    assert_null(o);
    cJSON_Delete(doc);
    return err.msg;
}

static void test_errors(void **state) {
    (void)state;
    assert_string_equal(error_of(MS_SK_PV, "metadata: {name: pv1}\nspec: {accessModes: [ReadWriteSometimes]}"),
                        "PersistentVolume pv1: spec.accessModes[0]: Unsupported value: \"ReadWriteSometimes\": "
                        "supported values: \"ReadWriteOnce\", \"ReadOnlyMany\", \"ReadWriteMany\", \"ReadWriteOncePod\"");
    const char *msg = error_of(MS_SK_PVC, "metadata: {name: c, namespace: ns}\n"
                                          "spec: {resources: {requests: {storage: 12Qi}}}");
    assert_non_null(strstr(msg, "PersistentVolumeClaim ns/c: spec.resources.requests.storage: \"12Qi\""));
    assert_string_equal(error_of(MS_SK_STORAGE_CLASS, "metadata: {name: s}\nvolumeBindingMode: Later"),
                        "StorageClass s: volumeBindingMode: Unsupported value: \"Later\": "
                        "supported values: \"Immediate\", \"WaitForFirstConsumer\"");
    assert_string_equal(error_of(MS_SK_CSI_NODE, "metadata: {name: n}\nspec: {drivers: [{name: d, allocatable: {count: -1}}]}"),
                        "CSINode n: spec.drivers[0].allocatable.count: Invalid value: -1: expected an integer in [0, 2147483647]");
    msg = error_of(MS_SK_PV, "metadata: {name: pv1}\nspec: {capacity: []}");
    assert_non_null(strstr(msg, "PersistentVolume pv1: spec.capacity"));
    msg = error_of(MS_SK_PV, "[]");
    assert_string_equal(msg, "PersistentVolume: expected an object, got array");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pv),
        cmocka_unit_test(test_pvc),
        cmocka_unit_test(test_class_and_csi),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, fx_group_setup, fx_group_teardown);
}
