# shellcheck shell=sh
# What the hostile-policy suites share: the configuration that runs one
# policy in a profile of its own next to the default profile, and readers
# of a `simulate --stats` run's output ($T/out, $T/err). Sourced.

# hostile_config NAME FILE [ARGS]: $T/config.yaml with the plugin lua:NAME
# for FILE; ARGS (", budgetMs: 5, ...") are added to its args.
hostile_config() {
    cat >"$T/config.yaml" <<CFG
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
- schedulerName: hostile-scheduler
  plugins:
    multiPoint:
      enabled: [{name: "lua:$1"}]
  pluginConfig:
  - name: lua:$1
    args: {file: $2${3:-}}
CFG
}

# The policies line of --stats: "N calls, M failed, disabled K times".
calls_line() { sed -n 's/^policies: *1 (\(.*\))$/\1/p' "$T/err"; }
failed_calls() { calls_line | sed -n 's/.* \([0-9][0-9]*\) failed.*/\1/p'; }
# placed PREFIX: how many pods named PREFIX-N of the default namespace
# were bound.
placed() { grep -c "^default/$1-[0-9]* -> n[0-9]" "$T/out"; }

# desched_config NAME FILE HOOK: $T/policy.yaml, a DeschedulerPolicy whose
# profile "hostile" runs lua:NAME (FILE) for HOOK (deschedule: as a
# strategy beside RemovePodsViolatingNodeTaints; evictable: at filter,
# after DefaultEvictor, for that strategy's evictions) over the namespace
# "hostile", and whose profile "bystander" evicts the namespace
# "bystander" (tests/hostile/descheduler/cluster.yaml).
desched_config() {
    if [ "$3" = evictable ]; then
        plugins="filter: {enabled: [DefaultEvictor, lua:$1]}
    deschedule: {enabled: [RemovePodsViolatingNodeTaints]}"
    else
        plugins="deschedule: {enabled: [lua:$1, RemovePodsViolatingNodeTaints]}"
    fi
    cat >"$T/policy.yaml" <<CFG
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: hostile
  pluginConfig:
  - name: lua:$1
    args: {file: $2}
  - name: RemovePodsViolatingNodeTaints
    args: {namespaces: {include: [hostile]}}
  plugins:
    $plugins
- name: bystander
  pluginConfig:
  - name: RemovePodsViolatingNodeTaints
    args: {namespaces: {include: [bystander]}}
  plugins:
    deschedule: {enabled: [RemovePodsViolatingNodeTaints]}
CFG
}
# evicted NAMESPACE: how many of its pods the pass evicted from the
# tainted node to another one.
evicted() { grep -Ec "^$1/[a-z]-[0-9]+ +tainted +free[0-9]" "$T/out"; }
