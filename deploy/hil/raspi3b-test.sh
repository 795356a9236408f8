#!/usr/bin/env bash
# The closest to a Raspberry Pi this machine allows: QEMU's raspi3b machine (a Pi 3 Model B: four
# Cortex-A53 cores, 1 GiB, the BCM2837's peripherals), booted with the Pi 3's own device tree and
# Debian 13's arm64 kernel, unchanged (deploy/hil/raspi3b-kernel.sh). There is no gpio-sim here:
# the header is the kernel's pinctrl-bcm2835 driver over the emulated SoC's GPIO registers. The
# arm64 static release switchboardd runs on the repository's devices.json, unchanged, the release
# CLI switches its relays, and each line's level is read back from the controller
# (deploy/hil/raspi3b-guest.sh, the VM's init). The initramfs holds busybox, the three release
# binaries and the libraries they load, taken from the Debian 13 arm64 test root.
# QEMU models no GPIO inputs or interrupts for this SoC, so the Action button's line is requested
# but never pressed here; inputs are the gpio-sim stages' (deploy/hil/arm64-test.sh).
# Prints PASS or FAIL; exits non-zero on a failure.
#
#   deploy/hil/raspi3b-test.sh
# Env: SWITCHBOARD_ARM64_BUILD (the folder holding release/; default
#      .build-arm64-trixie/aarch64-unknown-linux-gnu), HIL_TIMEOUT (seconds, default 900),
#      HIL_CONSOLE=1 (the kernel's console on standard error), SWITCHBOARD_HIL_CACHE,
#      SWITCHBOARD_ARM64=0 to skip.
set -euo pipefail
cd "$(dirname "$0")/../.."
source deploy/lib/packages.sh

skip() {
    echo "switchboard HIL raspi3b: SKIPPED: $*"
    [[ -z ${SWITCHBOARD_STAGE_TIMES:-} ]] || echo "HIL raspi3b: skipped ($*)" >>"$SWITCHBOARD_STAGE_TIMES"
    exit 0
}
[[ ${SWITCHBOARD_ARM64:-1} != 0 ]] || skip "SWITCHBOARD_ARM64=0"
[[ $(uname -m) == x86_64 ]] || skip "the arm64 binaries are cross-built on x86_64 (deploy/arm64/build.sh); this is $(uname -m)"
if ((EUID != 0)); then
    exec sudo --preserve-env=SWITCHBOARD_ARM64_BUILD,HIL_TIMEOUT,HIL_CONSOLE,SWITCHBOARD_HIL_CACHE,SWITCHBOARD_STAGE_TIMES \
        "$PWD/deploy/hil/raspi3b-test.sh" "$@"
fi

source deploy/lib/stages.sh
stage "HIL raspi3b: kernel, initramfs"
release=${SWITCHBOARD_ARM64_BUILD:-$PWD/.build-arm64-trixie/aarch64-unknown-linux-gnu}/release
binaries=(switchboardd switchboard home-controls)
for binary in "${binaries[@]}"; do
    [[ -x $release/$binary ]] || { echo "switchboard HIL raspi3b: no arm64 $binary in $release; run deploy/arm64/build.sh trixie release" >&2; exit 1; }
done
ensure_packages qemu-system-arm cpio binutils >&2
kernel=$(deploy/hil/raspi3b-kernel.sh)
busybox=$(deploy/hil/arm64-busybox.sh)
root=$(deploy/hil/arm64-root.sh tests)
echo "switchboard HIL raspi3b: kernel $(cat "$kernel/version"), the Pi 3 Model B's device tree"
work=$(mktemp -d)
qemu=
cleanup() { [[ -z $qemu ]] || kill -KILL "$qemu" 2>/dev/null; rm -rf "$work"; }
trap 'status=$?; cleanup; (exit "$status"); stages_report' EXIT

# The initramfs: busybox as every command, the init, the sample and the release binaries.
tree=$work/tree
mkdir -p "$tree"/{bin,dev,proc,sys,tmp,etc,switchboard/bin,usr/lib/aarch64-linux-gnu}
ln -s usr/lib "$tree/lib"
cp "$busybox" "$tree/bin/busybox"
for applet in sh mount grep tr ls head tail cat sleep date kill mkdir sync poweroff uname; do ln -s busybox "$tree/bin/$applet"; done
install -m 0755 deploy/hil/raspi3b-guest.sh "$tree/init"
cp devices.json "$tree/switchboard/devices.json"
cp "$root/etc/passwd" "$root/etc/group" "$tree/etc/"
for binary in "${binaries[@]}"; do cp "$release/$binary" "$tree/switchboard/bin/"; done

