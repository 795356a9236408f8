#!/usr/bin/env bash
# Makes (or finds) a Debian 13 "Trixie" root, as Raspberry Pi OS Trixie's userland: debootstrap
# from Debian's archive, then Debian's own Swift (swiftlang 6.0.3), libgpiod 2.x, mosquitto 2.0.21
# and systemd, and prints its path. Cached by a key of this script: a second run prints the
# cached root at once. About 5 minutes the first time (download and unpack).
#
#   deploy/debian13/root.sh          # make (or find) the root, print its path
# Env: SWITCHBOARD_DEBIAN13_CACHE (default ~/.cache/switchboard/debian13),
#      DEBIAN13_MIRROR (default http://deb.debian.org/debian)
# The root is kept outside /tmp: the HIL VM mounts a fresh /tmp, and boots this root with systemd.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/packages.sh"
cache=${SWITCHBOARD_DEBIAN13_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/switchboard/debian13}
mirror=${DEBIAN13_MIRROR:-http://deb.debian.org/debian}
mkdir -p "$cache"

# What a Pi OS Trixie user installs (the README's packages), what the tests run, and systemd
# for the service test in the VM.
packages=(
    swiftlang git ca-certificates pkg-config libc6-dev libstdc++-14-dev
    libgpiod-dev gpiod libmosquitto-dev mosquitto mosquitto-clients libssl-dev
    libavahi-client-dev libqrencode-dev avahi-daemon avahi-utils zbar-tools
    openssl python3 python3-jsonschema python3-venv procps iproute2
    systemd systemd-sysv udev dbus sudo
)
key=$(sha256sum "$0" | cut -c1-16)
root=$cache/root-$key
if [[ -f $root/.switchboard-ready ]]; then echo "$root"; exit 0; fi

ensure_packages debootstrap debian-archive-keyring >&2
rm -rf "$root"
work=$root.partial
rm -rf "$work"
echo "switchboard: making a Debian 13 root in $root" >&2
debootstrap --variant=minbase trixie "$work" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
    { tail -30 "$cache/debootstrap.log" >&2; exit 1; }
cp /etc/resolv.conf "$work/etc/resolv.conf"
mounts=()
unmount() { local m; for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[$i]}" 2>/dev/null || true; done; }
trap unmount EXIT
for fs in proc sys dev; do mount --bind "/$fs" "$work/$fs"; mounts+=("$work/$fs"); done
# Services must not start inside the chroot while packages install.
printf '#!/bin/sh\nexit 101\n' >"$work/usr/sbin/policy-rc.d" && chmod 755 "$work/usr/sbin/policy-rc.d"
chroot "$work" /usr/bin/env DEBIAN_FRONTEND=noninteractive sh -c \
    "apt-get update -qq && apt-get install -y -qq --no-install-recommends ${packages[*]}" >"$cache/apt.log" 2>&1 ||
    { tail -30 "$cache/apt.log" >&2; exit 1; }
rm -f "$work/usr/sbin/policy-rc.d"
# avahi-daemon is there for the discovery tests, which start their own: it does not start when the
# root boots in the VM.
chroot "$work" systemctl disable avahi-daemon.service avahi-daemon.socket >/dev/null 2>&1 || true
chroot "$work" apt-get clean
unmount; mounts=()
mv "$work" "$root"
# Older roots of this cache are superseded.
for old in "$cache"/root-*; do [[ $old == "$root" ]] || rm -rf "$old"; done
touch "$root/.switchboard-ready"
echo "switchboard: Debian 13 root ready: $root" >&2
echo "$root"
