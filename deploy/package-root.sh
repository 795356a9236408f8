#!/usr/bin/env bash
# Makes (or finds) a fresh, installed Debian arm64 system to install Switchboard's .deb into, as a
# new Raspberry Pi OS user's system would be, and prints its path: the minimal base (minbase:
# dpkg, apt and the essential packages, nothing of Switchboard's) made by mmdebstrap, whose apt
# resolves and downloads on this machine and whose dpkg runs once on arm64 through qemu-user.
# deploy/arm64/sysroot.sh's roots are for building (files unpacked, no dpkg database): apt cannot
# install into them.
#
#   deploy/package-root.sh [trixie|bookworm]      # default trixie
#
# Cached under SWITCHBOARD_PACKAGE_CACHE (default ~/.cache/switchboard/pkg), keyed by this script;
# about 2 minutes the first time. Never written into once made: deploy/package-test.sh installs
# into an overlay of it. Env: DEBIAN_MIRROR (default http://deb.debian.org/debian). Needs root
# (mmdebstrap's root mode, chroot) and qemu-user's binfmt_misc registration for arm64 (installed
# here when missing).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib/packages.sh"
source "$here/lib/cache.sh"
release=${1:-trixie}
case $release in trixie | bookworm) ;; *) echo "package-root.sh: no arm64 system for \"$release\": say trixie or bookworm" >&2; exit 2 ;; esac
((EUID == 0)) || { echo "package-root.sh: mmdebstrap and chroot need root: run it through sudo" >&2; exit 2; }
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=${SWITCHBOARD_PACKAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/switchboard/pkg}/arm64-$release-installed
mkdir -p "$cache"
key=$(sha256sum "$0" | cut -c1-16)
root=$cache/root-$key
cache_lock "$root"
if [[ -f $root/.switchboard-ready ]]; then echo "$root"; exit 0; fi

ensure_packages mmdebstrap debian-archive-keyring qemu-user-static binfmt-support >&2
mountpoint -q /proc/sys/fs/binfmt_misc || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
[[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]] || update-binfmts --enable qemu-aarch64
work=$root.partial
rm -rf "$work"
echo "switchboard: making an installed Debian $release arm64 system in $root" >&2
# apt's lists stay (a later `apt-get install ./x.deb` resolves from them); its downloads go.
mmdebstrap --mode=root --arch=arm64 --variant=minbase --skip=cleanup/apt/lists \
    "$release" "$work" "$mirror" >"$cache/mmdebstrap.log" 2>&1 ||
    { tail -30 "$cache/mmdebstrap.log" >&2; exit 1; }
mv "$work" "$root"
# Older systems of this cache are superseded.
for old in "$cache"/root-*; do [[ $old == "$root" ]] || rm -rf "$old"; done
touch "$root/.switchboard-ready"
echo "switchboard: Debian $release arm64 system ready: $root" >&2
echo "$root"
