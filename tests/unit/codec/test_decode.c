#include "testutil.h"

#include <cjson/cJSON.h>
#include <unistd.h>

#include "fixtures.h"
#include "base/map.h"
#include "base/quote.h"
#include "codec/decode_internal.h"
#include "moonsched/decode.h"
#include "moonsched/selector.h"

FX_DECODER_FIXTURE


/* As `kubectl get pod -o yaml` prints it. */
static const char *const KUBECTL_POD =
    "apiVersion: v1\n"
    "kind: Pod\n"
    "metadata:\n"
    "  annotations:\n"
    "    kubectl.kubernetes.io/last-applied-configuration: |\n"
    "      {\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"web-1\"}}\n"
    "    team: payments\n"
    "  creationTimestamp: \"2024-01-02T03:04:05Z\"\n"
    "  deletionTimestamp: \"2024-01-02T03:05:05.5Z\"\n"
    "  generateName: web-\n"
    "  labels:\n"
    "    app: web\n"
    "    pod-template-hash: 5d9c8b7f4\n"
    "    tier: \"\"\n"
    "  managedFields:\n"
    "  - apiVersion: v1\n"
    "    fieldsType: FieldsV1\n"
    "    fieldsV1:\n"
    "      f:metadata:\n"
    "        f:labels:\n"
    "          .: {}\n"
    "          f:app: {}\n"
    "      f:spec:\n"
    "        f:containers:\n"
    "          k:{\"name\":\"web\"}:\n"
    "            .: {}\n"
    "            f:image: {}\n"
    "    manager: kube-controller-manager\n"
    "    operation: Update\n"
    "    time: \"2024-01-02T03:04:05Z\"\n"
    "  name: web-1\n"
    "  namespace: shop\n"
    "  ownerReferences:\n"
    "  - apiVersion: apps/v1\n"
    "    blockOwnerDeletion: true\n"
    "    controller: true\n"
    "    kind: ReplicaSet\n"
    "    name: web-5d9c8b7f4\n"
    "    uid: 0b5e3a52-1111-2222-3333-444455556666\n"
    "  resourceVersion: \"123456\"\n"
    "  uid: 7c1a4c1e-aaaa-bbbb-cccc-ddddeeeeffff\n"
    "spec:\n"
    "  affinity:\n"
    "    nodeAffinity:\n"
    "      requiredDuringSchedulingIgnoredDuringExecution:\n"
    "        nodeSelectorTerms:\n"
    "        - matchExpressions:\n"
    "          - key: kubernetes.io/arch\n"
    "            operator: In\n"
    "            values: [amd64, arm64]\n"
    "      preferredDuringSchedulingIgnoredDuringExecution:\n"
    "      - weight: 7\n"
    "        preference:\n"
    "          matchExpressions:\n"
    "          - {key: disk, operator: In, values: [ssd]}\n"
    "    podAntiAffinity:\n"
    "      requiredDuringSchedulingIgnoredDuringExecution:\n"
    "      - labelSelector:\n"
    "          matchLabels: {app: web}\n"
    "        topologyKey: kubernetes.io/hostname\n"
    "        matchLabelKeys: [pod-template-hash]\n"
    "      preferredDuringSchedulingIgnoredDuringExecution:\n"
    "      - weight: 50\n"
    "        podAffinityTerm:\n"
    "          labelSelector:\n"
    "            matchExpressions:\n"
    "            - {key: app, operator: Exists}\n"
    "          namespaces: [shop, other]\n"
    "          topologyKey: topology.kubernetes.io/zone\n"
    "          mismatchLabelKeys: [tenant]\n"
    "    podAffinity:\n"
    "      preferredDuringSchedulingIgnoredDuringExecution:\n"
    "      - weight: 10\n"
    "        podAffinityTerm:\n"
    "          labelSelector: {matchLabels: {app: cache}}\n"
    "          namespaceSelector: {}\n"
    "          topologyKey: topology.kubernetes.io/zone\n"
    "  containers:\n"
    "  - image: registry.example.com:5000/shop/web\n"
    "    imagePullPolicy: IfNotPresent\n"
    "    name: web\n"
    "    ports:\n"
    "    - containerPort: 8080\n"
    "      hostPort: 80\n"
    "      name: http\n"
    "      protocol: TCP\n"
    "    - containerPort: 9090\n"
    "      protocol: TCP\n"
    "    - containerPort: 53\n"
    "      hostIP: 10.0.0.1\n"
    "      hostPort: 5353\n"
    "      protocol: UDP\n"
    "    resources:\n"
    "      limits:\n"
    "        cpu: \"1\"\n"
    "        memory: 1Gi\n"
    "      requests:\n"
    "        cpu: 250m\n"
    "        memory: 512Mi\n"
    "    terminationMessagePath: /dev/termination-log\n"
    "    volumeMounts:\n"
    "    - mountPath: /var/run/secrets/kubernetes.io/serviceaccount\n"
    "      name: kube-api-access\n"
    "      readOnly: true\n"
    "  - image: busybox@sha256:3fbc632167424a6d997e74f52b878d7cc478225cffac6bc977eedfe51c7f4e79\n"
    "    name: log\n"
    "  dnsPolicy: ClusterFirst\n"
    "  enableServiceLinks: true\n"
    "  nodeName: node-3\n"
    "  nodeSelector:\n"
    "    disktype: ssd\n"
    "  preemptionPolicy: Never\n"
    "  priority: 1000\n"
    "  priorityClassName: high\n"
    "  restartPolicy: Always\n"
    "  schedulerName: my-scheduler\n"
    "  securityContext: {}\n"
    "  terminationGracePeriodSeconds: 30\n"
    "  tolerations:\n"
    "  - effect: NoExecute\n"
    "    key: node.kubernetes.io/not-ready\n"
    "    operator: Exists\n"
    "    tolerationSeconds: 300\n"
    "  - key: dedicated\n"
    "    value: shop\n"
    "    effect: NoSchedule\n"
    "  - operator: Exists\n"
    "  topologySpreadConstraints:\n"
    "  - maxSkew: 2\n"
    "    topologyKey: topology.kubernetes.io/zone\n"
    "    whenUnsatisfiable: ScheduleAnyway\n"
    "    labelSelector:\n"
    "      matchLabels: {app: web}\n"
    "    minDomains: 3\n"
    "    nodeAffinityPolicy: Ignore\n"
    "    nodeTaintsPolicy: Honor\n"
    "    matchLabelKeys: [pod-template-hash]\n"
    "  - maxSkew: 1\n"
    "    topologyKey: kubernetes.io/hostname\n"
    "    whenUnsatisfiable: DoNotSchedule\n"
    "  volumes:\n"
    "  - name: kube-api-access\n"
    "    projected:\n"
    "      defaultMode: 420\n"
    "status:\n"
    "  conditions:\n"
    "  - lastProbeTime: null\n"
    "    lastTransitionTime: \"2024-01-02T03:04:05Z\"\n"
    "    status: \"True\"\n"
    "    type: Initialized\n"
    "  - lastProbeTime: null\n"
    "    lastTransitionTime: \"2024-01-02T03:04:05Z\"\n"
    "    message: '0/3 nodes are available: 3 Insufficient cpu.'\n"
    "    reason: Unschedulable\n"
    "    status: \"False\"\n"
    "    type: PodScheduled\n"
    "  nominatedNodeName: node-2\n"
    "  phase: Running\n"
    "  qosClass: Burstable\n"
    "  startTime: \"2024-01-02T03:04:06+01:00\"\n";

