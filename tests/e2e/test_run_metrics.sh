#!/bin/bash
# What `moonsched run` exposes about itself, on a real kube-apiserver
# v1.20.2 + etcd on loopback (TAP): every kube-scheduler metric family of
# tests/cli/data/upstream-scheduler-metrics.txt (taken from upstream's
# source) on a live /metrics, with upstream's type, label names and
# buckets; the families deploy/monitoring's dashboard and alert rules use;
# /configz on the secure port, authorized like /metrics, answering the
# effective configuration; a pod that stays unschedulable has one
# FailedScheduling Event whose series count grows; the server's version
# decides the DisruptionTarget condition (1.20: none sent). Loopback only;
# stops everything it starts.
E2E_NAME=metrics
# shellcheck source=run-harness.sh
source "$(cd "$(dirname "$0")" && pwd)/run-harness.sh"
LIST=tests/cli/data/upstream-scheduler-metrics.txt


# --- identities: a reader of /metrics and /configz, and nobody ---------------------
service_account reader '["/metrics","/configz"]'
service_account nobody
reader=$(token_of reader)
nobody=$(token_of nobody)

# --- a scheduler with work done: four pods bound, one that fits nowhere ----------------
mknode n1 cpu=2 memory=4Gi
mknode n2 cpu=2 memory=4Gi
for i in 1 2 3 4; do mkpod "web-$i" cpu=500m; done
mkpod huge cpu=64
sport=$(kube_free_port)
mport=$(kube_free_port)
printf 'apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\npercentageOfNodesToScore: 70\nprofiles:\n- schedulerName: default-scheduler\n  plugins:\n    score:\n      disabled: [{name: ImageLocality}]\n' \
    >"$dir/config.yaml"
start_ms --config "$dir/config.yaml" --secure-port="$sport" --bind-address=127.0.0.1 \
    --metrics-bind-address="127.0.0.1:$mport" --plain-metrics
check_eval "four pods bound" \
    "wait_for 30 '[ -n \"\$(node_of web-1)\" ] && [ -n \"\$(node_of web-2)\" ] && [ -n \"\$(node_of web-3)\" ] && [ -n \"\$(node_of web-4)\" ]'"
first_event() {   # the FailedScheduling Events of huge, events.k8s.io/v1
    kube_api GET /apis/events.k8s.io/v1/namespaces/default/events |
        jq '[.items[] | select(.reason=="FailedScheduling" and .regarding.name=="huge")]' >"$dir/fs.json"
    [ "$(jq length "$dir/fs.json")" -ge 1 ]
}
check_eval "huge is unschedulable: a FailedScheduling Event" "wait_for 20 first_event"
t_first=$SECONDS
check_eval "the server is v1.20: the log says victims get no DisruptionTarget condition" \
    "grep -q 'server before 1.26: preemption victims get no DisruptionTarget condition' '$dir/ms.log'"

# The scheduler thread hands its families over about once a second.
sleep 2
scrape() { curl -sf "http://127.0.0.1:$mport/metrics" >"$dir/metrics.txt"; }
check "/metrics on the plain port" scrape

# --- the upstream families, as upstream exposes them -----------------------------------
# For each family of the list that moonsched serves: its TYPE, and on every
# sample the label names (plus le on buckets) and the histogram's bounds.
check_families() {
    python3 - "$LIST" "$dir/metrics.txt" <<'PY'
import re, sys
fams = [l.split() for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")]
types, samples = {}, {}
for line in open(sys.argv[2]):
    m = re.match(r"# TYPE (\S+) (\S+)", line)
    if m: types[m.group(1)] = m.group(2); continue
    if line.startswith("#") or not line.strip(): continue
    m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)", line)
    labels = dict(re.findall(r'([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"', m.group(3) or ""))
    samples.setdefault(m.group(1), []).append(labels)
bad, seen = [], 0
for name, typ, labels, buckets, served in fams:
    if not served.startswith("served"): continue
    if types.get(name) != typ:
        bad.append(f"{name}: TYPE {types.get(name)}, want {typ}"); continue
    want = set() if labels == "-" else set(labels.split(","))
    series = samples.get(name + "_bucket" if typ == "histogram" else name, [])
    if series: seen += 1
    for s in series:
        got = set(s) - ({"le"} if typ == "histogram" else set())
        if got != want: bad.append(f"{name}: labels {sorted(got)}, want {sorted(want)}"); break
    if typ == "histogram" and series:
        first = {k: v for k, v in series[0].items() if k != "le"}
        les = [float(s["le"]) for s in series if {k: v for k, v in s.items() if k != "le"} == first and s["le"] != "+Inf"]
        want_le = [float(x) for x in buckets.split(",")]
        if len(les) != len(want_le) or any(abs(a - b) > 1e-9 * max(1, abs(b)) for a, b in zip(les, want_le)):
            bad.append(f"{name}: buckets {les}, want {want_le}")
for b in bad: print("#", b)
print(f"# {seen} families with samples")
sys.exit(1 if bad or seen < 20 else 0)
PY
}
check "every served upstream family: its type, label names and buckets (20+ with samples)" check_families
check_eval "scheduler_e2e_scheduling_duration_seconds is gone (removed upstream in 1.23)" \
    "! grep -q scheduler_e2e_scheduling_duration_seconds '$dir/metrics.txt'"
