#!/bin/sh
# tests/bench/compare.sh (`make bench-compare`): two bench tables side by
# side, workloads matched by name, ratios new/old. TAP output.
. tests/lib/cli.sh

cat >"$T/old.json" <<'JSON'
{"load": "1", "runs": 1, "upstream": "u", "workloads": [
 {"name": "SchedulingBasic/5000Nodes_10000Pods", "threshold": 680, "pods_per_s": 40000, "pods_per_cpu_s": 50000, "attempts_per_pod": 1.000, "peak_rss_mib": 56.0, "runs": 1, "spec": "x"}
,{"name": "OnlyOld", "threshold": null, "pods_per_s": 1, "pods_per_cpu_s": 1, "attempts_per_pod": 1, "peak_rss_mib": 1, "runs": 1, "spec": "x"}
]}
JSON
cat >"$T/new.json" <<'JSON'
{"load": "1", "runs": 1, "upstream": "u", "workloads": [
 {"name": "SchedulingBasic/5000Nodes_10000Pods", "threshold": 680, "pods_per_s": 60000, "pods_per_cpu_s": 100000, "attempts_per_pod": 1.000, "peak_rss_mib": 50.5, "runs": 1, "spec": "x"}
,{"name": "OnlyNew", "threshold": null, "pods_per_s": null, "pods_per_cpu_s": null, "attempts_per_pod": null, "peak_rss_mib": null, "runs": 1, "spec": "x"}
]}
JSON
sh tests/bench/compare.sh "$T/old.json" "$T/new.json" >"$T/out" 2>&1
check "compare: exit 0" test $? -eq 0
check "compare: pods/s and pods/CPU s ratios new/old" \
    grep -Eq '^SchedulingBasic/5000Nodes_10000Pods +40000 +60000 +1.5x +50000 +100000 +2x +1 +1 +56 +50.5$' "$T/out"
check "compare: a workload only in one table is left out" sh -c "! grep -q 'Only' '$T/out'"
echo '{}' >"$T/bad.json"
sh tests/bench/compare.sh "$T/old.json" "$T/bad.json" >/dev/null 2>"$T/err"
check "compare: not a bench table: exit 2" test $? -eq 2
check "compare: the file is named" grep -q "bad.json: not a bench table" "$T/err"
sh tests/bench/compare.sh "" "$T/new.json" >/dev/null 2>"$T/err"
check "compare: a file not given: exit 2" test $? -eq 2
check "compare: the usage names the make target" grep -q "make bench-compare OLD=... NEW=..." "$T/err"
tap_done
