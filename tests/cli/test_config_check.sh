#!/bin/sh
# `moonsched config check`: configurations from the Kubernetes documentation
# read unchanged, the effective configuration printed (and read back to the
# same result), errors with exit 2, warnings on stderr. TAP output.
# B: the build directory (default: build).
. tests/lib/cli.sh
# block FILE START: the lines of FILE from the one equal to START to the end
# of what it holds (a sequence under a key may sit at the key's indent)
block() {
    awk -v s="$2" '
        f { match($0, /^ */); i = RLENGTH; item = substr($0, i + 1, 2) == "- "
            if (i < d || (i == d && (start_item || !item))) exit }
        $0 == s { f = 1; match($0, /^ */); d = RLENGTH; start_item = substr($0, d + 1, 2) == "- " }
        f' "$1"
}

tap_need "$M"

# ---- the documentation's examples, as written there ----
"$M" config check "$D/docs-minimal.yaml" >"$T/min.yaml" 2>"$T/min.err"
check "docs minimal configuration: exit 0" test $? -eq 0
check "docs minimal configuration: no warning" test ! -s "$T/min.err"
check "docs minimal configuration: the kubeconfig" has_line "$T/min.yaml" \
    "  kubeconfig: /etc/srv/kubernetes/kube-scheduler/kubeconfig"
check "docs minimal configuration: defaults filled in" \
    sh -c "grep -qx 'parallelism: 16' '$T/min.yaml' && grep -qx 'podMaxBackoffSeconds: 10' '$T/min.yaml' &&
           grep -qx '  leaseDuration: 15s' '$T/min.yaml' && grep -qx '  qps: 50' '$T/min.yaml'"
block "$T/min.yaml" '    score:' | tr -d ' \n' >"$T/score"
check "docs minimal configuration: the default profile's score plugins with weights" \
    grep -q 'enabled:-name:TaintTolerationweight:3-name:NodeAffinityweight:2-name:NodeResourcesFitweight:1' "$T/score"
block "$T/min.yaml" '    queueSort:' >"$T/qs"
check "docs minimal configuration: queueSort" grep -qx '      - name: PrioritySort' "$T/qs"
block "$T/min.yaml" '    preEnqueue:' >"$T/pe"
check "docs minimal configuration: SchedulingGates at preEnqueue" grep -qx '      - name: SchedulingGates' "$T/pe"

"$M" config check "$D/docs-multiple-profiles.yaml" >"$T/multi.yaml" 2>&1
check "docs multiple profiles: exit 0" test $? -eq 0
check "docs multiple profiles: both profiles" \
    sh -c "grep -qx -- '- schedulerName: default-scheduler' '$T/multi.yaml' && grep -qx -- '- schedulerName: no-scoring-scheduler' '$T/multi.yaml'"
block "$T/multi.yaml" '- schedulerName: no-scoring-scheduler' >"$T/nsc"
block "$T/nsc" '    score:' >"$T/nsc.score"
check "docs multiple profiles: no-scoring-scheduler has no Score plugins" grep -qx '      enabled: \[\]' "$T/nsc.score"
block "$T/nsc" '    filter:' >"$T/nsc.filter"
check "docs multiple profiles: it keeps its Filter plugins" grep -qx '      - name: NodeResourcesFit' "$T/nsc.filter"

"$M" config check "$D/docs-custom-score-plugins.yaml" >"$T/custom.out" 2>"$T/custom.err"
check "docs custom score plugins: exit 2 (moonsched has no such plugin)" test $? -eq 2
check "docs custom score plugins: the plugin and the file are named" has_text "$T/custom.err" \
    "moonsched: $D/docs-custom-score-plugins.yaml: profile \"default-scheduler\": plugin \"MyCustomPluginA\" does not exist"
check "docs custom score plugins: nothing on stdout" test ! -s "$T/custom.out"

# ---- the effective configuration reads back to itself ----
for f in examples/scheduler-config.yaml examples/scheduler-config-profiles.yaml "$D/docs-multiple-profiles.yaml"; do
    "$M" config check "$f" >"$T/a.yaml" 2>&1 && "$M" config check "$T/a.yaml" >"$T/b.yaml" 2>&1
    check "$f: the YAML output reads back the same" cmp "$T/a.yaml" "$T/b.yaml"
    "$M" config check --output json "$f" >"$T/a.json" 2>&1 && "$M" config check "$T/a.json" >"$T/c.yaml" 2>&1
    check "$f: the JSON output reads back the same" cmp "$T/a.yaml" "$T/c.yaml"
done
check "--output json: a JSON document" \
    sh -c "head -c 1 '$T/a.json' | grep -q '{' && grep -q '\"kind\":	\"KubeSchedulerConfiguration\"' '$T/a.json'"
"$M" config check examples/scheduler-config.yaml >"$T/ex.yaml" 2>&1
block "$T/ex.yaml" '- schedulerName: bin-packing-scheduler' >"$T/bp"
check "pluginConfig args are shown" grep -qx '        type: MostAllocated' "$T/bp"
block "$T/bp" '    score:' | sed -n '3,4p' | tr -d ' \n' >"$T/bp.score"
check "a plugin enabled again at a point runs first there, with its weight" \
    grep -qx -- '-name:NodeResourcesFitweight:5' "$T/bp.score"

