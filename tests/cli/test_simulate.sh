#!/bin/sh
# `moonsched simulate` end to end: placements, messages, output formats,
# input formats, the generator and exit codes. TAP output.
# B: the build directory (default: build).
. tests/lib/cli.sh

tap_need "$M"

# ---- the example cluster (make run) ----
"$M" simulate --cluster examples/cluster.yaml >"$T/ex.out" 2>"$T/ex.err"
rc=$?
check "example cluster: exit 0" test "$rc" -eq 0
check "example cluster: nothing on stderr" test ! -s "$T/ex.err"
check "example: higher priority pod scheduled first" \
    sh -c "head -n 1 '$T/ex.out' | grep -q '^default/api-1 -> '"
check "example: GPU pod tolerating the taint lands on gpu-1" \
    sh -c "grep -q '^ml/train-1 -> gpu-1  (' '$T/ex.out'"
check "example: nodeSelector disktype=ssd gives node-a (node-d is cordoned)" \
    sh -c "grep -q '^default/ssd-app -> node-a  (' '$T/ex.out'"
check "example: host port 9100 is taken on node-a" \
    sh -c "grep '^monitoring/exporter-2 -> ' '$T/ex.out' | grep -qv -e '-> node-a' -e unschedulable"
check "example: required zone affinity keeps zonal in eu-west-1b/c" \
    sh -c "grep -Eq '^default/zonal -> node-(b|c)  \\(' '$T/ex.out'"
check "example: scored placements show per-plugin scores and feasible counts" \
    sh -c "grep '^default/web-1 -> ' '$T/ex.out' | grep -Eq 'score [0-9]+: .*TaintToleration [0-9]+.*NodeResourcesFit [0-9]+.*; feasible [0-9]+/5\\)'"
check "example: too big pod names every reason" has_line "$T/ex.out" \
    "default/huge -> (unschedulable) 0/5 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 1 node(s) were unschedulable, 3 Insufficient cpu, 3 Insufficient memory. preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling."
check "example: GPU pod without toleration" has_line "$T/ex.out" \
    "ml/gpu-no-toleration -> (unschedulable) 0/5 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {dedicated: gpu}, 1 node(s) were unschedulable, 3 Insufficient nvidia.com/gpu. preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling."
check "example: another scheduler's pod is left alone" sh -c "! grep -q batch-job '$T/ex.out'"
check "example: one line per pending pod of ours (11)" \
    test "$(grep -c ' -> ' "$T/ex.out")" -eq 11
check "example: node summary with GPU usage" \
    sh -c "grep -q '^NODE ' '$T/ex.out' && grep '^gpu-1 ' '$T/ex.out' | grep -q 'nvidia.com/gpu 1/4'"
check "example: cordoned node marked" sh -c "grep -q '^node-d (cordoned) ' '$T/ex.out'"

# ---- deterministic placements ----
"$M" simulate --cluster "$D/forced.yaml" >"$T/forced.out" 2>&1
check "forced: exit 0" test $? -eq 0
check "forced: nodeSelector placement" has_line "$T/forced.out" \
    "team-a/to-alpha -> alpha  (not scored: feasible 1/3)"
check "forced: toleration and extended resource placement" has_line "$T/forced.out" \
    "team-b/to-beta -> beta  (not scored: feasible 1/3)"
check "forced: unschedulable message" has_line "$T/forced.out" \
    "team-a/too-big -> (unschedulable) 0/3 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {team: beta}, 1 node(s) were unschedulable. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
check "forced: utilisation of alpha (its finished pod holds nothing)" \
    sh -c "grep '^alpha ' '$T/forced.out' | grep -q '1/10 .*500m/2000m (25%) .*1Gi/4Gi (25%)'"
check "forced: extended resource in use on beta" \
    sh -c "grep '^beta ' '$T/forced.out' | grep -q 'example.com/fpga 1/2'"

