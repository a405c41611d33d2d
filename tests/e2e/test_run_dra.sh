#!/bin/bash
# `moonsched run` and pods written with resource claims, against a real
# kube-apiserver v1.20.2 + etcd on loopback (TAP). A 1.20 server serves no
# resource.k8s.io and drops the pod fields it did not have then
# (spec.resourceClaims, containers[].resources.claims): such a pod reaches
# the scheduler without claims and is scheduled as before; run's informers
# of the resource.k8s.io kinds meet a 404 and go on without DRA. (The
# claims' path on a server that serves the group: tests/cli/
# test_run_dra_api.sh, against a scripted one.) Stops everything it
# starts.
E2E_NAME=dra
# shellcheck source=run-harness.sh
source "$(cd "$(dirname "$0")" && pwd)/run-harness.sh"

kube_api POST /api/v1/nodes '{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"capacity":{"cpu":"4","memory":"8Gi","pods":"110"},"allocatable":{"cpu":"4","memory":"8Gi","pods":"110"}}}' >/dev/null
start_ms

kube_api POST /api/v1/namespaces/default/pods '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"gpu-job"},"spec":{"containers":[{"name":"c","image":"pause","resources":{"claims":[{"name":"gpu"}]}}],"resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"one-gpu"}]}}' >/dev/null
check_eval "the 1.20 server stored the pod without spec.resourceClaims nor the container's claims" \
    "kube_api GET /api/v1/namespaces/default/pods/gpu-job | jq -e '.spec.resourceClaims == null and .spec.containers[0].resources.claims == null' >/dev/null"
check_eval "so the pod is scheduled as before: bound to n1" \
    "wait_for 15 '[ \"\$(kube_api GET /api/v1/namespaces/default/pods/gpu-job | jq -r \".spec.nodeName // empty\")\" = n1 ]'"
check_eval "the server does not serve resource.k8s.io (a 404 for its group)" \
    "[ \"\$(curl -s -o /dev/null -w '%{http_code}' --cacert '$KUBE_DIR/ca.crt' -H \"Authorization: Bearer \$(cat '$KUBE_DIR/admin.token')\" '$KUBE_URL/apis/resource.k8s.io/v1')\" = 404 ]"
# (as system:kube-scheduler, which 1.20 grants nothing there, the
# authorizer answers 403 before the group is looked up; an allowed user
# gets the 404: the same for the informer, DRA is off)
check_eval "the four DRA informers met the refusal and went on: said once each, no failed list" \
    "[ \"\$(grep -cE 'msg=\"(resource not served; going on without it|list forbidden; going on without this resource) and retrying\" resource=/apis/resource.k8s.io/v1/' '$dir/ms.log')\" = 4 ] &&
     ! grep -q 'msg=\"list failed\" resource=/apis/resource.k8s.io' '$dir/ms.log'"
check_eval "moonsched exits 0 on SIGTERM" "stop_ms TERM"

tap_done
