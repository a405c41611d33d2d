#!/bin/sh
# Builds the moonsched image (deploy/Containerfile) with podman, as `make image`.
#
#   IMAGE            tag to build (default localhost/moonsched:latest; the
#                    version tag localhost/moonsched:VERSION is added)
#   BUILD_IMAGE      base of the build stage   (default debian:bookworm)
#   RUNTIME_IMAGE    base of the runtime stage (default debian:bookworm-slim)
#   IIDFILE          a file to write the built image's ID to
#
# When neither base is given and no registry answers, both bases are made
# from Debian's archive: mmdebstrap writes a minbase bookworm root file
# system (kept in ${MOONSCHED_CACHE:-~/.cache/moonsched}/image), podman
# imports it as localhost/debian:bookworm and localhost/debian:bookworm-slim.
# Layers stay in podman's storage, so a rerun with unchanged sources only
# checks them. --isolation=chroot: the default OCI isolation needs cgroups
# that a nested or hybrid-cgroup host may not give.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cache=${MOONSCHED_CACHE:-$HOME/.cache/moonsched}/image
image=${IMAGE:-localhost/moonsched:latest}
version=$(cat "$top/VERSION" 2>/dev/null || echo unknown)
commit=$(git -C "$top" describe --always --dirty --exclude='*' 2>/dev/null || echo unknown)
revision=$(git -C "$top" rev-parse HEAD 2>/dev/null || echo unknown)

have() { podman image exists "$1" 2>/dev/null; }

# A base from Debian's archive, imported under the name a registry would give.
local_base() {   # suite -> prints the local image name
    name=localhost/debian:$1
    if ! have "$name"; then
        mkdir -p "$cache"
        tar=$cache/bookworm-minbase.tar
        if [ ! -s "$tar" ]; then
            mmdebstrap --variant=minbase --format=tar --quiet \
                --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
                --dpkgopt='path-exclude=/usr/share/locale/*' \
                bookworm "$tar.tmp" \
                "deb http://deb.debian.org/debian bookworm main" \
                "deb http://deb.debian.org/debian bookworm-updates main" \
                "deb http://deb.debian.org/debian-security bookworm-security main" >&2
            mv "$tar.tmp" "$tar"
        fi
        podman import --quiet "$tar" "$name" >/dev/null
    fi
    echo "$name"
}

base() {   # given, default -> the image to build from
    if [ -n "$1" ]; then echo "$1"; return; fi
    if have "localhost/debian:$2"; then echo "localhost/debian:$2"; return; fi
    if timeout 30 podman pull --quiet "docker.io/library/debian:$2" >/dev/null 2>&1; then
        echo "docker.io/library/debian:$2"
        return
    fi
    local_base "$2"
}

build_base=$(base "${BUILD_IMAGE:-}" bookworm)
runtime_base=$(base "${RUNTIME_IMAGE:-}" bookworm-slim)

podman build --isolation=chroot --layers \
    -f "$here/Containerfile" \
    --build-arg BUILD_IMAGE="$build_base" --build-arg RUNTIME_IMAGE="$runtime_base" \
    --build-arg VERSION="$version" --build-arg COMMIT="$commit" --build-arg REVISION="$revision" ${IIDFILE:+--iidfile "$IIDFILE"} \
    -t "$image" -t "localhost/moonsched:$version" "$top" >&2
echo "$image"