static void check_kubectl_pod(const ms_pod *p) {
    /* metadata */
    assert_string_equal(T(p->meta.name), "web-1");
    assert_string_equal(T(p->meta.namespace_), "shop");
    assert_string_equal(p->meta.uid, "7c1a4c1e-aaaa-bbbb-cccc-ddddeeeeffff");
    assert_true(p->meta.uid_hash == ms_hash_bytes(p->meta.uid, strlen(p->meta.uid)));
    assert_int_equal(p->meta.labels.n, 3);
    assert_int_equal(ms_labels_get(&p->meta.labels, S("app")), S("web"));
    assert_int_equal(ms_labels_get(&p->meta.labels, S("pod-template-hash")), S("5d9c8b7f4"));
    assert_int_equal(ms_labels_get(&p->meta.labels, S("tier")), MS_STR_EMPTY);
    for (uint32_t i = 1; i < p->meta.labels.n; i++)
        assert_true(p->meta.labels.items[i - 1].key < p->meta.labels.items[i].key);
    assert_int_equal(p->meta.annotations.n, 2);
    assert_string_equal(ms_annotations_get(&p->meta.annotations, S("team")), "payments");
    assert_non_null(strstr(ms_annotations_get(&p->meta.annotations,
                                              S("kubectl.kubernetes.io/last-applied-configuration")),
                           "\"name\":\"web-1\""));
    assert_int_equal(p->meta.nowners, 1);
    const ms_owner_ref *o = ms_meta_controller(&p->meta);
    assert_non_null(o);
    assert_string_equal(T(o->kind), "ReplicaSet");
    assert_string_equal(T(o->name), "web-5d9c8b7f4");
    assert_string_equal(T(o->api_version), "apps/v1");
    assert_string_equal(o->uid, "0b5e3a52-1111-2222-3333-444455556666");
    assert_true(p->meta.creation == 1704164645.0);
    assert_true(p->meta.deletion == 1704164705.5);
    assert_string_equal(p->meta.resource_version, "123456");

    /* spec */
    assert_string_equal(T(p->node_name), "node-3");
    assert_string_equal(T(p->scheduler_name), "my-scheduler");
    assert_true(p->has_priority);
    assert_int_equal(p->priority, 1000);
    assert_int_equal(p->preemption_policy, MS_PREEMPT_NEVER);
    assert_int_equal(p->node_selector.n, 1);
    assert_int_equal(ms_labels_get(&p->node_selector, S("disktype")), S("ssd"));

    assert_true(p->has_node_affinity_required);
    assert_int_equal(p->node_affinity_required.n, 1);
    assert_int_equal(p->node_affinity_required.terms[0].nexpr, 1);
    assert_int_equal(p->node_affinity_required.terms[0].expr[0].key, S("kubernetes.io/arch"));
    assert_int_equal(p->node_affinity_required.terms[0].expr[0].nvalues, 2);
    assert_int_equal(p->nnode_affinity_preferred, 1);
    assert_int_equal(p->node_affinity_preferred[0].weight, 7);
    assert_int_equal(p->node_affinity_preferred[0].term.expr[0].key, S("disk"));

    assert_int_equal(p->pod_anti_affinity.nrequired, 1);
    const ms_pod_affinity_term *t = &p->pod_anti_affinity.required[0];
    assert_false(t->selector.nothing);
    assert_int_equal(t->selector.n, 1);
    assert_int_equal(t->selector.reqs[0].key, S("app"));
    assert_int_equal(t->topology_key, S("kubernetes.io/hostname"));
    assert_int_equal(t->nnamespaces, 0);
    assert_false(t->has_namespace_selector);
    assert_int_equal(t->nmatch_label_keys, 1);
    assert_int_equal(t->match_label_keys[0], S("pod-template-hash"));
    assert_int_equal(t->nmismatch_label_keys, 0);
    assert_int_equal(p->pod_anti_affinity.npreferred, 1);
    const ms_weighted_pod_affinity_term *w = &p->pod_anti_affinity.preferred[0];
    assert_int_equal(w->weight, 50);
    assert_int_equal(w->term.selector.reqs[0].op, MS_OP_EXISTS);
    assert_int_equal(w->term.nnamespaces, 2);
    assert_int_equal(w->term.namespaces[0], S("shop"));
    assert_int_equal(w->term.namespaces[1], S("other"));
    assert_int_equal(w->term.topology_key, S("topology.kubernetes.io/zone"));
    assert_int_equal(w->term.nmismatch_label_keys, 1);
    assert_int_equal(w->term.mismatch_label_keys[0], S("tenant"));
    assert_int_equal(p->pod_affinity.nrequired, 0);
    assert_int_equal(p->pod_affinity.npreferred, 1);
    assert_true(p->pod_affinity.preferred[0].term.has_namespace_selector);
    assert_false(p->pod_affinity.preferred[0].term.namespace_selector.nothing);
    assert_int_equal(p->pod_affinity.preferred[0].term.namespace_selector.n, 0);
    assert_true(ms_pod_has_affinity(p));

    assert_int_equal(p->ntolerations, 3);
    assert_int_equal(p->tolerations[0].key, S("node.kubernetes.io/not-ready"));
    assert_int_equal(p->tolerations[0].op, MS_TOL_EXISTS);
    assert_int_equal(p->tolerations[0].effect, MS_EFFECT_NO_EXECUTE);
    assert_true(p->tolerations[0].has_seconds);
    assert_int_equal(p->tolerations[0].toleration_seconds, 300);
    assert_int_equal(p->tolerations[0].value, MS_STR_NONE);
    assert_int_equal(p->tolerations[1].op, MS_TOL_EQUAL);
    assert_int_equal(p->tolerations[1].value, S("shop"));
    assert_int_equal(p->tolerations[1].effect, MS_EFFECT_NO_SCHEDULE);
    assert_false(p->tolerations[1].has_seconds);
    assert_int_equal(p->tolerations[2].key, MS_STR_NONE);
    assert_int_equal(p->tolerations[2].op, MS_TOL_EXISTS);
    assert_int_equal(p->tolerations[2].effect, MS_EFFECT_NONE);

    assert_int_equal(p->ntopology_spread, 2);
    const ms_topology_spread *sp = &p->topology_spread[0];
    assert_int_equal(sp->max_skew, 2);
    assert_int_equal(sp->topology_key, S("topology.kubernetes.io/zone"));
    assert_int_equal(sp->when_unsatisfiable, MS_SCHEDULE_ANYWAY);
    assert_int_equal(sp->selector.n, 1);
    assert_int_equal(sp->min_domains, 3);
    assert_int_equal(sp->node_affinity_policy, MS_POLICY_IGNORE);
    assert_int_equal(sp->node_taints_policy, MS_POLICY_HONOR);
    assert_int_equal(sp->nmatch_label_keys, 1);
    sp = &p->topology_spread[1];
    assert_int_equal(sp->when_unsatisfiable, MS_DO_NOT_SCHEDULE);
    assert_true(sp->selector.nothing);   /* no labelSelector: matches nothing */
    assert_int_equal(sp->min_domains, 0);
    assert_int_equal(sp->node_affinity_policy, MS_POLICY_UNSET);
    assert_int_equal(sp->node_taints_policy, MS_POLICY_UNSET);

    assert_int_equal(p->nhost_ports, 2);
    assert_int_equal(p->host_ports[0].port, 80);
    assert_int_equal(p->host_ports[0].protocol, MS_PROTO_TCP);
    assert_int_equal(p->host_ports[0].host_ip, MS_STR_NONE);
    assert_int_equal(p->host_ports[1].port, 5353);
    assert_int_equal(p->host_ports[1].protocol, MS_PROTO_UDP);
    assert_int_equal(p->host_ports[1].host_ip, S("10.0.0.1"));

    assert_int_equal(p->nimages, 2);
    assert_int_equal(p->ninit_images, 0);
    assert_string_equal(T(p->images[0]), "registry.example.com:5000/shop/web:latest");
    assert_string_equal(T(p->images[1]),
                        "busybox@sha256:3fbc632167424a6d997e74f52b878d7cc478225cffac6bc977eedfe51c7f4e79");

    assert_int_equal(p->requests.v[MS_RES_CPU], 250);
    assert_int_equal(p->requests.v[MS_RES_MEMORY], 512LL << 20);
    assert_int_equal(p->limits.v[MS_RES_CPU], 1000);
    assert_int_equal(p->limits.v[MS_RES_MEMORY], 1LL << 30);
    assert_int_equal(p->non_zero_cpu, 250 + 100);        /* "log" requests nothing */
    assert_int_equal(p->non_zero_mem, (512LL << 20) + (200LL << 20));
    assert_int_equal(p->qos, MS_QOS_BURSTABLE);

    /* status */
    assert_int_equal(p->phase, MS_PHASE_RUNNING);
    assert_int_equal(p->nominated_node_name, S("node-2"));
    assert_true(p->scheduled_condition_false);
    assert_true(p->start_time == 1704164646.0 - 3600);
}

/* What the descheduler reads from a pod's status and volumes. */
static void test_pod_descheduler_fields(void **state) {
    (void)state;
    fx_env e;
    fx_env_init(&e);
    ms_pod *p = fx_pod(&e.d,
                       "metadata: {name: p}\n"
                       "spec: {containers: [{name: c}], volumes: [{name: a, configMap: {name: x}}, {name: b, emptyDir: {}}]}\n"
                       "status: {phase: Failed, reason: Evicted,\n"
                       "  initContainerStatuses: [{name: i, restartCount: 2, state: {terminated: {reason: Error}}}],\n"
                       "  containerStatuses: [{name: c, restartCount: 3, state: {waiting: {reason: CrashLoopBackOff}}},\n"
                       "                      {name: d, restartCount: 4, state: {running: {}}}]}\n");
    assert_int_equal(p->restarts, 7);
    assert_int_equal(p->init_restarts, 2);
    assert_string_equal(ms_str_get(e.in, p->status_reason), "Evicted");
    assert_int_equal(p->ncontainer_reasons, 2);
    assert_int_equal(p->ninit_reasons, 1);
    assert_string_equal(ms_str_get(e.in, p->container_reasons[0]), "Error");
    assert_string_equal(ms_str_get(e.in, p->container_reasons[1]), "CrashLoopBackOff");
    assert_true(p->crash_loop_back_off);
    assert_true(p->has_local_storage);
    ms_pod_unref(p);
    p = fx_pod(&e.d, "metadata: {name: q}\nspec: {containers: [{name: c}], volumes: [{name: a, emptyDir: null}]}\n");
    assert_false(p->has_local_storage);
    assert_int_equal(p->ncontainer_reasons, 0);
    ms_pod_unref(p);
    ms_error err;
    assert_non_null(fx_pod_error(&e.d, "metadata: {name: r}\nspec: {containers: [{name: c}]}\n"
                                       "status: {containerStatuses: [{name: c, restartCount: -1}]}\n", &err));
    assert_non_null(strstr(err.msg, "status.containerStatuses[0].restartCount"));
    fx_env_free(&e);
}

/* spec_hash: status-only changes keep it; spec, label and annotation
 * changes do not. */
static void test_pod_spec_hash(void **state) {
    (void)state;
    static const char *texts[] = {
        "{\"metadata\":{\"name\":\"p\",\"uid\":\"u\",\"labels\":{\"a\":\"1\"}},\"spec\":{\"containers\":[{\"name\":\"c\"}]}}",
        /* 1: status added (the scheduler's own patch): same */
        "{\"metadata\":{\"name\":\"p\",\"uid\":\"u\",\"labels\":{\"a\":\"1\"},\"resourceVersion\":\"9\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]},"
        "\"status\":{\"conditions\":[{\"type\":\"PodScheduled\",\"status\":\"False\"}]}}",
        /* 2: label value changed */
        "{\"metadata\":{\"name\":\"p\",\"uid\":\"u\",\"labels\":{\"a\":\"2\"}},\"spec\":{\"containers\":[{\"name\":\"c\"}]}}",
        /* 3: spec changed */
        "{\"metadata\":{\"name\":\"p\",\"uid\":\"u\",\"labels\":{\"a\":\"1\"}},\"spec\":{\"containers\":[{\"name\":\"c\"}],\"nodeSelector\":{\"x\":\"y\"}}}",
        /* 4: an annotation added */
        "{\"metadata\":{\"name\":\"p\",\"uid\":\"u\",\"labels\":{\"a\":\"1\"},\"annotations\":{\"k\":\"v\"}},\"spec\":{\"containers\":[{\"name\":\"c\"}]}}",
    };
    uint64_t h[5];
    for (int i = 0; i < 5; i++) {
        ms_pod *p = fx_pod(&env.d, texts[i]);
        assert_non_null(p);
        h[i] = p->spec_hash;
        assert_true(h[i] != 0);
        ms_pod_unref(p);
    }
    assert_true(h[0] == h[1]);
    assert_true(h[0] != h[2]);
    assert_true(h[0] != h[3]);
    assert_true(h[0] != h[4]);
    assert_true(h[2] != h[3]);
}

/* spec.schedulingGates as a 1.30 API server sends it, with the
 * SchedulingGated condition it sets on create; removing a gate changes
 * spec_hash (the update that lets the pod in). */
