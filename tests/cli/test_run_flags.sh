#!/bin/sh
# `moonsched run` flags that are checked before any connection: the
# metrics bind address, --leader-elect, kube-scheduler's command line
# (with or without `run`, kubeadm's manifest, flags without meaning here),
# --version, --controllers. TAP output. B: the build directory (default: build).
. tests/lib/cli.sh
tap_need "$M"
tap_on_failure() { sed 's/^/# /' "$T/out"; }

for addr in bogus 127.0.0.1 127.0.0.1:99999 "::1:80"; do
    "$M" run --kubeconfig /nonexistent --metrics-bind-address "$addr" >"$T/out" 2>&1
    rc=$?
    if [ $rc -eq 2 ] && grep -Fq -- "--metrics-bind-address: address \"$addr\"" "$T/out"; then
        ok "--metrics-bind-address $addr is a usage error naming the value"
    else
        not_ok "--metrics-bind-address $addr is a usage error naming the value (exit $rc)"
    fi
done
# Accepted addresses get as far as the kubeconfig (which does not exist).
for addr in 0 "" 127.0.0.1:0 "[::1]:0"; do
    "$M" run --kubeconfig /nonexistent "--metrics-bind-address=$addr" >"$T/out" 2>&1
    if grep -q '/nonexistent' "$T/out" && ! grep -q 'metrics-bind-address' "$T/out"; then
        ok "--metrics-bind-address '$addr' is accepted"
    else
        not_ok "--metrics-bind-address '$addr' is accepted"
    fi
done
"$M" run --help >"$T/out" 2>&1
if grep -q -- '--metrics-bind-address ADDR:PORT' "$T/out"; then ok "run --help lists --metrics-bind-address"
else not_ok "run --help lists --metrics-bind-address"; fi

for v in yes maybe ""; do
    "$M" run --kubeconfig /nonexistent "--leader-elect=$v" >"$T/out" 2>&1
    rc=$?
    if [ $rc -eq 2 ] && grep -Fq -- "--leader-elect: expected true or false, got \"$v\"" "$T/out"; then
        ok "--leader-elect=$v is a usage error naming the value"
    else
        not_ok "--leader-elect=$v is a usage error naming the value (exit $rc)"
    fi
done
# booleans as Go's strconv.ParseBool reads them (pflag)
for f in --leader-elect --leader-elect=true --leader-elect=false --leader-elect=1 --leader-elect=F; do
    "$M" run "$f" --kubeconfig /nonexistent >"$T/out" 2>&1
    if grep -q '/nonexistent' "$T/out" && ! grep -q 'leader-elect' "$T/out"; then ok "$f is accepted"
    else not_ok "$f is accepted"; fi
done
"$M" run --help >"$T/out" 2>&1
if grep -q -- '--leader-elect\[=BOOL\]' "$T/out"; then ok "run --help lists --leader-elect"
else not_ok "run --help lists --leader-elect"; fi

# --controllers: known names (and -NAME) are accepted, others are usage errors
for v in taint-eviction -taint-eviction taint-eviction,-taint-eviction; do
    "$M" run "--controllers=$v" --kubeconfig /nonexistent >"$T/out" 2>&1
    if grep -q '/nonexistent' "$T/out" && ! grep -q 'controllers' "$T/out"; then ok "--controllers=$v is accepted"
    else not_ok "--controllers=$v is accepted"; fi
done
"$M" run --controllers=node-lifecycle --kubeconfig /nonexistent >"$T/out" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -Fq 'unknown controller "node-lifecycle" (known: taint-eviction)' "$T/out"; then
    ok "--controllers with an unknown name is a usage error naming it"
else
    not_ok "--controllers with an unknown name is a usage error naming it (exit $rc)"
fi
# ---- kube-scheduler's command line ----
"$M" --kubeconfig /nonexistent >"$T/out" 2>&1
rc=$?
check_eval "flags without a subcommand run (exit $rc)" "[ $rc -eq 2 ] && grep -q '/nonexistent' '$T/out'"
"$M" --version >"$T/out" 2>&1
rc=$?
check_eval "--version prints the VERSION file's semantic version and the commit" \
    "[ $rc -eq 0 ] && grep -Eqx \"moonsched v\$(cat VERSION) \\(commit [0-9a-f]+(-dirty)?\\)\" '$T/out'"
