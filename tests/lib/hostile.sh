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
