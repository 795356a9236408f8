#!/usr/bin/env bash
# Builds Switchboard for arm64 (every 64-bit Raspberry Pi) and runs it under qemu-user: the
# cross builds of deploy/arm64/build.sh against Debian 13's arm64 userland (Raspberry Pi OS
# Trixie: libgpiod 2.x), the package and its tests with warnings as errors and the static release
# build; against Debian 12's (Bookworm: libgpiod 1.6) the GPIO layer, the code that differs
# between them (the whole package and tests with SWITCHBOARD_ARM64_DEBIAN12=full; Debian 12 gets
# no release build, see deploy/arm64/build.sh). Then the Debian 13 release binaries, run on arm64
# through qemu-user: `switchboardd --version`, `switchboard check --simulate` on the sample
# devices.json, and README's run command (deploy/run-sample-test.sh: the daemon on the sample with
# --simulate, a real broker, the CLI, Ctrl-C), all arm64. Last, the test bundle on arm64 under
# qemu-user, serially and under a watchdog (deploy/arm64/suite.sh): the suites that fit a CI run
# (the MQTT round trip, extension hosting, the fleet, the CLI against a daemon, the README's tour),
# or every suite with SWITCHBOARD_ARM64_SUITE=full.
# Run by deploy/test.sh after the Debian 13 stage. The roots are cached (deploy/arm64/sysroot.sh,
# deploy/debian13/root.sh); the builds are not (a fresh clone builds from scratch).
#
# Needs root (debootstrap, chroot, bind mounts, binfmt_misc). Skipped, saying so in one line, when
# SWITCHBOARD_ARM64=0 and on a machine that is not x86_64.
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
    exec sudo --preserve-env=SWITCHBOARD_ARM64_DEBIAN12,SWITCHBOARD_ARM64_SUITE,SWITCHBOARD_DEBIAN13_CACHE,DEBIAN13_MIRROR,DEBIAN_MIRROR,SWITCHBOARD_STAGE_TIMES \
        "$PWD/deploy/arm64/test.sh" "$@"
fi

source deploy/lib/packages.sh
source deploy/lib/stages.sh
stage "arm64: roots (the compiler's, Debian 13 and 12 arm64)"
deploy/debian13/root.sh >/dev/null
deploy/arm64/sysroot.sh trixie >/dev/null
deploy/arm64/sysroot.sh bookworm >/dev/null
stage "arm64 cross build (Debian 13): package and tests"
deploy/arm64/build.sh trixie debug
stage "arm64 cross build (Debian 13): static release"
deploy/arm64/build.sh trixie release
if [[ ${SWITCHBOARD_ARM64_DEBIAN12:-} == full ]]; then
    stage "arm64 cross build (Debian 12): package and tests"
    deploy/arm64/build.sh bookworm debug
else
    stage "arm64 cross build (Debian 12): GPIO layer on libgpiod 1.6"
    deploy/arm64/build.sh bookworm gpio
fi
stage_end

# The Debian 13 release binaries on arm64, through qemu-user: the kernel hands arm64 programs to
# qemu-aarch64 (binfmt_misc), which finds their libraries in the arm64 root (QEMU_LD_PREFIX).
stage "arm64 under qemu-user (Debian 13): --version, check"
ensure_packages qemu-user-static binfmt-support mosquitto mosquitto-clients openssl file
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

# The daemon starts its extension with a clean environment, so without QEMU_LD_PREFIX: for that
# arm64 program qemu-aarch64 looks for the loader under its built-in prefix (Debian's
# /etc/qemu-binfmt/aarch64), pointed at the same root while this stage runs.
prefix=/etc/qemu-binfmt/aarch64
if [[ ! -e $prefix ]]; then
    mkdir -p "$(dirname "$prefix")"
    ln -s "$QEMU_LD_PREFIX" "$prefix"
    stage_temporary_files+=("$prefix")
fi
[[ -e $prefix/lib/ld-linux-aarch64.so.1 ]] ||
    fail "$prefix has no lib/ld-linux-aarch64.so.1: qemu-aarch64 could not start the daemon's extension (point it at an arm64 root, or remove it)"
SWITCHBOARD_BIN=$bin SWITCHBOARD_SAMPLE_LABEL="arm64, qemu-user" bash deploy/run-sample-test.sh

# The test bundle on arm64: suite by suite, each test after the other, under a watchdog that
# stops a suite in which no test finishes for 5 minutes and names the tests that were running.
stage "arm64 under qemu-user (Debian 13): the test watchdog on a hanging run"
deploy/lib/watchdog-check.sh
stage "arm64 under qemu-user (Debian 13): test suites (${SWITCHBOARD_ARM64_SUITE:-ci})"
deploy/arm64/suite.sh "${SWITCHBOARD_ARM64_SUITE:-ci}"
stage_end
