# A watchdog for a Swift Testing run, from outside the test process; sourced by the scripts that
# run test bundles (deploy/arm64/suite.sh). A run that hangs fails within its stall limit, naming
# the tests that were running, instead of hanging CI.
#
#   watched_run LOG STALL LIMIT COMMAND [ARGUMENT...]
#   watched_run_shown LOG STALL LIMIT COMMAND [ARGUMENT...]   # the same, LOG shown as it grows
#
# Runs COMMAND (a test bundle with `--testing-library swift-testing`) with its output in LOG. It is
# stopped when no test has finished for STALL seconds, or when it has run LIMIT seconds in all:
# then the command and every process it started are killed, and LOG ends with a line
#   watchdog: no test finished for STALL s (LIMIT s in all); still running: a(), b()
# Returns the command's status, or 124 when the watchdog stopped it.
#
# Why outside: the test process's own clocks cannot be trusted to notice that they stopped. Under
# qemu-user a libdispatch timer was once seen to stop firing, and with it every ContinuousClock
# sleep of the process, the tests' own time limits included. This watchdog is a shell loop on
# `sleep` (CLOCK_MONOTONIC, in another process, not emulated) that watches the run's output.
#
# The command runs as init of a PID namespace of its own (bash as its init, which reaps orphans):
# killing that namespace kills whatever the tests started, daemons and brokers in their own
# sessions too, so a stopped run leaves nothing behind. Needs root (unshare --pid); without it,
# the command's process group is killed instead.

# The tests a Swift Testing log shows started and not yet finished (passed, failed or skipped),
# comma-separated.
watchdog_running_tests() {
    awk '
        /^◇ Test .* started\.$/ && !/^◇ Test run started/ { name = $0; sub(/^◇ Test /, "", name); sub(/ started\.$/, "", name); running[name] = 1; order[++count] = name }
        /^(✔|✘) Test .* (passed|failed) after / && !/^(✔|✘) Test run with / { name = $0; sub(/^(✔|✘) Test /, "", name); sub(/ (passed|failed) after .*/, "", name); delete running[name] }
        /^➜ Test .* skipped/ { name = $0; sub(/^➜ Test /, "", name); sub(/ skipped.*/, "", name); delete running[name] }
        END { separator = ""; for (i = 1; i <= count; i++) if (order[i] in running) { printf "%s%s", separator, order[i]; separator = ", "; delete running[order[i]] } }
    ' "$1"
}

# How many tests a Swift Testing log shows finished.
watchdog_finished_tests() {
    grep -E '^((✔|✘) Test .* (passed|failed) after |➜ Test .* skipped)' "$1" | grep -Evc '^(✔|✘) Test run with ' || true
}

watched_run() {
    local log=$1 stall=$2 limit=$3
    shift 3
    local started=$SECONDS progress_at=$SECONDS finished=0 now count pid status
    : >"$log"
    if ((EUID == 0)) && unshare --pid --fork --kill-child true 2>/dev/null; then
        # --kill-child: when unshare is killed, the namespace's init is, and with it the namespace.
        setsid unshare --pid --fork --kill-child --mount-proc bash -c '"$@" & wait $!' watched "$@" >"$log" 2>&1 </dev/null &
    else
        setsid "$@" >"$log" 2>&1 </dev/null &
    fi
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        sleep 2
        count=$(watchdog_finished_tests "$log")
        now=$SECONDS
        if ((count != finished)); then finished=$count; progress_at=$now; fi
        if ((now - progress_at >= stall || now - started >= limit)); then
            kill -TERM -- "-$pid" 2>/dev/null
            sleep 3
            kill -KILL -- "-$pid" 2>/dev/null
            wait "$pid" 2>/dev/null
            echo "watchdog: no test finished for $((now - progress_at)) s ($((now - started)) s in all; limits: $stall s without a finished test, $limit s in all); still running: $(watchdog_running_tests "$log")" >>"$log"
            return 124
        fi
    done
    wait "$pid"
    status=$?
    return "$status"
}

# watched_run with the run's output on stdout as it comes (LOG followed), for a suite whose output
# is the stage's.
watched_run_shown() {
    local log=$1 follower status=0
    : >"$log"
    tail -n +1 -F -s 0.5 "$log" 2>/dev/null &
    follower=$!
    watched_run "$@" || status=$?
    # tail's last look at the file, then it goes.
    sleep 1
    kill "$follower" 2>/dev/null
    wait "$follower" 2>/dev/null
    return "$status"
}