static void test_scheduling_gates(void **state) {
    (void)state;
    static const char gated[] =
        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"g\",\"namespace\":\"default\","
        "\"uid\":\"4c1d\",\"resourceVersion\":\"812\",\"creationTimestamp\":\"2024-05-02T10:00:00Z\"},"
        "\"spec\":{\"schedulingGates\":[{\"name\":\"example.com/foo\"},{\"name\":\"kueue.x-k8s.io/admission\"}],"
        "\"containers\":[{\"name\":\"pause\",\"image\":\"registry.k8s.io/pause:3.9\"}],"
        "\"schedulerName\":\"default-scheduler\",\"priority\":0,\"preemptionPolicy\":\"PreemptLowerPriority\"},"
        "\"status\":{\"phase\":\"Pending\",\"conditions\":[{\"type\":\"PodScheduled\",\"status\":\"False\","
        "\"lastProbeTime\":null,\"lastTransitionTime\":\"2024-05-02T10:00:00Z\",\"reason\":\"SchedulingGated\","
        "\"message\":\"Scheduling is blocked due to non-empty scheduling gates\"}],\"qosClass\":\"BestEffort\"}}";
    ms_pod *p = fx_pod(&env.d, gated);
    assert_int_equal(p->nscheduling_gates, 2);
    assert_string_equal(T(p->scheduling_gates[0]), "example.com/foo");
    assert_string_equal(T(p->scheduling_gates[1]), "kueue.x-k8s.io/admission");
    assert_true(p->scheduled_condition_false);
    assert_true(p->scheduling_gated_condition);
    uint64_t h = p->spec_hash;
    ms_pod_unref(p);

    p = fx_pod(&env.d, "{\"metadata\":{\"name\":\"g\",\"uid\":\"4c1d\"},\"spec\":{\"schedulingGates\":"
                       "[{\"name\":\"kueue.x-k8s.io/admission\"}],\"containers\":[{\"name\":\"pause\","
                       "\"image\":\"registry.k8s.io/pause:3.9\"}],\"schedulerName\":\"default-scheduler\","
                       "\"priority\":0,\"preemptionPolicy\":\"PreemptLowerPriority\"},"
                       "\"status\":{\"conditions\":[{\"type\":\"PodScheduled\",\"status\":\"False\","
                       "\"reason\":\"Unschedulable\"}]}}");
    assert_int_equal(p->nscheduling_gates, 1);
    assert_true(p->scheduled_condition_false);
    assert_false(p->scheduling_gated_condition);
    assert_true(p->spec_hash != h);
    ms_pod_unref(p);

    /* absent, empty or null: no gates */
    p = fx_pod(&env.d, "metadata: {name: a}\nspec: {schedulingGates: [], containers: [{name: c}]}\n");
    assert_int_equal(p->nscheduling_gates, 0);
    ms_pod_unref(p);
    p = fx_pod(&env.d, "metadata: {name: a}\nspec: {schedulingGates: null, containers: [{name: c}]}\n");
    assert_int_equal(p->nscheduling_gates, 0);
    assert_null(p->scheduling_gates);
    ms_pod_unref(p);
}

/* A preemption victim as a 1.26+ API server returns it once the scheduler
 * has patched it: DisruptionTarget=True, reason PreemptionByScheduler
 * (upstream's podTerminatingByPreemption reads the first one only). */
