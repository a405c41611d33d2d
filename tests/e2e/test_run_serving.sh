#!/bin/bash
# Secure serving of `moonsched run` on a real kube-apiserver v1.20.2 + etcd
# (TAP): HTTPS on --secure-port with a self-signed certificate or the
# given one; tokens from the TokenRequest API reviewed by the server
# (TokenReview), access by SubjectAccessReview against RBAC: a
# ServiceAccount bound to a ClusterRole with nonResourceURLs /metrics gets
# the metrics, one without gets 403, no token is system:anonymous (403 on
# /metrics, 200 on /healthz, /livez, /readyz), a bad token 401. The
# answers are compared with upstream kube-scheduler's from the same tree,
# on the same server. --authentication-kubeconfig and
# --authorization-kubeconfig choose who reviews; --secure-port=0 serves
# nothing; --tls-min-version and --tls-cipher-suites are honoured; the
# certificate files replaced under the running scheduler are served; /debug/*
# is authorized like /metrics; --client-ca-file's certificates authenticate
# as upstream's; failed authentications are counted and limited per
# address; the plain port is off by default and serves
# health only (and the metrics with --plain-metrics), never /debug/*.
# Loopback only; stops everything it starts.
E2E_NAME=serving
# shellcheck source=run-harness.sh
source "$(cd "$(dirname "$0")" && pwd)/run-harness.sh"

ks_pid=""
trap 'if [ -n "$ks_pid" ]; then kill "$ks_pid" 2>/dev/null; wait "$ks_pid" 2>/dev/null; fi; cleanup' EXIT

# --- identities ----------------------------------------------------------------
service_account reader '["/metrics"]'
service_account nobody
service_account debugger '["/debug/*"]'
reader=$(token_of reader)
nobody=$(token_of nobody)
debugger=$(token_of debugger)
check_eval "TokenRequest gives tokens for the ServiceAccounts reader and nobody" '[ -n "$reader" ] && [ -n "$nobody" ]'
# nobody's token as a kubeconfig: it may not create reviews
kube_kubeconfig "$dir" nobody "$nobody"

port=$(kube_free_port)
# "CODE" of a GET on https://127.0.0.1:PORT/PATH (body in $dir/body);
# certificates are not checked, as the kubelet's probes do not.
req() {   # port path [token]
    local auth=()
    [ -n "${3:-}" ] && auth=(-H "Authorization: Bearer $3")
    curl -sk -A moonsched-e2e "${auth[@]}" -o "$dir/body" -w '%{http_code}' "https://127.0.0.1:$1$2"
}
reviews() { grep -c "path=\"/apis/$1" "$dir/ms.log"; }

# --- self-signed, the scheduler's own connection reviews ------------------------------
start_ms --secure-port="$port" --bind-address=127.0.0.1 --leader-elect=false --metrics-bind-address=0
check_eval "HTTPS on 127.0.0.1:$port: /healthz 200 without a token" "wait_for 20 '[ \"\$(req $port /healthz)\" = 200 ]'"
check_eval "the log says so, with a self-signed certificate" \
    "grep -q 'msg=\"serving securely\" address=127.0.0.1 port=$port certificate=self-signed' '$dir/ms.log'"
check_eval "/readyz and /livez 200 without a token" \
    "wait_for 20 '[ \"\$(req $port /readyz)\" = 200 ]' && [ \"\$(req $port /livez)\" = 200 ]"
forbidden() {   # user path
    printf '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \\"%s\\" cannot get path \\"%s\\"","reason":"Forbidden","details":{},"code":403}\n' "$1" "$2"
}
check_eval "/metrics without a token: 403, system:anonymous is forbidden (upstream's Status)" \
    "[ \"\$(req $port /metrics)\" = 403 ] && [ \"\$(cat '$dir/body')\" = '$(forbidden system:anonymous /metrics)' ]"
check_eval "/metrics with reader's token (ClusterRole nonResourceURLs /metrics get): 200 and the metrics" \
    "[ \"\$(req $port /metrics '$reader')\" = 200 ] && grep -q '^scheduler_pending_pods{queue=\"active\"}' '$dir/body'"
