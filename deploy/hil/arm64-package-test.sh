#!/usr/bin/env bash
# The arm64 Debian package on an arm64 kernel, as a Raspberry Pi user installs it: a fresh Debian 13
# arm64 root (deploy/hil/arm64-root.sh fresh: minbase, systemd, udev, dbus, no Switchboard) booted
# with systemd as PID 1 under qemu-system-aarch64 (virt machine, TCG) on the arm64 HIL kernel
# (deploy/hil/build-kernel.sh --arch arm64 deploy/hil/kernel-systemd.config), with a gpio-sim chip
# impersonating a Raspberry Pi 5 header (label pinctrl-rp1, 54 lines GPIO0…GPIO53) made by the
# initramfs before systemd starts. The guest runs the package lifecycle of
# deploy/hil/package-boots.sh and deploy/hil/package-guest.sh, the same as on amd64:
#   trixie-install: `apt-get install ./switchboard_OLD_arm64.deb` and nothing else (no network:
#       the package's dependencies are in the root's apt cache, not installed); the unit enabled,
#       active and READY under its hardening, the CLI, a gpio-sim line driven from the unchanged
#       sample devices.json, state, a local edit; `systemctl reboot`
#   trixie-upgrade: up by itself after the reboot; `apt-get install ./switchboard_NEW_arm64.deb`,
#       remove, purge.
# The cached root stays untouched: the guest's root is an overlay whose upper layer is a throw-away
# ext4 image (a virtio disk), which carries the installation from the first boot to the second.
# Prints one PASS or FAIL line per check and exits non-zero on any failure.
#
#   deploy/hil/arm64-package-test.sh
# Env: SWITCHBOARD_DEBS_ARM64 ("OLD.deb NEW.deb", or one .deb: then NEW is that package and OLD
#      the same files repacked with the version lowered by "~previous"; default: deploy/package.sh
#      --release trixie --arch arm64), HIL_ARM64_KERNEL, HIL_TIMEOUT (seconds per boot, default
#      900), HIL_KEEP=1 to keep the run folder, SWITCHBOARD_HIL_CACHE, SWITCHBOARD_ARM64=0 to skip.
# Runs as root (through sudo otherwise).
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
source deploy/lib/packages.sh
started=$(date +%s)

say() { echo "switchboard arm64 package: $*"; }
skip() {
    say "SKIPPED: $*"
    [[ -z ${SWITCHBOARD_STAGE_TIMES:-} ]] || echo "arm64 package: skipped ($*)" >>"$SWITCHBOARD_STAGE_TIMES"
    exit 0
}
[[ ${SWITCHBOARD_ARM64:-1} != 0 ]] || skip "SWITCHBOARD_ARM64=0"
[[ $(uname -m) == x86_64 ]] || skip "the arm64 packages are cross-built on x86_64; this is $(uname -m)"
if ((EUID != 0)); then
    exec sudo --preserve-env=SWITCHBOARD_DEBS_ARM64,HIL_ARM64_KERNEL,HIL_TIMEOUT,HIL_KEEP,SWITCHBOARD_HIL_CACHE,SWITCHBOARD_STAGE_TIMES,SWITCHBOARD_PACKAGE_BOOTS \
        "$0" "$@"
fi
# The package lifecycle checks are the amd64 systemd stage's; SWITCHBOARD_PACKAGE_BOOTS points at
# another copy of package-boots.sh (its package-guest.sh beside it).
boots=${SWITCHBOARD_PACKAGE_BOOTS:-$repo/deploy/hil/package-boots.sh}
[[ -f $boots ]] || skip "no package lifecycle checks at $boots"
[[ -n ${SWITCHBOARD_DEBS_ARM64:-} || -f deploy/package.sh ]] || skip "no .deb given (SWITCHBOARD_DEBS_ARM64) and no deploy/package.sh to make one"
ensure_packages qemu-system-arm e2fsprogs dpkg-dev cpio >&2
cache=${SWITCHBOARD_HIL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/switchboard/hil}
mkdir -p "$cache"

