#!/bin/bash
# `moonsched explain NS/NAME` through the API server, as a kubectl user
# runs it (TAP), on a real kube-apiserver v1.20.2: the kubeconfig's server
# and credentials, the leader found from the Lease's holder (or the pod
# --scheduler names), and the pods/proxy subresource to its secure port,
# allowed by deploy/base/explain-rbac.yaml. What the API server here
# cannot do: proxy to a scheduler. There is no kubelet and no pod
# network, and it refuses to proxy to a loopback address. So the suite
# checks everything up to the proxied request (the Lease read, the pod
# chosen, the request made as the user and allowed or refused by RBAC)
# and the API server's own answer to it; and, on a `moonsched run` here,
# that --authorization-always-allow-paths serves /debug/explain to a
# request without credentials, which is how a proxied request arrives
# (the API server does not pass the user's token on). Loopback only;
# stops everything it starts.
E2E_NAME=explain-api
# shellcheck source=run-harness.sh
source "$(cd "$(dirname "$0")" && pwd)/run-harness.sh"
kubectl=$bin/kubectl
top=$here/../..

# The deployment's namespace and Lease (overlays/second-scheduler), the
# scheduler's pod with the address a kubelet would report.
kube_api POST /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"moonsched"}}' >/dev/null
for p in moonsched-7d9f moonsched-standby; do
    kube_api POST /api/v1/namespaces/moonsched/pods \
        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"$p\"},\"spec\":{\"containers\":[{\"name\":\"moonsched\",\"image\":\"moonsched\"}]}}" >/dev/null
    kube_api PUT "/api/v1/namespaces/moonsched/pods/$p/status" \
        "$(kube_api GET "/api/v1/namespaces/moonsched/pods/$p" |
            jq -c '.status.podIP = "127.0.0.1" | .status.podIPs = [{"ip": "127.0.0.1"}] | .status.phase = "Running"')" >/dev/null
