#!/usr/bin/env bash
# Runs the test suite in the Debian 13 (Trixie) userland, as a Raspberry Pi OS Trixie user gets
# it: Debian's own Swift (swiftlang 6.0.3), libgpiod 2.x and mosquitto 2.0.21, in the root that
# deploy/debian13/root.sh makes (cached; a few minutes the first time, mostly downloads). Builds
# the package and its tests with warnings as errors into .build-debian13 and runs the suite there,
# the kernel GPIO tests excepted (deploy/hil/test.sh runs this bundle in the VM too). Fails if no
# test ran.
# Run by deploy/test.sh after the suite on the machine; arguments go to `swift test`.
#
# Needs root (debootstrap, chroot, bind mounts): run through sudo otherwise. Skipped, saying so in
# one line, on a machine that is Debian 13 already (the main suite ran in that userland) and when
# SWITCHBOARD_DEBIAN13=0.
set -euo pipefail
cd "$(dirname "$0")/../.."

skip() {
    echo "switchboard Debian 13: SKIPPED: $*"
    [[ -z ${SWITCHBOARD_STAGE_TIMES:-} ]] || echo "Debian 13: skipped ($*)" >>"$SWITCHBOARD_STAGE_TIMES"
    exit 0
}
[[ ${SWITCHBOARD_DEBIAN13:-1} != 0 ]] || skip "SWITCHBOARD_DEBIAN13=0"
[[ $(. /etc/os-release && echo "${VERSION_CODENAME:-}") != trixie ]] ||
    skip "this machine is Debian 13 already: the main suite ran in its userland"
if ((EUID != 0)); then
    echo "switchboard Debian 13: making and entering the root needs root; running through sudo"
    exec sudo --preserve-env=SWITCHBOARD_DEBIAN13_CACHE,DEBIAN13_MIRROR,SWITCHBOARD_STAGE_TIMES "$PWD/deploy/debian13/test.sh" "$@"
fi

source deploy/lib/stages.sh
source deploy/lib/watchdog.sh
stage "Debian 13: root"
root=$(deploy/debian13/root.sh)
in_root() { deploy/debian13/run.sh "$root" "$@"; }
in_root bash deploy/lib/versions.sh "switchboard Debian 13"

# aiohomekit on the root's Python 3.13, for AiohomekitPairingTests (cached in the root).
aiohomekit_python=$(deploy/homekit/aiohomekit-venv.sh "$root")

stage "Debian 13: build (Debian's Swift)"
in_root swift build --build-tests --scratch-path .build-debian13 -Xswiftc -warnings-as-errors

stage "Debian 13: suite"
log=.build-debian13/suite.log
# The kernel GPIO tests need gpio-sim: deploy/hil/test.sh runs them in the VM, in this root.
# Under the same watchdog as the suite on the machine (deploy/lib/watchdog.sh).
watched_run_shown "$log" 300 1800 deploy/debian13/run.sh -e "SWITCHBOARD_AIOHOMEKIT_PYTHON=$aiohomekit_python" "$root" swift test --skip-build --scratch-path .build-debian13 --skip 'SwitchboardHILTests\.Kernel' "$@" ||
    { echo "switchboard Debian 13: the suite failed (exit $?)" >&2; exit 1; }
tests_ran "$log" ||
    { echo "switchboard Debian 13: no tests ran" >&2; exit 1; }
