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
source "$boots"
[[ -n ${SWITCHBOARD_DEBS_ARM64:-} || -f deploy/package.sh ]] || skip "no .deb given (SWITCHBOARD_DEBS_ARM64) and no deploy/package.sh to make one"
ensure_packages qemu-system-arm e2fsprogs dpkg-dev cpio >&2
source deploy/hil/systemd-vm.sh
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
image=$(systemd_vm_root_image "$root" arm64-fresh)
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
    old=$(package_previous "$new" "$run/previous")
    say "one package given: the upgrade goes from $(dpkg-deb -f "$old" Version) (the same files repacked) to $(dpkg-deb -f "$new" Version)"
fi
for deb in "$old" "$new"; do
    [[ $(dpkg-deb -f "$deb" Architecture) == arm64 ]] || { say "$deb is not an arm64 package" >&2; exit 1; }
done

# --- the initramfs: overlay root, gpio-sim Pi 5 header, the check unit, switch_root into systemd --
initramfs=$(systemd_vm_initramfs "$busybox" arm64-systemd)

# --- the boots -------------------------------------------------------------------------------
share=$run/share disk=$run/disk.img
vm_share=$share boot_timeout=${HIL_TIMEOUT:-900} accel=TCG
# start_vm PHASE: one run of the VM, in the background ($qemu), its guest results followed.
start_vm() {
    local phase=$1
    timeout -k 5 "$boot_timeout" qemu-system-aarch64 -accel tcg,thread=multi -M virt,gic-version=3 \
        -cpu max,pauth-impdef=on -smp 2 -m 2G -nodefaults -no-user-config -display none -no-reboot \
        -kernel "$kernel" -initrd "$initramfs" \
        -append "console=ttyAMA0 panic=-1 rdinit=/init quiet loglevel=3 switchboard.lowerdisk=/dev/vdb switchboard.phase=$phase" \
        -serial "file:$run/console-$phase.log" \
        -drive "file=$disk,format=raw,if=virtio,cache=writeback" \
        -drive "file=$image,format=raw,if=virtio,readonly=on" \
        -virtfs "local,path=$root,mount_tag=host,security_model=none,readonly=on,multidevs=remap" \
        -virtfs "local,path=$share,mount_tag=hil,security_model=none" \
        </dev/null >"$run/qemu-$phase.log" 2>&1 &
    qemu=$!
    tail -n +1 -F -s 0.5 --pid="$qemu" "$share/results/$phase.log" 2>/dev/null &
    follower=$!
}

package_share "$share" "$old" "$new"
truncate -s 2G "$disk"
mkfs.ext4 -q -F -m 0 -L switchboard-a64 "$disk"
failed=0
package_boots trixie systemd_vm_boot || failed=1

echo
say "results"
package_results "$share"
passes=$(cat "$share"/results/*.log 2>/dev/null | grep -c '^PASS' || true)
failures=$(cat "$share"/results/*.log 2>/dev/null | grep -c '^FAIL' || true)
say "$passes passed, $failures failed, $(($(date +%s) - started))s in all"
((failures == 0 && failed == 0))