run=$(mktemp -d /var/tmp/switchboard-arm64-package.XXXXXX)
qemu=
cleanup() {
    [[ -n $qemu ]] && { pkill -KILL -P "$qemu"; kill -KILL "$qemu"; } 2>/dev/null
    if [[ ${HIL_KEEP:-0} == 1 ]]; then say "kept $run" >&2; else rm -rf "$run"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- the kernel, the root, the packages --------------------------------------------------------
kernel=${HIL_ARM64_KERNEL:-$(deploy/hil/build-kernel.sh --arch arm64 deploy/hil/kernel-systemd.config)}
[[ -f $kernel ]] || { say "no kernel image at $kernel" >&2; exit 1; }
root=$(deploy/hil/arm64-root.sh fresh)
busybox=$(deploy/hil/arm64-busybox.sh)
say "kernel $kernel"
say "root $root"

read -r old new <<<"${SWITCHBOARD_DEBS_ARM64:-}"
if [[ -z ${old:-} ]]; then
    package_started=$(date +%s)
    old=$(bash deploy/package.sh --release trixie --arch arm64 --out "$run/debs" | tail -1)
    say "deploy/package.sh made $old in $(($(date +%s) - package_started))s"
fi
if [[ -z ${new:-} ]]; then
    # One package: it is the newer one; the older one is the same files with a lower version.
    new=$old
    version=$(dpkg-deb -f "$new" Version)
    mkdir -p "$run/repack"
    dpkg-deb -R "$new" "$run/repack/tree"
    sed -i "s/^Version: .*/Version: $version~previous/" "$run/repack/tree/DEBIAN/control"
    old=$run/repack/switchboard_${version}~previous_arm64.deb
    dpkg-deb --root-owner-group -Zxz -b "$run/repack/tree" "$old" >/dev/null
    rm -rf "$run/repack/tree"
    say "one package given: the upgrade goes from $version~previous (the same files repacked) to $version"
fi
for deb in "$old" "$new"; do
    [[ $(dpkg-deb -f "$deb" Architecture) == arm64 ]] || { say "$deb is not an arm64 package" >&2; exit 1; }
done

# --- the initramfs: overlay root, gpio-sim Pi 5 header, the check unit, switch_root into systemd --
read -r -d '' init <<'INIT' || true
#!/bin/busybox sh
/bin/busybox mkdir -p /proc /sys /dev /bin /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc none /proc; mount -t sysfs none /sys; mount -t devtmpfs none /dev
exec </dev/console >/dev/console 2>&1
fail() { echo "switchboard-hil: FATAL: $*"; sync; poweroff -f; sleep 10; }
p9=trans=virtio,version=9p2000.L,msize=262144
mkdir -p /lower /persist /newroot
mount -t 9p -o $p9,ro,cache=loose host /lower || fail "cannot mount the arm64 root"
mount -t ext4 /dev/vda /persist || fail "cannot mount the disk /dev/vda"
mkdir -p /persist/upper /persist/work
mount -t overlay none -o lowerdir=/lower,upperdir=/persist/upper,workdir=/persist/work /newroot ||
    fail "cannot lay the overlay on the arm64 root"

# A Raspberry Pi 5's header as the kernel shows it: gpiochip0, label pinctrl-rp1, 54 lines.
mount -t configfs none /sys/kernel/config || fail "no configfs"
c=/sys/kernel/config/gpio-sim/pi5-header
mkdir $c $c/bank0 || fail "no gpio-sim"
echo 54 > $c/bank0/num_lines && echo pinctrl-rp1 > $c/bank0/label || fail "gpio-sim bank"
i=0
while [ $i -lt 54 ]; do mkdir $c/bank0/line$i && echo GPIO$i > $c/bank0/line$i/name; i=$((i + 1)); done
echo 1 > $c/live || fail "gpio-sim live"
echo "switchboard-hil: $(cat $c/bank0/chip_name) [pinctrl-rp1] (54 lines) on $(cat $c/dev_name)"
umount /sys/kernel/config

# The check unit and its folder (read-write: results come back through it).
mkdir -p /newroot/mnt/switchboard-hil
mount -t 9p -o $p9 hil /newroot/mnt/switchboard-hil || fail "cannot mount the test folder"
cp /newroot/mnt/switchboard-hil/switchboard-hil.service /newroot/etc/systemd/system/
mkdir -p /newroot/etc/systemd/system/multi-user.target.wants
ln -sf ../switchboard-hil.service /newroot/etc/systemd/system/multi-user.target.wants/switchboard-hil.service

mount --move /dev /newroot/dev
umount /sys /proc
exec switch_root /newroot /sbin/init
INIT
key=$( { printf '%s' "$init"; sha256sum "$busybox"; } | sha256sum | cut -c1-16)
initramfs=$cache/initramfs-arm64-systemd-$key.cpio.gz
if [[ ! -f $initramfs ]]; then
    stage=$(mktemp -d)
    mkdir -p "$stage/bin"
    cp "$busybox" "$stage/bin/busybox"
    printf '%s\n' "$init" >"$stage/init" && chmod 755 "$stage/init"
    (cd "$stage" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$initramfs.tmp"
    mv "$initramfs.tmp" "$initramfs" && rm -rf "$stage"
fi

# --- the boots -------------------------------------------------------------------------------
share=$run/share disk=$run/disk.img
# boot PHASE: one run of the VM; the guest ends it by rebooting or powering off (-no-reboot).
boot() {
    local phase=$1 boot_started status follower
    boot_started=$(date +%s)
    say "boot $phase"
    set +e
    timeout -k 5 "${HIL_TIMEOUT:-900}" qemu-system-aarch64 -accel tcg,thread=multi -M virt,gic-version=3 \
        -cpu max,pauth-impdef=on -smp 2 -m 2G -nodefaults -no-user-config -display none -no-reboot \
        -kernel "$kernel" -initrd "$initramfs" \
        -append "console=ttyAMA0 panic=-1 rdinit=/init quiet loglevel=3 switchboard.phase=$phase" \
        -serial "file:$run/console-$phase.log" \
        -drive "file=$disk,format=raw,if=virtio,cache=writeback" \
        -virtfs "local,path=$root,mount_tag=host,security_model=none,readonly=on,multidevs=remap" \
        -virtfs "local,path=$share,mount_tag=hil,security_model=none" \
        </dev/null >"$run/qemu-$phase.log" 2>&1 &
    qemu=$!
    tail -n +1 -F -s 0.5 --pid="$qemu" "$share/results/$phase.log" 2>/dev/null &
    follower=$!
    wait "$qemu"; status=$?
    qemu=
    wait "$follower" 2>/dev/null
    set -e
    local booted
    booted=$(grep -m1 -o 'uptime [0-9.]*s' "$share/results/$phase.log" 2>/dev/null || true)
    say "boot $phase: $(($(date +%s) - boot_started))s in all, the checks began at ${booted:-?} (qemu exit $status, TCG)"
    if [[ ! -f $share/results/$phase.done ]]; then
        echo "FAIL: boot $phase did not finish its checks$( ((status == 124 || status == 137)) && echo " (time limit ${HIL_TIMEOUT:-900}s)"); console tail:"
        tail -40 "$run/console-$phase.log" | sed 's/^/    /'
        cat "$run/qemu-$phase.log"
        return 1
    fi
}

source "$boots"
package_share "$share" "$old" "$new"
truncate -s 2G "$disk"
mkfs.ext4 -q -F -m 0 -L switchboard-a64 "$disk"
failed=0
package_boots trixie boot || failed=1

echo
say "results"
package_results "$share"
passes=$(cat "$share"/results/*.log 2>/dev/null | grep -c '^PASS' || true)
failures=$(cat "$share"/results/*.log 2>/dev/null | grep -c '^FAIL' || true)
say "$passes passed, $failures failed, $(($(date +%s) - started))s in all"
((failures == 0 && failed == 0))
