#!/bin/bash
# Builds kube-apiserver, kube-scheduler, kube-controller-manager and kubectl
# v1.20.2 from Debian's
# `kubernetes` source package with Go 1.15 from bullseye, and installs
# etcd-server. The binaries are cached outside the repository
# (${MOONSCHED_CACHE:-~/.cache/moonsched}/kube-1.20.2/bin); the last line
# printed is that directory.
#
# Go 1.15, not bookworm's Go: Kubernetes 1.20's vendored reflect2 is broken
# on Go >= 1.18, and an apiserver built with Go 1.19 crashes under load.
set -euo pipefail

cache=${MOONSCHED_CACHE:-$HOME/.cache/moonsched}
out=$cache/kube-1.20.2
bin=$out/bin

cmds="kube-apiserver kube-scheduler kube-controller-manager kubectl"

missing() {
    for c in $cmds; do
        [ -x "$bin/$c" ] || printf '%s ' "$c"
    done
}

have_all() {
    [ -z "$(missing)" ] && command -v etcd >/dev/null 2>&1
}

if have_all; then
    echo "$bin"
    exit 0
fi

if [ "$(id -u)" != 0 ]; then
    echo "build-kube.sh: needs root to install Debian packages" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
mirror=http://deb.debian.org/debian
changed=0
if ! grep -rqs '^Types: deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
    cat >/etc/apt/sources.list.d/moonsched-src.sources <<EOF
Types: deb-src
URIs: $mirror
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    changed=1
fi
if ! grep -rqs 'bullseye' /etc/apt/sources.list.d/moonsched-bullseye.sources; then
    cat >/etc/apt/sources.list.d/moonsched-bullseye.sources <<EOF
Types: deb
URIs: $mirror
Suites: bullseye
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    # Only Go 1.15 comes from bullseye; nothing else may upgrade from it.
    cat >/etc/apt/preferences.d/moonsched-bullseye <<EOF
Package: *
Pin: release n=bullseye
Pin-Priority: 100
EOF
    changed=1
fi
if [ "$changed" = 1 ] || [ ! -d /usr/lib/go-1.15 ] || ! command -v etcd >/dev/null 2>&1; then
    apt-get update -q >&2
    apt-get install -y -q rsync etcd-server openssl curl >&2
    apt-get install -y -q -t bullseye golang-1.15-go >&2
fi

todo=$(missing)
if [ -n "$todo" ]; then
    work=$out/src
    mkdir -p "$work"
    cd "$work"
    if ! ls kubernetes_*.orig.tar.gz >/dev/null 2>&1; then
        apt-get source --download-only kubernetes >&2
    fi
    tree=$(find . -maxdepth 1 -type d -name 'kubernetes-*' | head -n 1)
    if [ -z "$tree" ]; then
        tar xzf kubernetes_*.orig.tar.gz
        tree=$(find . -maxdepth 1 -type d -name 'kubernetes-*' | head -n 1)
    fi
    cd "$tree"
    export GOPATH=$PWD/.go PATH=/usr/lib/go-1.15/bin:$PATH
    mkdir -p .go/src/k8s.io
    ln -sfn ../../.. .go/src/k8s.io/kubernetes
    # A failed generator run leaves empty files behind: start clean.
    rm -rf _output
    what=
    for c in $todo; do what="$what cmd/$c"; done
    CGO_ENABLED=0 HOME=/tmp make WHAT="${what# }" >&2
    mkdir -p "$bin"
    for c in $todo; do cp "_output/bin/$c" "$bin/"; done
    cd "$out"
    rm -rf "$work"
fi

have_all
echo "$bin"
