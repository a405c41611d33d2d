/* Unknown Pod and Node fields (core/codec/known_fields.c). */
#include "testutil.h"

#include <cjson/cJSON.h>

#include "codec/known_fields.h"
#include "moonsched/decode.h"

typedef struct seen {
    char msg[16][300];
    int n;
} seen;

static void collect(void *ctx, const char *msg) {
    seen *s = ctx;
    if (s->n < 16) snprintf(s->msg[s->n++], sizeof s->msg[0], "%s", msg);
}

static seen check_yaml(const char *kind, const char *yaml) {
    cJSON **docs = NULL;
    size_t ndocs = 0;
    ms_error err = {0};
    if (ms_yaml_parse(yaml, strlen(yaml), &docs, &ndocs, &err) != MS_OK) fail_msg("%s", err.msg);
    seen s = {0};
    ms_unknown_fields(kind, docs[0], collect, &s);
    for (size_t i = 0; i < ndocs; i++) cJSON_Delete(docs[i]);
    free(docs);
    return s;
}

static void assert_seen(const seen *s, const char *const *want, int n) {
    assert_int_equal(s->n, n);
    for (int i = 0; i < n; i++) assert_string_equal(s->msg[i], want[i]);
}
#define ASSERT_SEEN(s, want) assert_seen(&(s), want, (int)(sizeof want / sizeof want[0]))

/* What `kubectl get pod -o yaml` prints, fields the scheduler never reads
 * included: not one warning. */
static void test_kubectl_output_is_quiet(void **state) {
    (void)state;
    seen s = check_yaml("Pod",
                        "apiVersion: v1\nkind: Pod\n"
                        "metadata:\n  name: web-1\n  namespace: shop\n  uid: 1b4e\n  resourceVersion: \"912\"\n"
                        "  creationTimestamp: \"2024-01-01T00:00:00Z\"\n  generateName: web-\n  labels: {app: web}\n"
                        "  annotations: {a: b}\n  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: x}]\n"
                        "  managedFields: [{manager: kube-controller-manager, operation: Update, fieldsV1: {f:spec: {}}}]\n"
                        "spec:\n  containers:\n  - name: c\n    image: nginx\n    imagePullPolicy: Always\n"
                        "    resources: {requests: {cpu: 100m}, limits: {cpu: \"1\"}}\n"
                        "    terminationMessagePath: /dev/termination-log\n    terminationMessagePolicy: File\n"
                        "    volumeMounts: [{name: kube-api-access, mountPath: /var/run/secrets}]\n"
                        "    ports: [{containerPort: 80, protocol: TCP}]\n    env: [{name: A, value: b}]\n"
                        "  dnsPolicy: ClusterFirst\n  enableServiceLinks: true\n  nodeName: n1\n  preemptionPolicy: PreemptLowerPriority\n"
                        "  priority: 0\n  restartPolicy: Always\n  schedulerName: default-scheduler\n  securityContext: {}\n"
                        "  serviceAccount: default\n  serviceAccountName: default\n  terminationGracePeriodSeconds: 30\n"
                        "  tolerations:\n  - {effect: NoExecute, key: node.kubernetes.io/not-ready, operator: Exists, tolerationSeconds: 300}\n"
                        "  volumes: [{name: kube-api-access, projected: {sources: []}}]\n"
                        "status:\n  phase: Running\n  conditions: [{type: Ready, status: \"True\"}]\n  hostIP: 10.0.0.1\n"
                        "  podIP: 10.1.0.5\n  qosClass: Burstable\n  startTime: \"2024-01-01T00:00:01Z\"\n"
                        "  containerStatuses: [{name: c, ready: true, restartCount: 0, image: nginx, imageID: x,\n"
                        "    state: {running: {startedAt: \"2024-01-01T00:00:02Z\"}}, lastState: {}}]\n");
    assert_int_equal(s.n, 0);
    s = check_yaml("Node", "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {a: b}}\n"
                           "spec: {podCIDR: 10.1.0.0/24, podCIDRs: [10.1.0.0/24], providerID: kind://n1,\n"
                           "  taints: [{key: k, effect: NoSchedule, timeAdded: null}]}\n"
                           "status: {allocatable: {cpu: \"4\"}, nodeInfo: {kubeletVersion: v1.30.0},\n"
                           "  conditions: [{type: Ready, status: \"True\", reason: KubeletReady}],\n"
                           "  images: [{names: [nginx], sizeBytes: 1}], addresses: [{type: Hostname, address: n1}]}\n");
    assert_int_equal(s.n, 0);
}

