#!/usr/bin/env bash
# Checks the test watchdog (deploy/lib/watchdog.sh) on a run that hangs on purpose: a stand-in for
# a test bundle prints Swift Testing's lines for one test that passes and one that never ends, and
# leaves a process in a session of its own (as the tests' daemons and brokers are). The watchdog
# must stop the run within its stall limit, name the test that hung and not the one that passed,
# and leave no process behind. Also checks that a run that ends is left alone, with its status.
# Takes about ten seconds; run by deploy/arm64/test.sh before the arm64 suite.
set -euo pipefail
cd "$(dirname "$0")/../.."
source deploy/lib/watchdog.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "watchdog check: FAIL: $*" >&2; exit 1; }

cat >"$work/hanging-bundle" <<'BUNDLE'
#!/usr/bin/env bash
echo "◇ Test run started."
echo "◇ Test passesQuickly() started."
echo "✔ Test passesQuickly() passed after 0.001 seconds."
echo "◇ Test waitsForever() started."
setsid sleep 600 </dev/null >/dev/null 2>&1 &
echo $! >"$1/left-behind.pid"
sleep 600
BUNDLE
chmod +x "$work/hanging-bundle"

started=$SECONDS
set +e
watched_run "$work/log" 4 60 "$work/hanging-bundle" "$work"
status=$?
set -e
took=$((SECONDS - started))
((status == 124)) || fail "a hanging run ended with status $status, not 124 (stopped by the watchdog); its log:$(sed 's/^/  /' "$work/log")"
((took <= 20)) || fail "the watchdog took $took s to stop a run whose stall limit is 4 s"
report=$(tail -1 "$work/log")
[[ $report == "watchdog: no test finished for "*"still running: waitsForever()" ]] ||
    fail "the watchdog's report names the wrong tests: \"$report\" (expected waitsForever() alone)"
left=$(cat "$work/left-behind.pid")
if [[ -d /proc/$left ]] && grep -q '^sleep' "/proc/$left/comm" 2>/dev/null; then
    kill -KILL "$left" 2>/dev/null || true
    fail "the hanging run's process in a session of its own (pid $left) outlived the watchdog"
fi
echo "  ok    watchdog: a hanging run stopped after $took s (stall limit 4 s): $report"

cat >"$work/passing-bundle" <<'BUNDLE'
#!/usr/bin/env bash
echo "◇ Test slowButSteady() started."
sleep 5
echo "✔ Test slowButSteady() passed after 5.0 seconds."
exit 3
BUNDLE
chmod +x "$work/passing-bundle"
set +e
watched_run "$work/log" 8 60 "$work/passing-bundle"
status=$?
set -e
((status == 3)) || fail "a run that ended by itself ended with status $status through the watchdog, not its own 3; its log:$(sed 's/^/  /' "$work/log")"
echo "  ok    watchdog: a run within its limits ends with its own status"
