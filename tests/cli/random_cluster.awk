# A random cluster file for the shuffle property tests: 3 to 6 nodes in up
# to 3 zones, 8 to 24 pods, most bound, some pending, with the features the
# descheduler's strategies and the scheduler's filters look at (owners,
# priorities, restarts, phases, ages, taints and tolerations, node
# selectors and affinity, anti-affinity, spread constraints). One object
# per YAML document, one line each, so that shuffle_docs.awk can reorder
# them. Usage: awk -v seed=N -f random_cluster.awk
function pick(n) { return int(rand() * n) }
function chance(p) { return rand() < p }
BEGIN {
    srand(seed)
    nn = 3 + pick(4)
    for (i = 0; i < nn; i++) {
        zone[i] = "z" pick(3)
        labels = "kubernetes.io/hostname: n" i ", zone: " zone[i]
        if (chance(0.4)) labels = labels ", disk: ssd"
        spec = ""
        r = rand()
        if (r < 0.15) spec = "taints: [{key: dedicated, value: infra, effect: NoSchedule}]"
        else if (r < 0.3) spec = "taints: [{key: dedicated, value: infra, effect: PreferNoSchedule}]"
        printf "---\n{apiVersion: v1, kind: Node, metadata: {name: n%d, labels: {%s}}, spec: {%s}, " \
               "status: {allocatable: {cpu: \"%d\", memory: %dGi, pods: \"20\"}}}\n",
               i, labels, spec, 2 + pick(7), 4 + pick(13)
    }
    np = 8 + pick(17)
    for (j = 0; j < np; j++) {
        app = "a" pick(3)
        meta = "name: p" j ", namespace: " (chance(0.8) ? "default" : "team") ", uid: uid-p" j
        meta = meta ", creationTimestamp: \"2023-12-" sprintf("%02d", 1 + pick(28)) "T00:00:00Z\""
        meta = meta ", labels: {app: " app ", pod-template-hash: h" pick(2) "}"
        r = rand()
        if (r < 0.05) meta = meta ", ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: ds, uid: ds-uid, controller: true}]"
        else if (r < 0.92) meta = meta ", ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs-" app ", uid: rs-" app ", controller: true}]"
        spec = "containers: [{name: c, image: img-" app ", resources: {requests: {cpu: " (100 * (1 + pick(15))) "m, memory: " (128 * (1 + pick(8))) "Mi}}}]"
        if (chance(0.85)) spec = spec ", nodeName: n" pick(nn)
        if (chance(0.5)) spec = spec ", priority: " (chance(0.5) ? 100 : 1000)
        if (chance(0.15)) spec = spec ", nodeSelector: {disk: ssd}"
        if (chance(0.3)) spec = spec ", tolerations: [{key: dedicated, operator: Exists}]"
        aff = ""
        if (chance(0.15)) aff = "nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [z0, z1]}]}]}}"
        if (chance(0.15)) aff = (aff ? aff ", " : "") "podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {matchLabels: {app: " app "}}, topologyKey: kubernetes.io/hostname}]}"
        if (aff) spec = spec ", affinity: {" aff "}"
        if (chance(0.5)) {
            keys = chance(0.3) ? ", matchLabelKeys: [pod-template-hash]" : ""
            spec = spec ", topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: " \
                   (chance(0.6) ? "DoNotSchedule" : "ScheduleAnyway") ", labelSelector: {matchLabels: {app: " app "}}" keys "}]"
        }
        r = rand()
        phase = r < 0.08 ? "Failed" : r < 0.12 ? "Succeeded" : "Running"
        status = "phase: " phase ", startTime: \"2023-12-" sprintf("%02d", 1 + pick(28)) "T01:00:00Z\""
        status = status ", containerStatuses: [{name: c, restartCount: " pick(8) \
                 (chance(0.2) ? ", state: {waiting: {reason: CrashLoopBackOff}}" : "") "}]"
        printf "---\n{apiVersion: v1, kind: Pod, metadata: {%s}, spec: {%s}, status: {%s}}\n", meta, spec, status
    }
}
