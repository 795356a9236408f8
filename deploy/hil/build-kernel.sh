#!/usr/bin/env bash
# Builds the hardware-in-the-loop kernel from Debian's linux-source-6.1 with deploy/hil/kernel.config
# on top of `make tinyconfig`, and prints the image's path. Cached by a key of the options, the
# architecture and the source version: a second run prints the cached image at once. About 7
# minutes on 2 cores.
# Further fragments given as arguments are merged on top of kernel.config, in order, and are part
# of the key: each set of fragments has its own cached image.
# `--arch arm64` cross-builds an arm64 Image for `qemu-system-aarch64 -M virt` with Debian's
# gcc-aarch64-linux-gnu, kernel-arm64.config merged right after kernel.config.
#
#   deploy/hil/build-kernel.sh            # build (or find) the kernel, print its path
#   deploy/hil/build-kernel.sh deploy/hil/kernel-systemd.config   # the kernel that boots systemd
#   deploy/hil/build-kernel.sh --arch arm64 deploy/hil/kernel-systemd.config   # arm64, both uses
# Env: SWITCHBOARD_HIL_CACHE (default ~/.cache/switchboard/hil)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/packages.sh"
source "$here/../lib/cache.sh"
cache=${SWITCHBOARD_HIL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/switchboard/hil}
mkdir -p "$cache"
arch=x86_64
if [[ ${1:-} == --arch ]]; then
    arch=${2:-}; shift 2 || { echo "build-kernel.sh: --arch takes x86_64 or arm64" >&2; exit 2; }
fi
fragments=("$here/kernel.config")
case $arch in
    x86_64) make_options=() image_name=bzImage target=bzImage built=arch/x86/boot/bzImage ;;
    arm64)
        fragments+=("$here/kernel-arm64.config")
        make_options=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-) image_name=Image-arm64 target=Image built=arch/arm64/boot/Image ;;
    *) echo "build-kernel.sh: --arch takes x86_64 or arm64, not \"$arch\"" >&2; exit 2 ;;
esac
for fragment in "$@"; do
    [[ -f $fragment ]] || { echo "build-kernel.sh: no kernel config fragment at \"$fragment\"" >&2; exit 2; }
    fragments+=("$(realpath "$fragment")")
done

ensure_packages "${switchboard_kernel_build_packages[@]}" >&2
[[ $arch == x86_64 ]] || ensure_packages gcc-aarch64-linux-gnu >&2
version=$(dpkg-query -W -f='${Version}' linux-source-6.1)
# The x86_64 key is the one it always was: its cached images stay valid.
key=$( { cat "${fragments[@]}"; echo "$version"; [[ $arch == x86_64 ]] || echo "$arch"; } | sha256sum | cut -c1-16)
image=$cache/$image_name-$key
cache_lock "$image"
if [[ -f $image ]]; then echo "$image"; exit 0; fi

work=$(mktemp -d "$cache/build.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "switchboard: building the $arch HIL kernel (linux-source-6.1 $version) in $work" >&2
tar -xaf /usr/src/linux-source-6.1.tar.xz -C "$work"
source=$(echo "$work"/linux-source-6.1)
{
    make -C "$source" "${make_options[@]}" tinyconfig
    # Lines that are neither options nor "is not set" remarks are comments.
    "$source/scripts/kconfig/merge_config.sh" -m -O "$source" "$source/.config" "${fragments[@]}"
    make -C "$source" "${make_options[@]}" olddefconfig
} >"$work/config.log" 2>&1 || { tail -30 "$work/config.log" >&2; exit 1; }

# Every option asked for must have survived olddefconfig (a missing dependency drops it silently):
# those whose last word, over the fragments in order, is "=y".
missing=$(sed -nE 's/^(CONFIG_[A-Z0-9_]+)=y$/\1 y/p; s/^# (CONFIG_[A-Z0-9_]+) is not set$/\1 n/p' "${fragments[@]}" |
    awk '{ last[$1] = $2; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
         END { for (i = 1; i <= n; i++) if (last[order[i]] == "y") print order[i] "=y" }' | while read -r option; do
    grep -qx "$option" "$source/.config" || echo "$option"
done)
if [[ -n $missing ]]; then echo "switchboard: kernel options dropped by kconfig: $missing" >&2; exit 1; fi

make -C "$source" "${make_options[@]}" -j"$(nproc)" "$target" >"$work/build.log" 2>&1 || { tail -30 "$work/build.log" >&2; exit 1; }
cp "$source/$built" "$image.tmp" && mv "$image.tmp" "$image"
echo "switchboard: HIL kernel built: $image" >&2
echo "$image"
