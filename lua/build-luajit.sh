#!/bin/sh
# Builds LuaJIT from Debian's own `luajit` source package with
# -DLUAJIT_ENABLE_CHECKHOOK, as a static library compiled with -fPIC (it is
# linked into libmoonsched.so too), and installs it outside the repository in
# ${MOONSCHED_CACHE:-~/.cache/moonsched}/luajit-checkhook. The last line
# printed is that directory (include/luajit-2.1, lib/libluajit-5.1.a).
#
# Why not Debian's libluajit-5.1: JIT-compiled traces do not look at debug
# hooks, so a watchdog that sets a count hook never stops a compiled
# `while true do end` in a policy. LUAJIT_ENABLE_CHECKHOOK makes traces check
# the hook flags, at no measurable cost for FFI loops.
#
# lua/luajit-checkhook-itern.patch fixes what the option breaks in this
# version: the three IR instructions of the hook check at the start of every
# trace made a pairs() loop's first ITERN look like its back-edge, so the
# compiled loop spun forever without calling next.
#
# lua/luajit-libhook.patch makes the same count hook run inside the long
# loops of C library functions, which otherwise run to their end whatever the
# watchdog asks: the pattern matcher (find, match, gmatch, gsub) at every
# step, table.sort at every comparison, the parser (load) at every token. A
# hook error there unwinds as it does from Lua code, and load leaves the hook
# as lua_pcall does. Plain string.find falls back to memmem (linear) where
# the naive search turns quadratic. gsub, sort and format's __tostring, which
# call back into Lua from C, refuse to nest past 100 C frames ("C stack
# overflow"): recursion through them overflowed the C stack.
#
# lua/luajit-oom-on-trace.patch is LuaJIT's own later fix ("Fix frame for
# on-trace out-of-memory error"): a memory error raised in a compiled trace
# (a policy at its memory cap) read the frame at L->base, which on trace is
# wherever the interpreter last left it, often a frame that has returned.
# It took that slot for the running function and crashed on it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)

cache=${MOONSCHED_CACHE:-$HOME/.cache/moonsched}
out=$cache/luajit-checkhook
lib=$out/lib/libluajit-5.1.a
inc=$out/include/luajit-2.1

# The stamp names the option and the patches by their checksum: a cache
# built without the current patches is rebuilt.
stamp="-DLUAJIT_ENABLE_CHECKHOOK patches $(cat "$here"/luajit-checkhook-itern.patch "$here"/luajit-libhook.patch "$here"/luajit-oom-on-trace.patch | cksum | cut -d' ' -f1)"
if [ -f "$lib" ] && [ -f "$inc/lua.h" ] && [ "$(head -n 1 "$out/.checkhook" 2>/dev/null)" = "$stamp" ]; then
    # Up to date: newer than this script and the patches for make.
    touch "$lib"
    echo "$out"
    exit 0
fi

need_root() {
    if [ "$(id -u)" != 0 ]; then
        echo "build-luajit.sh: needs root to $1" >&2
        exit 1
    fi
}

export DEBIAN_FRONTEND=noninteractive
if ! grep -rqs '^Types: deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
    need_root "add a deb-src line"
    cat >/etc/apt/sources.list.d/moonsched-src.sources <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    apt-get update -q >&2
fi
# apt-get source unpacks and applies Debian's patches with dpkg-source.
if ! command -v dpkg-source >/dev/null 2>&1 || ! command -v make >/dev/null 2>&1 ||
   ! command -v cc >/dev/null 2>&1 || ! command -v patch >/dev/null 2>&1; then
    need_root "install dpkg-dev, make, gcc and patch"
    apt-get install -y -q dpkg-dev make gcc patch >&2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/luajit-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
if ! apt-get source -q luajit >&2; then
    # The source index may be missing or stale on a fresh machine.
    need_root "update the package lists"
    apt-get update -q >&2
    apt-get source -q luajit >&2
fi
tree=$(find . -maxdepth 1 -type d -name 'luajit-*' | head -n 1)
[ -n "$tree" ] || { echo "build-luajit.sh: no luajit source tree" >&2; exit 1; }
cd "$tree"
patch -p1 <"$here/luajit-checkhook-itern.patch" >&2
patch -p1 <"$here/luajit-libhook.patch" >&2
patch -p1 <"$here/luajit-oom-on-trace.patch" >&2

jobs=${MAKE_JOBS:-2}
# BUILDMODE=static: only libluajit-5.1.a and a static luajit executable.
# -fPIC: the archive also goes into a shared library.
make -j"$jobs" amalg BUILDMODE=static PREFIX="$out" CFLAGS=-fPIC \
    XCFLAGS=-DLUAJIT_ENABLE_CHECKHOOK Q= E=@: >&2
rm -rf "$out"
make install BUILDMODE=static PREFIX="$out" >&2
# The stamp names the build options and fixes: a cache directory built
# otherwise gets rebuilt.
printf '%s\n%s\n' "$stamp" "$(basename "$tree")" >"$out/.checkhook"
[ -f "$lib" ] && [ -f "$inc/lua.h" ]
echo "$out"