static void test_typos(void **state) {
    (void)state;
    seen s = check_yaml("Pod", "apiVersion: v1\nkind: Pod\nmetadata: {name: p, lables: {a: b}}\n"
                               "spec:\n  nodeSelectr: {disk: ssd}\n  containerz: []\n"
                               "  containers: [{name: c, resources: {request: {cpu: 1}}}]\n"
                               "  initContainers: [{name: i, imagePullPolcy: Always}]\n"
                               "  tolerations: [{key: a, operater: Exists}]\n"
                               "  zzzz: 1\n"
                               "sepc: {}\n");
    static const char *const want[] = {
        "unknown field \"metadata.lables\" (did you mean \"labels\"?)",
        "unknown field \"spec.nodeSelectr\" (did you mean \"nodeSelector\"?)",
        "unknown field \"spec.containerz\" (did you mean \"containers\"?)",
        "unknown field \"spec.containers[0].resources.request\" (did you mean \"requests\"?)",
        "unknown field \"spec.initContainers[0].imagePullPolcy\" (did you mean \"imagePullPolicy\"?)",
        "unknown field \"spec.tolerations[0].operater\" (did you mean \"operator\"?)",
        "unknown field \"spec.zzzz\"",
        "unknown field \"sepc\" (did you mean \"spec\"?)",
    };
    ASSERT_SEEN(s, want);

    s = check_yaml("Node", "kind: Node\nmetadata: {name: n}\nspec: {unschedulabel: true, taints: [{key: k, efect: NoSchedule}]}\n");
    assert_int_equal(s.n, 2);
    assert_string_equal(s.msg[0], "unknown field \"spec.unschedulabel\" (did you mean \"unschedulable\"?)");
    assert_string_equal(s.msg[1], "unknown field \"spec.taints[0].efect\" (did you mean \"effect\"?)");

    /* other kinds, and values that are not objects, are left alone */
    s = check_yaml("Namespace", "kind: Namespace\nmetadata: {name: n, lables: {}}\n");
    assert_int_equal(s.n, 0);
    s = check_yaml("Pod", "kind: Pod\nmetadata: [1]\nspec: {containers: [1, {nme: x}]}\n");
    assert_int_equal(s.n, 1);
    assert_string_equal(s.msg[0], "unknown field \"spec.containers[1].nme\" (did you mean \"name\"?)");
}

