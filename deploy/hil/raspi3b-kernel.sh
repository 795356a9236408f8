#!/usr/bin/env bash
# Finds (or fetches) the kernel for QEMU's raspi3b machine and prints its folder: Debian 13's own
# arm64 kernel (the linux-image-arm64 that Raspberry Pi OS Trixie's Debian base ships), unchanged,
# with the Raspberry Pi 3 Model B's device tree from the same package. That kernel has the Pi's
# pin controller built in (CONFIG_PINCTRL_BCM2835=y), the GPIO character device and the PL011
# console, and no gpio-sim: on raspi3b the header is served by the real pinctrl-bcm2835 driver.
# Downloaded through an apt of its own (deploy/lib/arm64-apt.sh, under the HIL cache), about 90 MB
# once. The folder holds Image, bcm2837-rpi-3-b.dtb and version. Cached: a second run prints the
# folder at once.
#
#   deploy/hil/raspi3b-kernel.sh
# Env: SWITCHBOARD_HIL_CACHE (default ~/.cache/switchboard/hil), DEBIAN_MIRROR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/cache.sh"
source "$here/../lib/arm64-apt.sh"
cache=${SWITCHBOARD_HIL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/switchboard/hil}
folder=$cache/raspi3b-kernel
cache_lock "$folder"
if [[ -f $folder/Image && -f $folder/bcm2837-rpi-3-b.dtb ]]; then echo "$folder"; exit 0; fi

apt=$(mktemp -d "$cache/apt-arm64.XXXXXX")
trap 'rm -rf "$apt"' EXIT
echo "switchboard: downloading Debian 13's arm64 kernel for the raspi3b machine" >&2
arm64_apt "$apt"
# linux-image-arm64 is a metapackage: the kernel is the package it depends on.
package=$(apt-cache "${arm64_apt_options[@]}" depends linux-image-arm64 | sed -n 's/^ *Depends: \(linux-image-[^ ]*\)$/\1/p' | head -1)
[[ -n $package ]] || { echo "raspi3b-kernel.sh: linux-image-arm64 names no kernel package" >&2; exit 1; }
(cd "$apt" && apt-get "${arm64_apt_options[@]}" -qq download "$package:arm64" >&2)
mkdir -p "$apt/unpacked"
dpkg-deb -x "$apt/$package"_*_arm64.deb "$apt/unpacked"
image=$(ls "$apt"/unpacked/boot/vmlinuz-*)
tree=$(ls "$apt"/unpacked/usr/lib/linux-image-*/broadcom/bcm2837-rpi-3-b.dtb)
config=$(ls "$apt"/unpacked/boot/config-*)
for option in CONFIG_PINCTRL_BCM2835=y CONFIG_GPIO_CDEV=y CONFIG_SERIAL_AMBA_PL011_CONSOLE=y CONFIG_RD_GZIP=y CONFIG_DEBUG_FS=y; do
    grep -qx "$option" "$config" || { echo "raspi3b-kernel.sh: $package lacks $option" >&2; exit 1; }
done
rm -rf "$folder.tmp" && mkdir -p "$folder.tmp"
cp "$image" "$folder.tmp/Image"
cp "$tree" "$folder.tmp/bcm2837-rpi-3-b.dtb"
echo "$package $(dpkg-deb -f "$apt/$package"_*_arm64.deb Version)" >"$folder.tmp/version"
rm -rf "$folder" && mv "$folder.tmp" "$folder"
echo "switchboard: raspi3b kernel ready: $(cat "$folder/version")" >&2
echo "$folder"
