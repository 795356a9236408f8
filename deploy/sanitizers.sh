#!/usr/bin/env bash
# Runs the whole test suite (but the kernel GPIO tests, which need the HIL VM) under
# AddressSanitizer and then ThreadSanitizer: the test bundle and every daemon and CLI it starts
# are built with the sanitizer, in their own build folders (.build-address, .build-thread).
# A sanitizer report stops the process that made it, which fails the test.
#
#   deploy/sanitizers.sh [--build-only] [address|thread]...    # default: both
# --build-only builds them and runs nothing (deploy/lib/prebuild.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
build_only=0
[[ ${1:-} != --build-only ]] || { build_only=1; shift; }
sanitizers=("$@")
((${#sanitizers[@]})) || sanitizers=(address thread)
source deploy/lib/stages.sh
# run_part OPTION...: the test bundle in $bin with those options (--filter, --skip). Leak
# checking is off: the Swift runtime's process-lifetime caches read as leaks at exit.
run_part() {
    ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
        SWITCHBOARD_BIN_DIR="$bin" "$bin/SwitchboardPackageTests.xctest" --testing-library swift-testing "$@"
}
for sanitizer in "${sanitizers[@]}"; do
    stage "sanitizer: build with $sanitizer"
    swift build --build-tests --scratch-path ".build-$sanitizer" --sanitize="$sanitizer"
    ((build_only == 0)) || continue
    stage "sanitizer: suite under $sanitizer"
    bin=$(swift build --scratch-path ".build-$sanitizer" --show-bin-path)
    # Two test processes at once, the daemon tests and the rest: each has a concurrency pool of
    # its own (as wide as the machine has cores). All 645 tests in one pool under a sanitizer made
    # every task wait behind hundreds of others, and tests of a few seconds came near their time
    # limits (59 s of 60). The second one's output follows the first's.
    other=$(mktemp)
    run_part --skip SwitchboardCoreTests --skip 'SwitchboardHILTests\.Kernel' > "$other" 2>&1 &
    others=$!
    status=0
    run_part --filter SwitchboardCoreTests || status=1
    wait "$others" || status=1
    cat "$other"
    rm -f "$other"
    ((status == 0))
done