check_eval "VERSION holds a semantic version" "grep -Eqx '[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?' VERSION"
"$M" run --kubeconfig /nonexistent --version >"$T/out" 2>&1
check_eval "run --version prints it too, before any connection" "grep -Eqx 'moonsched v[^ ]+ \\(commit [^ ]+\\)' '$T/out'"
# kubeadm's v1.20 static Pod, only the program's name changed
args=$(sed -n '/- command:/,/image:/p' tests/cli/data/kubeadm-kube-scheduler-1.20.yaml | sed -n 's/^    - \(--.*\)/\1/p')
check_eval "kubeadm's manifest has its six flags" "[ \$(echo '$args' | wc -l) -eq 6 ]"
# shellcheck disable=SC2086
"$M" $(echo "$args" | sed 's|/etc/kubernetes/scheduler.conf|/nonexistent|') >"$T/out" 2>&1
check_eval "kubeadm's kube-scheduler command line is accepted" \
    "grep -q '/nonexistent' '$T/out' && ! grep -q 'unknown argument' '$T/out'"
check_eval "its --port=0 (the insecure port) switches the plain-HTTP port off, without a warning" "! grep -q -- '--port' '$T/out'"
"$M" run --kubeconfig /nonexistent --feature-gates=IPv6DualStack=true --profiling \
    --kube-api-qps 100 --master https://x --logtostderr=false -v 2 >"$T/out" 2>&1
for f in --feature-gates=IPv6DualStack=true --profiling --kube-api-qps=100 --master=https://x --logtostderr=false; do
    check_eval "$f is accepted with a warning naming it" "grep -Fq 'warning: ignoring $f:' '$T/out'"
done
check_eval "... and the run goes on to the kubeconfig" "grep -q '/nonexistent' '$T/out'"
usage() {   # description, expected message, arguments...
    d=$1 m=$2
    shift 2
    "$M" "$@" --kubeconfig /nonexistent >"$T/out" 2>&1
    rc=$?
    check_eval "$d (exit $rc)" "[ $rc -eq 2 ] && grep -Fq -- '$m' '$T/out'"
}
usage "a boolean never takes the next argument" 'unknown argument "false"' --leader-elect false
usage "--leader-elect-lease-duration needs a positive duration" \
    '--leader-elect-lease-duration: expected a positive duration such as 15s, got "0s"' --leader-elect-lease-duration 0s
usage "--leader-elect-retry-period reads Go durations only" \
    '--leader-elect-retry-period: expected a positive duration such as 15s, got "2"' --leader-elect-retry-period=2
usage "--secure-port is a port" '--secure-port: expected a port (0-65535), got "70000"' --secure-port=70000
usage "--logging-format: text or json" '--logging-format: expected text or json, got "logfmt"' --logging-format=logfmt
usage "an unknown flag is a usage error" 'unknown argument "--no-such-flag"' --no-such-flag
check_eval "and nothing is suggested when no flag is near" "! grep -q 'did you mean' '$T/out'"
usage "a misspelt flag: the nearest one is suggested" \
    'moonsched: unknown argument "--leader-elect-leas-duration=3s" (did you mean --leader-elect-lease-duration?)' \
    --leader-elect-leas-duration=3s
usage "run: the same" 'moonsched: unknown argument "--kubeconfg" (did you mean --kubeconfig?)' run --kubeconfg x
usage "deschedule: the same" \
    'moonsched: unknown argument "--policy-config-fil" (did you mean --policy-config-file?)' deschedule --policy-config-fil x
usage "simulate: the same" 'moonsched: unknown argument "--clustr" (did you mean --cluster?)' simulate --clustr x
usage "a misspelt command: the nearest one is suggested" 'moonsched: unknown command "rnu" (did you mean "run"?)' rnu
usage "an unknown command far from any is only named" 'moonsched: unknown command "frobnicate"' frobnicate
check_eval "(without a suggestion)" "! grep -q 'did you mean' '$T/out'"
for f in "--logging-format=text" "--logging-format json" "--leader-elect-lease-duration=20s" \
         "--leader-elect-renew-deadline 12s" "--leader-elect-resource-name=x" "--secure-port 0" "--v=3" "-v4"; do
    # shellcheck disable=SC2086
    "$M" $f --kubeconfig /nonexistent >"$T/out" 2>&1
    check_eval "$f is accepted" "grep -q '/nonexistent' '$T/out' && ! grep -q 'usage' '$T/out'"
done
"$M" --help >"$T/out" 2>&1
check_eval "--help lists kube-scheduler's flags" "grep -q -- '--leader-elect-lease-duration' '$T/out' && grep -q -- '--version' '$T/out'"

tap_done
