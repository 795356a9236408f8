#!/usr/bin/env bash
# The hardware-in-the-loop stage: runs the kernel GPIO tests (SwitchboardHILTests.Kernel*) from
# the built test bundle inside a qemu VM whose kernel has gpio-sim. Run by deploy/test.sh after
# the build; runs on its own after `swift build --build-tests`.
#
# Two runs, one per libgpiod: the bundle built on this machine (Debian 12: libgpiod 1.6), then the
# bundle deploy/debian13/test.sh built in the Debian 13 root (libgpiod 2.x, Debian's Swift 6.0.3,
# mosquitto 2.0.21), run inside the VM chrooted into that root (deploy/debian13/run.sh binds /proc,
# /sys, configfs, /dev and the repository into it). The second run needs that bundle: run
# deploy/debian13/test.sh first. It is left out, saying so, where deploy/debian13/test.sh skips
# (SWITCHBOARD_DEBIAN13=0, or this machine is Debian 13 already).
#
# The kernel: HIL_KERNEL if set, else the systemd stage's kernel (deploy/hil/build-kernel.sh
# deploy/hil/kernel-systemd.config: gpio-sim and what systemd needs; cached, about 7 minutes the
# first time), so that a run builds one x86_64 kernel for both VM stages, as it does for arm64.
# HIL_BUILD_KERNEL=0 skips the stage instead of building one. A machine that cannot run the VM
# (not x86_64) skips the stage, saying so in one line. Arguments go to both test runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
source deploy/lib/packages.sh

skip() {
    echo "switchboard HIL: SKIPPED: $*"
    [[ -z ${SWITCHBOARD_STAGE_TIMES:-} ]] || echo "HIL: skipped ($*)" >>"$SWITCHBOARD_STAGE_TIMES"
    exit 0
}
[[ $(uname -m) == x86_64 ]] || skip "the VM runs the host's x86_64 root filesystem; this machine is $(uname -m)"

source deploy/lib/stages.sh
stage "HIL: kernel and qemu"
kernel=${HIL_KERNEL:-}
if [[ -z $kernel ]]; then
    [[ ${HIL_BUILD_KERNEL:-1} != 0 ]] || skip "no kernel with gpio-sim (set HIL_KERNEL, or unset HIL_BUILD_KERNEL=0 to build one)"
    kernel=$(deploy/hil/build-kernel.sh deploy/hil/kernel-systemd.config)
fi
[[ -f $kernel ]] || { echo "switchboard HIL: no kernel image at $kernel" >&2; exit 1; }
ensure_packages qemu-system-x86 busybox-static gpiod

bundle=$(swift build --show-bin-path)/SwitchboardPackageTests.xctest
[[ -x $bundle ]] || { echo "switchboard HIL: no test bundle at $bundle; run swift build --build-tests first" >&2; exit 1; }
debian13=1
if [[ ${SWITCHBOARD_DEBIAN13:-1} == 0 ]]; then
    debian13=0; echo "switchboard HIL: the Debian 13 run is left out (SWITCHBOARD_DEBIAN13=0)"
elif [[ $(. /etc/os-release && echo "${VERSION_CODENAME:-}") == trixie ]]; then
    debian13=0; echo "switchboard HIL: the Debian 13 run is left out: this machine is Debian 13, its own bundle is that run"
fi
if ((debian13)); then
    debian13_bundle=$PWD/.build-debian13/debug/SwitchboardPackageTests.xctest
    [[ -x $debian13_bundle ]] || {
        echo "switchboard HIL: no Debian 13 test bundle at $debian13_bundle; run deploy/debian13/test.sh first (or SWITCHBOARD_DEBIAN13=0 to leave that run out)" >&2
        exit 1
    }
    debian13_root=$(deploy/debian13/root.sh)
fi
echo "switchboard HIL: kernel $kernel"
log=$(mktemp)
stage_temporary_files+=("$log")
filter=(--testing-library swift-testing --filter 'SwitchboardHILTests\.Kernel' "$@")

# Runs one bundle's kernel tests in the VM: a label, then the command for inside the VM.
run_in_vm() {
    local label=$1 status
    shift
    stage "HIL: $label"
    set +e
    # The repository is shared at its own path: a clone under /tmp would be hidden by the guest's /tmp.
    HIL_KERNEL=$kernel deploy/hil/vm.sh -t "${HIL_TIMEOUT:-1200}" -w "$PWD" -- "$@" | tee "$log"
    status=${PIPESTATUS[0]}
    set -e
    ((status == 0)) || { echo "switchboard HIL: the kernel tests failed, $label" >&2; exit "$status"; }
    tests_ran "$log" ||
        { echo "switchboard HIL: no kernel tests ran, $label" >&2; exit 1; }
}

run_in_vm "libgpiod $(pkg-config --modversion libgpiod), this machine's bundle" \
    env SWITCHBOARD_BIN_DIR="$(dirname "$bundle")" "$bundle" "${filter[@]}"
if ((debian13)); then
    run_in_vm "libgpiod 2.x, the Debian 13 bundle in its root" \
        deploy/debian13/run.sh -e SWITCHBOARD_HIL=1 -e SWITCHBOARD_BIN_DIR="$(dirname "$debian13_bundle")" "$debian13_root" -- \
        sh -c 'echo "switchboard HIL: libgpiod $(pkg-config --modversion libgpiod), mosquitto $(mosquitto -h | sed -n "s/^mosquitto version //p")"; exec "$@"' \
        sh "$debian13_bundle" "${filter[@]}"
fi
