#!/usr/bin/env bash
# Finds (or fetches) a static arm64 busybox for the arm64 HIL VM's initramfs and prints its path:
# Debian 13's busybox-static for arm64, downloaded with `apt-get download` through an apt of its
# own (deploy/lib/arm64-apt.sh, under the HIL cache) and unpacked with dpkg-deb. Cached: a
# second run prints the cached binary at once.
#
#   deploy/hil/arm64-busybox.sh
# Env: SWITCHBOARD_HIL_CACHE (default ~/.cache/switchboard/hil), DEBIAN_MIRROR (default
#      http://deb.debian.org/debian)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/cache.sh"
source "$here/../lib/packages.sh"
source "$here/../lib/arm64-apt.sh"
ensure_packages file >&2
cache=${SWITCHBOARD_HIL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/switchboard/hil}
folder=$cache/busybox-arm64
cache_lock "$folder"
if [[ -x $folder/busybox ]]; then echo "$folder/busybox"; exit 0; fi

apt=$(mktemp -d "$cache/apt-arm64.XXXXXX")
trap 'rm -rf "$apt"' EXIT
echo "switchboard: downloading Debian 13's busybox-static for arm64" >&2
arm64_apt "$apt"
mkdir -p "$apt/unpacked"
(cd "$apt" && apt-get "${arm64_apt_options[@]}" -qq download busybox-static:arm64 >&2)
dpkg-deb -x "$apt"/busybox-static_*_arm64.deb "$apt/unpacked"
binary=$apt/unpacked/usr/bin/busybox
[[ -x $binary ]] || binary=$apt/unpacked/bin/busybox
file "$binary" 2>/dev/null | grep -q 'ARM aarch64.*statically linked' ||
    { echo "arm64-busybox.sh: $binary is not a static arm64 program" >&2; exit 1; }
mkdir -p "$folder.tmp"
cp "$binary" "$folder.tmp/busybox"
dpkg-deb -f "$apt"/busybox-static_*_arm64.deb Version >"$folder.tmp/version"
rm -rf "$folder" && mv "$folder.tmp" "$folder"
echo "$folder/busybox"
