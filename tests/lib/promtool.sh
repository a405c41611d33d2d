#!/bin/sh
# Prints the path of a promtool taken out of Debian's prometheus package,
# cached in ${MOONSCHED_CACHE:-~/.cache/moonsched}/promtool. Only the .deb
# is downloaded and unpacked: installing the package would install and
# start a Prometheus server listening on every address.
set -eu
cache=${MOONSCHED_CACHE:-$HOME/.cache/moonsched}/promtool
if [ ! -x "$cache/usr/bin/promtool" ]; then
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    (cd "$work" && apt-get download -q prometheus >/dev/null 2>&1) ||
        { apt-get update -q >/dev/null 2>&1 && (cd "$work" && apt-get download -q prometheus >/dev/null 2>&1); }
    mkdir -p "$cache"
    dpkg-deb -x "$work"/prometheus_*.deb "$work/x"
    mkdir -p "$cache/usr/bin"
    cp "$work/x/usr/bin/promtool" "$cache/usr/bin/promtool"
fi
echo "$cache/usr/bin/promtool"
