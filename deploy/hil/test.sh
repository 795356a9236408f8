#!/usr/bin/env bash
# The hardware-in-the-loop stage: runs the kernel GPIO tests (SwitchboardHILTests.Kernel*) from
# the built test bundle inside a qemu VM whose kernel has gpio-sim. Run by deploy/test.sh after
# the build; runs on its own after `swift build --build-tests`.
#
# The kernel: HIL_KERNEL if set, else ../shared/hil/bzImage beside the repository when present,
# else one built by deploy/hil/build-kernel.sh (cached; about 7 minutes the first time).
# HIL_BUILD_KERNEL=0 skips the stage instead of building one. A machine that cannot run the VM
# (not x86_64) skips the stage, saying so in one line.
set -euo pipefail
cd "$(dirname "$0")/../.."
source deploy/lib/packages.sh

skip() { echo "switchboard HIL: SKIPPED: $*"; exit 0; }
[[ $(uname -m) == x86_64 ]] || skip "the VM runs the host's x86_64 root filesystem; this machine is $(uname -m)"

kernel=${HIL_KERNEL:-}
if [[ -z $kernel && -f ../shared/hil/bzImage ]]; then kernel=$(realpath ../shared/hil/bzImage); fi
if [[ -z $kernel ]]; then
    [[ ${HIL_BUILD_KERNEL:-1} != 0 ]] || skip "no kernel with gpio-sim (set HIL_KERNEL, or unset HIL_BUILD_KERNEL=0 to build one)"
    kernel=$(deploy/hil/build-kernel.sh)
fi
[[ -f $kernel ]] || { echo "switchboard HIL: no kernel image at $kernel" >&2; exit 1; }
ensure_packages qemu-system-x86 busybox-static gpiod

bundle=$(swift build --show-bin-path)/SwitchboardPackageTests.xctest
[[ -x $bundle ]] || { echo "switchboard HIL: no test bundle at $bundle; run swift build --build-tests first" >&2; exit 1; }
echo "switchboard HIL: kernel $kernel"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
# The repository is shared at its own path: a clone under /tmp would be hidden by the guest's /tmp.
HIL_KERNEL=$kernel deploy/hil/vm.sh -t "${HIL_TIMEOUT:-1200}" -w "$PWD" -e SWITCHBOARD_BIN_DIR="$(dirname "$bundle")" -- \
    "$bundle" --testing-library swift-testing --filter 'SwitchboardHILTests\.Kernel' "$@" | tee "$log"
status=${PIPESTATUS[0]}
set -e
# A filter that matched nothing would pass without testing anything.
if ((status == 0)) && ! grep -Eq 'Test run with [1-9][0-9]* tests? in [0-9]+ suites? passed' "$log"; then
    echo "switchboard HIL: no kernel tests ran" >&2
    exit 1
fi
exit "$status"
