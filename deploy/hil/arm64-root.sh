#!/usr/bin/env bash
# Makes (or finds) a Debian 13 "Trixie" arm64 root for the arm64 HIL VM and prints its path.
#
#   fresh  a Raspberry Pi OS Trixie (64-bit) as it comes, booting with systemd as PID 1:
#          the minimal base with systemd, udev, dbus and procps (ps, as on Raspberry Pi OS),
#          nothing of Switchboard's. The VM that
#          boots it has no network, so what `apt install ./switchboard_…_arm64.deb` will want from
#          the archive (the package's Depends and Recommends: libgpiod3, libmosquitto1,
#          libavahi-client3, libqrencode4, adduser, init-system-helpers, gpiod, mosquitto-clients,
#          avahi-daemon, and libnss-mdns, which avahi-daemon recommends) is downloaded into apt's
#          archive cache (/var/cache/apt/archives), not installed: apt takes it from there as from
#          the network.
#          mmdebstrap's minbase with those packages (apt resolving and downloading on this
#          machine, dpkg run once on arm64 through qemu-user), about 2 minutes.
#   tests  what the arm64 test bundle runs on, made in a minute: a copy of the cross build's
#          Debian 13 arm64 root (deploy/arm64/sysroot.sh trixie: Debian's Swift runtime, libgpiod,
#          libmosquitto) with libgpiod's tools, mosquitto, its clients and openssl unpacked into it
#          (their packages and what they depend on, resolved and downloaded by an apt of its own;
#          nothing configured: the tests need the programs, and root's passwd and group).
#
#   deploy/hil/arm64-root.sh [fresh|tests]     # make (or find) the root, print its path
# Cached under SWITCHBOARD_HIL_CACHE (default ~/.cache/switchboard/hil), keyed by this script.
# Env: DEBIAN_MIRROR (default http://deb.debian.org/debian). Runs as root (mmdebstrap's root mode).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/packages.sh"
source "$here/../lib/cache.sh"
source "$here/../lib/arm64-apt.sh"
cache=${SWITCHBOARD_HIL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/switchboard/hil}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
mkdir -p "$cache"
flavour=${1:-fresh}
case $flavour in
    fresh | tests) ;;
    *) echo "arm64-root.sh: the root is \"fresh\" or \"tests\", not \"$flavour\"" >&2; exit 2 ;;
esac
key=$( { sha256sum "$0"; echo "$flavour"; } | sha256sum | cut -c1-16)
root=$cache/arm64-trixie-$flavour-$key
cache_lock "$root"
if [[ -f $root/.switchboard-ready ]]; then echo "$root"; exit 0; fi

work=$root.partial
rm -rf "$work"
if [[ $flavour == tests ]]; then
    sysroot=$("$here/../arm64/sysroot.sh" trixie)
    echo "switchboard: making the arm64 test root $root from $sysroot" >&2
    cp -a "$sysroot" "$work"
    # debootstrap --foreign left /proc a link to the host's.
    [[ -L $work/proc ]] && rm "$work/proc" && mkdir "$work/proc"
    apt=$(mktemp -d "$cache/apt-arm64.XXXXXX")
    trap 'rm -rf "$apt"' EXIT
    arm64_apt "$apt"
    apt-get "${arm64_apt_options[@]}" -qq -y --no-install-recommends --download-only install \
        gpiod mosquitto mosquitto-clients openssl procps >&2
    for deb in "$apt"/cache/archives/*.deb; do
        dpkg-deb --fsys-tarfile "$deb" | tar -x --keep-directory-symlink -C "$work"
    done
    [[ -e $work/etc/passwd ]] || cp "$work/usr/share/base-passwd/passwd.master" "$work/etc/passwd"
    [[ -e $work/etc/group ]] || cp "$work/usr/share/base-passwd/group.master" "$work/etc/group"
    for program in gpioset mosquitto_pub openssl; do [[ -x $work/usr/bin/$program ]] || { echo "arm64-root.sh: no $program in the test root" >&2; exit 1; }; done
    mv "$work" "$root"
    for old in "$cache/arm64-trixie-$flavour"-*; do [[ $old == "$root" ]] || rm -rf "$old"; done
    touch "$root/.switchboard-ready"
    echo "switchboard: Debian 13 arm64 test root ready: $root" >&2
    echo "$root"
    exit 0
fi

ensure_packages mmdebstrap debian-archive-keyring qemu-user-static >&2
[[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]] ||
    { echo "arm64-root.sh: binfmt_misc has no qemu-aarch64 entry (update-binfmts --enable qemu-aarch64)" >&2; exit 1; }
log=$cache/arm64-$flavour-mmdebstrap.log
echo "switchboard: making a Debian 13 arm64 root ($flavour) in $root" >&2
# The hook's apt (the root's own) fills the root's archive cache; apt's lists and that cache stay
# for the offline install in the VM.
mmdebstrap --mode=root --arch=arm64 --variant=minbase --include=systemd,systemd-sysv,udev,dbus,procps \
    --customize-hook='chroot "$1" apt-get install --yes --download-only adduser init-system-helpers libgpiod3 libmosquitto1 libavahi-client3 libqrencode4 gpiod mosquitto-clients avahi-daemon libnss-mdns' \
    --skip=cleanup/apt/lists --skip=cleanup/apt/cache \
    trixie "$work" "$mirror" >"$log" 2>&1 || { tail -30 "$log" >&2; exit 1; }
rm -f "$work/etc/resolv.conf"
echo switchboard-pi >"$work/etc/hostname"
mv "$work" "$root"
for old in "$cache/arm64-trixie-$flavour"-*; do [[ $old == "$root" ]] || rm -rf "$old"; done
touch "$root/.switchboard-ready"
echo "switchboard: Debian 13 arm64 root ready: $root" >&2
echo "$root"
