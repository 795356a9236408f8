#!/usr/bin/env bash
# The hardware-in-the-loop stage on arm64: the arm64 binaries on an arm64 kernel with gpio-sim,
# under qemu-system-aarch64 (virt machine, TCG). The kernel is deploy/hil/build-kernel.sh's arm64
# image (cached); the guest's root is a Debian 13 arm64 root (deploy/hil/arm64-root.sh tests,
# cached) shared read-only with a throw-away overlay (deploy/hil/vm.sh with HIL_ARCH=arm64).
#   1. the kernel GPIO tests (SwitchboardHILTests.Kernel*) of the arm64 test bundle, from
#      deploy/arm64/build.sh trixie debug: Pi 3, Pi 4 and Pi 5 header layouts on gpio-sim, libgpiod 2.x;
#   2. the arm64 static release switchboardd on the unchanged devices.json, on a gpio-sim chip
#      made as each Pi's header, switched by the release CLI and read back through sysfs
#      (deploy/hil/sample-guest.sh).
# Run by deploy/test.sh after deploy/arm64/test.sh built the binaries and the x86 HIL stage.
# Prints PASS or FAIL; exits non-zero on a failure.
#
#   deploy/hil/arm64-test.sh [ARGUMENT...]      # arguments go to the test bundle
# Env: SWITCHBOARD_ARM64_BUILD (the folder holding debug/ and release/; default
#      .build-arm64-trixie/aarch64-unknown-linux-gnu), HIL_ARM64_KERNEL (a kernel image),
#      HIL_TIMEOUT (seconds per VM run, default 1800), SWITCHBOARD_HIL_CACHE,
#      SWITCHBOARD_ARM64=0 or HIL_BUILD_KERNEL=0 to skip.
set -euo pipefail
cd "$(dirname "$0")/../.."
source deploy/lib/packages.sh

skip() {
    echo "switchboard HIL arm64: SKIPPED: $*"
    [[ -z ${SWITCHBOARD_STAGE_TIMES:-} ]] || echo "HIL arm64: skipped ($*)" >>"$SWITCHBOARD_STAGE_TIMES"
    exit 0
}
[[ ${SWITCHBOARD_ARM64:-1} != 0 ]] || skip "SWITCHBOARD_ARM64=0"
[[ $(uname -m) == x86_64 ]] || skip "the arm64 binaries are cross-built on x86_64 (deploy/arm64/build.sh); this is $(uname -m)"
if ((EUID != 0)); then
    exec sudo --preserve-env=SWITCHBOARD_ARM64_BUILD,HIL_ARM64_KERNEL,HIL_TIMEOUT,SWITCHBOARD_HIL_CACHE,SWITCHBOARD_STAGE_TIMES,HIL_BUILD_KERNEL \
        "$PWD/deploy/hil/arm64-test.sh" "$@"
fi

source deploy/lib/stages.sh
stage "HIL arm64: kernel, root and qemu"
build=${SWITCHBOARD_ARM64_BUILD:-$PWD/.build-arm64-trixie/aarch64-unknown-linux-gnu}
bundle=$build/debug/SwitchboardPackageTests.xctest
release=$build/release
[[ -f $bundle ]] || { echo "switchboard HIL arm64: no arm64 test bundle at $bundle; run deploy/arm64/build.sh trixie debug" >&2; exit 1; }
for binary in switchboardd switchboard; do
    [[ -x $release/$binary ]] || { echo "switchboard HIL arm64: no arm64 $binary in $release; run deploy/arm64/build.sh trixie release" >&2; exit 1; }
done
ensure_packages qemu-system-arm >&2
kernel=${HIL_ARM64_KERNEL:-}
if [[ -z $kernel ]]; then
    [[ ${HIL_BUILD_KERNEL:-1} != 0 ]] || skip "no arm64 kernel with gpio-sim (set HIL_ARM64_KERNEL, or unset HIL_BUILD_KERNEL=0 to build one)"
    kernel=$(deploy/hil/build-kernel.sh --arch arm64 deploy/hil/kernel-systemd.config)
fi
root=$(deploy/hil/arm64-root.sh tests)
echo "switchboard HIL arm64: kernel $kernel"
echo "switchboard HIL arm64: root $root"
log=$(mktemp)
stage_temporary_files+=("$log")
# The bundle finds the sample and the broker's files in the repository it was built in (the
# folder two above the build's): shared at its own path, as this one.
shares=(-w "$PWD")
built_in=$(realpath "$build/../..")
if [[ $built_in != "$PWD" ]]; then
    if [[ -f $built_in/Package.swift ]]; then shares+=(-w "$built_in"); else shares+=(-w "$build"); fi
fi

# in_vm LABEL COMMAND...: runs COMMAND in the arm64 VM, its output teed into $log.
in_vm() {
    local label=$1 status
    shift
    stage "HIL arm64: $label"
    set +e
    HIL_ARCH=arm64 HIL_ROOT=$root HIL_KERNEL=$kernel deploy/hil/vm.sh -t "${HIL_TIMEOUT:-1800}" "${shares[@]}" -- "$@" | tee "$log"
    status=${PIPESTATUS[0]}
    set -e
    return "$status"
}

# One test at a time: under emulation two vCPUs are slow enough that suites run side by side
# miss edges and time limits they meet alone (an extension's debug build took more than the
# daemon's 10 s to list its controls; a gpio-sim edge went unseen).
in_vm "kernel GPIO tests (Pi 3, 4, 5 headers; libgpiod 2.x)" \
    env SWITCHBOARD_BIN_DIR="$(dirname "$bundle")" "$bundle" --testing-library swift-testing --no-parallel --filter 'SwitchboardHILTests\.Kernel' "$@" ||
    { echo "switchboard HIL arm64: FAIL: the kernel GPIO tests failed" >&2; exit 1; }
tests_ran "$log" || { echo "switchboard HIL arm64: FAIL: no kernel GPIO tests ran" >&2; exit 1; }
echo "switchboard HIL arm64: PASS: the kernel GPIO tests"

in_vm "release switchboardd on devices.json, gpio-sim headers" bash deploy/hil/sample-guest.sh "$release" ||
    { echo "switchboard HIL arm64: FAIL: the release daemon on the sample" >&2; exit 1; }
echo "switchboard HIL arm64: PASS: the release daemon drove the sample's porch line on each header"
