#!/bin/bash
# kubeconfig exec credential plugins against a real kube-apiserver v1.20.2
# (TAP). The plugin is a shell script that mints a ServiceAccount token
# bound to a fresh Secret (TokenRequest) and deletes the previous Secret,
# so that the server really stops accepting a token once the plugin has
# replaced it. moonsched runs on those tokens while they expire (short
# expirationTimestamp) and while one is revoked early (a 401 makes the
# client run the plugin again), and keeps binding. Also: client
# certificates from a plugin, a failing plugin's stderr in the error,
# KUBECONFIG lists, tls-server-name, insecure-skip-tls-verify, and the
# refusal of auth-provider users.
E2E_NAME=exec
# shellcheck source=run-harness.sh
source "$(cd "$(dirname "$0")" && pwd)/run-harness.sh"

# The plugin's identity: what system:kube-scheduler may do (as the user of
# the other suites has), through a ServiceAccount.
kube_api POST /api/v1/namespaces/kube-system/serviceaccounts \
    '{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"moonsched-exec"}}' >/dev/null
for role in system:kube-scheduler system:volume-scheduler moonsched:namespaces; do
    kube_api POST /apis/rbac.authorization.k8s.io/v1/clusterrolebindings \
        "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"ClusterRoleBinding\",\"metadata\":{\"name\":\"exec-${role//:/-}\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\",\"name\":\"$role\"},\"subjects\":[{\"kind\":\"ServiceAccount\",\"name\":\"moonsched-exec\",\"namespace\":\"kube-system\"}]}" >/dev/null
done

# The plugin reaches the API server through spec.cluster of
# KUBERNETES_EXEC_INFO (provideClusterInfo), and reads its settings from
# the kubeconfig's env. Each run is counted in $STATE/runs; token N is
# kept in $STATE/token-N; its expirationTimestamp is $STATE/ttl seconds
# ahead (the token itself lives an hour: only a deleted Secret ends it).
cat >"$dir/mint.sh" <<'PLUGIN'
#!/bin/sh
set -eu
s=$STATE
[ ! -e "$s/fail" ] || { echo "mint: the identity provider is down (try again later)" >&2; exit 3; }
n=$(( $(cat "$s/runs" 2>/dev/null || echo 0) + 1 ))
echo "$n" >"$s/runs"
printf '%s' "$KUBERNETES_EXEC_INFO" >"$s/exec-info"
server=$(printf '%s' "$KUBERNETES_EXEC_INFO" | jq -r .spec.cluster.server)
printf '%s' "$KUBERNETES_EXEC_INFO" | jq -r '.spec.cluster["certificate-authority-data"]' | base64 -d >"$s/plugin-ca.crt"
api() {
    curl -sf --cacert "$s/plugin-ca.crt" -H "Authorization: Bearer $(cat "$ADMIN_TOKEN_FILE")" \
        -H 'Content-Type: application/json' -X "$1" "$server$2" ${3:+--data-binary "$3"}
}
uid=$(api POST /api/v1/namespaces/kube-system/secrets \
    "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"exec-$n\"}}" | jq -r .metadata.uid)
tok=$(api POST /api/v1/namespaces/kube-system/serviceaccounts/moonsched-exec/token \
    "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"TokenRequest\",\"spec\":{\"expirationSeconds\":3600,\"boundObjectRef\":{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"name\":\"exec-$n\",\"uid\":\"$uid\"}}}" |
    jq -r .status.token)
[ -n "$tok" ] && [ "$tok" != null ]
if [ "$n" -gt 1 ]; then api DELETE "/api/v1/namespaces/kube-system/secrets/exec-$((n - 1))" >/dev/null || true; fi
echo "$tok" >"$s/token-$n"
exp=$(date -u -d "@$(( $(date +%s) + $(cat "$s/ttl") ))" +%Y-%m-%dT%H:%M:%SZ)
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s","expirationTimestamp":"%s"}}\n' \
    "$tok" "$exp"
PLUGIN
chmod +x "$dir/mint.sh"
mkdir -p "$dir/state"
echo 3600 >"$dir/state/ttl"

exec_kubeconfig() {   # file, plugin command, [user extra yaml]
    cat >"$1" <<KC
apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: $KUBE_URL
    certificate-authority: $dir/ca.crt
users:
- name: plugin
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: $2
      interactiveMode: Never
      provideClusterInfo: true
      env:
      - {name: STATE, value: $dir/state}
      - {name: ADMIN_TOKEN_FILE, value: $dir/admin.token}
${3:-}
contexts:
- name: exec
  context: {cluster: test, user: plugin}
current-context: exec
KC
}
# (a relative command: resolved against the kubeconfig's directory)
exec_kubeconfig "$dir/exec.kubeconfig" ./mint.sh