val() { awk -v k="$1" '$1 == k { print $2 }' "$dir/metrics.txt"; }
check_eval "scheduler_schedule_attempts_total: 4 scheduled" \
    '[ "$(val "scheduler_schedule_attempts_total{profile=\"default-scheduler\",result=\"scheduled\"}")" = 4 ]'
check_eval "scheduler_pod_scheduling_sli_duration_seconds: 4 pods bound at their first attempt" \
    '[ "$(val "scheduler_pod_scheduling_sli_duration_seconds_count{attempts=\"1\"}")" = 4 ]'
check_eval "scheduler_unschedulable_pods: huge, rejected by NodeResourcesFit" \
    '[ "$(val "scheduler_unschedulable_pods{plugin=\"NodeResourcesFit\",profile=\"default-scheduler\"}")" = 1 ]'
check_eval "scheduler_scheduler_cache_size: 2 nodes, 4 pods" \
    '[ "$(val "scheduler_scheduler_cache_size{type=\"nodes\"}")" = 2 ] && [ "$(val "scheduler_scheduler_cache_size{type=\"pods\"}")" = 4 ]'
check_eval "scheduler_plugin_execution_duration_seconds: the first cycle was sampled (Filter, NodeResourcesFit)" \
    'grep -Eq "^scheduler_plugin_execution_duration_seconds_count\{extension_point=\"Filter\",plugin=\"NodeResourcesFit\",status=\"[A-Za-z]+\"\} [1-9]" "$dir/metrics.txt"'
check_eval "rest_client_requests_total: the binds (POST 201) on 127.0.0.1" \
    "grep -Eq '^rest_client_requests_total\\{code=\"201\",host=\"127.0.0.1:[0-9]+\",method=\"POST\"\\} [1-9]' '$dir/metrics.txt'"
check_eval "process_* and moonsched_threads" \
    "[ \"\$(val process_open_fds)\" -gt 0 ] && [ \"\$(val moonsched_threads)\" -gt 3 ] && grep -q '^process_resident_memory_bytes [1-9]' '$dir/metrics.txt'"

# --- deploy/monitoring names only families the scrape has ---------------------------------
names() {
    grep -o '\(scheduler\|rest_client\|process\|moonsched\|leader_election\|taint_eviction_controller\)_[a-z0-9_]*' "$@" |
        sed 's/_\(bucket\|sum\|count\)$//' | sort -u
}
sed -n 's/^# TYPE \([^ ]*\) .*/\1/p' "$dir/metrics.txt" | sort -u >"$dir/families"
jq -r '.. | objects | select(has("expr")) | .expr' deploy/monitoring/dashboard.json >"$dir/dash.expr"
missing=$(names "$dir/dash.expr" | comm -23 - "$dir/families" | tr '\n' ' ')
check_eval "the dashboard's expressions name families the live /metrics has${missing:+ (missing: $missing)}" '[ -z "$missing" ]'
grep 'expr:' deploy/monitoring/alerts.yaml >"$dir/rules.expr"
missing=$(names "$dir/rules.expr" | comm -23 - "$dir/families" | tr '\n' ' ')
check_eval "the alert rules name families the live /metrics has${missing:+ (missing: $missing)}" '[ -z "$missing" ]'

