#!/usr/bin/env bash
# Finds (or fetches) a static arm64 busybox for the arm64 HIL VM's initramfs and prints its path:
# Debian 13's busybox-static for arm64, downloaded with `apt-get download` through an apt of its
# own (its own sources list, index and cache under the HIL cache: the machine's apt, its
# architectures and its package lists stay as they are) and unpacked with dpkg-deb. Cached: a
# second run prints the cached binary at once.
#
#   deploy/hil/arm64-busybox.sh
# Env: SWITCHBOARD_HIL_CACHE (default ~/.cache/switchboard/hil), DEBIAN_MIRROR (default
#      http://deb.debian.org/debian)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/cache.sh"
source "$here/../lib/packages.sh"
ensure_packages file >&2
cache=${SWITCHBOARD_HIL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/switchboard/hil}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
folder=$cache/busybox-arm64
cache_lock "$folder"
if [[ -x $folder/busybox ]]; then echo "$folder/busybox"; exit 0; fi

apt=$(mktemp -d "$cache/apt-arm64.XXXXXX")
trap 'rm -rf "$apt"' EXIT
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/unpacked"
echo "deb [arch=arm64] $mirror trixie main" >"$apt/sources.list"
options=(-o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache" -o Dir::State::Status=/dev/null
    -o APT::Architecture=arm64 -o APT::Architectures=arm64 -o Debug::NoLocking=1
    -o APT::Sandbox::User=root)
echo "switchboard: downloading Debian 13's busybox-static for arm64" >&2
apt-get "${options[@]}" -qq update >&2
(cd "$apt" && apt-get "${options[@]}" -qq download busybox-static:arm64 >&2)
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
