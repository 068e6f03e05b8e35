#!/usr/bin/env bash
# Builds geo-NFV's OCI image from Debian's archive only: mmdebstrap makes a
# root filesystem of the Debian packages that hold the programs' shared
# libraries (found with ldd and dpkg, so the list follows the build) and the
# DPDK drivers the pods load; the programs go in /usr/local/bin; podman
# imports the tree as an image. No compiler, no headers, no package cache.
#
#   build-image.sh BUILD_DIR [TAG]      (TAG: localhost/geo-nfv:latest)
#
# Needs root (mmdebstrap's chroot), mmdebstrap and podman, and the Debian
# archive (NFV_DEBIAN_MIRROR, default http://deb.debian.org/debian).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$HERE/../.."
BUILD="$(cd "${1:?usage: build-image.sh BUILD_DIR [TAG]}" && pwd)"
TAG="${2:-localhost/geo-nfv:latest}"
MIRROR="${NFV_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
SUITE="$(. /etc/os-release && echo "$VERSION_CODENAME")"
for tool in mmdebstrap podman; do
  command -v "$tool" >/dev/null || { echo "build-image.sh: $tool is missing (apt-get install mmdebstrap podman)"; exit 1; }
done

if meson introspect --buildoptions "$BUILD" 2>/dev/null | grep -q '"name": "cpu_instruction_set", "value": "native"'; then
  echo "==> note: $BUILD is built with -march=native: the image runs on CPUs like this one only" \
       "(configure with -Dcpu_instruction_set=x86-64-v2 for a portable one)"
fi

PROGRAMS=(dataplane/nfv-pod scaler/service/nfv-scaler traces/replay/nfv-replay tools/nfvctl scaler/nfv-train)
for p in "${PROGRAMS[@]}"; do [ -x "$BUILD/$p" ] || { echo "build-image.sh: $BUILD/$p is not built"; exit 1; }; done

# The packages that own what the programs load: their shared libraries, and
# the DPDK bus, mempool and net drivers EAL loads from its plugin folder
# (the virtual ports the pods use, and the common NICs' PMDs).
PMDS=/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0
libs=()
for p in "${PROGRAMS[@]}"; do
  while read -r lib; do libs+=("$lib"); done < <(ldd "$BUILD/$p" | awk '$3 ~ /^\// {print $3} $1 ~ /^\// {print $1}')
done
for d in bus_pci bus_vdev mempool_ring mempool_stack net_memif net_pcap net_ring net_null net_af_packet net_tap \
         net_virtio net_vmxnet3 net_e1000 net_ixgbe net_i40e net_iavf net_ice net_mlx5; do
  libs+=("$PMDS/librte_$d.so.23")
done
# One dpkg query for all: each library under its own path, its real path and
# the other side of the merged /usr (dpkg knows files by the path they came in).
declare -A wanted=()
for l in "${libs[@]}"; do
  real="$(readlink -f "$l")"
  wanted["$l"]="$l $real ${real#/usr} /usr${real#/usr}"
done
owned="$(dpkg-query -S ${wanted[@]} 2>/dev/null || true)"
for l in "${!wanted[@]}"; do
  found=""
  for path in ${wanted[$l]}; do grep -q ": $path\$" <<< "$owned" && found=1 && break; done
  [ -n "$found" ] || { echo "build-image.sh: no Debian package owns $l"; exit 1; }
done
packages="$(cut -d: -f1 <<< "$owned" | tr -d ' ' | tr ',' '\n' | sort -u | grep -v -x -e libc6 -e libgcc-s1 -e libstdc++6 | tr '\n' ',')"
packages="${packages%,}"
echo "==> runtime packages: ${packages//,/ }"

WORK="$(mktemp -d /tmp/nfv-image-XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/bin" "$WORK/demo" "$WORK/data"
for p in "${PROGRAMS[@]}"; do cp "$BUILD/$p" "$WORK/bin/"; done
strip --strip-unneeded "$WORK"/bin/nfv*
cp "$HERE/nfv-with-config" "$WORK/bin/"
cp "$ROOT"/deploy/demo/{topology.yaml,plan.yaml,drl.pt,chains.yaml.in} "$WORK/demo/"
SHARED="${NFV_SHARED_DATA:-$ROOT/../shared/data}"
cp -r "$SHARED/traffic" "$WORK/data/" 2>/dev/null || echo "==> no traces under $SHARED: the image holds none (mount one at /usr/share/nfv/data)"

# minbase: Essential packages (a shell, sed for nfv-with-config) and the
# libraries; no apt lists, no docs, no man pages, no package cache in the
# image. The downloaded packages are kept in CACHE for the next build.
CACHE="${NFV_IMAGE_CACHE:-/var/cache/nfv-image}"
mkdir -p "$CACHE"
mmdebstrap --variant=minbase --include="$packages" \
  --skip=essential/unlink --skip=download/empty \
  --setup-hook='mkdir -p "$1"/var/cache/apt/archives/' --setup-hook="sync-in $CACHE /var/cache/apt/archives/" \
  --customize-hook="sync-out /var/cache/apt/archives $CACHE" --customize-hook='rm -f "$1"/var/cache/apt/archives/*.deb' \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*' \
  --customize-hook="copy-in $WORK/bin/nfv-pod $WORK/bin/nfv-scaler $WORK/bin/nfv-replay $WORK/bin/nfvctl $WORK/bin/nfv-train $WORK/bin/nfv-with-config /usr/local/bin" \
  --customize-hook="mkdir -p \"\$1/usr/share/nfv\" \"\$1/run/nfv/memif\" \"\$1/dev/hugepages\"" \
  --customize-hook="copy-in $WORK/demo $WORK/data /usr/share/nfv" \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/var/cache/ldconfig/aux-cache' \
  "$SUITE" "$WORK/rootfs.tar" "$MIRROR"

# Nothing that compiles.
if tar -tf "$WORK/rootfs.tar" | grep -E '(^|/)usr/bin/(gcc|g\+\+|cc|c\+\+|clang|ld|as)(-[0-9.]+)?$'; then
  echo "build-image.sh: the root filesystem holds a compiler or linker (above)"; exit 1
fi

podman import \
  --change 'ENV NFV_SHARED_DATA=/usr/share/nfv/data' \
  --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' \
  --change 'WORKDIR /run/nfv' \
  --change 'CMD ["nfv-pod", "--list-vnfs"]' \
  --message "geo-NFV: nfv-pod, nfv-scaler, nfv-replay, nfvctl, nfv-train on Debian $SUITE" \
  "$WORK/rootfs.tar" "$TAG" > /dev/null
echo "==> $TAG: $(podman image inspect --format '{{.Size}}' "$TAG" | awk '{printf "%.0f MB", $1 / 1e6}')"
NFV_IMAGE="$TAG" NFV_CONTAINER_MOUNTS="" "$HERE/in-container" sh -c 'ls -l /usr/local/bin; echo; du -sh /usr/lib /usr/share/nfv 2>/dev/null; dpkg-query -W -f "\${Package}\n" | wc -l | sed "s/$/ Debian packages/"'