# --- /configz ---------------------------------------------------------------------------
req() {   # path [token] -> code, body in $dir/body
    local auth=()
    [ -n "${2:-}" ] && auth=(-H "Authorization: Bearer $2")
    curl -sk "${auth[@]}" -o "$dir/body" -w '%{http_code}' "https://127.0.0.1:$sport$1"
}
check_eval "/configz without a token: 403 for system:anonymous, as /metrics" \
    "[ \"\$(req /configz)\" = 403 ] && grep -q 'cannot get path \\\\\"/configz\\\\\"' '$dir/body'"
check_eval "/configz with nobody's token: 403" "[ \"\$(req /configz '$nobody')\" = 403 ]"
check_eval "/configz with reader's token: 200, JSON under componentconfig" \
    "[ \"\$(req /configz '$reader')\" = 200 ] && jq -e '.componentconfig.kind == \"KubeSchedulerConfiguration\"' '$dir/body' >/dev/null"
cp "$dir/body" "$dir/configz.json"
"$ms" config check "$dir/config.yaml" --output json >"$dir/effective.json" 2>/dev/null
check_eval "/configz: the configuration as given (percentageOfNodesToScore 70, ImageLocality off)" \
    "jq -e '.componentconfig.percentageOfNodesToScore == 70 and ([.componentconfig.profiles[0].plugins.score.enabled[].name] | index(\"ImageLocality\") == null)' '$dir/configz.json' >/dev/null"
check_eval "/configz: the profiles as \`config check\` prints them for the same file" \
    "[ \"\$(jq -S .componentconfig.profiles '$dir/configz.json')\" = \"\$(jq -S .profiles '$dir/effective.json')\" ]"
check_eval "/configz on the plain port too" \
    "curl -sf http://127.0.0.1:$mport/configz | jq -e .componentconfig.profiles >/dev/null"

# --- the FailedScheduling series: one Event, its count growing --------------------------------
# Each node added (too small for huge) sends huge through a cycle again; the
# Event is updated at most every 30 s.
series_count() {
    kube_api GET /apis/events.k8s.io/v1/namespaces/default/events |
        jq '[.items[] | select(.reason=="FailedScheduling" and .regarding.name=="huge")]' >"$dir/fs.json"
    jq -r 'if length == 1 then (.[0].series.count // 1) else "objects:\(length)" end' "$dir/fs.json"
}
mknode small-1 cpu=1 memory=4Gi
sleep $((31 - (SECONDS - t_first) > 0 ? 31 - (SECONDS - t_first) : 0))
mknode small-2 cpu=1 memory=4Gi
check_eval "after a retry 30 s later: still one Event object for huge, its series.count 2 or more" \
    "wait_for 15 'c=\$(series_count); [ \"\${c#objects}\" = \"\$c\" ] && [ \"\$c\" -ge 2 ]'"
count1=$(series_count)
name1=$(jq -r '.[0].metadata.name' "$dir/fs.json")
last1=$(jq -r '.[0].series.lastObservedTime' "$dir/fs.json")
sleep 30
mknode small-3 cpu=1 memory=4Gi
check_eval "30 s later again: the same Event ($name1), series.count above $count1, lastObservedTime later" \
    "wait_for 15 'c=\$(series_count); [ \"\${c#objects}\" = \"\$c\" ] && [ \"\$c\" -gt $count1 ]' &&
     [ \"\$(jq -r '.[0].metadata.name' '$dir/fs.json')\" = '$name1' ] &&
     [[ \"\$(jq -r '.[0].series.lastObservedTime' '$dir/fs.json')\" > '$last1' ]]"
count2=$(series_count)
check_eval "core/v1 shows it as one Event with series.count $count2" \
    "kube_api GET /api/v1/namespaces/default/events | jq -e '[.items[] | select(.reason==\"FailedScheduling\" and .involvedObject.name==\"huge\")] | length == 1 and .[0].series.count == $count2' >/dev/null"
check_eval "the condition's reason is Unschedulable" \
    "kube_api GET /api/v1/namespaces/default/pods/huge | jq -e '.status.conditions[] | select(.type==\"PodScheduled\") | .reason == \"Unschedulable\"' >/dev/null"
scrape
check_eval "scheduler_queue_incoming_pods_total counted the NodeAdd moves" \
    "grep -Eq '^scheduler_queue_incoming_pods_total\\{event=\"NodeAdd\",queue=\"(active|backoff)\"\\} [1-9]' '$dir/metrics.txt'"
check_eval "SIGTERM: moonsched exits 0" "stop_ms TERM"

tap_done
