#!/usr/bin/env bash
# Builds Switchboard for arm64 (every 64-bit Raspberry Pi) and runs it under qemu-user: the
# cross builds of deploy/arm64/build.sh against Debian 13's arm64 userland (Raspberry Pi OS
# Trixie: libgpiod 2.x) and Debian 12's (Bookworm: libgpiod 1.6), each the package and its tests
# with warnings as errors and the static release build; then the Debian 13 release binaries, run
# on arm64 through qemu-user: `switchboardd --version`, `switchboard check` on the sample
# devices.json, and README's run command (deploy/run-sample-test.sh: the daemon on the sample
# with --simulate, a real broker, the CLI, Ctrl-C), both arm64.
# Run by deploy/test.sh after the Debian 13 stage. The roots are cached (deploy/arm64/sysroot.sh,
# deploy/debian13/root.sh); the builds are not (a fresh clone builds from scratch).
#
# Needs root (debootstrap, chroot, bind mounts, binfmt_misc). Skipped, saying so in one line, when
# SWITCHBOARD_ARM64=0 and on a machine that is not x86_64. SWITCHBOARD_ARM64_RELEASES (default
# "trixie bookworm") chooses the Debian releases.
set -euo pipefail
cd "$(dirname "$0")/../.."

skip() {
    echo "switchboard arm64: SKIPPED: $*"
    [[ -z ${SWITCHBOARD_STAGE_TIMES:-} ]] || echo "arm64: skipped ($*)" >>"$SWITCHBOARD_STAGE_TIMES"
    exit 0
}
[[ ${SWITCHBOARD_ARM64:-1} != 0 ]] || skip "SWITCHBOARD_ARM64=0"
[[ $(uname -m) == x86_64 ]] || skip "the cross build runs on x86_64 (Debian 13's amd64 swiftlang); this is $(uname -m)"
if ((EUID != 0)); then
    echo "switchboard arm64: making and entering the roots needs root; running through sudo"
    exec sudo --preserve-env=SWITCHBOARD_ARM64_RELEASES,SWITCHBOARD_DEBIAN13_CACHE,DEBIAN13_MIRROR,DEBIAN_MIRROR,SWITCHBOARD_STAGE_TIMES \
        "$PWD/deploy/arm64/test.sh" "$@"
fi

source deploy/lib/packages.sh
source deploy/lib/stages.sh
label() { case $1 in trixie) echo "Debian 13" ;; bookworm) echo "Debian 12" ;; *) echo "$1" ;; esac; }

for release in ${SWITCHBOARD_ARM64_RELEASES:-trixie bookworm}; do
    name=$(label "$release")
    stage "arm64 ($name): roots"
    deploy/debian13/root.sh >/dev/null
    deploy/arm64/sysroot.sh "$release" >/dev/null
    stage "arm64 cross build ($name): package and tests"
    deploy/arm64/build.sh "$release" debug
    stage "arm64 cross build ($name): static release"
    deploy/arm64/build.sh "$release" release
done
stage_end

# The Debian 13 release binaries on arm64, through qemu-user: the kernel hands arm64 programs to
# qemu-aarch64 (binfmt_misc), which finds their libraries in the arm64 root (QEMU_LD_PREFIX).
stage "arm64 under qemu-user (Debian 13): --version, check"
ensure_packages qemu-user-static binfmt-support mosquitto mosquitto-clients openssl
mountpoint -q /proc/sys/fs/binfmt_misc || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
[[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]] || update-binfmts --enable qemu-aarch64
[[ $(cat /proc/sys/fs/binfmt_misc/qemu-aarch64) == enabled* ]] ||
    { echo "switchboard arm64: qemu-aarch64 is not enabled in binfmt_misc (update-binfmts --enable qemu-aarch64)" >&2; exit 1; }
QEMU_LD_PREFIX=$(deploy/arm64/sysroot.sh trixie)
export QEMU_LD_PREFIX
bin=$(cd .build-arm64-trixie/aarch64-unknown-linux-gnu/release && pwd)
fail() { echo "switchboard arm64: FAIL: $*" >&2; exit 1; }
for program in switchboardd switchboard home-controls; do
    file -L "$bin/$program" | grep -q 'ARM aarch64' || fail "$bin/$program is not an arm64 program: $(file -L "$bin/$program")"
done
version=$("$bin/switchboardd" --version) || fail "switchboardd --version exited $?: $version"
[[ $version == "switchboardd "*"libgpiod 2."*", Swift 6.0"* ]] ||
    fail "switchboardd --version said \"$version\"; expected its version, libgpiod 2.x and Swift 6.0"
echo "  ok    switchboardd --version: $version"
"$bin/switchboard" check devices.json --simulate || fail "switchboard check devices.json --simulate failed on the sample"
echo "  ok    switchboard check devices.json --simulate"

SWITCHBOARD_BIN=$bin SWITCHBOARD_SAMPLE_LABEL="arm64, qemu-user" bash deploy/run-sample-test.sh