unbound_count() {   # prefix
    kube_api GET /api/v1/namespaces/default/pods | jq --arg p "$1-" \
        '[.items[] | select(.metadata.name | startswith($p)) | select((.spec.nodeName // "") == "")] | length'
}
runs() { cat "$dir/state/runs" 2>/dev/null || echo 0; }
refused() {   # token file: the server answers 401 to it
    [ "$(curl -s -o /dev/null -w '%{http_code}' --cacert "$dir/ca.crt" -H "Authorization: Bearer $(cat "$1")" \
        "$KUBE_URL/api/v1/nodes")" = 401 ]
}
accepted() { ! refused "$1"; }

mknode n1 cpu=8 memory=16Gi
mknode n2 cpu=8 memory=16Gi
printf 'apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\nleaderElection: {leaderElect: false}\n' \
    >"$dir/sched.yaml"
"$ms" run --kubeconfig "$dir/exec.kubeconfig" --config "$dir/sched.yaml" --secure-port=0 -v 4 >>"$dir/ms.log" 2>&1 &
ms_pid=$!

# --- the first token ---------------------------------------------------------
mkpods a 5 memory=
check_eval "pods bound with the plugin's token" "wait_for 30 '[ \"\$(unbound_count a)\" = 0 ]'"
check_eval "the plugin got the cluster it is for (server, CA) and may not prompt" \
    'jq -e --arg s "$KUBE_URL" ".spec.cluster.server == \$s and .spec.interactive == false and .apiVersion == \"client.authentication.k8s.io/v1\"" "$dir/state/exec-info" >/dev/null && cmp -s "$dir/state/plugin-ca.crt" "$dir/ca.crt"'
check_eval "the token is cached: one run of the plugin for every request and client so far" \
    '[ "$(runs)" = 1 ] && [ "$(grep -c "ran the credential plugin" "$dir/ms.log")" = 1 ]'

# --- revoked before it expires: the 401 path -----------------------------------
echo 5 >"$dir/state/ttl"   # the next token expires soon
# Revoked on the server: its Secret deleted (the server's token cache may
# accept it for up to 10 s more).
kube_api DELETE /api/v1/namespaces/kube-system/secrets/exec-1 >/dev/null
check_eval "the server refuses the revoked token" "wait_for 20 'refused \"$dir/state/token-1\"'"
mkpods b 5 memory=
check_eval "after a 401, the plugin runs again and the scheduler keeps binding" \
    "wait_for 60 '[ \"\$(unbound_count b)\" = 0 ]'"
check_eval "the run came after the server's 401" \
    'grep -E "status=401|ran the credential plugin" "$dir/ms.log" | sed -n "2,\$p" | head -n 1 | grep -q status=401 && [ "$(runs)" -ge 2 ]'

# --- it expires mid-run ------------------------------------------------------
before=$(runs)
sleep 6   # past the expirationTimestamp of the token the 401 brought
mkpods c 5 memory=
check_eval "after the token expired, the scheduler keeps binding" "wait_for 30 '[ \"\$(unbound_count c)\" = 0 ]'"
check_eval "with a new token from another run of the plugin (run $before -> $(runs))" '[ "$(runs)" -gt "$before" ]'
check_eval "and the server refuses the expired token now (its Secret is gone)" \
    "wait_for 20 'refused \"$dir/state/token-$before\"'"
check_eval "the token from the last run works" 'accepted "$dir/state/token-$(runs)"'
check_eval "moonsched exits 0 on SIGTERM" "stop_ms TERM"

# --- a failing plugin ----------------------------------------------------------
touch "$dir/state/fail"
"$ms" snapshot --kubeconfig "$dir/exec.kubeconfig" -o "$dir/snap-fail.json" >"$dir/fail.out" 2>&1
rc=$?
check_eval "a failing plugin fails the command (exit $rc)" '[ "$rc" != 0 ]'
check "and its stderr is in the error" \
    grep -F "getting credentials: exec: executable $dir/./mint.sh failed with exit code 3: mint: the identity provider is down (try again later)" "$dir/fail.out"
rm -f "$dir/state/fail"
exec_kubeconfig "$dir/missing.kubeconfig" gcloud-plugin-not-installed \
    "      installHint: 'Install gke-gcloud-auth-plugin: gcloud components install gke-gcloud-auth-plugin'"
"$ms" snapshot --kubeconfig "$dir/missing.kubeconfig" -o "$dir/snap-missing.json" >"$dir/missing.out" 2>&1
check "a plugin that is not installed: not found, with its installHint" \
    grep -Fx "Install gke-gcloud-auth-plugin: gcloud components install gke-gcloud-auth-plugin" "$dir/missing.out"

# --- client certificates from a plugin -------------------------------------------
openssl req -newkey rsa:2048 -nodes -subj "/O=system:masters/CN=exec-admin" \
    -keyout "$dir/exec-client.key" -out "$dir/exec-client.csr" 2>/dev/null
openssl x509 -req -in "$dir/exec-client.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial \
    -days 1 -out "$dir/exec-client.crt" 2>/dev/null
cat >"$dir/cert.sh" <<PLUGIN
#!/bin/sh
jq -n --rawfile c "$dir/exec-client.crt" --rawfile k "$dir/exec-client.key" \
    '{apiVersion: "client.authentication.k8s.io/v1beta1", kind: "ExecCredential", status: {clientCertificateData: \$c, clientKeyData: \$k}}'