static void test_disruption_target_condition(void **state) {
    (void)state;
    static const struct {
        const char *conditions;
        bool by_preemption;
    } cases[] = {
        {"[{type: Ready, status: 'True'}, {type: DisruptionTarget, status: 'True', reason: PreemptionByScheduler, "
         "message: 'default-scheduler: preempting to accommodate a higher priority pod'}]",
         true},
        {"[{type: DisruptionTarget, status: 'True', reason: EvictionByEvictionAPI}]", false},
        {"[{type: DisruptionTarget, status: 'False', reason: PreemptionByScheduler}]", false},
        {"[{type: DisruptionTarget, status: 'True'}]", false},
        {"[{type: DisruptionTarget, status: 'True', reason: TerminationByKubelet}, "
         "{type: DisruptionTarget, status: 'True', reason: PreemptionByScheduler}]",
         false},
        {"[]", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char y[512];
        snprintf(y, sizeof y, "metadata: {name: v}\nspec: {containers: [{name: c}]}\nstatus: {conditions: %s}\n",
                 cases[i].conditions);
        ms_pod *p = fx_pod(&env.d, y);
        if (p->disruption_by_preemption != cases[i].by_preemption) fail_msg("case %zu: %s", i, cases[i].conditions);
        ms_pod_unref(p);
    }
}

static void test_kubectl_yaml_pod(void **state) {
    (void)state;
    ms_pod *p = fx_pod(&env.d, KUBECTL_POD);
    check_kubectl_pod(p);
    ms_pod_unref(p);
}

/* The same pod as JSON (converted from the YAML tree) decodes the same. */
static void test_json_pod_same_as_yaml(void **state) {
    (void)state;
    cJSON **docs;
    size_t n;
    ms_error err;
    assert_int_equal(ms_yaml_parse(KUBECTL_POD, strlen(KUBECTL_POD), &docs, &n, &err), MS_OK);
    char *json = cJSON_Print(docs[0]);
    cJSON_Delete(docs[0]);
    free(docs);
    assert_non_null(strstr(json, "\"kind\":\t\"Pod\""));
    ms_pod *p = fx_pod(&env.d, json);
    check_kubectl_pod(p);
    ms_pod_unref(p);
    cJSON_free(json);
}

/* Defaults of a minimal pod. */
static void test_minimal_pod_defaults(void **state) {
    (void)state;
    ms_pod *p = fx_pod(&env.d, "{\"metadata\": {\"name\": \"p\"}}");
    assert_string_equal(T(p->meta.namespace_), "default");
    assert_string_equal(p->meta.uid, "");
    assert_true(p->meta.uid_hash == ms_hash_bytes("default/p", 9));
    assert_string_equal(p->meta.resource_version, "");
    assert_true(p->meta.creation == 0 && p->meta.deletion == 0);
    assert_int_equal(p->scheduler_name, env.d.default_scheduler);
    assert_string_equal(T(p->scheduler_name), "default-scheduler");
    assert_int_equal(p->node_name, MS_STR_NONE);
    assert_false(p->has_priority);
    assert_int_equal(p->priority, 0);
    assert_int_equal(p->preemption_policy, MS_PREEMPT_LOWER_PRIORITY);
    assert_false(p->has_node_affinity_required);
    assert_false(ms_pod_has_affinity(p));
    assert_int_equal(p->ntolerations + p->ntopology_spread + p->nhost_ports + p->nimages, 0);
    assert_int_equal(p->requests.v[MS_RES_CPU], 0);
    assert_int_equal(p->requests.nscalar, 0);
    /* No containers: nothing is requested, the non-zero defaults apply to no
     * container. */
    assert_int_equal(p->non_zero_cpu, 0);
    assert_int_equal(p->non_zero_mem, 0);
    assert_int_equal(p->qos, MS_QOS_BEST_EFFORT);
    assert_int_equal(p->phase, MS_PHASE_PENDING);
    assert_false(p->scheduled_condition_false);
    assert_true(p->start_time == 0);
    assert_null(ms_meta_controller(&p->meta));
    ms_pod_unref(p);

    /* JSON nulls are absent fields (kubectl prints creationTimestamp: null). */
    p = fx_pod(&env.d, "metadata: {name: q, namespace: kube-system, creationTimestamp: null, labels: null}\n"
                       "spec: {nodeName: null, priority: null, containers: null, tolerations: ~}\n"
                       "status: {}\n");
    assert_string_equal(T(p->meta.namespace_), "kube-system");
    assert_true(p->meta.uid_hash == ms_hash_bytes("kube-system/q", 13));
    assert_int_equal(p->meta.labels.n, 0);
    assert_false(p->has_priority);
    ms_pod_unref(p);
}

/* A pod's name is the pod's own: it leaves the interner with the last copy
 * of the pod; a node's name stays. */
static void test_pod_name_goes_with_the_pod(void **state) {
    (void)state;
    ms_pod *p = fx_pod(&env.d, "{\"metadata\": {\"name\": \"short-lived\", \"namespace\": \"ns-stays\"}}");
    ms_pod *again = fx_pod(&env.d, "{\"metadata\": {\"name\": \"short-lived\", \"namespace\": \"ns-stays\"}}");
    assert_int_equal(again->meta.name, p->meta.name);
    ms_pod *bound = ms_pod_with_node(p, S("n1"));
    ms_pod_unref(p);
    ms_pod_unref(again);
    assert_int_equal(ms_intern_find(env.in, "short-lived", 11), bound->meta.name);
    assert_string_equal(T(bound->meta.name), "short-lived");
    ms_pod_unref(bound);
    assert_int_equal(ms_intern_find(env.in, "short-lived", 11), MS_STR_NONE);
    assert_int_not_equal(ms_intern_find(env.in, "ns-stays", 8), MS_STR_NONE);
}

/* Objects with more fields than the decoder indexes at once, and repeated
 * keys in JSON (the last one counts, as in Go's encoding/json). */
static void test_wide_objects(void **state) {
    (void)state;
    char text[4096];
    int n = snprintf(text, sizeof text, "{\"metadata\": {\"name\": \"w\"}, \"spec\": {");
    for (int i = 0; i < 40; i++) n += snprintf(text + n, sizeof text - (size_t)n, "\"x%d\": %d, ", i, i);
    snprintf(text + n, sizeof text - (size_t)n,
             "\"nodeName\": \"far\", \"priority\": 5, \"priority\": 6, \"containers\": "
             "[{\"name\": \"c\", \"resources\": {\"requests\": {\"cpu\": \"1\", \"cpu\": \"2\"}}}]}}");
    ms_pod *p = fx_pod(&env.d, text);
    assert_string_equal(T(p->node_name), "far");
    assert_int_equal(p->priority, 6);
    assert_int_equal(p->requests.v[MS_RES_CPU], 2000);
    ms_pod_unref(p);
    p = fx_pod(&env.d, "{\"metadata\": {\"name\": \"a\", \"name\": \"b\"}, \"spec\": {\"nodeName\": \"x\", \"nodeName\": null}}");
    assert_string_equal(T(p->meta.name), "b");
    assert_int_equal(p->node_name, MS_STR_NONE);
    ms_pod_unref(p);
}

typedef struct res_case {
    const char *name;
    const char *spec;   /* YAML flow mapping of the pod spec */
    int64_t cpu, mem, lim_cpu, lim_mem, nz_cpu, nz_mem;
    int qos;
} res_case;

#define MI (1LL << 20)
#define GI (1LL << 30)

/* Effective requests (upstream PodRequests), limits, non-zero requests and
 * QoS, one pod per row. */
static void test_pod_requests(void **state) {
    (void)state;
    static const res_case cases[] = {
        {"nothing", "{containers: [{name: a}]}", 0, 0, 0, 0, 100, 200 * MI, MS_QOS_BEST_EFFORT},
        {"sum of containers",
         "{containers: [{name: a, resources: {requests: {cpu: 100m, memory: 1Gi}}},"
         "              {name: b, resources: {requests: {cpu: 200m}}}]}",
         300, GI, 0, 0, 300, GI + 200 * MI, MS_QOS_BURSTABLE},
        {"exact YAML numbers",
         "{containers: [{name: a, resources: {requests: {cpu: 0.1, memory: 137438953472}}}]}",
         100, 137438953472LL, 0, 0, 100, 137438953472LL, MS_QOS_BURSTABLE},
        {"sums saturate instead of overflowing",
         "{overhead: {memory: 1E}, containers: [{name: a, resources: {requests: {cpu: 5E, memory: 5E}}},"
         "                                      {name: b, resources: {requests: {memory: 5E}}}]}",
         INT64_MAX, INT64_MAX, 0, 0, INT64_MAX, INT64_MAX, MS_QOS_BURSTABLE},
        {"explicit zero is not defaulted",
         "{containers: [{name: a, resources: {requests: {cpu: 0, memory: 0}}}]}",
         0, 0, 0, 0, 0, 0, MS_QOS_BEST_EFFORT},
        {"init container larger than the sum",
         "{initContainers: [{name: i, resources: {requests: {cpu: 500m, memory: 10Mi}}}],"
         " containers: [{name: a, resources: {requests: {cpu: 100m, memory: 20Mi}}},"
         "              {name: b, resources: {requests: {cpu: 100m, memory: 20Mi}}}]}",
         500, 40 * MI, 0, 0, 500, 40 * MI, MS_QOS_BURSTABLE},
        {"init container without requests counts as the defaults for non-zero",
         "{initContainers: [{name: i}],"
         " containers: [{name: a, resources: {requests: {cpu: 50m, memory: 10Mi}}}]}",
         50, 10 * MI, 0, 0, 100, 200 * MI, MS_QOS_BURSTABLE},
        /* Sidecars (restartPolicy: Always init containers) run beside the
         * containers: added to the sum, and to each later init container. */
        {"sidecar added to containers",
         "{initContainers: [{name: s, restartPolicy: Always, resources: {requests: {cpu: 100m, memory: 100Mi}}},"
         "                  {name: i, resources: {requests: {cpu: 200m, memory: 50Mi}}}],"
         " containers: [{name: a, resources: {requests: {cpu: 300m, memory: 100Mi}}}]}",
         400, 200 * MI, 0, 0, 400, 200 * MI, MS_QOS_BURSTABLE},
        {"init container after a sidecar",
         "{initContainers: [{name: s, restartPolicy: Always, resources: {requests: {cpu: 100m}}},"
         "                  {name: i, resources: {requests: {cpu: 1}}}],"
         " containers: [{name: a, resources: {requests: {cpu: 300m}}}]}",
         1100, 0, 0, 0, 1100, 400 * MI, MS_QOS_BURSTABLE},
        {"init container before a sidecar does not see it",
         "{initContainers: [{name: i, resources: {requests: {cpu: 1}}},"
         "                  {name: s, restartPolicy: Always, resources: {requests: {cpu: 100m}}}],"
         " containers: [{name: a, resources: {requests: {cpu: 300m}}}]}",
         1000, 0, 0, 0, 1000, 400 * MI, MS_QOS_BURSTABLE},
        {"two sidecars and an init container between them",
         "{initContainers: [{name: s1, restartPolicy: Always, resources: {requests: {cpu: 100m}}},"
         "                  {name: i, resources: {requests: {cpu: 150m}}},"
         "                  {name: s2, restartPolicy: Always, resources: {requests: {cpu: 200m}}}],"
         " containers: [{name: a, resources: {requests: {cpu: 10m}}}]}",
         310, 0, 0, 0, 310, 600 * MI, MS_QOS_BURSTABLE},
        {"restartPolicy on a regular container changes nothing",
         "{containers: [{name: a, restartPolicy: Always, resources: {requests: {cpu: 10m}}}]}",
         10, 0, 0, 0, 10, 200 * MI, MS_QOS_BURSTABLE},
        /* API defaulting: limits stand in for missing requests. */
        {"limits only: guaranteed",
         "{containers: [{name: a, resources: {limits: {cpu: 1, memory: 1Gi}}}]}",
         1000, GI, 1000, GI, 1000, GI, MS_QOS_GUARANTEED},
        {"limits with a smaller request",
         "{containers: [{name: a, resources: {requests: {cpu: 500m}, limits: {cpu: 1, memory: 1Gi}}}]}",
         500, GI, 1000, GI, 500, GI, MS_QOS_BURSTABLE},
        {"guaranteed needs cpu and memory",
         "{containers: [{name: a, resources: {limits: {cpu: 1}}}]}",
         1000, 0, 1000, 0, 1000, 200 * MI, MS_QOS_BURSTABLE},
        {"guaranteed and best-effort containers are burstable",
         "{containers: [{name: a, resources: {limits: {cpu: 1, memory: 1Gi}}}, {name: b}]}",
         1000, GI, 1000, GI, 1100, GI + 200 * MI, MS_QOS_BURSTABLE},
        {"guaranteed init container and containers",
         "{initContainers: [{name: i, resources: {limits: {cpu: 2, memory: 1Gi}}}],"
         " containers: [{name: a, resources: {requests: {cpu: 1, memory: 2Gi}, limits: {cpu: 1, memory: 2Gi}}}]}",
         2000, 2 * GI, 2000, 2 * GI, 2000, 2 * GI, MS_QOS_GUARANTEED},
        {"best effort with only an extended resource",
         "{containers: [{name: a, resources: {requests: {example.com/foo: 1}}}]}",
         0, 0, 0, 0, 100, 200 * MI, MS_QOS_BEST_EFFORT},
        /* Overhead: added to requests; to limits only where they are set. */
        {"overhead",
         "{overhead: {cpu: 250m, memory: 120Mi},"
         " containers: [{name: a, resources: {requests: {cpu: 1}, limits: {cpu: 2}}}]}",
         1250, 120 * MI, 2250, 0, 1250, 320 * MI, MS_QOS_BURSTABLE},
        {"overhead on a pod without requests",
         "{overhead: {cpu: 10m}, containers: [{name: a}]}",
         10, 0, 0, 0, 110, 200 * MI, MS_QOS_BEST_EFFORT},
        /* Pod-level resources (spec.resources): they replace the containers'
         * cpu, memory and hugepages totals. */
        {"pod-level requests",
         "{resources: {requests: {cpu: 2, memory: 1Gi}},"
         " containers: [{name: a, resources: {requests: {cpu: 100m, ephemeral-storage: 1Gi}}}, {name: b}]}",
         2000, GI, 0, 0, 2000, GI, MS_QOS_BURSTABLE},
        {"pod-level cpu only: memory default for the pod as a whole",
         "{resources: {requests: {cpu: 2}},"
         " containers: [{name: a, resources: {requests: {memory: 10Mi}}}, {name: b}]}",
         2000, 10 * MI, 0, 0, 2000, 10 * MI, MS_QOS_BURSTABLE},
        {"pod-level cpu only, no memory anywhere",
         "{resources: {requests: {cpu: 2}}, containers: [{name: a}, {name: b}]}",
         2000, 0, 0, 0, 2000, 400 * MI, MS_QOS_BURSTABLE},
        {"pod-level limits default the pod's requests",
         "{resources: {limits: {cpu: 4, memory: 2Gi}},"
         " containers: [{name: a, resources: {requests: {cpu: 1}}}]}",
         1000, 2 * GI, 4000, 2 * GI, 1000, 2 * GI, MS_QOS_BURSTABLE},
        {"pod-level guaranteed",
         "{resources: {limits: {cpu: 4, memory: 2Gi}}, containers: [{name: a}]}",
         4000, 2 * GI, 4000, 2 * GI, 4000, 2 * GI, MS_QOS_GUARANTEED},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const res_case *c = &cases[i];
        char text[1024];
        snprintf(text, sizeof text, "metadata: {name: p}\nspec: %s\n", c->spec);
        ms_pod *p = fx_pod(&env.d, text);
        int64_t got[7] = {p->requests.v[MS_RES_CPU], p->requests.v[MS_RES_MEMORY], p->limits.v[MS_RES_CPU],
                          p->limits.v[MS_RES_MEMORY], p->non_zero_cpu, p->non_zero_mem, p->qos};
        int64_t want[7] = {c->cpu, c->mem, c->lim_cpu, c->lim_mem, c->nz_cpu, c->nz_mem, c->qos};
        for (int k = 0; k < 7; k++)
            if (got[k] != want[k])
                fail_msg("%s: field %d is %lld, want %lld", c->name, k, (long long)got[k], (long long)want[k]);
        ms_pod_unref(p);
    }
}

/* Scalar resources (extended, hugepages, prefixed native) are kept sorted by
 * name id; other unknown names are dropped; status.qosClass wins. */
static void test_scalar_resources(void **state) {
    (void)state;
    ms_str gpu = S("nvidia.com/gpu");
    ms_pod *p = fx_pod(&env.d,
                       "metadata: {name: p}\n"
                       "spec:\n"
                       "  overhead: {hugepages-2Mi: 2Mi}\n"
                       "  initContainers:\n"
                       "  - name: i\n"
                       "    resources: {limits: {nvidia.com/gpu: 4}}\n"
                       "  containers:\n"
                       "  - name: a\n"
                       "    resources:\n"
                       "      requests: {nvidia.com/gpu: 1, hugepages-2Mi: 4Mi, foo: 3, ephemeral-storage: 1Gi, pods: 1}\n"
                       "      limits: {nvidia.com/gpu: 1, hugepages-2Mi: 4Mi}\n"
                       "  - name: b\n"
                       "    resources: {requests: {nvidia.com/gpu: 2, example.com/dongle: 1500m}}\n"
                       "status: {qosClass: Guaranteed}\n");
    ms_str hp = S("hugepages-2Mi"), dongle = S("example.com/dongle");
    assert_int_equal(p->requests.nscalar, 3);
    assert_int_equal(p->requests.cap, 0);
    for (uint32_t i = 1; i < p->requests.nscalar; i++)
        assert_true(p->requests.scalar[i - 1].name < p->requests.scalar[i].name);
    assert_int_equal(ms_resources_scalar(&p->requests, gpu), 4);   /* init 4 > 1 + 2 */
    assert_int_equal(ms_resources_scalar(&p->requests, hp), 6 * MI);
    assert_int_equal(ms_resources_scalar(&p->requests, dongle), 2);   /* Value() rounds up */
    assert_int_equal(ms_resources_scalar(&p->requests, S("foo")), 0);
    assert_int_equal(p->requests.v[MS_RES_EPHEMERAL], GI);
    assert_int_equal(p->requests.v[MS_RES_PODS], 1);
    assert_int_equal(ms_resources_scalar(&p->limits, gpu), 4);
    assert_int_equal(ms_resources_scalar(&p->limits, hp), 6 * MI);
    assert_int_equal(p->qos, MS_QOS_GUARANTEED);
    ms_pod_unref(p);
}

static void test_images_and_ports(void **state) {
    (void)state;
    static const struct { const char *image, *normalized; } images[] = {
        {"nginx", "nginx:latest"},
        {"nginx:1.25", "nginx:1.25"},
        {"library/nginx", "library/nginx:latest"},
        {"localhost:5000/app", "localhost:5000/app:latest"},
        {"localhost:5000/app:v2", "localhost:5000/app:v2"},
        {"gcr.io/x/y@sha256:abcd", "gcr.io/x/y@sha256:abcd"},
    };
    for (size_t i = 0; i < sizeof images / sizeof images[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "{\"metadata\": {\"name\": \"p\"}, \"spec\": {\"containers\": "
                                    "[{\"name\": \"c\", \"image\": \"%s\"}]}}", images[i].image);
        ms_pod *p = fx_pod(&env.d, text);
        assert_int_equal(p->nimages, 1);
        assert_string_equal(T(p->images[0]), images[i].normalized);
        ms_pod_unref(p);
    }
    /* Init containers' images come first, counted apart. */
    ms_pod *ip = fx_pod(&env.d, "{\"metadata\": {\"name\": \"p\"}, \"spec\": {\"initContainers\": [{\"name\": \"i\", "
                                "\"image\": \"setup\"}], \"containers\": [{\"name\": \"c\", \"image\": \"app\"}]}}");
    assert_int_equal(ip->nimages, 2);
    assert_int_equal(ip->ninit_images, 1);
    assert_string_equal(T(ip->images[0]), "setup:latest");
    ms_pod_unref(ip);

    /* Init containers' images count (ImageLocality scores them); a container
     * without an image keeps its place. Ports: sidecars' count, ports of
     * init containers that finish do not. */
    ms_pod *p = fx_pod(&env.d,
                       "metadata: {name: p}\n"
                       "spec:\n"
                       "  initContainers:\n"
                       "  - {name: i, image: init, ports: [{containerPort: 1, hostPort: 1001}]}\n"
                       "  - {name: s, image: 'side:1', restartPolicy: Always,\n"
                       "     ports: [{containerPort: 2, hostPort: 1002, protocol: SCTP}]}\n"
                       "  containers:\n"
                       "  - name: a\n"
                       "    ports: [{containerPort: 3, hostPort: 0}, {containerPort: 4, hostPort: 1004, hostIP: 0.0.0.0}]\n"
                       "  - {name: b, image: app}\n");
    assert_int_equal(p->nimages, 4);
    assert_string_equal(T(p->images[0]), "init:latest");
    assert_string_equal(T(p->images[1]), "side:1");
    assert_int_equal(p->images[2], MS_STR_NONE);
    assert_string_equal(T(p->images[3]), "app:latest");
    assert_int_equal(p->nhost_ports, 2);
    assert_int_equal(p->host_ports[0].port, 1002);
    assert_int_equal(p->host_ports[0].protocol, MS_PROTO_SCTP);
    assert_int_equal(p->host_ports[1].port, 1004);
    assert_int_equal(p->host_ports[1].host_ip, S("0.0.0.0"));
    ms_pod_unref(p);

    /* hostNetwork: container ports are host ports (API defaulting). */
    p = fx_pod(&env.d, "metadata: {name: p}\n"
                       "spec: {hostNetwork: true, containers: [{name: a, ports: [{containerPort: 9100},"
                       " {containerPort: 53, protocol: UDP, hostPort: 5353}]}]}\n");
    assert_int_equal(p->nhost_ports, 2);
    assert_int_equal(p->host_ports[0].port, 9100);
    assert_int_equal(p->host_ports[0].protocol, MS_PROTO_TCP);
    assert_int_equal(p->host_ports[1].port, 5353);
    ms_pod_unref(p);
}

static void test_phases(void **state) {
    (void)state;
    static const struct { const char *phase; int want; } cases[] = {
        {"Pending", MS_PHASE_PENDING}, {"Running", MS_PHASE_RUNNING},
        {"Succeeded", MS_PHASE_SUCCEEDED}, {"Failed", MS_PHASE_FAILED},
        {"Unknown", MS_PHASE_UNKNOWN}, {"", MS_PHASE_PENDING},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "metadata: {name: p}\nstatus: {phase: \"%s\"}\n", cases[i].phase);
        ms_pod *p = fx_pod(&env.d, text);
        assert_int_equal(p->phase, cases[i].want);
        assert_int_equal(ms_pod_is_terminal(p), cases[i].want == MS_PHASE_SUCCEEDED || cases[i].want == MS_PHASE_FAILED);
        ms_pod_unref(p);
    }
    ms_pod *p = fx_pod(&env.d, "metadata: {name: p}\n"
                               "status: {conditions: [{type: PodScheduled, status: 'True'}, {type: Ready, status: 'False'}]}\n");
    assert_false(p->scheduled_condition_false);
    ms_pod_unref(p);
}

