#!/bin/sh
# The metric families moonsched serves, as the documentation and deploy/
# state them: the upstream list (tests/cli/data/upstream-scheduler-metrics.txt,
# taken from kube-scheduler's source) against the table in docs/run.md; the
# Grafana dashboard's and the alert rules' expressions name only families
# that exist; the rules pass `promtool check rules`. promtool comes from
# Debian's prometheus package; when it is not installed, the tests take it
# out of the downloaded package into the cache (the server's service is
# never installed or started).
# tests/e2e/test_run_metrics.sh checks the same names on a live /metrics.
# TAP output.
. tests/lib/cli.sh
LIST=$D/upstream-scheduler-metrics.txt
DOC=docs/run.md
DASH=deploy/monitoring/dashboard.json
RULES=deploy/monitoring/alerts.yaml

# ---- the upstream list ----
grep -v '^#' "$LIST" >"$T/list"
check "the upstream list: one family a line, five fields each" \
    awk 'NF != 5 { print "line " NR ": " $0; bad = 1 } END { exit bad }' "$T/list"
check_eval "the upstream list: 30 families (v1.30's scheduler, client and process ones)" \
    "[ \$(wc -l <\"$T/list\") -eq 30 ]"
awk '$5 ~ /^served/ { print $1 }' "$T/list" >"$T/served"
awk '$5 !~ /^served/ { print $1 }' "$T/list" >"$T/unserved"

# The families the documentation's table lists ("| `name` |"; one row may
# list several).
sed -n '/^## Metrics and health/,/^## /p' "$DOC" | grep '^| `' |
    sed 's/^| \([^|]*\)|.*/\1/' | grep -o '`[a-z0-9_]*`' | tr -d '`' | sort -u >"$T/documented"
missing=$(sort "$T/served" | comm -23 - "$T/documented")
check_eval "docs/run.md's table lists every served upstream family${missing:+ (missing: $missing)}" '[ -z "$missing" ]'
for f in $(cat "$T/unserved"); do
    check "docs/run.md says $f is not served" sh -c \
        "sed -n '/^Not served:/,/^\$/p' '$DOC' | tr '\n' ' ' | grep -q '\`$f\`'"
done
check "scheduler_e2e_scheduling_duration_seconds is not in the table (removed upstream in 1.23)" \
    sh -c "! grep -q '^| \`scheduler_e2e_scheduling_duration_seconds\`' '$DOC'"

# names EXPRFILE: the metric families an expression file names (histogram
# series reduced to their family).
names() {
    grep -o '\(scheduler\|rest_client\|process\|moonsched\|leader_election\|taint_eviction_controller\)_[a-z0-9_]*' "$1" |
        sed 's/_\(bucket\|sum\|count\)$//' | sort -u
}
# unknown EXPRFILE: the names in it that no documented family has.
unknown() { names "$1" | comm -23 - "$T/documented"; }

# The check itself must be able to fail: a removed family is caught.
echo 'rate(scheduler_e2e_scheduling_duration_seconds_bucket[5m])' >"$T/bad.expr"
check_eval "a name the table lacks is reported" '[ "$(unknown "$T/bad.expr")" = scheduler_e2e_scheduling_duration_seconds ]'

# ---- the Grafana dashboard ----
check "$DASH is valid JSON" jq -e . "$DASH"
jq -r '.. | objects | select(has("expr")) | .expr' "$DASH" >"$T/dash.expr"
check_eval "$DASH: 22 panels, every one with a query" \
    '[ "$(jq "[.panels[] | select((.targets | length) > 0)] | length" "$DASH")" -eq 22 ]'
bad=$(unknown "$T/dash.expr")
check_eval "$DASH names only families moonsched serves${bad:+ (unknown: $bad)}" '[ -z "$bad" ]'
check_eval "$DASH uses the upstream families (at least 15 of them)" \
    '[ "$(names "$T/dash.expr" | grep -cxFf "$T/served")" -ge 15 ]'

# ---- the alert rules ----
grep 'expr:' "$RULES" >"$T/rules.expr"
bad=$(unknown "$T/rules.expr")
check_eval "$RULES names only families moonsched serves${bad:+ (unknown: $bad)}" '[ -z "$bad" ]'
promtool=$(command -v promtool || sh tests/lib/promtool.sh)
if [ -x "$promtool" ]; then
    check "$RULES: promtool check rules" "$promtool" check rules "$RULES"
    # The availability and reload alerts fire on their cases and only then.
    check "$RULES: promtool test rules $D/alerts_test.yaml (scheduler down or absent, no leader or two, refused reload)" \
        sh -c "cd '$D' && '$promtool' test rules alerts_test.yaml"
else
    not_ok "$RULES: promtool check rules (promtool could not be fetched from Debian's prometheus package)"
fi

tap_done
