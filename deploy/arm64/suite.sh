#!/usr/bin/env bash
# Runs the arm64 test bundle (deploy/arm64/build.sh trixie debug) on arm64 through qemu-user,
# one suite at a time and each suite's tests one after another (--no-parallel), each suite under
# the watchdog of deploy/lib/watchdog.sh: a suite in which no test finishes for
# SWITCHBOARD_SUITE_STALL seconds (default 300) or that runs SWITCHBOARD_SUITE_LIMIT seconds
# (default 1800) is killed and fails, naming the tests that were running.
#
#   deploy/arm64/suite.sh [ci|full|SUITE...]
#
#   ci      (default, or SWITCHBOARD_ARM64_SUITE=ci) the suites that fit a CI run: the MQTT round
#           trip, extension hosting, the fleet, the CLI against a daemon, the README's tour, the
#           event loop's watched descriptors (readers coming and going on many threads) and
#           HomeKit's cryptography, TLV8, pairing and frames
#   full    (or SWITCHBOARD_ARM64_SUITE=full) every suite of the bundle
#   SUITE   suites by name (MQTTEndToEndTests, or Module.Suite)
#   parallel   every suite in one process, in parallel, as `swift test` runs them (under the same
#           watchdog; the way the suite once hung under emulation)
#
# The arm64 programs run as on a Debian amd64 machine with arm64 multiarch libraries: in a private
# mount namespace, the arm64 root's /usr/lib and /usr/libexec (its dynamic loader, libraries and
# Swift runtime) are laid under this machine's, so every arm64 program finds its libraries at
# their own paths, also those the daemon starts with a clean environment (its extensions), which
# QEMU_LD_PREFIX would not reach. The broker (mosquitto), its clients and the other tools the
# tests start (setpriv, prlimit, openssl) are this machine's own. Prints each suite's counts and
# time, then the totals; exits 1 when a test failed or a suite was stopped.
# Needs root (mount and PID namespaces) and the binfmt_misc entry of qemu-user-static.
set -euo pipefail
cd "$(dirname "$0")/../.."
repository=$PWD
source deploy/lib/watchdog.sh

selection=${1:-${SWITCHBOARD_ARM64_SUITE:-ci}}
stall=${SWITCHBOARD_SUITE_STALL:-300}
limit=${SWITCHBOARD_SUITE_LIMIT:-1800}
# The limits tests set themselves (a daemon's timeouts, how long they wait), times this: programs
# run several times slower under qemu-user (Sources/SwitchboardTesting/TestTiming.swift).
time_scale=${SWITCHBOARD_TEST_TIME_SCALE:-4}
export time_scale
bin=${SWITCHBOARD_ARM64_BIN:-$repository/.build-arm64-trixie/aarch64-unknown-linux-gnu/debug}
bundle=$bin/SwitchboardPackageTests.xctest
# The suites a CI run holds: the MQTT round trip, extension hosting, the fleet, the CLI against a
# real daemon, the README's tour and run command, and HomeKit's suites that need no Python (the
# known-answer tests of its cryptography, TLV8, pair-setup and pair-verify, the session frames, the
# setup URI and its QR code (zbarimg's reading is skipped there: the root has no zbar-tools), the
# bridge's accessory ids and its homekit block).
ci_suites=(MQTTEndToEndTests ExtensionHostingTests FleetTests DaemonEndToEndTests ReadmeExampleTests EventLoopWatchTests
    CryptoKnownAnswerTests SRPKnownAnswerTests TLV8Tests PairSetupTests PairVerifyTests HAPFrameTests
    HAPSetupPayloadTests QRCodeTests HomeKitAccessoryMapTests HomeKitSettingsTests)

((EUID == 0)) || { echo "suite.sh: the arm64 libraries are mounted in a namespace of its own: run it as root (sudo)" >&2; exit 2; }
[[ -x $bundle ]] || { echo "suite.sh: no arm64 test bundle at $bundle; build it with deploy/arm64/build.sh trixie debug" >&2; exit 2; }
[[ $(cat /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null) == enabled* ]] ||
    { echo "suite.sh: qemu-aarch64 is not enabled in binfmt_misc (apt install qemu-user-static binfmt-support; update-binfmts --enable qemu-aarch64)" >&2; exit 2; }

