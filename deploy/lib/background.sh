# The lowest CPU and I/O priority, and the step loop, for the jobs that deploy/test.sh starts in
# the background (deploy/lib/prewarm.sh, deploy/lib/prebuild.sh); sourced by them.
#
# They run in a session of their own (setsid, so that the run can stop their whole group), and
# with the kernel's autogroups (sched_autogroup_enabled, on by default) a new session is a new
# scheduling group that gets an equal share of the CPU beside the stages' group, whatever nice
# level or policy its processes have. Measured on two cores: a SCHED_IDLE build in its own session
# took half the CPU and made the arm64 builds beside it 2.8× slower. So the session's group is set
# to nice 19 (about 1.5% of the CPU against the stages' group when both want it), and its
# processes to SCHED_IDLE and the idle I/O class.
if [[ -w /proc/self/autogroup ]]; then
    echo 19 >/proc/self/autogroup 2>/dev/null || true
fi

# background_priority COMMAND...: runs COMMAND under SCHED_IDLE and the idle I/O class.
background_priority() {
    chrt --idle 0 ionice -c 3 "$@"
}

# background_steps LOG WORD STEP...: runs each STEP (a command and its arguments) in turn at that
# priority, its output appended to LOG.output, and writes a line per step to LOG: the step, its
# time and WORD, or FAILED. A failing step does not stop the others: the stage that needs what it
# makes makes it again and reports the failure.
background_steps() {
    local log=$1 word=$2 step started outcome
    shift 2
    for step in "$@"; do
        started=$SECONDS
        # shellcheck disable=SC2086 # each step is a command and its arguments
        if background_priority $step >>"$log.output" 2>&1; then outcome=$word; else outcome="FAILED (see $log.output)"; fi
        printf '%-72s %5d s  %s\n' "$step" $((SECONDS - started)) "$outcome" >>"$log"
    done
}