# ---- JSON output ----
"$M" simulate --cluster "$D/forced.yaml" --output json >"$T/forced.json" 2>&1
check "json: exit 0" test $? -eq 0
if command -v python3 >/dev/null 2>&1; then
    check "json: parses, with placements, nodes and no preemptions" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) == {"placements", "nodes", "preemptions"}, d.keys()
assert d["preemptions"] == [], d["preemptions"]
p = {x["pod"]: x for x in d["placements"]}
assert p["team-a/to-alpha"]["node"] == "alpha", p
assert p["team-a/too-big"]["node"] is None
assert p["team-a/too-big"]["message"].startswith("0/3 nodes are available: 1 Insufficient cpu")
n = {x["name"]: x for x in d["nodes"]}
assert n["beta"]["requested"]["example.com/fpga"] == "1", n["beta"]
assert n["beta"]["allocatable"]["example.com/fpga"] == "2"
assert n["alpha"]["requested"]["cpu"] == "500m" and n["alpha"]["allocatable"]["memory"] == "4Gi"
' "$T/forced.json"
else
    check "json: has placements and nodes" \
        sh -c "grep -q '^{\"placements\":\\[' '$T/forced.json' && grep -q '\"node\":null' '$T/forced.json' && grep -q '\"nodes\":\\[' '$T/forced.json'"
fi

# Per-plugin scores as numbers, the same as the message's text.
"$M" simulate --cluster examples/cluster.yaml --output json >"$T/ex.json" 2>&1
check "json: score holds the total, each plugin's weighted score and the feasible nodes, as message says" \
    jq -e '[.placements[] | select(.node != null)] | length > 0 and all(
        (.score.feasibleNodes | type) == "number" and
        ("feasible \(.score.feasibleNodes)/\(.score.numAllNodes)" as $f | .message | endswith($f)) and
        (if .score.plugins then
            (.score.plugins | add) == .score.total and
            .message == ("score \(.score.total): " + ([.score.plugins | to_entries[] | "\(.key) \(.value)"] | join(", ")) +
                         "; feasible \(.score.feasibleNodes)/\(.score.numAllNodes)")
         else true end))' "$T/ex.json"
check "json: a scored pod's plugins are named (default/api-1: TaintToleration 300)" \
    jq -e '.placements[] | select(.pod == "default/api-1") | .score.plugins.TaintToleration == 300' "$T/ex.json"
check "json: an unplaced pod has no score" \
    jq -e '.placements[] | select(.node == null) | has("score") | not' "$T/ex.json"

# ---- input formats ----
"$M" simulate --cluster "$D/list.json" >"$T/list.out" 2>&1
check "kubectl List (JSON) input" sh -c "grep -q '^default/nginx-7854ff8877-abcde -> worker-1  (' '$T/list.out'"
"$M" simulate --cluster - <"$D/forced.yaml" >"$T/stdin.out" 2>&1
check "standard input" cmp "$T/stdin.out" "$T/forced.out"
"$M" simulate --cluster "$D/list.json" --quiet --stats >"$T/stats.out" 2>"$T/stats.err"
check "--quiet prints nothing on stdout" test ! -s "$T/stats.out"
check "--stats counts skipped kinds" has_text "$T/stats.err" "objects read:      4 (1 skipped: ConfigMap 1)"
check "--stats reports throughput, latency and RSS" \
    sh -c "grep -q '^pods/s: ' '$T/stats.err' && grep -q '^latency p99: ' '$T/stats.err' && grep -q '^peak RSS: ' '$T/stats.err'"

# ---- bad input ----
"$M" simulate --cluster "$D/bad-pod.yaml" >"$T/bad.out" 2>"$T/bad.err"
check "bad quantity: exit 2" test $? -eq 2
check "bad quantity: file, object and field named" \
    sh -c "grep -q '^moonsched: $D/bad-pod.yaml: .*Pod default/broken: spec.containers\\[0\\].resources.requests.cpu: ' '$T/bad.err'"
