#!/bin/bash
# `make test` from a clean clone on a fresh Debian bookworm machine, as a
# root made with mmdebstrap: what a new machine of the project's kind has
# (gcc, make, git, the debugging tools, the host's Node.js), nothing else,
# so that every package the suites need must come from `make test` itself.
#
#   sudo bash tests/fresh-root.sh [REPOSITORY]      (make test-fresh)
#
# REPOSITORY is a path or URL that git clones (default: the repository this
# script is in); its HEAD is tested, not its work tree. Environment:
#   FRESH_ROOT   the root's directory (default /var/tmp/moonsched-fresh-root);
#                an existing one is deleted first; one run per root at a
#                time (ROOT.lock: a second run refuses to start)
#   FRESH_REUSE  1: keep an existing root and what it installed and cached
#                (Kubernetes, LuaJIT, packages), replace only the clone
#   FRESH_CMD    what runs in the clone (default `make test`), e.g.
#                'B=build bash tests/e2e/test_deploy.sh' on a reused root
#   FRESH_LOG    the log (default $FRESH_ROOT.log): mmdebstrap's, then the
#                command's, each line with the time it was written
# The root is kept afterwards so that one suite can be run again in it.
# Everything runs in its own mount and PID namespaces: the mounts go with
# them, and every process started inside is killed when the script exits,
# even on failure or interrupt.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
repo=${1:-$here}
root=${FRESH_ROOT:-/var/tmp/moonsched-fresh-root}
reuse=${FRESH_REUSE:-0}
cmd=${FRESH_CMD:-make test}
log=${FRESH_LOG:-$root.log}

# What a new machine of this kind has (gcc and make, git, the debugging
# and analysis tools); the rest is for `make test` to install.
packages=gcc,make,git,ca-certificates,clang-format,clang-tidy,cppcheck,clangd,bear,cmake,gdb,valgrind,strace,linux-perf

[ "$(id -u)" = 0 ] || { echo "fresh-root.sh: needs root" >&2; exit 1; }
# One run per root: a second run would delete the first one's files under
# it (the lock goes with this process, however it ends).
exec 9>"$root.lock"
flock -n 9 || { echo "fresh-root.sh: $root is in use by another run (FRESH_ROOT sets another)" >&2; exit 1; }
command -v mmdebstrap >/dev/null 2>&1 || sh "$here/tests/ensure-packages.sh" mmdebstrap

child=
cleanup() {
    rc=$?
    trap - EXIT INT TERM
    # The namespaces' first process: killing it kills everything inside.
    if [ -n "$child" ] && kill -0 "$child" 2>/dev/null; then
        kill -TERM "$child" 2>/dev/null || true
        sleep 1
        kill -KILL "$child" 2>/dev/null || true
        wait "$child" 2>/dev/null || true
    fi
    # The mounts were private to the namespace; this only guards against
    # a root left mounted by something else.
    if findmnt -rn -o TARGET | grep -q "^$root/"; then
        echo "fresh-root.sh: mounts left under $root:" >&2
        findmnt -rn -o TARGET | grep "^$root/" >&2
        rc=1
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mounted_under() { findmnt -rn -o TARGET | grep -q "^$1/"; }

# The host's Debian sources, without what the project's scripts add
# (moonsched-*.sources): a new machine has only its own.
sources() {
    [ -s /etc/apt/sources.list ] && grep -E '^deb ' /etc/apt/sources.list
    for f in /etc/apt/sources.list.d/*.sources; do
        case $(basename "$f") in moonsched-*) continue ;; esac
        grep -q deb.debian.org "$f" || continue
        cat "$f"; echo
    done
}

start=$(date +%s)
: >"$log"
if [ "$reuse" != 1 ] || [ ! -x "$root/usr/bin/make" ]; then
    if mounted_under "$root"; then
        echo "fresh-root.sh: $root has mounts, not deleting it" >&2
        exit 1
    fi
    rm -rf "$root"
    echo "mmdebstrap: bookworm into $root"
    sources | mmdebstrap --variant=minbase --include="$packages" bookworm "$root" - >>"$log" 2>&1 ||
        { tail -n 20 "$log"; exit 1; }
    echo "mmdebstrap: $(($(date +%s) - start)) s"

    # Node.js is on this kind of machine, but not from Debian: the host's.
    node=$(readlink -f "$(command -v node)")
    prefix=$(dirname "$(dirname "$node")")
    mkdir -p "$root$prefix/bin" "$root$prefix/lib/node_modules"
    cp -a "$prefix/bin/node" "$prefix/bin/npm" "$prefix/bin/npx" "$root$prefix/bin/"
    cp -a "$prefix/lib/node_modules/npm" "$root$prefix/lib/node_modules/"
    # and its global configuration (npm trusts Node's own CA list unless
    # its cafile names the system's, which holds the machine's local CA)
    if [ -f "$prefix/etc/npmrc" ]; then
        mkdir -p "$root$prefix/etc"
        cp "$prefix/etc/npmrc" "$root$prefix/etc/npmrc"
    fi
    # The machine's own trust anchors (a network that inspects TLS signs
    # with a local CA): without them npm and apt over https fail.
    if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
        cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
        chroot "$root" update-ca-certificates >>"$log" 2>&1
    fi
fi
cp -L /etc/resolv.conf "$root/etc/resolv.conf"

# A clean clone of the commit under test.
rm -rf "$root/src"
git clone -q --no-local "$repo" "$root/src"
echo "testing $(git -C "$root/src" log --oneline -1)"

# Inside: a /proc of the new PID namespace, the host's /sys (cgroups for
# podman) and devices, a /dev/shm and /run of its own, as a booted
# machine has; then the command, as root, timed.
# The machine's trust settings for TLS clients go in with the command
# (Node.js reads NODE_EXTRA_CA_CERTS, not the system bundle).
ca_env=()
for v in NODE_EXTRA_CA_CERTS SSL_CERT_FILE SSL_CERT_DIR; do
    [ -n "${!v:-}" ] && ca_env+=("$v=${!v}")
done
inner='
set -e
r=$1
c=$2
shift 2
# the root a mount of its own, as a machine'"'"'s / is: podman remounts it and
# unshare changes its propagation, which a plain directory refuses
mount --bind "$r" "$r"
mount -t proc proc "$r/proc"
mount --rbind /sys "$r/sys"
mount --bind /dev "$r/dev"
mount --bind /dev/pts "$r/dev/pts"
mount -t tmpfs -o mode=1777,nosuid,nodev shm "$r/dev/shm"
mount -t tmpfs -o mode=755,nosuid,nodev run "$r/run"
mkdir -p -m 1777 "$r/run/lock"
exec chroot "$r" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb "$@" \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    bash -c "cd /src && time ($c)" 2>&1
'
echo "running: $cmd (log: $log)"
t0=$(date +%s)
set +e
unshare --mount --propagation private --pid --fork --kill-child \
    bash -c "$inner" inner "$root" "$cmd" "${ca_env[@]}" </dev/null \
    > >(while IFS= read -r l; do printf '%(%H:%M:%S)T %s\n' -1 "$l"; done >>"$log") &
child=$!
wait "$child"
rc=$?
child=
set -e
t1=$(date +%s)
sleep 1   # the timestamping reader drains

grep -E '[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1 | cut -d' ' -f2- || true
grep -E '^[0-9:]+ real' "$log" | tail -n 1 | cut -d' ' -f2- || true
echo "exit $rc; $cmd: $((t1 - t0)) s; in all (with the root): $((t1 - start)) s"
exit "$rc"