# ---- extenders ----
cat >"$T/ext.yaml" <<'YAML'
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
extenders:
- urlPrefix: http://127.0.0.1:8888/
  filterVerb: filter
  managedResources:
  - name: example.com/gpu
    ignoredByScheduler: true
  ignorable: true
YAML
"$M" config check "$T/ext.yaml" >"$T/ext.out" 2>"$T/ext.err"
check "extenders: exit 0" test $? -eq 0
printf '  filterverb: typo\n' >>"$T/ext.yaml"
"$M" config check "$T/ext.yaml" >/dev/null 2>"$T/ext-typo.err"
check "extenders: an unknown field is an error (exit 2), as upstream's strict decoding" test $? -eq 2
check "extenders: named in upstream's words" has_line "$T/ext-typo.err" \
    "moonsched: $T/ext.yaml: strict decoding error: unknown field \"extenders[0].filterverb\""
# the complaint as it came: a misspelt top-level profiles
printf 'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofile:\n- schedulerName: x\n' >"$T/typo.yaml"
"$M" config check "$T/typo.yaml" >/dev/null 2>"$T/typo.err"
check "a misspelt top-level field fails the configuration (exit 2)" test $? -eq 2
check "with upstream's strict decoding error" has_line "$T/typo.err" \
    "moonsched: $T/typo.yaml: strict decoding error: unknown field \"profile\""
check "extenders: upstream's default timeout" has_line "$T/ext.out" "  httpTimeout: 5s"
block "$T/ext.out" '  pluginConfig:' | tr -d ' \n' >"$T/ext.pc"
check "extenders: ignoredByScheduler becomes NodeResourcesFit's ignoredResources" \
    grep -q -- '-name:NodeResourcesFitargs:ignoredResources:-example.com/gpu' "$T/ext.pc"

printf 'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nextenders:\n- urlPrefix: http://a\n  prioritizeVerb: p\n' >"$T/bad.yaml"
"$M" config check "$T/bad.yaml" >"$T/bad.out" 2>"$T/bad.err"
check "invalid extender: exit 2" test $? -eq 2
check "invalid extender: upstream's message" has_line "$T/bad.err" \
    "moonsched: $T/bad.yaml: extenders[0].weight: Invalid value: 0: must have a positive weight applied to it"
printf 'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\npercentageOfNodesToScore: 120\n' >"$T/bad2.yaml"
"$M" config check "$T/bad2.yaml" >/dev/null 2>"$T/bad2.err"
check "invalid percentage: exit 2" test $? -eq 2
check "invalid percentage: upstream's message" has_text "$T/bad2.err" \
    "percentageOfNodesToScore: Invalid value: 120: not in valid range [0-100]"

# ---- usage ----
"$M" config check >/dev/null 2>&1
check "no file: exit 2" test $? -eq 2
"$M" config check "$T/missing.yaml" >/dev/null 2>&1
check "missing file: exit 2" test $? -eq 2
"$M" config check "$D/docs-minimal.yaml" --output xml >/dev/null 2>&1
check "bad --output: exit 2" test $? -eq 2
"$M" config lint "$D/docs-minimal.yaml" >/dev/null 2>&1
check "unknown config subcommand: exit 2" test $? -eq 2
"$M" config check - <"$D/docs-minimal.yaml" >"$T/stdin.yaml" 2>&1
check "'-' reads standard input" cmp "$T/stdin.yaml" "$T/min.yaml"

# ---- beside kube-scheduler: the Lease's default, and warnings ----
cfg() { printf 'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n%s\n' "$1" >"$T/side.yaml"; }
cfg 'profiles: [{schedulerName: gpu}, {schedulerName: batch}]'
"$M" config check "$T/side.yaml" >"$T/side.out" 2>"$T/side.err"
check "no default-scheduler profile: the Lease is the first profile's name" has_line "$T/side.out" "  resourceName: gpu"
check "... in kube-system" has_line "$T/side.out" "  resourceNamespace: kube-system"
check "... and no warning" test ! -s "$T/side.err"
cfg 'profiles: [{schedulerName: gpu}, {schedulerName: default-scheduler}]'
"$M" config check "$T/side.yaml" >"$T/side.out" 2>"$T/side.err"
check "a default-scheduler profile: kube-scheduler's Lease" has_line "$T/side.out" "  resourceName: kube-scheduler"
check "... and no warning" test ! -s "$T/side.err"
cfg 'leaderElection: {resourceName: mine}
profiles: [{schedulerName: default-scheduler}]'
"$M" config check "$T/side.yaml" >"$T/side.out" 2>"$T/side.err"
check "default-scheduler with a Lease of its own: a warning" \
    has_text "$T/side.err" "warning: a profile is default-scheduler but the Lease is kube-system/mine"
cfg 'leaderElection: {resourceName: kube-scheduler}
profiles: [{schedulerName: gpu}]'
"$M" config check "$T/side.yaml" >"$T/side.out" 2>"$T/side.err"
check "kube-scheduler's Lease without a default-scheduler profile: a warning" \
    has_text "$T/side.err" "warning: the Lease is kube-system/kube-scheduler but no profile is default-scheduler"
cfg 'leaderElection: {resourceName: kube-scheduler, leaderElect: false}
profiles: [{schedulerName: gpu}]'
"$M" config check "$T/side.yaml" >"$T/side.out" 2>"$T/side.err"
check "... not when leader election is off" test ! -s "$T/side.err"

tap_done