"$M" simulate --cluster "$T/does-not-exist.yaml" >/dev/null 2>"$T/missing.err"
check "missing file: exit 2" test $? -eq 2
check "missing file: named" has_text "$T/missing.err" "does-not-exist.yaml"
"$M" simulate --bogus >/dev/null 2>&1
check "unknown flag: exit 2" test $? -eq 2
"$M" simulate >/dev/null 2>&1
check "no input: exit 2" test $? -eq 2
"$M" simulate --cluster "$D/forced.yaml" --output yaml >/dev/null 2>&1
check "bad --output: exit 2" test $? -eq 2
"$M" simulate --cluster examples/cluster.yaml --policy policies/no-such-policy.lua >/dev/null 2>"$T/policy.err"
check "--policy with a missing file: exit 2" test $? -eq 2
check "--policy with a missing file: named" has_text "$T/policy.err" \
    "moonsched: --policy policies/no-such-policy.lua: policies/no-such-policy.lua: No such file or directory"
"$M" simulate --cluster examples/cluster.yaml --policy policies/gpu-binpack.lua >"$T/policy.out" 2>&1
check "--policy: the policy takes part in scoring" \
    sh -c "grep '^default/web-1 -> ' '$T/policy.out' | grep -q ', lua:gpu-binpack [0-9]*; feasible '"
check "--policy: a GPU pod still lands on the GPU node" sh -c "grep -q '^ml/train-1 -> gpu-1  (' '$T/policy.out'"

# ---- configuration ----
"$M" simulate --cluster examples/cluster.yaml --config "$D/two-profiles.json" --stats \
    >"$T/cfg.out" 2>"$T/cfg.err"
check "config: exit 0" test $? -eq 0
check "config: a second profile schedules its own pods" \
    sh -c "grep -q '^default/batch-job-1 -> node-' '$T/cfg.out'"
check "config: that profile has no Score plugins" \
    sh -c "grep '^default/batch-job-1 -> ' '$T/cfg.out' | grep -q '(not scored: feasible 3/5)'"
check "config: 12 pending pods of our profiles" has_text "$T/cfg.err" "pods:              12 pending, 3 bound, 1 ignored"
"$M" simulate --cluster examples/cluster.yaml --config "$D/unknown-plugin.yaml" >/dev/null 2>"$T/cfg2.err"
check "config: unknown plugin refused with exit 2" test $? -eq 2
check "config: unknown plugin named, with the file" has_text "$T/cfg2.err" \
    "moonsched: $D/unknown-plugin.yaml: profile \"default-scheduler\": plugin \"NoSuchPlugin\" does not exist"

# ---- generator ----
"$M" simulate --generate nodes=20,pods=50,zones=3 >"$T/gen.out" 2>&1
check "--generate: exit 0" test $? -eq 0
check "--generate: every pod placed" test "$(grep -c '^default/pod-[0-9]* -> node-[0-9]*  (' "$T/gen.out")" -eq 50
check "--generate: 20 nodes in the summary" test "$(grep -c '^node-[0-9]* ' "$T/gen.out")" -eq 20
"$M" simulate --generate nodes=2,pods=100,node-cpu=1,pod-cpu=100m --quiet --stats 2>"$T/gen2.err" >/dev/null
check "--generate: capacity respected (20 of 100 fit)" \
    sh -c "grep -q '^scheduled:         20$' '$T/gen2.err' && grep -q '^unschedulable:     80$' '$T/gen2.err'"
"$M" simulate --generate nodes=2,bogus=1 >/dev/null 2>"$T/gen3.err"
check "--generate: unknown key refused with exit 2" test $? -eq 2
check "--generate: unknown key named" has_text "$T/gen3.err" "unknown key \"bogus\""
"$M" simulate --generate nodes=2,pods=1 --cluster "$D/forced.yaml" >"$T/both.out" 2>&1
check "--generate with --cluster: both feed the cluster" \
    sh -c "grep -q '^default/pod-0 -> ' '$T/both.out' && grep -q '^team-a/to-alpha -> alpha' '$T/both.out'"

