#!/usr/bin/env bash
# Builds the hardware-in-the-loop kernel from Debian's linux-source-6.1 with deploy/hil/kernel.config
# on top of `make tinyconfig`, and prints the image's path. Cached by a key of the options and the
# source version: a second run prints the cached image at once. About 7 minutes on 2 cores.
# Further fragments given as arguments are merged on top of kernel.config, in order, and are part
# of the key: each set of fragments has its own cached image.
#
#   deploy/hil/build-kernel.sh            # build (or find) the kernel, print its path
#   deploy/hil/build-kernel.sh deploy/hil/kernel-systemd.config   # the kernel that boots systemd
# Env: SWITCHBOARD_HIL_CACHE (default ~/.cache/switchboard/hil)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/packages.sh"
cache=${SWITCHBOARD_HIL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/switchboard/hil}
mkdir -p "$cache"
fragments=("$here/kernel.config")
for fragment in "$@"; do
    [[ -f $fragment ]] || { echo "build-kernel.sh: no kernel config fragment at \"$fragment\"" >&2; exit 2; }
    fragments+=("$(realpath "$fragment")")
done

ensure_packages linux-source-6.1 build-essential bc bison flex libelf-dev libssl-dev xz-utils >&2
version=$(dpkg-query -W -f='${Version}' linux-source-6.1)
key=$( { cat "${fragments[@]}"; echo "$version"; } | sha256sum | cut -c1-16)
image=$cache/bzImage-$key
if [[ -f $image ]]; then echo "$image"; exit 0; fi

work=$(mktemp -d "$cache/build.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "switchboard: building the HIL kernel (linux-source-6.1 $version) in $work" >&2
tar -xaf /usr/src/linux-source-6.1.tar.xz -C "$work"
source=$(echo "$work"/linux-source-6.1)
{
    make -C "$source" tinyconfig
    # Lines that are neither options nor "is not set" remarks are comments.
    "$source/scripts/kconfig/merge_config.sh" -m -O "$source" "$source/.config" "${fragments[@]}"
    make -C "$source" olddefconfig
} >"$work/config.log" 2>&1 || { tail -30 "$work/config.log" >&2; exit 1; }

# Every option asked for must have survived olddefconfig (a missing dependency drops it silently).
missing=$(cat "${fragments[@]}" | grep -E '^CONFIG_[A-Z0-9_]+=y' | while read -r option; do
    grep -qx "$option" "$source/.config" || echo "$option"
done)
if [[ -n $missing ]]; then echo "switchboard: kernel options dropped by kconfig: $missing" >&2; exit 1; fi

make -C "$source" -j"$(nproc)" bzImage >"$work/build.log" 2>&1 || { tail -30 "$work/build.log" >&2; exit 1; }
cp "$source/arch/x86/boot/bzImage" "$image.tmp" && mv "$image.tmp" "$image"
echo "switchboard: HIL kernel built: $image" >&2
echo "$image"
