#!/bin/sh
# `make bench-compare OLD=a.json NEW=b.json`: two `make bench` JSON tables
# side by side, per workload in both: pods/s and pods per CPU-second of
# each and the ratio new/old, attempts per pod and peak RSS of each.
# Exit 2 on a missing or malformed file.
set -u
if [ $# -ne 2 ] || [ -z "$1" ] || [ -z "$2" ]; then
    echo "usage: compare.sh OLD.json NEW.json (make bench-compare OLD=... NEW=...)" >&2
    exit 2
fi
for f in "$1" "$2"; do
    jq -e '.workloads | type == "array"' "$f" >/dev/null 2>&1 || { echo "compare: $f: not a bench table" >&2; exit 2; }
done
jq -r -n --slurpfile a "$1" --slurpfile b "$2" '
  def r(x; y): if (x | type) == "number" and (y | type) == "number" and x > 0 then (y / x * 100 | round / 100 | tostring) + "x" else "-" end;
  def s(x): if x == null then "-" else (x | tostring) end;
  ($a[0].workloads | map({key: .name, value: .}) | from_entries) as $old |
  ["workload", "pods/s old", "new", "ratio", "pods/CPU s old", "new", "ratio", "attempts old", "new", "RSS old", "new"],
  ($b[0].workloads[] | select($old[.name]) | $old[.name] as $o |
   [.name, s($o.pods_per_s), s(.pods_per_s), r($o.pods_per_s; .pods_per_s),
    s($o.pods_per_cpu_s), s(.pods_per_cpu_s), r($o.pods_per_cpu_s; .pods_per_cpu_s),
    s($o.attempts_per_pod), s(.attempts_per_pod), s($o.peak_rss_mib), s(.peak_rss_mib)])
  | @tsv' | awk -F '\t' '
  { for (i = 1; i <= NF; i++) { c[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } n = NR; if (NF > nf) nf = NF }
  END { for (r = 1; r <= n; r++) { line = ""; for (i = 1; i <= nf; i++) line = line (i < nf ? sprintf("%-" w[i] "s  ", c[r, i]) : c[r, i]); print line } }'