# ---- priority and preemption ----
"$M" simulate --cluster "$D/preemption.yaml" --stats >"$T/pre.out" 2>"$T/pre.err"
check "preemption: exit 0" test $? -eq 0
check "preemption: the preemptor gets the node with the fewest victims" \
    has_line "$T/pre.out" "prod/critical -> node-a  (not scored: feasible 1/2)"
check "preemption: one victim, with the priorities" \
    has_line "$T/pre.out" "  preempted batch/a-big on node-a by prod/critical (priority 1000 > 0)"
check "preemption: nothing else preempted" test "$(grep -c '^  preempted ' "$T/pre.out")" -eq 1
check "preemption: preemptionPolicy Never stays pending" has_line "$T/pre.out" \
    "prod/never -> (unschedulable) 0/2 nodes are available: 2 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never."
check "preemption: --stats counts victims" has_line "$T/pre.err" "preempted:         1"
check "preemption: the PDB is read, not skipped" has_text "$T/pre.err" "objects read:      9 (0 skipped)"
"$M" simulate --cluster "$D/preemption.yaml" --cluster "$D/preemption-pdb.yaml" >"$T/pdb.out" 2>&1
check "preemption: a PDB moves the choice to the other node" \
    has_line "$T/pdb.out" "prod/critical -> node-b  (not scored: feasible 1/2)"
check "preemption: two victims there" sh -c \
    "grep -qx '  preempted batch/b-1 on node-b by prod/critical (priority 1000 > 0)' '$T/pdb.out' && grep -qx '  preempted batch/b-2 on node-b by prod/critical (priority 1000 > 0)' '$T/pdb.out' && ! grep -q 'a-big' '$T/pdb.out'"
"$M" simulate --cluster "$D/preemption.yaml" --output json >"$T/pre.json" 2>&1
check "preemption: JSON preemptions array" python3 -c "
import json, sys
d = json.load(open('$T/pre.json'))
want = [{'preemptor': 'prod/critical', 'priority': 1000, 'node': 'node-a',
         'victims': [{'pod': 'batch/a-big', 'priority': 0}]}]
sys.exit(0 if d['preemptions'] == want else 1)"
"$M" simulate --cluster "$D/preemption-late.yaml" >"$T/late.out" 2>&1
check "preemption: a pod placed in the run, then preempted, says so" \
    has_line "$T/late.out" "default/worker-2 -> (preempted) by default/leader on node-x"
check "preemption: the late preemptor is placed" \
    has_line "$T/late.out" "default/leader -> node-x  (not scored: feasible 1/1)"
"$M" simulate --cluster "$D/preemption-late.yaml" --output json >"$T/late.json" 2>&1
check "preemption: JSON marks the victim's placement" python3 -c "
import json, sys
d = json.load(open('$T/late.json'))
p = [x for x in d['placements'] if x['pod'] == 'default/worker-2'][0]
sys.exit(0 if p['node'] is None and p.get('preempted') is True else 1)"

"$M" simulate --cluster "$D/preemption-anti-affinity.yaml" >"$T/anti.out" 2>&1
check "preemption: an existing pod's anti-affinity blocker is preempted" \
    has_line "$T/anti.out" "  preempted prod/cache on node-a by prod/web (priority 1000 > 0)"
check "preemption: the blocked pod then gets that node" \
    has_line "$T/anti.out" "prod/web -> node-a  (not scored: feasible 1/2)"
check "preemption: only the blocker goes" test "$(grep -c '^  preempted ' "$T/anti.out")" -eq 1
"$M" simulate --cluster "$D/preemption-nominated-anti-affinity.yaml" >"$T/nomanti.out" 2>&1
check "preemption: a nominated preemptor's anti-affinity keeps a pod without terms off its node" \
    has_line "$T/nomanti.out" "prod/web -> node-b  (not scored: feasible 1/2)"
