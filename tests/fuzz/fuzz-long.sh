#!/bin/sh
# Long fuzzing (`make fuzz-long`): every target in turn for FUZZ_SECONDS
# (default 1200) on a copy of its corpus; afterwards the inputs that reach
# new code are merged into tests/fuzz/corpus/<name> (libFuzzer's -merge=1
# over a copy of the corpus; -use_counters=0 counts code reached, not how
# often, which keeps the corpus small).
# A crash stops nothing: its input is kept under $OUT and the run ends
# non-zero. Fixed crashes belong in the corpus as regression inputs.
set -u
B=${B:-build}
secs=${FUZZ_SECONDS:-1200}
OUT=${OUT:-$(mktemp -d /tmp/moonsched-fuzz.XXXXXX)}
status=0
for f in "$B"/fuzz/fuzz_*; do
    [ -x "$f" ] || continue
    name=$(basename "$f")
    corpus=tests/fuzz/corpus/${name#fuzz_}
    mkdir -p "$corpus" "$OUT/$name"
    work=$(mktemp -d)
    merged=$(mktemp -d)
    cp -r "$corpus"/. "$work"/
    cp -r "$corpus"/. "$merged"/
    echo "== $name: ${secs}s"
    if ! "$f" -max_total_time="$secs" -rss_limit_mb=2048 -artifact_prefix="$OUT/$name/" "$work" \
        >"$OUT/$name.log" 2>&1; then
        tail -n 30 "$OUT/$name.log"
        echo "$name: crash input kept in $OUT/$name/"
        status=1
    fi
    grep -E '^#[0-9]+[[:space:]]+DONE' "$OUT/$name.log"
    before=$(ls "$merged" | wc -l)
    if "$f" -merge=1 -use_counters=0 -rss_limit_mb=2048 "$merged" "$work" >"$OUT/$name.merge.log" 2>&1; then
        cp -rn "$merged"/. "$corpus"/
        echo "$name: $(($(ls "$merged" | wc -l) - before)) new inputs merged into $corpus" \
            "($(du -sk --apparent-size "$corpus" | cut -f1) KB)"
    else
        tail -n 10 "$OUT/$name.merge.log"
        status=1
    fi
    rm -rf "$work" "$merged"
done
echo "logs in $OUT"
exit $status
