#!/usr/bin/env bash
# The stand-ins' common base: Debian 12 (bookworm) made here with debootstrap, since no image registry is
# reachable from this machine, imported into podman as localhost/payments-standin/bookworm. The root file
# system is cached as a tar under ~/.cache/payments-service/containers (debootstrap takes about a minute).
set -euo pipefail
cache="${PAYMENTS_CACHE:-${PAYMENTS_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/payments-service}}/containers"
tarball="$cache/bookworm-minbase.tar"
mkdir -p "$cache"
if [ ! -s "$tarball" ]; then
  command -v debootstrap >/dev/null || apt-get install -y debootstrap >/dev/null
  rm -rf "$cache/rootfs"
  debootstrap --variant=minbase bookworm "$cache/rootfs" http://deb.debian.org/debian >"$cache/debootstrap.log"
  # Images carry no apt lists or caches (the official slim images neither).
  rm -rf "$cache"/rootfs/var/lib/apt/lists/* "$cache"/rootfs/var/cache/apt/*.bin
  tar -C "$cache/rootfs" -c . >"$tarball.part" && mv "$tarball.part" "$tarball"
  rm -rf "$cache/rootfs"
fi
podman image exists localhost/payments-standin/bookworm:latest ||
  podman import --change 'CMD ["/bin/bash"]' "$tarball" localhost/payments-standin/bookworm:latest >/dev/null
echo "base: localhost/payments-standin/bookworm ($(du -h "$tarball" | cut -f1) tar)"
