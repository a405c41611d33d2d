#!/bin/bash
# kube-scheduler's command line and its neighbourhood, against a real
# kube-apiserver v1.20.2 + etcd on loopback (TAP): moonsched started with
# exactly the command of kubeadm's v1.20 kube-scheduler static Pod (the
# program's name changed, the kubeconfig path pointed at the test's)
# schedules, takes kube-system/kube-scheduler and reports as
# default-scheduler; deploy/overlays/replace-default's static Pod is that
# manifest with the image and the program changed (and runAsUser: 0), its
# RBAC applies; with a profile of its own name moonsched takes a Lease of
# that name and its Events name that profile. Stops everything it starts.
E2E_NAME=kubeadm
# shellcheck source=run-harness.sh
source "$(cd "$(dirname "$0")" && pwd)/run-harness.sh"
manifest=$here/../cli/data/kubeadm-kube-scheduler-1.20.yaml
overlay=$here/../../deploy/overlays/replace-default
kc() { "$bin/kubectl" --kubeconfig "$dir/admin.kubeconfig" "$@"; }

lease_holder() { kube_api GET "/apis/coordination.k8s.io/v1/namespaces/$1/leases/$2" | jq -r '.spec.holderIdentity // ""'; }
scheduled_by() {   # pod -> "reportingController reportingInstance" of its Scheduled event
    kube_api GET /apis/events.k8s.io/v1/namespaces/default/events | jq -r --arg p "$1" \
        '[.items[] | select(.reason == "Scheduled" and .regarding.name == $p) | "\(.reportingController) \(.reportingInstance)"] | first // ""'
}
host=$(hostname)

# --- kubeadm's command line -------------------------------------------------
mapfile -t args < <(sed -n '/- command:/,/image:/p' "$manifest" | sed -n 's/^    - \(--.*\)/\1/p' |
                    sed "s|/etc/kubernetes/scheduler.conf|$dir/scheduler.kubeconfig|")
check_eval "kubeadm's manifest gives six flags (${args[*]})" '[ ${#args[@]} -eq 6 ]'
mknode n1
mkpod plain
"$ms" "${args[@]}" >>"$dir/ms.log" 2>&1 &
ms_pid=$!
check_eval "with kubeadm's flags, a default-scheduler pod is bound" "wait_for 30 '[ -n \"\$(node_of plain)\" ]'"
check_eval "no flag was refused or ignored" "! grep -Eq 'unknown argument|warning: ignoring' '$dir/ms.log'"
identity=$(sed -n 's/.*msg="successfully acquired lease".* identity=\([^ ]*\).*/\1/p' "$dir/ms.log" | head -n 1)
check_eval "it holds kube-scheduler's Lease kube-system/kube-scheduler ($identity)" \
    "[ -n '$identity' ] && [ \"\$(lease_holder kube-system kube-scheduler)\" = '$identity' ]"
check_eval "its Scheduled event is reported by default-scheduler, instance default-scheduler-$host" \
    "wait_for 10 '[ \"\$(scheduled_by plain)\" = \"default-scheduler default-scheduler-$host\" ]'"
check_eval "--port=0 switched the plain-HTTP port off" "! grep -q 'serving metrics and health' '$dir/ms.log'"
check_eval "it exits 0 on SIGTERM and releases the Lease" \
    "stop_ms TERM && [ -z \"\$(lease_holder kube-system kube-scheduler)\" ]"

# --- deploy/overlays/replace-default -------------------------------------------------
# Both manifests as JSON, without what differs on purpose.
normal() {
    kc create --dry-run=client -o json -f "$1" |
        jq -S 'del(.metadata.creationTimestamp, .status) | .spec.containers[0] |= (del(.image, .securityContext) | .command[0] = "PROGRAM")'
}
normal "$manifest" >"$dir/kubeadm.json"
normal "$overlay/kube-scheduler.yaml" >"$dir/overlay.json"
check_eval "replace-default's static Pod is kubeadm's but for the image, the program and runAsUser" \
    "diff '$dir/kubeadm.json' '$dir/overlay.json' >&2"
check_eval "... its program is moonsched, as root (kubeadm's scheduler.conf is 0600 root)" \
    "kc create --dry-run=client -o json -f '$overlay/kube-scheduler.yaml' |
     jq -e '.spec.containers[0] | .command[0] == \"moonsched\" and .securityContext.runAsUser == 0' >/dev/null"
check_eval "the API server admits it as a Pod (server dry run)" \
    "kc create --dry-run=server -f '$overlay/kube-scheduler.yaml' >'$dir/static.out' 2>&1"
check_eval "apply -k replace-default: the namespaces role for system:kube-scheduler" \
    "kc apply -k '$overlay' >'$dir/apply.out' 2>&1 && [ \"\$(grep -c ' created\$' '$dir/apply.out')\" = 2 ] &&
     [ \"\$(kc auth can-i watch namespaces --as=system:kube-scheduler 2>/dev/null)\" = yes ]"

# --- a profile of its own: its own Lease, its own name on Events ------------------
printf 'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles: [{schedulerName: gpu-scheduler}]\n' >"$dir/own.yaml"
mkpod mine scheduler=gpu-scheduler
# (the admin's credentials: system:kube-scheduler may only hold kube-scheduler's Lease)
"$ms" --kubeconfig "$dir/admin.kubeconfig" --config "$dir/own.yaml" --secure-port=0 --port=0 \
    --leader-elect-lease-duration=20s --leader-elect-renew-deadline=15s >>"$dir/ms.log" 2>&1 &
ms_pid=$!
check_eval "the gpu-scheduler pod is bound" "wait_for 30 '[ -n \"\$(node_of mine)\" ]'"
check_eval "the Lease is kube-system/gpu-scheduler, kube-scheduler's is left alone" \
    "[ -n \"\$(lease_holder kube-system gpu-scheduler)\" ] && [ -z \"\$(lease_holder kube-system kube-scheduler)\" ]"
check_eval "the Lease has the duration of --leader-elect-lease-duration" \
    "[ \"\$(kube_api GET /apis/coordination.k8s.io/v1/namespaces/kube-system/leases/gpu-scheduler | jq .spec.leaseDurationSeconds)\" = 20 ]"
check_eval "its Scheduled event: reportingController gpu-scheduler, instance gpu-scheduler-$host" \
    "wait_for 10 '[ \"\$(scheduled_by mine)\" = \"gpu-scheduler gpu-scheduler-$host\" ]'"
check_eval "kubectl's core/v1 view names it too (reportingComponent)" \
    "kube_api GET /api/v1/namespaces/default/events | jq -e '[.items[] | select(.reason == \"Scheduled\" and .involvedObject.name == \"mine\") | .reportingComponent] == [\"gpu-scheduler\"]' >/dev/null"
check_eval "it exits 0 on SIGTERM" "stop_ms TERM"

tap_done