done
lease() {   # holder identity
    kube_api DELETE /apis/coordination.k8s.io/v1/namespaces/moonsched/leases/moonsched >/dev/null
    kube_api POST /apis/coordination.k8s.io/v1/namespaces/moonsched/leases \
        "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":{\"name\":\"moonsched\"},\"spec\":{\"holderIdentity\":\"$1\",\"leaseDurationSeconds\":15}}" >/dev/null
}
lease "moonsched-7d9f_0f6c2d5e-8a41-4d2b-9c1e-3b7a5d9e2f10"

# A user bound to the shipped Role, and one without it.
for sa in explainer nobody; do
    kube_api POST /api/v1/namespaces/default/serviceaccounts \
        "{\"apiVersion\":\"v1\",\"kind\":\"ServiceAccount\",\"metadata\":{\"name\":\"$sa\"}}" >/dev/null
done
"$kubectl" --kubeconfig "$dir/admin.kubeconfig" apply -f "$top/deploy/base/explain-rbac.yaml" >"$dir/rbac.out" 2>&1
check_eval "deploy/base/explain-rbac.yaml applies (kubectl 1.20)" "grep -q 'role.rbac.authorization.k8s.io/moonsched-explain' '$dir/rbac.out'"
"$kubectl" --kubeconfig "$dir/admin.kubeconfig" -n moonsched create rolebinding explain-explainer \
    --role=moonsched-explain --serviceaccount=default:explainer >/dev/null
kube_kubeconfig "$dir" explainer "$(token_of explainer)"
kube_kubeconfig "$dir" nobody "$(token_of nobody)"

# --- through the API server ---------------------------------------------------------------
"$ms" explain default/web --kubeconfig "$dir/explainer.kubeconfig" --lease moonsched/moonsched >"$dir/out" 2>"$dir/err"
rc=$?
sed 's/^/# /' "$dir/err"
check_eval "the leader from the Lease, asked through the API server's pod proxy (exit 1)" \
    "[ $rc -eq 1 ] && grep -q 'the scheduler moonsched/moonsched-7d9f through $KUBE_URL: the API server answered' '$dir/err'"
# What 1.20 answers for a pod on loopback: its proxy refuses the address.
check_eval "the proxied request passed RBAC and reached the proxy, which refuses a loopback pod" \
    "grep -q 'answered 400: address not allowed' '$dir/err' && ! grep -qi forbidden '$dir/err'"
"$ms" explain default/web --kubeconfig "$dir/explainer.kubeconfig" --lease moonsched/moonsched \
    --scheduler moonsched-standby --port 10443 >/dev/null 2>"$dir/err2"
check_eval "--scheduler POD and --port: that pod, that port" \
    "grep -q 'the scheduler moonsched/moonsched-standby through' '$dir/err2'"
KUBECONFIG="$dir/explainer.kubeconfig" "$ms" explain default/web --lease moonsched/moonsched >/dev/null 2>"$dir/err3"
check_eval "the kubeconfig from \$KUBECONFIG, as kubectl" "grep -q 'moonsched/moonsched-7d9f through' '$dir/err3'"

"$ms" explain default/web --kubeconfig "$dir/nobody.kubeconfig" --lease moonsched/moonsched >/dev/null 2>"$dir/err4"
check_eval "a user without the Role: the Lease read is refused (403)" \
    "grep -q 'the Lease moonsched/moonsched: the API server answered 403' '$dir/err4'"
"$ms" explain default/web --kubeconfig "$dir/nobody.kubeconfig" --lease moonsched/moonsched \
    --scheduler moonsched-7d9f >/dev/null 2>"$dir/err5"
check_eval "a user without the Role: the proxy is refused (403, pods/proxy)" \
    "grep -q 'answered 403' '$dir/err5' && grep -q 'pods/proxy' '$dir/err5'"

lease ""
"$ms" explain default/web --kubeconfig "$dir/explainer.kubeconfig" --lease moonsched/moonsched >/dev/null 2>"$dir/err6"
rc=$?
check_eval "a Lease without a holder: no leader, said (exit 2)" \
    "[ $rc -eq 2 ] && grep -q 'has no holder: no scheduler leads' '$dir/err6'"
"$ms" explain default/web --kubeconfig "$dir/admin.kubeconfig" >/dev/null 2>"$dir/err7"
rc=$?
check_eval "the default Lease kube-system/kube-scheduler, absent: named (exit 2)" \
    "[ $rc -eq 2 ] && grep -q 'the Lease kube-system/kube-scheduler: the API server answered 404' '$dir/err7'"
"$ms" explain default/web --server https://127.0.0.1:1 --kubeconfig "$dir/admin.kubeconfig" >/dev/null 2>"$dir/err8"
check_eval "--server with --kubeconfig: a usage error" "grep -q 'does not go with --kubeconfig' '$dir/err8'"

# --- what a proxied request meets at the scheduler ------------------------------------------
# No token: the API server strips the user's. Allowed by
# --authorization-always-allow-paths, refused without it.
pending='{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},"spec":{"containers":[{"name":"c","image":"pause"}]}}'
kube_api POST /api/v1/namespaces/default/pods "$pending" >/dev/null
port=$(kube_free_port)
start_ms --leader-elect=false --secure-port "$port" \
    --bind-address 127.0.0.1 --authorization-always-allow-paths=/healthz,/livez,/readyz,/debug/explain
# Ready, not only listening: until the informers have synced the pod is
# not in the cache yet and explain would answer that it does not know it.
wait_for 30 "[ \"\$(curl -sk -o /dev/null -w '%{http_code}' https://127.0.0.1:$port/readyz)\" = 200 ]"
"$ms" explain default/web --server "https://127.0.0.1:$port" --insecure-skip-tls-verify >"$dir/anon.txt" 2>&1
rc=$?
check_eval "--authorization-always-allow-paths with /debug/explain: a request without a token is answered" \
    "[ $rc -eq 0 ] && grep -q 'default/web' '$dir/anon.txt'"
curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:$port/metrics" >"$dir/metrics.code"
check_eval "... and only those paths: /metrics still needs a review (403)" "[ \"\$(cat '$dir/metrics.code')\" = 403 ]"
stop_ms >/dev/null
tap_done