if [[ -z ${SWITCHBOARD_SUITE_NAMESPACE:-} ]]; then
    root=$(deploy/arm64/sysroot.sh trixie)
    # This machine's files first, the arm64 root's beneath them: only names this machine lacks
    # (its aarch64-linux-gnu folders, ld-linux-aarch64.so.1, /usr/libexec/swift) come from the root.
    SWITCHBOARD_SUITE_NAMESPACE=1 exec unshare --mount --propagation private bash -c '
        mount -t overlay switchboard-arm64-lib -o ro,lowerdir=/usr/lib:"$1"/usr/lib /usr/lib &&
        mount -t overlay switchboard-arm64-libexec -o ro,lowerdir=/usr/libexec:"$1"/usr/libexec /usr/libexec &&
        shift && exec "$@"' bash "$root" "$0" "$@"
fi

run_bundle() {
    env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
        SWITCHBOARD_TEST_TIME_SCALE="$time_scale" \
        "$bundle" --testing-library swift-testing "$@"
}
export -f run_bundle
export bundle
listing=$(mktemp)
logs=$(mktemp -d)
trap 'rm -rf "$listing"; [[ -n ${SWITCHBOARD_SUITE_KEEP:-} ]] || rm -rf "$logs"' EXIT
run_bundle --list-tests >"$listing" 2>&1 ||
    { echo "suite.sh: the arm64 bundle could not list its tests:" >&2; tail -20 "$listing" >&2; exit 1; }
mapfile -t all_suites < <(sed -n 's|^\([A-Za-z0-9_]*\.[A-Za-z0-9_]*\)/.*|\1|p' "$listing" | sort -u)
case $selection in
    full) suites=("${all_suites[@]}") ;;
    ci) suites=("${ci_suites[@]}") ;;
    parallel) suites=(parallel) ;;
    *) suites=("$@") selection="$*" ;;
esac

if [[ $selection == parallel ]]; then how="all in one process, in parallel"; else how="${#suites[@]} suites, serially"; fi
echo "switchboard arm64 suite: $(wc -l <"$listing") tests in the bundle; $how, under qemu-user; a suite stops after $stall s without a finished test or $limit s in all"
passed=0 failed=0 skipped=0 problems=()
started=$SECONDS
for suite in "${suites[@]}"; do
    if [[ $suite == parallel ]]; then
        log=$logs/parallel.log suite_started=$SECONDS
        set +e
        watched_run "$log" "$stall" "$limit" run_bundle
        status=$?
        set -e
    else
        [[ $suite == *.* ]] || suite=$(printf '%s\n' "${all_suites[@]}" | grep -m1 "\.$suite\$" || echo "$suite")
        grep -q "^$suite/" "$listing" || { problems+=("$suite: no such suite in the bundle"); echo "  FAIL  $suite: no such suite in the bundle"; continue; }
        log=$logs/$suite.log
        suite_started=$SECONDS
        set +e
        watched_run "$log" "$stall" "$limit" run_bundle --no-parallel --filter "^${suite//./\\.}/"
        status=$?
        set -e
    fi
    p=$(grep -E '^✔ Test .* passed after ' "$log" | grep -vc '^✔ Test run with ' || true)
    f=$(grep -E '^✘ Test .* failed after ' "$log" | grep -vc '^✘ Test run with ' || true)
    s=$(grep -Ec '^➜ Test .* skipped' "$log" || true)
    passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
    line=$(printf '%-48s %3d passed %3d failed %3d skipped %5d s' "$suite" "$p" "$f" "$s" $((SECONDS - suite_started)))
    if ((status == 124)); then
        echo "  HUNG  $line"
        problems+=("$suite: $(tail -1 "$log")")
        grep -E '^(✘|↳|  )' "$log" | tail -40 | sed 's/^/        /' || true
    elif ((status != 0 || f > 0)) || ! grep -Eq 'Test run with [0-9]+ tests? (in [0-9]+ suites? )?passed' "$log"; then
        echo "  FAIL  $line"
        problems+=("$suite: exit $status; failed: $(grep -E '^✘ Test .* failed after ' "$log" | grep -v '^✘ Test run with ' | sed 's/^✘ Test \(.*\) failed after .*/\1/' | paste -sd, - || true)")
        grep -E '^(✘|↳|  )' "$log" | tail -60 | sed 's/^/        /' || true
    else
        echo "  ok    $line"
    fi
done
echo "switchboard arm64 suite ($selection): $passed passed, $failed failed, $skipped skipped in ${#suites[@]} suites, $((SECONDS - started)) s"
if ((${#problems[@]})); then
    printf '  %s\n' "${problems[@]}" >&2
    exit 1
fi