check "preemption: the preemptor gets its node with one victim, not two" sh -c \
    "grep -qx 'prod/guard -> node-a  (not scored: feasible 1/2)' '$T/nomanti.out' && test \$(grep -c '^  preempted ' '$T/nomanti.out') -eq 1"

# Upstream's TestReadWriteOncePodPreemption: VolumeRestrictions counts
# the claims in use as each dry run's copy of the node sees them, so the
# pods holding the preemptor's ReadWriteOncePod claims are its victims.
for row in "single:preempt single pod:victim-pod" "two-pods:preempt two pods:victim-pod-1 victim-pod-2" \
    "two-volumes:preempt single pod with two volumes:victim-pod"; do
    file=${row%%:*} rest=${row#*:}
    name=${rest%%:*} victims=${rest#*:}
    "$M" simulate --cluster "$D/preemption-rwop.yaml" "$D/preemption-rwop-$file.yaml" >"$T/rwop.out" 2>&1
    got=$(sed -n 's/^  preempted preemption\/\([^ ]*\) on node1 by preemption\/preemptor-pod .*/\1/p' "$T/rwop.out" | sort | tr '\n' ' ')
    check "ReadWriteOncePod preemption, upstream's \"$name\": victims $victims, the preemptor on node1" \
        sh -c "test '$got' = '$victims ' && grep -qx 'preemption/preemptor-pod -> node1  (not scored: feasible 1/1)' '$T/rwop.out'"
done

# Rows of upstream's DefaultPreemption tests, one cluster each; the header
# names the row and what upstream expects of default/p: its node (-:
# none) and victims, or whether it is eligible to preempt.
for f in "$D"/preemption-upstream/*.yaml; do
    row=$(sed -n 's/^# upstream DefaultPreemption //p' "$f")
    "$M" simulate --cluster "$f" >"$T/row.out" 2>&1
    if grep -q '^# expect-not-eligible:' "$f"; then
        case $(sed -n 's/^# expect-not-eligible: //p' "$f") in
        terminating) want="grep -q '^default/p -> (unschedulable) .* preemption: not eligible due to a terminating pod on the nominated node\.\$' '$T/row.out'" ;;
        *) want="grep -q '^default/p -> ' '$T/row.out' && ! grep -q 'not eligible' '$T/row.out'" ;;
        esac
        check "$row" sh -c "$want"
        continue
    fi
    node=$(sed -n 's/^# expect-node: //p' "$f")
    victims=$(sed -n 's/^# expect-victims: *//p' "$f")
    got_victims=$(sed -n 's/^  preempted default\/\([^ ]*\) on .* by default\/p .*/\1/p' "$T/row.out" | sort | tr '\n' ' ' | sed 's/ $//')
    if [ "$node" = - ]; then
        got_node=$(grep -q '^default/p -> (unschedulable)' "$T/row.out" && echo -)
    else
        got_node=$(sed -n 's/^default\/p -> \([^ ]*\)  .*/\1/p' "$T/row.out")
    fi
    check "$row: node $node, victims [$victims]" test "$got_node|$got_victims" = "$node|$victims"
done

"$M" simulate --generate shape=preemption,nodes=20,bound-pods=80,pods=10 --quiet --stats \
    >/dev/null 2>"$T/gp.err"
check "--generate shape=preemption: every high-priority pod placed, three victims each" \
    sh -c "grep -qx 'scheduled:         10' '$T/gp.err' && grep -qx 'preempted:         30' '$T/gp.err'"

# ---- volumes ----
"$M" simulate --cluster "$D/volumes.yaml" >"$T/vol.out" 2>&1
check "VolumeRestrictions: disk conflict in the FitError message" \
    has_text "$T/vol.out" "default/db-1 -> (unschedulable) 0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had no available disk."
check "VolumeRestrictions: the pod goes where its disk is free" has_text "$T/vol.out" "default/db-2 -> n2 "

# ---- topology spreading ----
"$M" simulate --cluster "$D/spread.yaml" >"$T/spread.out" 2>&1
check "spread: exit 0" test $? -eq 0
# n1, n2 are zone-a; n3, n4 zone-b; n5, n6 zone-c; web-0 already runs on n1.
zones=$(grep '^default/web-' "$T/spread.out" | sed -n 's/.* -> n\([1-6]\) .*/\1/p' |
    awk '{ z[int(($1 - 1) / 2)]++ } END { printf "%d/%d/%d", z[0] + 1, z[1], z[2] }')
check "spread: DoNotSchedule maxSkew 1 leaves the zones at 2/2/2 (got $zones)" test "$zones" = "2/2/2"
check "spread: a key no node has is unresolvable" has_text "$T/spread.out" \
    "default/racked -> (unschedulable) 0/6 nodes are available: 6 node(s) didn't match pod topology spread constraints (missing required label). preemption: 0/6 nodes are available: 6 Preemption is not helpful for scheduling."
check "spread: system defaults keep a ReplicaSet's pod off its sibling's zone" \
    sh -c "grep -Eq '^default/api-1 -> n[3-6]  \\(.*PodTopologySpread 200' '$T/spread.out'"
# A Service selecting the pods gives them the default spreading (n1, n2
# zone-a, 4x larger; n3, n4 zone-b; n5, n6 zone-c); without it the
# resource scores pack them into zone-a.
spread_counts() {  # FILE...: "zone counts; node counts" of the web pods
    "$M" simulate --cluster "$@" | sed -n 's/^default\/web-[0-9]* -> n\([1-6]\) .*/\1/p' |
        awk '{ z[int(($1 - 1) / 2)]++; n[$1]++ }
             END { printf "%d/%d/%d; %d/%d/%d/%d/%d/%d", z[0], z[1], z[2], n[1], n[2], n[3], n[4], n[5], n[6] }'
}
got=$(spread_counts "$D/spread-service.yaml" "$D/spread-service-svc.yaml")
check "spread: a Service's selector spreads its pods 4/4/4 over zones, 2 per node (got $got)" \
    test "$got" = "4/4/4; 2/2/2/2/2/2"
got=$(spread_counts "$D/spread-service.yaml")
check "spread: without the Service zone-a takes most (got $got)" sh -c "test '${got%%/*}' -ge 8"
"$M" simulate --generate nodes=300,zones=3,bound-pods=300,pods=300,spread=hard --quiet --stats \
    >/dev/null 2>"$T/spreadgen.err"
check "--generate spread=hard: every spreading pod placed" grep -q '^scheduled:         300$' "$T/spreadgen.err"

# ---- scheduling gates ----
# A 1.30 server's JSON (`kubectl get -o json`): two nodes full of priority-0
# pods, a third with room for two small pods, two gated pods (one of
# priority 1000000 that could preempt), a free pod and one with an empty
# gate list.
G="$D/scheduling-gates.json"
"$M" simulate --cluster "$G" --stats >"$T/gates.out" 2>"$T/gates.err"
check "gates: exit 0" test $? -eq 0
check "gates: a gated pod is shown gated with upstream's reason and message" has_line "$T/gates.out" \
    "default/gated-high -> (gated) SchedulingGated: Scheduling is blocked due to non-empty scheduling gates (waiting for scheduling gates: [kueue.x-k8s.io/admission example.com/quota])"
check "gates: a small gated pod is not placed either" has_line "$T/gates.out" \
    "default/gated-small -> (gated) SchedulingGated: Scheduling is blocked due to non-empty scheduling gates (waiting for scheduling gates: [example.com/quota])"
check "gates: pods without gates and with an empty list are placed" \
    sh -c "grep -q '^default/free-1 -> n3  (' '$T/gates.out' && grep -q '^default/empty-gates -> n3  (' '$T/gates.out'"
check "gates: the high-priority gated pod preempts nobody" \
    sh -c "! grep -q -e 'preempt' '$T/gates.out' && grep -qx 'preempted:         0' '$T/gates.err'"
check "gates: gated pods are never attempted (2 attempts for 2 free pods)" grep -qx 'attempts:          2' "$T/gates.err"
check "gates: --stats counts them as gated, not unschedulable" \
    sh -c "grep -qx 'gated:             2' '$T/gates.err' && grep -qx 'unschedulable:     0' '$T/gates.err'"
"$M" simulate --cluster "$G" --output json >"$T/gates.json" 2>&1
check "gates json: exit 0" test $? -eq 0
if command -v python3 >/dev/null 2>&1; then
    check "gates json: gated, reason, message, the gates and no node" python3 -c "
import json, sys
pl = {p['pod']: p for p in json.load(open(sys.argv[1]))['placements']}
g = pl['default/gated-high']
assert g['node'] is None and g['gated'] is True, g
assert g['reason'] == 'SchedulingGated', g
assert g['message'] == 'Scheduling is blocked due to non-empty scheduling gates', g
assert g['schedulingGates'] == ['kueue.x-k8s.io/admission', 'example.com/quota'], g
assert g['detail'] == 'waiting for scheduling gates: [kueue.x-k8s.io/admission example.com/quota]', g
assert 'gated' not in pl['default/free-1'] and pl['default/free-1']['node'] == 'n3'
" "$T/gates.json"
else
    skip "gates json: gated, reason, message, the gates and no node" "python3 is not installed"
fi
# SchedulingGates disabled (as upstream allows): the gated pods are
# scheduled like any other, and the high-priority one preempts.
cat >"$T/nogates.yaml" <<'EOF'
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    preEnqueue:
      disabled:
      - name: SchedulingGates
EOF
"$M" simulate --cluster "$G" --config "$T/nogates.yaml" >"$T/nogates.out" 2>&1
check "gates disabled: exit 0" test $? -eq 0
check "gates disabled: nothing is gated" sh -c "! grep -q '(gated)' '$T/nogates.out'"
check "gates disabled: the high-priority pod preempts a priority-0 pod" \
    sh -c "grep -Eq '^  preempted default/low-[12] on n[12] by default/gated-high \\(priority 1000000 > 0\\)' '$T/nogates.out'"

# ---- seeds ----
"$M" simulate --generate nodes=50,pods=200 --seed 7 >"$T/s1.out" 2>&1
"$M" simulate --generate nodes=50,pods=200 --seed 7 >"$T/s2.out" 2>&1
"$M" simulate --generate nodes=50,pods=200 --seed 8 >"$T/s3.out" 2>&1
check "same seed, same placements" cmp "$T/s1.out" "$T/s2.out"
check "another seed breaks ties differently" sh -c "! cmp -s '$T/s1.out' '$T/s3.out'"

# ---- misspelt fields in a cluster file ----
cat >"$T/typo.yaml" <<'YAML'
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {disk: hdd}},
   status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: web, namespace: shop}
  spec:
    nodeSelectr: {disk: ssd}
    containerz: [{name: c, image: nginx}]
YAML
"$M" simulate --cluster "$T/typo.yaml" >"$T/typo.out" 2>"$T/typo.err"
check "a misspelt Pod field is a warning naming the field, its path and what was meant" has_line "$T/typo.err" \
    "moonsched: warning: $T/typo.yaml: Pod shop/web: unknown field \"spec.nodeSelectr\" (did you mean \"nodeSelector\"?)"
check "each one" has_line "$T/typo.err" \
    "moonsched: warning: $T/typo.yaml: Pod shop/web: unknown field \"spec.containerz\" (did you mean \"containers\"?)"
check "kubectl's output warns of nothing" sh -c "'$M' simulate --cluster tests/fuzz/corpus/decode/pod-kubectl.yaml \
    --cluster tests/fuzz/corpus/decode/node-kubectl.yaml 2>&1 >/dev/null | grep -c 'unknown field' | grep -qx 0"

tap_done
