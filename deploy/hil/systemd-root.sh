#!/usr/bin/env bash
# Makes (or finds) a bootable Debian root for the systemd stage's package boots and prints its
# path: debootstrap (minbase) of a release, with systemd as init, udev, dbus and procps installed,
# and the packages a Switchboard .deb pulls in (its Depends and Recommends: the release's libgpiod
# runtime library, libmosquitto1, libavahi-client3 and libqrencode4 (HomeKit's discovery and setup
# code), adduser, gpiod, mosquitto-clients, avahi-daemon with libnss-mdns (what it recommends),
# and mosquitto, with their dependencies) downloaded into apt's cache but NOT installed: in the VM, `apt-get install
# ./switchboard_….deb` must find and install them itself, with no network, as it would on a fresh
# machine from the archive. Debian 13 is deploy/debian13/root.sh's
# root (it builds Switchboard, so it has everything installed already); this one is Debian 12,
# "bookworm", as Raspberry Pi OS Bookworm (libgpiod 1.6).
#
#   deploy/hil/systemd-root.sh [bookworm]      # make (or find) the root, print its path
#
# Cached by a key of this script and the release: a second run prints the cached root at once.
# About 2 minutes the first time (download and unpack). Env: SWITCHBOARD_SYSTEMD_ROOT_CACHE
# (default ~/.cache/switchboard/systemd-root), DEBIAN_MIRROR (default http://deb.debian.org/debian).
# The root is kept outside /tmp: the VM boots it as the lower layer of an overlay.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/packages.sh"
source "$here/../lib/cache.sh"
release=${1:-bookworm}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
case $release in
    bookworm) libgpiod=libgpiod2 ;;
    trixie) libgpiod=libgpiod3 ;;
    *) echo "systemd-root.sh: no root for \"$release\": say bookworm (Debian 12) or trixie (Debian 13)" >&2; exit 2 ;;
esac
# Installed: what boots and what the checks use. Downloaded only: what the .deb depends on (or
# recommends: apt installs those too) on that release.
installed=(systemd systemd-sysv udev dbus procps)
downloaded=("$libgpiod" libmosquitto1 libavahi-client3 libqrencode4 gpiod adduser mosquitto mosquitto-clients avahi-daemon libnss-mdns)
cache=${SWITCHBOARD_SYSTEMD_ROOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/switchboard/systemd-root}
mkdir -p "$cache"
key=$( { cat "$0"; echo "$release"; } | sha256sum | cut -c1-16)
root=$cache/$release-$key
cache_lock "$root"
if [[ -f $root/.switchboard-ready ]]; then echo "$root"; exit 0; fi

ensure_packages debootstrap debian-archive-keyring >&2
work=$root.partial
rm -rf "$root" "$work"
echo "switchboard: making a Debian $release root with systemd in $root" >&2
started=$SECONDS
debootstrap --variant=minbase --include="$(IFS=,; echo "${installed[*]}")" "$release" "$work" "$mirror" \
    >"$cache/debootstrap-$release.log" 2>&1 ||
    { tail -30 "$cache/debootstrap-$release.log" >&2; exit 1; }
cp /etc/resolv.conf "$work/etc/resolv.conf"
mounts=()
unmount() { local i; for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[$i]}" 2>/dev/null || true; done; }
trap unmount EXIT
for fs in proc sys dev; do mount --bind "/$fs" "$work/$fs"; mounts+=("$work/$fs"); done
# apt's lists (the guest resolves the .deb's dependencies against them) and the packages' files in
# /var/cache/apt/archives, where apt looks before it downloads.
chroot "$work" /usr/bin/env DEBIAN_FRONTEND=noninteractive sh -c \
    "apt-get update -qq && apt-get install -y -qq --download-only --no-install-recommends ${downloaded[*]}" \
    >"$cache/apt-$release.log" 2>&1 ||
    { tail -30 "$cache/apt-$release.log" >&2; exit 1; }
unmount; mounts=()
# The VM has no network and no name server; a host's resolv.conf does not belong in its root.
rm -f "$work/etc/resolv.conf"
# A machine of its own: no machine-id yet (systemd makes one at first boot), a hostname of its own.
: >"$work/etc/machine-id"
echo "debian-$release" >"$work/etc/hostname"
mv "$work" "$root"
# Older roots of this release are superseded.
for old in "$cache/$release"-*; do [[ $old == "$root" ]] || rm -rf "$old"; done
touch "$root/.switchboard-ready"
echo "switchboard: Debian $release root ready in $((SECONDS - started))s: $root ($(du -sh "$root" | cut -f1))" >&2
echo "$root"