/* A typo at every depth the decoder reads, each named by its full path. */
static void test_deep_typos(void **state) {
    (void)state;
    seen s = check_yaml(
        "Pod",
        "kind: Pod\nmetadata: {name: p, ownerReferences: [{kind: ReplicaSet, nmae: rs}]}\n"
        "spec:\n"
        "  affinity:\n"
        "    nodeAfinity: {}\n"
        "    podAffinity:\n"
        "      requiredDuringSchedulingIgnoredDuringExecution:\n"
        "      - {topologyKey: zone, labelSelector: {matchLabel: {a: b}}}\n"
        "    podAntiAffinity:\n"
        "      preferredDuringSchedulingIgnoredDuringExecution:\n"
        "      - {weight: 1, podAffinityTerm: {topologyKey: zone, namespaceSelector: {matchExpressions: [{key: a, "
        "operatr: Exists}]}}}\n"
        "  volumes:\n"
        "  - {name: v, persistentVolumeClaim: {claimNme: c}}\n"
        "  - {name: w, gcePersistentDisk: {pdName: d, readonly: true}}\n"
        "  - {name: x, persistentVolumeClain: {claimName: c}}\n"
        "  containers:\n"
        "  - name: c\n"
        "    ports: [{containerPort: 80, hostport: 80}]\n"
        "    resources: {claims: [{name: gpu, requets: r}]}\n"
        "  topologySpreadConstraints:\n"
        "  - {maxSkew: 1, topologyKey: zone, whenUnsatisfable: DoNotSchedule, labelSelector: {matchLabels: {a: b}}}\n"
        "  resourceClaims: [{name: gpu, resourceClaimTemplateNme: t}]\n"
        "  schedulingGates: [{nam: g}]\n"
        "  os: {nme: linux}\n"
        "status:\n"
        "  phse: Running\n");
    static const char *const want[] = {
        "unknown field \"metadata.ownerReferences[0].nmae\" (did you mean \"name\"?)",
        "unknown field \"spec.affinity.nodeAfinity\" (did you mean \"nodeAffinity\"?)",
        "unknown field \"spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector."
        "matchLabel\" (did you mean \"matchLabels\"?)",
        "unknown field \"spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]."
        "podAffinityTerm.namespaceSelector.matchExpressions[0].operatr\" (did you mean \"operator\"?)",
        "unknown field \"spec.volumes[0].persistentVolumeClaim.claimNme\" (did you mean \"claimName\"?)",
        "unknown field \"spec.volumes[1].gcePersistentDisk.readonly\" (did you mean \"readOnly\"?)",
        "unknown field \"spec.volumes[2].persistentVolumeClain\" (did you mean \"persistentVolumeClaim\"?)",
        "unknown field \"spec.containers[0].ports[0].hostport\" (did you mean \"hostPort\"?)",
        "unknown field \"spec.containers[0].resources.claims[0].requets\" (did you mean \"request\"?)",
        "unknown field \"spec.topologySpreadConstraints[0].whenUnsatisfable\" (did you mean \"whenUnsatisfiable\"?)",
        "unknown field \"spec.resourceClaims[0].resourceClaimTemplateNme\" (did you mean "
        "\"resourceClaimTemplateName\"?)",
        "unknown field \"spec.schedulingGates[0].nam\" (did you mean \"name\"?)",
        "unknown field \"spec.os.nme\" (did you mean \"name\"?)",
        "unknown field \"status.phse\" (did you mean \"phase\"?)",
    };
    ASSERT_SEEN(s, want);

    s = check_yaml("Pod", "kind: Pod\nstatus:\n"
                          "  conditions: [{type: PodScheduled, staus: \"False\"}]\n"
                          "  containerStatuses: [{name: c, state: {waiting: {reasn: CrashLoopBackOff}}}]\n"
                          "  initContainerStatuses: [{name: i, lastState: {terminated: {exitcode: 1}}}]\n"
                          "  resourceClaimStatuses: [{name: gpu, resourceClaimNam: r}]\n");
    static const char *const want_status[] = {
        "unknown field \"status.conditions[0].staus\" (did you mean \"status\"?)",
        "unknown field \"status.containerStatuses[0].state.waiting.reasn\" (did you mean \"reason\"?)",
        "unknown field \"status.initContainerStatuses[0].lastState.terminated.exitcode\" (did you mean "
        "\"exitCode\"?)",
        "unknown field \"status.resourceClaimStatuses[0].resourceClaimNam\" (did you mean \"resourceClaimName\"?)",
    };
    ASSERT_SEEN(s, want_status);

    s = check_yaml("Node", "kind: Node\nmetadata: {name: n}\n"
                           "status: {capacity: {cpu: \"4\"}, conditions: [{type: Ready, stauts: \"True\"}],\n"
                           "  images: [{name: [nginx]}], allocatabel: {}}\n");
    assert_int_equal(s.n, 3);
    assert_string_equal(s.msg[0], "unknown field \"status.conditions[0].stauts\" (did you mean \"status\"?)");
    assert_string_equal(s.msg[1], "unknown field \"status.images[0].name\" (did you mean \"names\"?)");
    assert_string_equal(s.msg[2], "unknown field \"status.allocatabel\" (did you mean \"allocatable\"?)");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kubectl_output_is_quiet),
        cmocka_unit_test(test_typos),
        cmocka_unit_test(test_deep_typos),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