static const char *const KUBECTL_NODE =
    "apiVersion: v1\n"
    "kind: Node\n"
    "metadata:\n"
    "  annotations:\n"
    "    node.alpha.kubernetes.io/ttl: \"0\"\n"
    "  creationTimestamp: \"2023-06-01T00:00:00Z\"\n"
    "  labels:\n"
    "    kubernetes.io/arch: amd64\n"
    "    kubernetes.io/hostname: node-1\n"
    "    topology.kubernetes.io/zone: eu-1a\n"
    "  managedFields:\n"
    "  - apiVersion: v1\n"
    "    fieldsType: FieldsV1\n"
    "    fieldsV1: {f:status: {f:images: {}}}\n"
    "    manager: kubelet\n"
    "    operation: Update\n"
    "  name: node-1\n"
    "  resourceVersion: \"42\"\n"
    "  uid: 3d0e8c5e-0000-1111-2222-333344445555\n"
    "spec:\n"
    "  podCIDR: 10.244.1.0/24\n"
    "  taints:\n"
    "  - effect: NoSchedule\n"
    "    key: dedicated\n"
    "    value: gpu\n"
    "  - effect: NoExecute\n"
    "    key: node.kubernetes.io/unreachable\n"
    "    timeAdded: \"2023-06-01T00:00:00Z\"\n"
    "  - effect: PreferNoSchedule\n"
    "    key: spot\n"
    "    value: \"\"\n"
    "  unschedulable: true\n"
    "status:\n"
    "  addresses:\n"
    "  - address: 10.0.0.11\n"
    "    type: InternalIP\n"
    "  allocatable:\n"
    "    cpu: 3800m\n"
    "    ephemeral-storage: \"95551679124\"\n"
    "    hugepages-2Mi: \"0\"\n"
    "    memory: 15270312Ki\n"
    "    nvidia.com/gpu: \"2\"\n"
    "    pods: \"110\"\n"
    "  capacity:\n"
    "    cpu: \"4\"\n"
    "    ephemeral-storage: 103675828Ki\n"
    "    hugepages-2Mi: \"0\"\n"
    "    memory: 16393640Ki\n"
    "    nvidia.com/gpu: \"2\"\n"
    "    pods: \"110\"\n"
    "  conditions:\n"
    "  - lastHeartbeatTime: \"2024-01-02T03:04:05Z\"\n"
    "    message: kubelet is posting ready status\n"
    "    reason: KubeletReady\n"
    "    status: \"True\"\n"
    "    type: Ready\n"
    "  - status: \"False\"\n"
    "    type: MemoryPressure\n"
    "  - status: Unknown\n"
    "    type: DiskPressure\n"
    "  images:\n"
    "  - names:\n"
    "    - registry.k8s.io/etcd@sha256:44a8e24dcbba3470ee1fee21d5e88d128c936e9b55d4bc51fbef8086f8ed123b\n"
    "    - registry.k8s.io/etcd:3.5.9-0\n"
    "    sizeBytes: 102894559\n"
    "  - names:\n"
    "    - docker.io/library/nginx\n"
    "    sizeBytes: 70000000000\n"
    "  nodeInfo:\n"
    "    kubeletVersion: v1.29.0\n";

static void check_kubectl_node(const ms_node *n) {
    assert_string_equal(T(n->meta.name), "node-1");
    assert_int_equal(n->meta.namespace_, MS_STR_NONE);
    assert_string_equal(n->meta.uid, "3d0e8c5e-0000-1111-2222-333344445555");
    assert_int_equal(n->meta.labels.n, 3);
    assert_int_equal(ms_labels_get(&n->meta.labels, S("topology.kubernetes.io/zone")), S("eu-1a"));
    assert_string_equal(ms_annotations_get(&n->meta.annotations, S("node.alpha.kubernetes.io/ttl")), "0");
    assert_true(n->meta.creation == 1685577600.0);
    assert_string_equal(n->meta.resource_version, "42");
    assert_true(n->unschedulable);

    assert_int_equal(n->ntaints, 3);
    assert_int_equal(n->taints[0].key, S("dedicated"));
    assert_int_equal(n->taints[0].value, S("gpu"));
    assert_int_equal(n->taints[0].effect, MS_EFFECT_NO_SCHEDULE);
    assert_string_equal(n->taints[0].reason, "node(s) had untolerated taint {dedicated: gpu}");
    assert_int_equal(n->taints[1].value, MS_STR_NONE);
    assert_int_equal(n->taints[1].effect, MS_EFFECT_NO_EXECUTE);
    /* timeAdded, which the taint eviction controller counts from */
    assert_true(n->taints[1].time_added == 1685577600.0);
    assert_true(n->taints[0].time_added == 0);
    assert_string_equal(n->taints[1].reason, "node(s) had untolerated taint {node.kubernetes.io/unreachable: }");
    assert_int_equal(n->taints[2].value, MS_STR_NONE);
    assert_int_equal(n->taints[2].effect, MS_EFFECT_PREFER_NO_SCHEDULE);
    assert_string_equal(n->taints[2].reason, "node(s) had untolerated taint {spot: }");

    assert_int_equal(n->capacity.v[MS_RES_CPU], 4000);
    assert_int_equal(n->capacity.v[MS_RES_MEMORY], 16393640LL * 1024);
    assert_int_equal(n->capacity.v[MS_RES_EPHEMERAL], 103675828LL * 1024);
    assert_int_equal(n->capacity.v[MS_RES_PODS], 110);
    assert_int_equal(n->allocatable.v[MS_RES_CPU], 3800);
    assert_int_equal(n->allocatable.v[MS_RES_MEMORY], 15270312LL * 1024);
    assert_int_equal(n->allocatable.v[MS_RES_EPHEMERAL], 95551679124LL);
    assert_int_equal(n->allocatable.v[MS_RES_PODS], 110);
    assert_int_equal(n->allocatable.nscalar, 2);
    assert_int_equal(ms_resources_scalar(&n->allocatable, S("nvidia.com/gpu")), 2);
    assert_int_equal(ms_resources_scalar(&n->allocatable, S("hugepages-2Mi")), 0);
    assert_int_equal(ms_resources_get(&n->allocatable, &env.d.rn, S("cpu")), 3800);

    assert_int_equal(n->nconditions, 3);
    assert_int_equal(n->conditions[0].type, S("Ready"));
    assert_int_equal(n->conditions[0].status, MS_COND_TRUE);
    assert_int_equal(n->conditions[1].status, MS_COND_FALSE);
    assert_int_equal(n->conditions[2].status, MS_COND_UNKNOWN);

    assert_int_equal(n->nimages, 2);
    assert_int_equal(n->images[0].nnames, 2);
    assert_string_equal(T(n->images[0].names[1]), "registry.k8s.io/etcd:3.5.9-0");
    assert_int_equal(n->images[0].size_bytes, 102894559);
    assert_string_equal(T(n->images[1].names[0]), "docker.io/library/nginx:latest");
    assert_int_equal(n->images[1].size_bytes, 70000000000LL);
}

static void test_kubectl_node(void **state) {
    (void)state;
    ms_node *n = fx_node(&env.d, KUBECTL_NODE);
    check_kubectl_node(n);
    ms_node_unref(n);

    cJSON **docs;
    size_t nd;
    ms_error err;
    assert_int_equal(ms_yaml_parse(KUBECTL_NODE, strlen(KUBECTL_NODE), &docs, &nd, &err), MS_OK);
    char *json = cJSON_PrintUnformatted(docs[0]);
    cJSON_Delete(docs[0]);
    free(docs);
    n = fx_node(&env.d, json);
    check_kubectl_node(n);
    ms_node_unref(n);
    cJSON_free(json);
}