# Every library the binaries load, and what those load in turn, from the arm64 root, and the
# dynamic loader their program headers name.
interpreter=$(readelf -l "$release/switchboardd" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
[[ -n $interpreter ]] || { echo "switchboard HIL raspi3b: $release/switchboardd names no program interpreter" >&2; exit 1; }
mkdir -p "$tree$(dirname "$interpreter")"
cp -L "$root$interpreter" "$tree$interpreter"
pending=("${binaries[@]/#/$release/}")
declare -A copied=()
while ((${#pending[@]})); do
    file=${pending[0]}
    pending=("${pending[@]:1}")
    for library in $(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
        [[ -z ${copied[$library]:-} ]] || continue
        found=
        for folder in usr/lib/aarch64-linux-gnu lib/aarch64-linux-gnu usr/lib; do
            [[ -e $root/$folder/$library ]] && found=$root/$folder/$library && break
        done
        [[ -n $found ]] || { echo "switchboard HIL raspi3b: $library (needed by $(basename "$file")) is not in the arm64 root $root" >&2; exit 1; }
        cp -L "$found" "$tree/usr/lib/aarch64-linux-gnu/$library"
        copied[$library]=1
        pending+=("$tree/usr/lib/aarch64-linux-gnu/$library")
    done
done
echo "switchboard HIL raspi3b: the initramfs holds $(IFS=' '; echo "${binaries[*]}") and ${#copied[@]} libraries: $(IFS=' '; echo "${!copied[*]}")"
(cd "$tree" && find . | cpio -o -H newc --quiet) | gzip -1 >"$work/initrd.gz"
echo "switchboard HIL raspi3b: initramfs $(($(stat -c %s "$work/initrd.gz") / 1048576)) MiB compressed, $(du -sm "$tree" | cut -f1) MiB unpacked"

stage "HIL raspi3b: the release daemon on devices.json, pinctrl-bcm2835"
console=$work/console
: >"$console"
# The board cannot power itself off or reset under QEMU 7.2 (the kernel halts): the VM is stopped
# here once the init has printed its last line.
qemu-system-aarch64 -M raspi3b -m 1G -display none -monitor none -no-reboot \
    -kernel "$kernel/Image" -dtb "$kernel/bcm2837-rpi-3-b.dtb" -initrd "$work/initrd.gz" \
    -append "console=ttyAMA0 rdinit=/init loglevel=4 panic=-1" \
    -serial "file:$console" </dev/null >"$work/qemu" 2>&1 &
qemu=$!
if [[ ${HIL_CONSOLE:-0} == 1 ]]; then tail -n +1 -F -s 0.2 --pid="$qemu" "$console" >&2 2>/dev/null & fi
started=$SECONDS
outcome="stopped"
while kill -0 "$qemu" 2>/dev/null; do
    grep -q '^raspi3b: [0-9][0-9]* failures' "$console" && { outcome=finished; break; }
    ((SECONDS - started < ${HIL_TIMEOUT:-900})) || { outcome="ran out of time (HIL_TIMEOUT=${HIL_TIMEOUT:-900})"; break; }
    sleep 0.5
done
kill -KILL "$qemu" 2>/dev/null || true
wait "$qemu" 2>/dev/null || true
qemu=
elapsed=$((SECONDS - started))
tr -d '\r' <"$console" >"$console.text"
console=$console.text
grep -E '^(raspi3b|PASS|FAIL|---)' "$console" || true
if ! grep -q '^raspi3b: [0-9][0-9]* failures' "$console"; then
    echo "switchboard HIL raspi3b: FAIL: the VM $outcome after ${elapsed}s before the checks ended; its console:" >&2
    tail -40 "$console" >&2
    cat "$work/qemu" >&2
    exit 1
fi
grep -q '^raspi3b: 0 failures' "$console" || { echo "switchboard HIL raspi3b: FAIL (${elapsed}s in the VM)" >&2; sed -n '/^--- /,$p' "$console" >&2; exit 1; }
echo "switchboard HIL raspi3b: PASS: the release daemon drove the sample's relays through pinctrl-bcm2835 on the raspi3b machine (${elapsed}s, emulated)"