PLUGIN
chmod +x "$dir/cert.sh"
exec_kubeconfig "$dir/cert.kubeconfig" "$dir/cert.sh"
sed -i 's|apiVersion: client.authentication.k8s.io/v1$|apiVersion: client.authentication.k8s.io/v1beta1|' "$dir/cert.kubeconfig"
"$ms" snapshot --kubeconfig "$dir/cert.kubeconfig" -o "$dir/snap-cert.json" >"$dir/cert.out" 2>&1
rc=$?
# (anonymous requests may not list nodes: the listing proves the certificate)
check_eval "a client certificate from a v1beta1 plugin: snapshot works (exit $rc)" \
    '[ "$rc" = 0 ] && jq -e "[.items[] | select(.kind == \"Node\") | .metadata.name] == [\"n1\", \"n2\"]" "$dir/snap-cert.json" >/dev/null'
# --- the rest of the kubeconfig, as kubectl reads it -------------------------------
# KUBECONFIG lists: the first file that sets current-context wins, and the
# context, cluster and user come from whichever file defines them (here
# the certificate plugin's, an identity that may list everything).
printf 'apiVersion: v1\nkind: Config\ncurrent-context: exec\n' >"$dir/ctx.kubeconfig"
printf 'apiVersion: v1\nkind: Config\ncurrent-context: nowhere\n' >"$dir/other.kubeconfig"
KUBECONFIG="$dir/ctx.kubeconfig:$dir/missing-file:$dir/other.kubeconfig:$dir/cert.kubeconfig" \
    "$ms" snapshot -o "$dir/snap-merged.json" >"$dir/merged.out" 2>&1
rc=$?
check "KUBECONFIG=a:b:c merged as kubectl merges it (exit $rc)" \
    sh -c "cat '$dir/merged.out'; [ '$rc' = 0 ] && jq -e '[.items[] | select(.kind == \"Node\")] | length == 2' '$dir/snap-merged.json' >/dev/null"
port=${KUBE_URL##*:}
tls_kubeconfig() {   # file, tls-server-name, [more cluster yaml]
    cat >"$1" <<KC
clusters: [{name: t, cluster: {server: "https://127.0.0.1:$port", tls-server-name: $2, $3}}]
users: [{name: admin, user: {tokenFile: $dir/admin.token}}]
contexts: [{name: t, context: {cluster: t, user: admin}}]
current-context: t
KC
}
# The serving certificate names 127.0.0.1 and localhost; the connection
# goes to 127.0.0.1 either way.
tls_kubeconfig "$dir/tls-ok.kubeconfig" localhost "certificate-authority: $dir/ca.crt"
"$ms" snapshot --kubeconfig "$dir/tls-ok.kubeconfig" -o "$dir/snap-tls.json" >"$dir/tls.out" 2>&1
check_eval "tls-server-name: the certificate is checked against that name (exit $?)" '[ -s "$dir/snap-tls.json" ]'
tls_kubeconfig "$dir/tls-bad.kubeconfig" kubernetes.example "certificate-authority: $dir/ca.crt"
"$ms" snapshot --kubeconfig "$dir/tls-bad.kubeconfig" -o "$dir/snap-tls-bad.json" >"$dir/tls-bad.out" 2>&1
rc=$?
check_eval "tls-server-name the certificate does not name: refused (exit $rc)" \
    '[ "$rc" != 0 ] && grep -qi "certificate\|SSL" "$dir/tls-bad.out"'
tls_kubeconfig "$dir/insecure.kubeconfig" localhost "insecure-skip-tls-verify: true"
"$ms" snapshot --kubeconfig "$dir/insecure.kubeconfig" -o "$dir/snap-insecure.json" >"$dir/insecure.out" 2>&1
rc=$?
check_eval "insecure-skip-tls-verify: no CA needed (exit $rc)" '[ "$rc" = 0 ]'
tls_kubeconfig "$dir/noca.kubeconfig" localhost ""
"$ms" snapshot --kubeconfig "$dir/noca.kubeconfig" -o "$dir/snap-noca.json" >"$dir/noca.out" 2>&1
rc=$?
check_eval "and without it or a CA the test CA is not trusted (exit $rc)" '[ "$rc" != 0 ]'

# --- auth-provider ---------------------------------------------------------------
cat >"$dir/gcp.kubeconfig" <<KC
clusters: [{name: test, cluster: {server: $KUBE_URL}}]
users: [{name: gke, user: {auth-provider: {name: gcp, config: {cmd-path: gcloud}}}}]
contexts: [{name: gke, context: {cluster: test, user: gke}}]
current-context: gke
KC
"$ms" snapshot --kubeconfig "$dir/gcp.kubeconfig" -o "$dir/snap-gcp.json" >"$dir/gcp.out" 2>&1
rc=$?
check_eval "an auth-provider user is refused (exit $rc), naming the exec plugin to use" \
    '[ "$rc" != 0 ] && grep -q "use the exec credential plugin gke-gcloud-auth-plugin" "$dir/gcp.out"'

tap_done