check_eval "/metrics with nobody's token: 403 naming the ServiceAccount" \
    "[ \"\$(req $port /metrics '$nobody')\" = 403 ] &&
     [ \"\$(cat '$dir/body')\" = '$(forbidden system:serviceaccount:default:nobody /metrics)' ]"
unauthorized='{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}'
check_eval "a token the server does not know: 401, even on /healthz" \
    "[ \"\$(req $port /metrics not-a-token)\" = 401 ] && [ \"\$(cat '$dir/body')\" = '$unauthorized' ] &&
     [ \"\$(req $port /healthz not-a-token)\" = 401 ]"
tr0=$(reviews authentication.k8s.io/v1/tokenreviews)
sar0=$(reviews authorization.k8s.io/v1/subjectaccessreviews)
for _ in 1 2 3; do req "$port" /metrics "$reader" >/dev/null; req "$port" /metrics >/dev/null; done
check_eval "answers are cached: 6 more requests, no more TokenReview or SubjectAccessReview ($tr0, $sar0)" \
    "[ \"\$(reviews authentication.k8s.io/v1/tokenreviews)\" = $tr0 ] &&
     [ \"\$(reviews authorization.k8s.io/v1/subjectaccessreviews)\" = $sar0 ]"
check_eval "a bad token is reviewed again each time (its answer carries an error: not cached, as upstream)" \
    "req $port /metrics not-a-token >/dev/null && [ \"\$(reviews authentication.k8s.io/v1/tokenreviews)\" = $((tr0 + 1)) ]"
echo | openssl s_client -connect "127.0.0.1:$port" -showcerts 2>/dev/null >"$dir/chain.txt"
check_eval "the certificate: localhost@TIME signed by localhost-ca@TIME, served with its CA, TLS 1.2+" \
    "grep -q '^ 0 s:CN = localhost@' '$dir/chain.txt' && grep -q '^ 1 s:CN = localhost-ca@' '$dir/chain.txt' &&
     grep -Eq '^New, TLSv1\\.[23]' '$dir/chain.txt'"
check_eval "TLS 1.1 is refused" "! echo | openssl s_client -connect 127.0.0.1:$port -tls1_1 >/dev/null 2>&1"

# --- an API server that does not answer ---------------------------------------------------
# (frozen with SIGSTOP: connections are accepted, nothing answers)
api_pid=$(cat "$dir/apiserver.pid")
kill -STOP "$api_pid"
t0=$SECONDS
curl -sk -o /dev/null -w '%{http_code}' -H "Authorization: Bearer frozen-token" \
    "https://127.0.0.1:$port/metrics" >"$dir/frozen.code" 2>/dev/null &
frozen=$!
sleep 1
check_eval "API server frozen: a token's review waits, /healthz and /readyz answer at once meanwhile" \
    "[ \"\$(curl -sk -m 1 -o /dev/null -w %{http_code} https://127.0.0.1:$port/healthz)\" = 200 ] &&
     [ \"\$(curl -sk -m 1 -o /dev/null -w %{http_code} https://127.0.0.1:$port/readyz)\" = 200 ] && kill -0 $frozen"
wait "$frozen"
took=$((SECONDS - t0))
kill -CONT "$api_pid"
check_eval "the review gives up after its 10 s timeout: 401 (took ${took} s)" \
    "[ \"\$(cat '$dir/frozen.code')\" = 401 ] && [ $took -ge 9 ] && [ $took -le 13 ]"

# --- upstream kube-scheduler from the same tree, same server, same tokens ---------------
kport=$(kube_free_port)
"$bin/kube-scheduler" --kubeconfig "$dir/scheduler.kubeconfig" --authentication-kubeconfig "$dir/scheduler.kubeconfig" \
    --authorization-kubeconfig "$dir/scheduler.kubeconfig" --bind-address=127.0.0.1 --secure-port="$kport" \
    --port=0 --leader-elect=false >"$dir/kube-scheduler.log" 2>&1 &
ks_pid=$!
same() {   # path [token]: the same code and body from both
    local a b
    a=$(req "$port" "$1" "${2:-}") && cp "$dir/body" "$dir/ours" && b=$(req "$kport" "$1" "${2:-}") &&
        [ "$a" = "$b" ] && cmp -s "$dir/ours" "$dir/body"
}
if wait_for 30 "[ \"\$(req $kport /healthz)\" = 200 ]"; then
    check_eval "as upstream: /metrics without a token (403 Status)" "same /metrics"
    check_eval "as upstream: /metrics with nobody's token (403 Status)" "same /metrics '$nobody'"
    check_eval "as upstream: a bad token (401 Status)" "same /metrics not-a-token"
    check_eval "as upstream: /healthz without a token (200 ok)" "same /healthz"
    check_eval "as upstream: /metrics with reader's token (200)" \
        "[ \"\$(req $port /metrics '$reader')\" = 200 ] && [ \"\$(req $kport /metrics '$reader')\" = 200 ]"
    check_eval "as upstream: a path nobody may get (403 Status naming it)" "same /other '$reader'"
else
    not_ok "upstream kube-scheduler serves HTTPS on 127.0.0.1:$kport" "$(tail -n 5 "$dir/kube-scheduler.log")"
fi
check_eval "the port taken (by kube-scheduler): moonsched exits non-zero, as upstream" \
    "! timeout 20 '$ms' run --kubeconfig '$dir/scheduler.kubeconfig' --leader-elect=false --metrics-bind-address=0 \
       --bind-address=127.0.0.1 --secure-port=$kport >'$dir/taken.log' 2>&1 && grep -q 'cannot listen on 127.0.0.1:$kport' '$dir/taken.log'"
kill "$ks_pid" 2>/dev/null
wait "$ks_pid" 2>/dev/null
ks_pid=""
check_eval "SIGTERM: moonsched exits 0" "stop_ms TERM"

# --- a given certificate ------------------------------------------------------------------
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=serving-ca" \
    -keyout "$dir/sca.key" -out "$dir/sca.crt" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=moonsched-serving" -keyout "$dir/serving.key" \
    -out "$dir/serving.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\n' >"$dir/serving.ext"
openssl x509 -req -in "$dir/serving.csr" -CA "$dir/sca.crt" -CAkey "$dir/sca.key" -CAcreateserial -days 1 \
    -extfile "$dir/serving.ext" -out "$dir/serving.crt" 2>/dev/null
start_ms --secure-port="$port" --bind-address=127.0.0.1 --leader-elect=false --metrics-bind-address=0 \
    --tls-cert-file="$dir/serving.crt" --tls-private-key-file="$dir/serving.key"
check_eval "--tls-cert-file/--tls-private-key-file: curl --cacert verifies it (CN moonsched-serving)" \
    "wait_for 20 'curl -sf --cacert \"$dir/sca.crt\" https://127.0.0.1:$port/healthz >/dev/null' &&
     echo | openssl s_client -connect 127.0.0.1:$port 2>/dev/null | grep -q 'subject=CN = moonsched-serving'"
# rotated under the running scheduler, as cert-manager does: new files renamed over the old
openssl req -newkey rsa:2048 -nodes -subj "/CN=moonsched-rotated" -keyout "$dir/rotated.key" \
    -out "$dir/rotated.csr" 2>/dev/null
openssl x509 -req -in "$dir/rotated.csr" -CA "$dir/sca.crt" -CAkey "$dir/sca.key" -CAcreateserial -days 1 \
    -extfile "$dir/serving.ext" -out "$dir/rotated.crt" 2>/dev/null
mv "$dir/rotated.key" "$dir/serving.key"
mv "$dir/rotated.crt" "$dir/serving.crt"
check_eval "certificate and key replaced under the running scheduler: the new one is served, no restart" \
    "wait_for 20 \"echo | openssl s_client -connect 127.0.0.1:$port 2>/dev/null | grep -q 'subject=CN = moonsched-rotated'\" &&
     curl -sf --cacert '$dir/sca.crt' https://127.0.0.1:$port/healthz >/dev/null &&
     grep -q 'msg=\"serving certificate reloaded\"' '$dir/ms.log' && kill -0 $ms_pid"
stop_ms TERM
check_eval "a key that is not the certificate's: refused at start (exit 2)" \
    "'$ms' run --kubeconfig '$dir/scheduler.kubeconfig' --secure-port=$port --bind-address=127.0.0.1 \
       --metrics-bind-address=0 --tls-cert-file='$dir/serving.crt' --tls-private-key-file='$dir/sca.key' >'$dir/mismatch.log' 2>&1;
     [ \$? = 2 ] && grep -q 'tls-private-key-file' '$dir/mismatch.log'"

# --- --tls-min-version, --tls-cipher-suites ------------------------------------------------
hello() {   # openssl s_client's options...: "New, VERSION, Cipher is CIPHER", or nothing when refused
    echo | openssl s_client -connect "127.0.0.1:$port" "$@" 2>/dev/null | grep '^New, TLS'
}
start_ms --secure-port="$port" --bind-address=127.0.0.1 --leader-elect=false --metrics-bind-address=0 \
    --tls-min-version=VersionTLS13
wait_for 20 "[ \"\$(req $port /healthz)\" = 200 ]"
check_eval "--tls-min-version=VersionTLS13: a TLS 1.2 handshake is refused, TLS 1.3 served" \
    "[ -z \"\$(hello -tls1_2)\" ] && hello -tls1_3 | grep -q '^New, TLSv1.3'"
stop_ms TERM
start_ms --secure-port="$port" --bind-address=127.0.0.1 --leader-elect=false --metrics-bind-address=0 \
    --tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384
wait_for 20 "[ \"\$(req $port /healthz)\" = 200 ]"
check_eval "--tls-cipher-suites: TLS 1.2 with the listed suite only" \
    "hello -tls1_2 -cipher ECDHE-RSA-AES256-GCM-SHA384 | grep -q 'Cipher is ECDHE-RSA-AES256-GCM-SHA384' &&
     [ -z \"\$(hello -tls1_2 -cipher ECDHE-RSA-AES128-GCM-SHA256)\" ] &&
     [ -z \"\$(hello -tls1_2 -cipher ECDHE-RSA-CHACHA20-POLY1305)\" ]"
stop_ms TERM
check_eval "an unknown --tls-min-version or suite: usage error (exit 2) naming it" \
    "'$ms' run --kubeconfig '$dir/scheduler.kubeconfig' --secure-port=$port --bind-address=127.0.0.1 \
       --metrics-bind-address=0 --tls-min-version=VersionTLS14 >'$dir/tlsv.log' 2>&1;
     [ \$? = 2 ] && grep -q 'unknown tls version \"VersionTLS14\"' '$dir/tlsv.log' &&
     { '$ms' run --kubeconfig '$dir/scheduler.kubeconfig' --secure-port=$port --bind-address=127.0.0.1 \
       --metrics-bind-address=0 --tls-cipher-suites=TLS_RSA_WITH_RC4_128_SHA >'$dir/tlsc.log' 2>&1;
       [ \$? = 2 ]; } && grep -q 'TLS_RSA_WITH_RC4_128_SHA' '$dir/tlsc.log'"

# --- who reviews: --authentication-kubeconfig, --authorization-kubeconfig ------------------
start_ms --secure-port="$port" --bind-address=127.0.0.1 --leader-elect=false --metrics-bind-address=0 \
    --authentication-kubeconfig="$dir/nobody.kubeconfig"
wait_for 20 "[ \"\$(req $port /healthz)\" = 200 ]"
check_eval "--authentication-kubeconfig: reviews as nobody (forbidden to create TokenReviews): reader's token 401" \
    "[ \"\$(req $port /metrics '$reader')\" = 401 ] && grep -q 'tokenreviews?timeout=10s\" status=403' '$dir/ms.log'"
stop_ms TERM
start_ms --secure-port="$port" --bind-address=127.0.0.1 --leader-elect=false --metrics-bind-address=0 \
    --authorization-kubeconfig="$dir/nobody.kubeconfig"
wait_for 20 "[ \"\$(req $port /healthz)\" = 200 ]"
check_eval "--authorization-kubeconfig: access reviewed as nobody (forbidden): 500 Internal Server Error" \
    "[ \"\$(req $port /metrics '$reader')\" = 500 ] && grep -q '^Internal Server Error: \"/metrics\": SubjectAccessReview: HTTP 403' '$dir/body'"
stop_ms TERM

# --- --client-ca-file; failed authentications limited ----------------------------------------
# A CA of the test's, a client certificate it signed (CN cert-reader, O
# cert-readers: the group may get /metrics), the same names signed by
# another CA.
cadir=$dir/client-ca
mkdir -p "$cadir"
(
    cd "$cadir" || exit 1
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 1 -subj /CN=e2e-client-ca &&
        openssl req -x509 -newkey rsa:2048 -nodes -keyout other.key -out other.crt -days 1 -subj /CN=other-ca || exit 1
    for pair in reader:ca rogue:other; do
        name=${pair%:*} ca=${pair#*:}
        openssl req -newkey rsa:2048 -nodes -keyout "$name.key" -out "$name.csr" -subj /O=cert-readers/CN=cert-reader &&
            printf 'extendedKeyUsage=clientAuth\n' >"$name.ext" &&
            openssl x509 -req -in "$name.csr" -CA "$ca.crt" -CAkey "$ca.key" -CAcreateserial -days 1 \
                -extfile "$name.ext" -out "$name.crt" || exit 1
    done
) >"$cadir/openssl.log" 2>&1
kube_api POST /apis/rbac.authorization.k8s.io/v1/clusterrolebindings \
    '{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"cert-readers"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"reader"},"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"cert-readers"}]}' >/dev/null
reqc() {   # port path cert [token]
    local auth=()
    [ -n "${4:-}" ] && auth=(-H "Authorization: Bearer $4")
    curl -sk -A moonsched-e2e --cert "$cadir/$3.crt" --key "$cadir/$3.key" "${auth[@]}" -o "$dir/body" \
        -w '%{http_code}' "https://127.0.0.1:$1$2"
}
metric() { reqc "$port" /metrics reader >/dev/null && awk -v k="$1" '$1 == k { print $2 }' "$dir/body"; }
start_ms --secure-port="$port" --bind-address=127.0.0.1 --leader-elect=false --client-ca-file="$cadir/ca.crt"
wait_for 20 "[ \"\$(req $port /healthz)\" = 200 ]"
tr0=$(reviews authentication.k8s.io/v1/tokenreviews)
check_eval "--client-ca-file: a certificate the CA signed is CN cert-reader in group cert-readers: /metrics 200, no TokenReview" \
    "[ \"\$(reqc $port /metrics reader)\" = 200 ] && grep -q '^scheduler_pending_pods' '$dir/body' &&
     [ \"\$(reqc $port /metrics reader not-a-token)\" = 200 ] &&
     [ \"\$(reviews authentication.k8s.io/v1/tokenreviews)\" = $tr0 ]"
check_eval "the same names signed by another CA: 401, with or without a good token" \
    "[ \"\$(reqc $port /metrics rogue)\" = 401 ] && [ \"\$(cat '$dir/body')\" = '$unauthorized' ] &&
     [ \"\$(reqc $port /metrics rogue '$reader')\" = 401 ]"
check_eval "no certificate: as before (anonymous 403, reader's token 200)" \
    "[ \"\$(req $port /metrics)\" = 403 ] && [ \"\$(req $port /metrics '$reader')\" = 200 ]"
check_eval "moonsched_authentication_attempts_total counts the refused certificates" \
    "[ \"\$(metric 'moonsched_authentication_attempts_total{result=\"failure\"}')\" = 2 ]"
# 60 bad tokens from 127.0.0.1: at most 20 reviews per 10 s window, the
# rest refused without one (the bound follows from the time taken)
tr0=$(reviews authentication.k8s.io/v1/tokenreviews)
t0=$SECONDS
for _ in $(seq 1 60); do req "$port" /metrics not-a-token >>"$dir/hammer.codes"; echo >>"$dir/hammer.codes"; done
took=$((SECONDS - t0))
posted=$(($(reviews authentication.k8s.io/v1/tokenreviews) - tr0))
throttled=$(metric 'moonsched_authentication_attempts_total{result="throttled"}')
check_eval "60 bad tokens: 60 401s, $posted TokenReviews in ${took} s (at most 20 per 10 s), $throttled refused without one" \
    "[ \"\$(grep -c '^401\$' '$dir/hammer.codes')\" = 60 ] && [ $posted -le $((20 * ((took + 1) / 10 + 1))) ] &&
     [ \$((posted + throttled)) = 60 ]"
# The limit spares cached answers, whatever the hammer took: its window
# may have ended, and the reader's answer cached before it expired. So each
# round fills the window in force from 127.0.0.1 (25 bad tokens at once, so
# that a slow review does not spread them over two windows), has the
# reader's token reviewed and cached from 127.0.0.2 (loopback too, another
# source), asks with it from 127.0.0.1, and counts only if a bad token right
# after is still refused without a review: the answer, cached after the
# window began and kept as long (10 s each), was then still cached, and the
# request between was served from the cache while its address was
# throttled. A round that outlived the window is done again.
throttled_now() {   # a bad token from 127.0.0.1 is refused without a review
    local r
    r=$(reviews authentication.k8s.io/v1/tokenreviews)
    [ "$(req "$port" /metrics not-a-token)" = 401 ] && [ "$(reviews authentication.k8s.io/v1/tokenreviews)" = "$r" ]
}
round=0
while [ $((round += 1)) -le 5 ]; do
    bad=()
    for _ in $(seq 1 25); do
        curl -sk -A moonsched-e2e -H 'Authorization: Bearer not-a-token' -o /dev/null "https://127.0.0.1:$port/metrics" &
        bad+=($!)
    done
    wait "${bad[@]}"
    cached=$(curl -sk -A moonsched-e2e --interface 127.0.0.2 -H "Authorization: Bearer $reader" -o /dev/null \
        -w '%{http_code}' "https://127.0.0.1:$port/metrics")
    tr0=$(reviews authentication.k8s.io/v1/tokenreviews)
    by_token=$(req "$port" /metrics "$reader")
    tr1=$(reviews authentication.k8s.io/v1/tokenreviews)
    by_cert=$(reqc "$port" /metrics reader)
    throttled_now && break
done
check_eval "meanwhile, while 127.0.0.1 is throttled, the reader's token (cached from 127.0.0.2: $cached) gets /metrics from it without a review ($by_token, $((tr1 - tr0)) reviews), and so does the certificate ($by_cert); round $round" \
    "[ $round -le 5 ] && [ '$cached' = 200 ] && [ '$by_token' = 200 ] && [ $tr1 = $tr0 ] && [ '$by_cert' = 200 ]"
stop_ms TERM
kport=$(kube_free_port)
"$bin/kube-scheduler" --kubeconfig "$dir/scheduler.kubeconfig" --authentication-kubeconfig "$dir/scheduler.kubeconfig" \
    --authorization-kubeconfig "$dir/scheduler.kubeconfig" --bind-address=127.0.0.1 --secure-port="$kport" \
    --client-ca-file="$cadir/ca.crt" --port=0 --leader-elect=false >"$dir/kube-scheduler-ca.log" 2>&1 &
ks_pid=$!
if wait_for 30 "[ \"\$(req $kport /healthz)\" = 200 ]"; then
    check_eval "as upstream with --client-ca-file: the CA's certificate gets /metrics (200)" \
        "[ \"\$(reqc $kport /metrics reader)\" = 200 ]"
    check_eval "as upstream with --client-ca-file: another CA's certificate, the same 401 Status" \
        "[ \"\$(reqc $kport /metrics rogue)\" = 401 ] && [ \"\$(cat '$dir/body')\" = '$unauthorized' ]"
else
    not_ok "upstream kube-scheduler with --client-ca-file serves HTTPS on 127.0.0.1:$kport" \
        "$(tail -n 5 "$dir/kube-scheduler-ca.log")"
fi
kill "$ks_pid" 2>/dev/null
wait "$ks_pid" 2>/dev/null
ks_pid=""

# --- the plain port: off by default, health only, never /debug -------------------------------
# the TCP ports moonsched listens on
listening() { ss -Hltnp | grep "pid=$ms_pid," | awk '{ sub(/.*:/, "", $4); print $4 }' | sort -u | tr '\n' ' '; }
plain() { curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$mport$1"; }
start_ms --secure-port="$port" --bind-address=127.0.0.1 --leader-elect=false
wait_for 20 "[ \"\$(req $port /healthz)\" = 200 ]"
check_eval "no --metrics-bind-address: no plain port, only the secure one ($port) is listened on" \
    "[ \"\$(listening)\" = '$port ' ] && ! grep -q 'over plain HTTP' '$dir/ms.log'"
check_eval "/debug/shadow on the secure port is authorized like /metrics: 403 anonymous and for reader (/metrics only)" \
    "[ \"\$(req $port /debug/shadow)\" = 403 ] && [ \"\$(cat '$dir/body')\" = '$(forbidden system:anonymous /debug/shadow)' ] &&
     [ \"\$(req $port /debug/shadow '$reader')\" = 403 ]"
check_eval "/debug/shadow with a token allowed /debug/*: 200, its JSON" \
    "[ \"\$(req $port /debug/shadow '$debugger')\" = 200 ] && jq -e . '$dir/body' >/dev/null"
stop_ms TERM
mport=$(kube_free_port)
start_ms --secure-port=0 --bind-address=127.0.0.1 --leader-elect=false --metrics-bind-address="127.0.0.1:$mport"
check_eval "--metrics-bind-address: the plain port serves /healthz, /livez, /readyz" \
    "wait_for 20 '[ \"\$(plain /readyz)\" = 200 ]' && [ \"\$(plain /healthz)\" = 200 ] && [ \"\$(plain /livez)\" = 200 ] &&
     grep -q 'msg=\"serving health over plain HTTP\"' '$dir/ms.log'"
check_eval "... and nothing else: /metrics, /configz, /debug/shadow, /debug/snapshot, /debug/explain 404" \
    "[ \"\$(plain /metrics)\" = 404 ] && [ \"\$(plain /configz)\" = 404 ] && [ \"\$(plain /debug/shadow)\" = 404 ] &&
     [ \"\$(plain /debug/snapshot)\" = 404 ] && [ \"\$(plain '/debug/explain?pod=default/x')\" = 404 ]"
stop_ms TERM

# --- --secure-port=0 -----------------------------------------------------------------------
start_ms --secure-port=0 --bind-address=127.0.0.1 --leader-elect=false --metrics-bind-address="127.0.0.1:$mport" \
    --plain-metrics --debug-snapshot
check_eval "--secure-port=0: plain HTTP /healthz still served" \
    "wait_for 20 '[ \"\$(curl -s -o /dev/null -w %{http_code} http://127.0.0.1:$mport/healthz)\" = 200 ]'"
check_eval "--plain-metrics: /metrics and /configz on the plain port; /debug/* still not (404)" \
    "[ \"\$(plain /metrics)\" = 200 ] && [ \"\$(plain /configz)\" = 200 ] && [ \"\$(plain /debug/shadow)\" = 404 ] &&
     [ \"\$(plain /debug/snapshot)\" = 404 ]"
check_eval "--secure-port=0: nothing on the HTTPS port, and the log says HTTPS is off" \
    "[ \"\$(req $port /healthz)\" = 000 ] && grep -q 'secure serving disabled' '$dir/ms.log'"
stop_ms TERM

tap_done