static void test_node_defaults(void **state) {
    (void)state;
    /* No allocatable: all of capacity is allocatable (API defaulting). */
    ms_node *n = fx_node(&env.d, "metadata: {name: n1, namespace: ignored}\n"
                                 "status: {capacity: {cpu: 2, memory: 4Gi, example.com/x: 3}}\n");
    assert_int_equal(n->meta.namespace_, MS_STR_NONE);
    assert_true(n->meta.uid_hash == ms_hash_bytes("n1", 2));
    assert_false(n->unschedulable);
    assert_int_equal(n->ntaints + n->nimages + n->nconditions, 0);
    assert_int_equal(n->allocatable.v[MS_RES_CPU], 2000);
    assert_int_equal(n->allocatable.v[MS_RES_MEMORY], 4 * GI);
    assert_int_equal(ms_resources_scalar(&n->allocatable, S("example.com/x")), 3);
    ms_node_unref(n);

    /* An empty allocatable is not defaulted. */
    n = fx_node(&env.d, "metadata: {name: n2}\nstatus: {capacity: {cpu: 2}, allocatable: {}}\n");
    assert_int_equal(n->capacity.v[MS_RES_CPU], 2000);
    assert_int_equal(n->allocatable.v[MS_RES_CPU], 0);
    ms_node_unref(n);
}

typedef struct load_ctx {
    int pods, nodes, other;
    char kinds[256];
    const ms_decoder *d;
    ms_pod *last_pod;
} load_ctx;

static ms_rc count_cb(void *ctx, const char *kind, const cJSON *obj, ms_error *err) {
    load_ctx *c = ctx;
    size_t used = strlen(c->kinds);
    snprintf(c->kinds + used, sizeof c->kinds - used, "%s%s", used ? "," : "", kind);
    if (strcmp(kind, "Pod") == 0) {
        ms_pod *p;
        ms_rc rc = ms_pod_decode(c->d, obj, &p, err);
        if (rc != MS_OK) return rc;
        ms_pod_unref(c->last_pod);
        c->last_pod = p;
        c->pods++;
    } else if (strcmp(kind, "Node") == 0) {
        ms_node *n;
        ms_rc rc = ms_node_decode(c->d, obj, &n, err);
        if (rc != MS_OK) return rc;
        ms_node_unref(n);
        c->nodes++;
    } else {
        c->other++;
    }
    return MS_OK;
}

static ms_rc load(const char *text, load_ctx *c, ms_error *err) {
    memset(c, 0, sizeof *c);
    c->d = &env.d;
    ms_rc rc = ms_load_objects_buffer("cluster.yaml", text, strlen(text), count_cb, c, err);
    ms_pod_unref(c->last_pod);
    c->last_pod = NULL;
    return rc;
}

/* Lists, typed lists whose items have no kind, streams, empty documents. */
static void test_loader(void **state) {
    (void)state;
    load_ctx c;
    ms_error err;
    assert_int_equal(load("---\n"
                          "apiVersion: v1\n"
                          "kind: List\n"
                          "items:\n"
                          "- {kind: Node, metadata: {name: n1}}\n"
                          "- {kind: Pod, metadata: {name: p1}}\n"
                          "- kind: List\n"
                          "  items: [{kind: Pod, metadata: {name: p2}}]\n"
                          "metadata: {resourceVersion: \"\"}\n"
                          "---\n"
                          "# empty\n"
                          "---\n"
                          "kind: Namespace\n"
                          "metadata: {name: shop}\n"
                          "...\n"
                          "---\n"
                          "kind: NodeList\n"
                          "items:\n"
                          "- metadata: {name: n2}\n"
                          "- metadata: {name: n3}\n"
                          "---\n"
                          "kind: PodList\n"
                          "items: []\n",
                          &c, &err),
                     MS_OK);
    assert_int_equal(c.pods, 2);
    assert_int_equal(c.nodes, 3);
    assert_int_equal(c.other, 1);
    assert_string_equal(c.kinds, "Node,Pod,Pod,Namespace,Node,Node");

    /* JSON, as the API server sends a PodList, and a stream of objects. */
    assert_int_equal(load("{\"kind\": \"PodList\", \"apiVersion\": \"v1\", \"metadata\": {},"
                          " \"items\": [{\"metadata\": {\"name\": \"a\"}}, {\"metadata\": {\"name\": \"b\"}}]}\n"
                          "{\"kind\": \"Node\", \"metadata\": {\"name\": \"n\"}}",
                          &c, &err),
                     MS_OK);
    assert_int_equal(c.pods, 2);
    assert_int_equal(c.nodes, 1);

    /* YAML flow style starting with a brace is still YAML. */
    assert_int_equal(load("{kind: Pod, metadata: {name: a}}\n", &c, &err), MS_OK);
    assert_int_equal(c.pods, 1);
    assert_int_equal(load("", &c, &err), MS_OK);
    assert_int_equal(c.pods + c.nodes + c.other, 0);

    static const struct { const char *text, *msg; } errors[] = {
        {"kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, resources: {requests: {cpu: 1x}}}]}\n",
         "cluster.yaml: Pod default/p: spec.containers[0].resources.requests.cpu: \"1x\": quantities must match "
         "the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
        {"kind: Node\nmetadata: {name: n}\n---\nkind: Node\nmetadata: {name: m}\nspec: {taints: [{key: k, effect: Foo}]}\n",
         "cluster.yaml: document 2: Node m: spec.taints[0].effect: Unsupported value: \"Foo\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\""},
        {"metadata: {name: x}\n", "cluster.yaml: Object 'Kind' is missing"},
        {"kind: List\nitems: [{kind: Pod, metadata: {name: a}}, {metadata: {name: b}}]\n",
         "cluster.yaml: items[1]: Object 'Kind' is missing"},
        {"kind: List\nitems: [3]\n", "cluster.yaml: items[0]: expected an object, got number"},
        {"kind: List\nitems: {}\n", "cluster.yaml: items: expected array, got object"},
        {"kind: 3\n", "cluster.yaml: kind: expected string, got number"},
        {"- kind: Pod\n", "cluster.yaml: expected an object, got array"},
        {"kind: Pod\nmetadata:\n  name: a\n name: b\n",
         "cluster.yaml: line 4, column 2: did not find expected key (while parsing a block mapping at line 1)"},
        {"{\"kind\": \"Pod\",\n \"metadata\": {\"name\": \"a\" \"b\"}}",
         "cluster.yaml: line 2, column 27: invalid JSON near `\"b\"}}`"},
    };
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++) {
        ms_rc rc = load(errors[i].text, &c, &err);
        assert_int_equal(rc, MS_EINVAL);
        if (strcmp(err.msg, errors[i].msg) != 0)
            fail_msg("case %zu: got \"%s\", want \"%s\"", i, err.msg, errors[i].msg);
    }

    /* Files. */
    char path[] = "/tmp/ms_test_decode_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *text = "kind: Pod\nmetadata: {name: f}\n---\nkind: Node\nmetadata: {name: g}\n";
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    memset(&c, 0, sizeof c);
    c.d = &env.d;
    assert_int_equal(ms_load_objects_file(path, count_cb, &c, &err), MS_OK);
    assert_int_equal(c.pods, 1);
    assert_int_equal(c.nodes, 1);
    ms_pod_unref(c.last_pod);
    unlink(path);
    assert_int_equal(ms_load_objects_file(path, count_cb, &c, &err), MS_EIO);
    assert_non_null(strstr(err.msg, "No such file or directory"));
    assert_non_null(strstr(err.msg, path));
}

