#!/usr/bin/env bash
# Makes (or finds) a Debian arm64 root to cross-compile Switchboard against and to run the arm64
# binaries in under qemu-user, and prints its path: Debian 13 "trixie" (Raspberry Pi OS Trixie:
# libgpiod 2.x) or Debian 12 "bookworm" (Raspberry Pi OS Bookworm: libgpiod 1.6).
#
#   deploy/arm64/sysroot.sh [trixie|bookworm]      # default trixie
#
# Nothing arm64 runs to make it: debootstrap's first stage (--foreign) resolves and downloads the
# packages, which are then unpacked as they are (no maintainer scripts: a sysroot needs files, and
# the dynamic loader finds the libraries in their default folders without a cache). It holds the C
# libraries and headers the build links (libc, libstdc++, libgpiod, libmosquitto, libcrypto, libavahi-client,
# libqrencode), their runtime
# libraries, and the target half of Debian 13's swiftlang 6.0.3 for arm64 (its lib/swift and
# lib/swift_static: the arm64 Swift modules, runtime and static libraries the amd64 compiler needs
# for the target). Debian 12 has no swiftlang: its root gets Debian 13's, the only Swift 6.0.3 that
# Debian builds for arm64.
#
# Cached under SWITCHBOARD_ARM64_CACHE (default ~/.cache/switchboard/arm64-RELEASE), keyed by this
# script: a second run prints the cached root at once. Env: DEBIAN_MIRROR (default
# http://deb.debian.org/debian).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/packages.sh"
release=${1:-trixie}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
case $release in
    trixie) packages=(libc6-dev libstdc++-14-dev libgpiod-dev libmosquitto-dev libssl-dev libavahi-client-dev libqrencode-dev libswiftlang) ;;
    bookworm) packages=(libc6-dev libstdc++-12-dev libgpiod-dev libmosquitto-dev libssl-dev libavahi-client-dev libqrencode-dev) ;;
    *) echo "sysroot.sh: no arm64 root for \"$release\": say trixie (Debian 13) or bookworm (Debian 12)" >&2; exit 2 ;;
esac
cache=${SWITCHBOARD_ARM64_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/switchboard/arm64-$release}
mkdir -p "$cache"
key=$(sha256sum "$0" | cut -c1-16)
root=$cache/root-$key
if [[ -f $root/.switchboard-ready ]]; then echo "$root"; exit 0; fi

ensure_packages debootstrap debian-archive-keyring curl >&2
work=$root.partial
rm -rf "$root" "$work"
echo "switchboard: making a Debian $release arm64 root in $root" >&2
debootstrap --arch=arm64 --foreign --variant=minbase --include="$(IFS=,; echo "${packages[*]}")" \
    "$release" "$work" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
    { tail -30 "$cache/debootstrap.log" >&2; exit 1; }

# Unpacks a package into the root; the root's /lib, /bin and /sbin are links into /usr (merged
# /usr), which tar keeps.
unpack() { dpkg-deb --fsys-tarfile "$1" | tar -x --keep-directory-symlink -C "$work" "${@:2}"; }
for deb in "$work"/var/cache/apt/archives/*.deb; do unpack "$deb"; done

# The package index debootstrap fetched (its Release file's signature and the index's hash checked).
package_index() { ls "$1"/var/lib/apt/lists/*_dists_"$2"_main_binary-arm64_Packages; }
# Downloads a package named in an index and checks its SHA-256 against it; prints the file.
download() {
    local index=$1 name=$2 fields filename sha256 file
    fields=$(awk -v name="$name" '
        /^Package: / { found = ($2 == name) }
        found && /^Filename: / { filename = $2 }
        found && /^SHA256: / { sha = $2 }
        /^$/ && found && filename { print filename, sha; exit }
        END { if (found && filename) print filename, sha }' "$index" | head -1)
    [[ -n $fields ]] || { echo "sysroot.sh: no package $name in $index" >&2; return 1; }
    read -r filename sha256 <<<"$fields"
    file=$cache/${filename##*/}
    if ! echo "$sha256  $file" | sha256sum -c --status 2>/dev/null; then
        curl -fsSL --retry 3 -o "$file" "$mirror/$filename"
        echo "$sha256  $file" | sha256sum -c --status ||
            { echo "sysroot.sh: $mirror/$filename does not match its index's SHA-256" >&2; rm -f "$file"; return 1; }
    fi
    echo "$file"
}

if [[ $release == trixie ]]; then
    swift_index=$(package_index "$work" trixie)
else
    # Debian 13's index for Debian 13's Swift, from (or through) the Debian 13 arm64 root.
    swift_index=$(package_index "$(bash "$0" trixie)" trixie)
    unpack "$(download "$swift_index" libswiftlang)"
fi
# swiftlang is the compiler and its target files: only the target files (the Swift and clang
# resource folders) are unpacked, a fifth of the package; the compiler that runs is the amd64 one.
# Its macro plugins (lib/swift/host) are arm64 programs the amd64 compiler cannot load: the folder
# points at the compiler's own, where the compiler's root has them.
swift_lib=./usr/libexec/swift/lib
unpack "$(download "$swift_index" swiftlang)" --exclude="$swift_lib/swift/host" \
    "$swift_lib/swift" "$swift_lib/swift_static" "$swift_lib/clang"
rm -rf "${work:?}/$swift_lib/swift/host"
ln -s /usr/libexec/swift/lib/swift/host "$work/$swift_lib/swift/host"
rm -f "$cache"/*.deb
# The Swift driver reads an SDK's SDKSettings.json (a "Version" of the form N.N) and warns at every
# compile when there is none.
printf '{ "CanonicalName": "debian-%s-aarch64", "Version": "%s.0" }\n' "$release" \
    "$(cut -d. -f1 "$work/etc/debian_version")" >"$work/SDKSettings.json"

rm -rf "$work"/var/cache/apt/archives/*.deb
mv "$work" "$root"
# Older roots of this cache are superseded.
for old in "$cache"/root-*; do [[ $old == "$root" ]] || rm -rf "$old"; done
touch "$root/.switchboard-ready"
echo "switchboard: Debian $release arm64 root ready: $root" >&2
echo "$root"