/* Malformed fields: the message names the object and the field path. */
static void test_errors(void **state) {
    (void)state;
    static const struct { const char *text, *msg; } pods[] = {
        {"metadata: {name: web-1}\nspec: {containers: [{name: c, resources: {requests: {cpu: \"1x\"}}}]}\n",
         "Pod default/web-1: spec.containers[0].resources.requests.cpu: \"1x\": quantities must match the "
         "regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
        {"metadata: {name: w, namespace: ns}\nspec: {initContainers: [{name: c}, {name: d, resources: {limits: {memory: 1mi}}}]}\n",
         "Pod ns/w: spec.initContainers[1].resources.limits.memory: \"1mi\": unable to parse quantity's suffix"},
        {"metadata: {name: w}\nspec: {overhead: {cpu: [1]}}\n",
         "Pod default/w: spec.overhead.cpu: expected quantity (string or number), got array"},
        {"metadata: {name: w}\nspec: {containers: {name: c}}\n",
         "Pod default/w: spec.containers: expected array, got object"},
        {"metadata: {name: w}\nspec: {containers: [3]}\n",
         "Pod default/w: spec.containers[0]: expected object, got number"},
        {"metadata: {name: w}\nspec: {priority: \"high\"}\n",
         "Pod default/w: spec.priority: expected integer, got string"},
        {"metadata: {name: w}\nspec: {priority: 3000000000}\n",
         "Pod default/w: spec.priority: Invalid value: 3000000000: expected an integer in [-2147483648, 2147483647]"},
        {"metadata: {name: w}\nspec: {priority: 1.5}\n",
         "Pod default/w: spec.priority: Invalid value: 1.5: expected an integer in [-2147483648, 2147483647]"},
        {"metadata: {name: w}\nspec: {nodeName: 7}\n", "Pod default/w: spec.nodeName: expected string, got number"},
        {"metadata: {name: w}\nspec: {hostNetwork: \"true\"}\n",
         "Pod default/w: spec.hostNetwork: expected boolean, got string"},
        {"metadata: {name: w}\nspec: {preemptionPolicy: Sometimes}\n",
         "Pod default/w: spec.preemptionPolicy: Unsupported value: \"Sometimes\": "
         "supported values: \"Never\", \"PreemptLowerPriority\""},
        {"metadata: {name: w}\nspec: {schedulingGates: [{name: a}, {}]}\n",
         "Pod default/w: spec.schedulingGates[1].name: Required value"},
        {"metadata: {name: w}\nspec: {schedulingGates: [gate]}\n",
         "Pod default/w: spec.schedulingGates[0]: expected object, got string"},
        {"metadata: {name: w}\nspec: {schedulingGates: {name: a}}\n",
         "Pod default/w: spec.schedulingGates: expected array, got object"},
        {"metadata: {name: w}\nspec: {tolerations: [{key: a}, {operator: Maybe}]}\n",
         "Pod default/w: spec.tolerations[1].operator: Unsupported value: \"Maybe\": supported values: \"Equal\", \"Exists\""},
        {"metadata: {name: w}\nspec: {tolerations: [{key: a, effect: NoWay}]}\n",
         "Pod default/w: spec.tolerations[0].effect: Unsupported value: \"NoWay\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\""},
        {"metadata: {name: w}\nspec: {tolerations: [{key: a, tolerationSeconds: soon}]}\n",
         "Pod default/w: spec.tolerations[0].tolerationSeconds: expected integer, got string"},
        {"metadata: {name: w}\nspec: {topologySpreadConstraints: [{maxSkew: 1, whenUnsatisfiable: Never}]}\n",
         "Pod default/w: spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: \"Never\": "
         "supported values: \"DoNotSchedule\", \"ScheduleAnyway\""},
        {"metadata: {name: w}\nspec: {topologySpreadConstraints: [{maxSkew: 1, nodeTaintsPolicy: Always}]}\n",
         "Pod default/w: spec.topologySpreadConstraints[0].nodeTaintsPolicy: Unsupported value: \"Always\": "
         "supported values: \"Honor\", \"Ignore\""},
        {"metadata: {name: w}\nspec: {containers: [{name: c, ports: [{containerPort: 80, protocol: HTTP}]}]}\n",
         "Pod default/w: spec.containers[0].ports[0].protocol: Unsupported value: \"HTTP\": "
         "supported values: \"SCTP\", \"TCP\", \"UDP\""},
        {"metadata: {name: w}\nspec: {containers: [{name: c, image: 5}]}\n",
         "Pod default/w: spec.containers[0].image: expected string, got number"},
        {"metadata: {name: w}\nspec: {affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: k, namespaces: [a, 1]}]}}}\n",
         "Pod default/w: spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].namespaces[1]: "
         "expected string, got number"},
        {"metadata: {name: w}\nspec: {affinity: {podAntiAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1}]}}}\n",
         "Pod default/w: spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm: "
         "Required value"},
        {"metadata: {name: w}\nspec: {affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: x}]}}}\n",
         "Pod default/w: spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: "
         "expected integer, got string"},
        {"metadata: {name: w}\nspec: {nodeSelector: {disk: 1}}\n",
         "Pod default/w: spec.nodeSelector.disk: expected string, got number"},
        {"metadata: {name: w, labels: {app: true}}\n", "Pod default/w: metadata.labels.app: expected string, got boolean"},
        {"metadata: {name: w, annotations: {a: [x]}}\n",
         "Pod default/w: metadata.annotations.a: expected string, got array"},
        {"metadata: {name: w, ownerReferences: [{kind: ReplicaSet, controller: yes}]}\n",
         "Pod default/w: metadata.ownerReferences[0].controller: expected boolean, got string"},
        {"metadata: {name: w, creationTimestamp: \"yesterday\"}\n",
         "Pod default/w: metadata.creationTimestamp: Invalid value: \"yesterday\": not an RFC 3339 timestamp"},
        {"metadata: {name: w, namespace: 5}\n", "Pod default/w: metadata.namespace: expected string, got number"},
        {"metadata: {namespace: ns}\n", "Pod (no name): metadata.name: Required value"},
        {"metadata: {name: 5}\n", "Pod (no name): metadata.name: expected string, got number"},
        {"metadata: []\n", "Pod (no name): metadata: expected object, got array"},
        {"spec: {}\n", "Pod (no name): metadata.name: Required value"},
        {"metadata: {name: w}\nspec: []\n", "Pod default/w: spec: expected object, got array"},
        {"metadata: {name: w}\nstatus: {phase: Sleeping}\n", "Pod default/w: status.phase: Unsupported value: \"Sleeping\": "
         "supported values: \"Pending\", \"Running\", \"Succeeded\", \"Failed\", \"Unknown\""},
        {"metadata: {name: w}\nstatus: {startTime: 2024}\n", "Pod default/w: status.startTime: expected string, got number"},
        {"metadata: {name: w}\nstatus: {qosClass: 1}\n", "Pod default/w: status.qosClass: expected string, got number"},
        {"metadata: {name: w}\nstatus: {conditions: [{type: PodScheduled, status: false}]}\n",
         "Pod default/w: status.conditions[0].status: expected string, got boolean"},
        {"metadata: {name: w}\nstatus: {conditions: [{type: Ready, status: 'True'}, {type: DisruptionTarget, "
         "status: 'True', reason: [PreemptionByScheduler]}]}\n",
         "Pod default/w: status.conditions[1].reason: expected string, got array"},
        {"metadata: {name: w}\nstatus: {conditions: [{type: 7}]}\n",
         "Pod default/w: status.conditions[0].type: expected string, got number"},
        {"metadata: {name: w}\nspec: {volumes: {name: v}}\n", "Pod default/w: spec.volumes: expected array, got object"},
        {"metadata: {name: w}\nspec: {volumes: [{name: a}, x]}\n",
         "Pod default/w: spec.volumes[1]: expected object, got string"},
        {"metadata: {name: w}\nspec: {volumes: [{name: 1}]}\n", "Pod default/w: spec.volumes[0].name: expected string, got number"},
        {"metadata: {name: w}\nspec: {volumes: [{name: v, gcePersistentDisk: foo}]}\n",
         "Pod default/w: spec.volumes[0].gcePersistentDisk: expected object, got string"},
        {"metadata: {name: w}\nspec: {volumes: [{name: v, gcePersistentDisk: {pdName: foo, readOnly: \"yes\"}}]}\n",
         "Pod default/w: spec.volumes[0].gcePersistentDisk.readOnly: expected boolean, got string"},
        {"metadata: {name: w}\nspec: {volumes: [{name: v, awsElasticBlockStore: {volumeID: 7}}]}\n",
         "Pod default/w: spec.volumes[0].awsElasticBlockStore.volumeID: expected string, got number"},
        {"metadata: {name: w}\nspec: {volumes: [{name: v, rbd: {monitors: [a, 1], image: i}}]}\n",
         "Pod default/w: spec.volumes[0].rbd.monitors[1]: expected string, got number"},
        {"metadata: {name: w}\nspec: {volumes: [{name: v, rbd: {monitors: a}}]}\n",
         "Pod default/w: spec.volumes[0].rbd.monitors: expected array, got string"},
        {"metadata: {name: w}\nspec: {volumes: [{name: v, iscsi: {iqn: q, lun: one}}]}\n",
         "Pod default/w: spec.volumes[0].iscsi.lun: expected integer, got string"},
        {"metadata: {name: w}\nspec: {volumes: [{name: v, persistentVolumeClaim: {claimName: [c]}}]}\n",
         "Pod default/w: spec.volumes[0].persistentVolumeClaim.claimName: expected string, got array"},
        {"metadata: {name: w}\nspec: {volumes: [{name: v, emptyDir: {}, cinder: 3}]}\n",
         "Pod default/w: spec.volumes[0].cinder: expected object, got number"},
        {"metadata: {name: w}\nspec: {resources: {requests: {cpu: -x}}}\n",
         "Pod default/w: spec.resources.requests.cpu: \"-x\": quantities must match the regular expression "
         "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
    };
    ms_error err;
    for (size_t i = 0; i < sizeof pods / sizeof pods[0]; i++) {
        const char *msg = fx_pod_error(&env.d, pods[i].text, &err);
        assert_int_equal(err.rc, MS_EINVAL);
        if (strcmp(msg, pods[i].msg) != 0) fail_msg("pod case %zu: got \"%s\", want \"%s\"", i, msg, pods[i].msg);
    }
    static const struct { const char *text, *msg; } nodes[] = {
        {"metadata: {name: n1}\nspec: {taints: [{key: a, effect: Foo}]}\n",
         "Node n1: spec.taints[0].effect: Unsupported value: \"Foo\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\""},
        {"metadata: {name: n1}\nspec: {taints: [{key: a}]}\n", "Node n1: spec.taints[0].effect: Required value"},
        {"metadata: {name: n1}\nspec: {taints: [{effect: NoSchedule}]}\n", "Node n1: spec.taints[0].key: Required value"},
        {"metadata: {name: n1}\nspec: {unschedulable: 1}\n", "Node n1: spec.unschedulable: expected boolean, got number"},
        {"metadata: {name: n1}\nstatus: {capacity: {cpu: lots}}\n",
         "Node n1: status.capacity.cpu: \"lots\": quantities must match the regular expression "
         "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
        {"metadata: {name: n1}\nstatus: {allocatable: [cpu]}\n",
         "Node n1: status.allocatable: expected object, got array"},
        {"metadata: {name: n1}\nstatus: {images: [{names: [a, 3]}]}\n",
         "Node n1: status.images[0].names[1]: expected string, got number"},
        {"metadata: {name: n1}\nstatus: {images: [{names: [a], sizeBytes: 1.5}]}\n",
         "Node n1: status.images[0].sizeBytes: Invalid value: 1.5: expected an integer in "
         "[-9223372036854775808, 9223372036854775807]"},
        {"metadata: {name: n1}\nstatus: {conditions: [{type: 3}]}\n",
         "Node n1: status.conditions[0].type: expected string, got number"},
        {"metadata: {name: \"\"}\n", "Node (no name): metadata.name: Required value"},
    };
    for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
        const char *msg = fx_node_error(&env.d, nodes[i].text, &err);
        if (strcmp(msg, nodes[i].msg) != 0) fail_msg("node case %zu: got \"%s\", want \"%s\"", i, msg, nodes[i].msg);
    }

    /* Not an object at all. */
    cJSON *arr = cJSON_CreateArray();
    ms_pod *p = (ms_pod *)1;
    assert_int_equal(ms_pod_decode(&env.d, arr, &p, &err), MS_EINVAL);
    assert_null(p);
    assert_string_equal(err.msg, "Pod: expected an object, got array");
    ms_node *n = (ms_node *)1;
    assert_int_equal(ms_node_decode(&env.d, NULL, &n, &err), MS_EINVAL);
    assert_null(n);
    assert_string_equal(err.msg, "Node: expected an object, got nothing");
    cJSON_Delete(arr);
}

/* A bad value is quoted in its error as Go's %q writes it, and a huge one
 * is cut: each decoder that judges a value says which. */
static void test_errors_quote_the_value(void **state) {
    (void)state;
    enum { BIG = 10240 };
    char *big = tu_repeat("", 'v', BIG, ""), *yaml = malloc(BIG + 512), want[160];
    assert_non_null(yaml);
    char cut[MS_QUOTE_KEEP + 1];
    memset(cut, 'v', MS_QUOTE_KEEP);
    cut[MS_QUOTE_KEEP] = '\0';
    static const struct { bool node; const char *fmt, *path, *after; } cases[] = {
        {false, "metadata: {name: w}\nspec: {preemptionPolicy: %s}\n", "Pod default/w: spec.preemptionPolicy",
         ": Unsupported value: \"%s...\": supported values: \"Never\", \"PreemptLowerPriority\""},
        {false, "metadata: {name: w, creationTimestamp: %s}\n", "Pod default/w: metadata.creationTimestamp",
         ": Invalid value: \"%s...\": not an RFC 3339 timestamp"},
        {false, "metadata: {name: w}\nspec: {containers: [{name: c, resources: {requests: {cpu: %s}}}]}\n",
         "Pod default/w: spec.containers[0].resources.requests.cpu", ": \"%s...\": quantities must match"},
        {false, "metadata: {name: w}\nspec: {containers: [{name: c, ports: [{containerPort: 1, protocol: %s}]}]}\n",
         "Pod default/w: spec.containers[0].ports[0].protocol", ": Unsupported value: \"%s...\": supported values: "},
        {true, "metadata: {name: n}\nspec: {taints: [{key: k, effect: %s}]}\n", "Node n: spec.taints[0].effect",
         ": Unsupported value: \"%s...\": supported values: \"NoSchedule\""},
        {true, "metadata: {name: n}\nstatus: {allocatable: {memory: %s}}\n", "Node n: status.allocatable.memory",
         ": \"%s...\": quantities must match"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_error err;
        snprintf(yaml, BIG + 512, cases[i].fmt, big);
        const char *msg = cases[i].node ? fx_node_error(&env.d, yaml, &err) : fx_pod_error(&env.d, yaml, &err);
        size_t plen = strlen(cases[i].path);
        snprintf(want, sizeof want, cases[i].after, cut);
        if (strncmp(msg, cases[i].path, plen) != 0 || strncmp(msg + plen, want, strlen(want)) != 0)
            fail_msg("case %zu: got \"%.300s\"", i, msg);
        assert_true(strlen(msg) < 512);
    }
    /* quotes and control bytes are escaped, not written raw */
    ms_error err;
    const char *msg = fx_pod_error(&env.d, "metadata: {name: w}\nspec: {preemptionPolicy: \"a\\\"b\\n\"}\n", &err);
    assert_string_equal(msg, "Pod default/w: spec.preemptionPolicy: Unsupported value: \"a\\\"b\\n\": "
                             "supported values: \"Never\", \"PreemptLowerPriority\"");
    free(big);
    free(yaml);
}

/* spec.volumes: the kinds the volume plugins compare, with their identity
 * fields; other kinds only counted. */
static void test_volumes(void **state) {
    (void)state;
    ms_pod *p = fx_pod(&env.d,
                       "metadata: {name: db-0, namespace: ns}\n"
                       "spec:\n"
                       "  volumes:\n"
                       "  - {name: cfg, configMap: {name: c}}\n"
                       "  - {name: pd, gcePersistentDisk: {pdName: disk-1, fsType: ext4, readOnly: true}}\n"
                       "  - {name: ebs, awsElasticBlockStore: {volumeID: \"aws://us-east-1a/vol-1\"}}\n"
                       "  - {name: ceph, rbd: {monitors: [\"10.0.0.1:6789\", \"10.0.0.2:6789\"], image: img}}\n"
                       "  - {name: tgt, iscsi: {targetPortal: \"10.0.0.9:3260\", iqn: \"iqn.2001-04.com.example:t\","
                       " lun: 3, readOnly: true}}\n"
                       "  - {name: data, persistentVolumeClaim: {claimName: data-db-0}}\n"
                       "  - {name: scratch, ephemeral: {volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce]}}}}\n"
                       "  - {name: az, azureDisk: {diskName: d, diskURI: u}}\n"
                       "  - {name: tmp, emptyDir: {}}\n"
                       "  - {name: tok, projected: {sources: []}}\n"
                       "  - {name: gone, gcePersistentDisk: null}\n");
    assert_int_equal(p->nvolumes, 7);
    assert_int_equal(p->nother_volumes, 4);
    const ms_volume *v = p->volumes;
    assert_int_equal(v[0].kind, MS_VOL_GCE_PD);
    assert_string_equal(T(v[0].name), "pd");
    assert_string_equal(T(v[0].id), "disk-1");
    assert_true(v[0].read_only);
    assert_int_equal(v[1].kind, MS_VOL_AWS_EBS);
    assert_string_equal(T(v[1].id), "aws://us-east-1a/vol-1");
    assert_false(v[1].read_only);
    assert_int_equal(v[2].kind, MS_VOL_RBD);
    assert_string_equal(T(v[2].id), "img");
    assert_string_equal(T(v[2].pool), "rbd");   /* API default */
    assert_int_equal(v[2].nmonitors, 2);
    assert_string_equal(T(v[2].monitors[1]), "10.0.0.2:6789");
    assert_false(v[2].read_only);
    assert_int_equal(v[3].kind, MS_VOL_ISCSI);
    assert_string_equal(T(v[3].id), "iqn.2001-04.com.example:t");
    assert_string_equal(T(v[3].target_portal), "10.0.0.9:3260");
    assert_int_equal(v[3].lun, 3);
    assert_true(v[3].read_only);
    assert_int_equal(v[4].kind, MS_VOL_PVC);
    assert_string_equal(T(v[4].id), "data-db-0");
    assert_false(v[4].read_only);
    assert_int_equal(v[5].kind, MS_VOL_EPHEMERAL);
    assert_string_equal(T(v[5].id), "db-0-scratch");   /* <pod>-<volume> */
    assert_int_equal(v[6].kind, MS_VOL_CSI_MIGRATABLE);
    assert_string_equal(T(v[6].name), "az");
    ms_pod_unref(p);

    /* Absent or empty: nothing, and no array. */
    p = fx_pod(&env.d, "metadata: {name: a}\nspec: {volumes: []}\n");
    assert_int_equal(p->nvolumes, 0);
    assert_null(p->volumes);
    assert_int_equal(p->nother_volumes, 0);
    ms_pod_unref(p);
    p = fx_pod(&env.d, "metadata: {name: a}\nspec: {volumes: [{name: x, secret: {secretName: s}}]}\n");
    assert_int_equal(p->nvolumes, 0);
    assert_null(p->volumes);
    assert_int_equal(p->nother_volumes, 1);
    ms_pod_unref(p);

    /* Explicit pool; empty identity fields are MS_STR_NONE. */
    p = fx_pod(&env.d, "metadata: {name: a}\nspec: {volumes: [{name: x, rbd: {monitors: [m], pool: kube,"
                       " image: \"\", readOnly: true}}]}\n");
    assert_int_equal(p->nvolumes, 1);
    assert_string_equal(T(p->volumes[0].pool), "kube");
    assert_int_equal(p->volumes[0].id, MS_STR_NONE);
    assert_true(p->volumes[0].read_only);
    ms_pod_unref(p);
}

/* Selector errors from the selector module get the object's name. */
static void test_selector_errors(void **state) {
    (void)state;
    ms_error err;
    const char *msg = fx_pod_error(&env.d,
                                   "metadata: {name: w}\n"
                                   "spec: {affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: 3}}}\n",
                                   &err);
    assert_non_null(strstr(msg, "Pod default/w: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"));
    msg = fx_pod_error(&env.d,
                       "metadata: {name: w}\n"
                       "spec: {topologySpreadConstraints: [{maxSkew: 1, labelSelector: {matchLabels: [a]}}]}\n",
                       &err);
    assert_non_null(strstr(msg, "Pod default/w: spec.topologySpreadConstraints[0].labelSelector"));
}

static void test_rfc3339(void **state) {
    (void)state;
    static const struct { const char *s; double t; bool ok; } cases[] = {
        {"1970-01-01T00:00:00Z", 0, true},
        {"2024-01-02T03:04:05Z", 1704164645, true},
        {"2024-01-02t03:04:05z", 1704164645, true},
        {"2024-01-02T03:04:05.25Z", 1704164645.25, true},
        {"2024-01-02T04:04:05+01:00", 1704164645, true},
        {"2024-01-02T01:34:05-01:30", 1704164645, true},
        {"2000-02-29T00:00:00Z", 951782400, true},
        {"1969-12-31T23:59:59Z", -1, true},
        {"2023-02-29T00:00:00Z", 0, false},
        {"2024-13-01T00:00:00Z", 0, false},
        {"2024-01-02 03:04:05Z", 0, false},
        {"2024-01-02T03:04:05", 0, false},
        {"2024-01-02T03:04:60Z", 0, false},
        {"2024-01-02T03:04:05.Z", 0, false},
        {"2024-01-02T03:04:05Zx", 0, false},
        {"2024-01-02T03:04:05+0100", 0, false},
        {"", 0, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double t = -12345;
        ms_rc rc = ms_parse_rfc3339(cases[i].s, &t);
        if ((rc == MS_OK) != cases[i].ok) fail_msg("%s: rc %d", cases[i].s, rc);
        if (cases[i].ok && t != cases[i].t) fail_msg("%s: %f, want %f", cases[i].s, t, cases[i].t);
    }
}

/* The fixture helpers themselves: Lists, streams, kind defaulting. */
static void test_fixtures(void **state) {
    (void)state;
    ms_pod *p = fx_pod(&env.d, "kind: Node\nmetadata: {name: n}\n---\nkind: PodList\nitems:\n- metadata: {name: x}\n");
    assert_string_equal(T(p->meta.name), "x");
    ms_pod_unref(p);
    ms_node *n = fx_node(&env.d, "[{\"kind\": \"Pod\", \"metadata\": {\"name\": \"p\"}}]\n"
                                 "{\"kind\": \"Node\", \"metadata\": {\"name\": \"m\"}}");
    assert_string_equal(T(n->meta.name), "m");
    ms_node_unref(n);
}

/* The whole file comes back NUL-terminated; a cap refuses longer files. */
static void test_read_file(void **state) {
    (void)state;
    char path[] = "/tmp/ms_read_file_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    char data[100000];
    for (size_t i = 0; i < sizeof data; i++) data[i] = (char)('a' + i % 26);
    assert_int_equal(write(fd, data, sizeof data), (ssize_t)sizeof data);
    close(fd);
    char *buf;
    size_t len;
    ms_error err = {0};
    assert_int_equal(ms_read_file(path, 0, &buf, &len, &err), MS_OK);
    assert_int_equal(len, sizeof data);
    assert_memory_equal(buf, data, sizeof data);
    assert_int_equal(buf[len], '\0');
    free(buf);
    assert_int_equal(ms_read_file(path, 1000, &buf, &len, &err), MS_EINVAL);
    assert_null(buf);
    assert_non_null(strstr(err.msg, "larger than"));
    unlink(path);
    assert_int_equal(ms_read_file(path, 0, &buf, &len, &err), MS_EIO);
    assert_non_null(strstr(err.msg, path));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kubectl_yaml_pod),
        cmocka_unit_test(test_json_pod_same_as_yaml),
        cmocka_unit_test(test_minimal_pod_defaults),
        cmocka_unit_test(test_pod_name_goes_with_the_pod),
        cmocka_unit_test(test_wide_objects),
        cmocka_unit_test(test_pod_requests),
        cmocka_unit_test(test_scalar_resources),
        cmocka_unit_test(test_images_and_ports),
        cmocka_unit_test(test_volumes),
        cmocka_unit_test(test_phases),
        cmocka_unit_test(test_kubectl_node),
        cmocka_unit_test(test_node_defaults),
        cmocka_unit_test(test_loader),
        cmocka_unit_test(test_read_file),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_errors_quote_the_value),
        cmocka_unit_test(test_selector_errors),
        cmocka_unit_test(test_rfc3339),
        cmocka_unit_test(test_fixtures),
        cmocka_unit_test(test_pod_spec_hash),
        cmocka_unit_test(test_pod_descheduler_fields),
        cmocka_unit_test(test_scheduling_gates),
        cmocka_unit_test(test_disruption_target_condition),
    };
    return cmocka_run_group_tests(tests, fx_group_setup, fx_group_teardown);
}
