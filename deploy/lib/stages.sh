# Times the stages of a test script; sourced by deploy/test.sh and the scripts it runs.
# `stage NAME` ends the running stage (printing its time and the share of the CPU it left idle) and
# starts the next; `stage_end` ends it.
# At exit, even a failing one, the outermost script prints every stage's time, its own and those of
# the scripts it ran (they append to the file named by SWITCHBOARD_STAGE_TIMES), with the total, and
# marks the stage that failed. Files in `stage_temporary_files` are removed at exit, the process
# groups in `stage_background_groups` stopped.
stage_name=""
stage_started=$SECONDS
stage_temporary_files=()
# Process groups started in the background (setsid) by the script: stopped at its exit.
stage_background_groups=()
# The background jobs stage_background started, as SCRIPT=LOG, for stage_background_report.
stage_background_logs=()
if [[ -z ${SWITCHBOARD_STAGE_TIMES:-} ]]; then
    SWITCHBOARD_STAGE_TIMES=$(mktemp)
    export SWITCHBOARD_STAGE_TIMES
    stage_owner=1
else
    stage_owner=0
fi

# The CPU time of the machine so far, and how much of it went unused: "TOTAL IDLE" in clock ticks
# (/proc/stat; iowait counts as unused).
stage_cpu() {
    local _ user nice system idle iowait irq softirq steal
    read -r _ user nice system idle iowait irq softirq steal _ </proc/stat
    echo "$((user + nice + system + idle + iowait + irq + softirq + steal)) $((idle + iowait))"
}

stage() {
    stage_end
    stage_name=$1
    stage_started=$SECONDS
    stage_cpu_started=$(stage_cpu)
    echo "switchboard: ━━ $1"
}

# stage_background SCRIPT: starts `SCRIPT LOG` in a session of its own (stopped at the script's
# exit), LOG a temporary file it writes a line per step to (deploy/lib/background.sh).
stage_background() {
    local log
    log=$(mktemp)
    stage_temporary_files+=("$log" "$log.output")
    setsid "$1" "$log" </dev/null >/dev/null 2>&1 &
    stage_background_groups+=($!)
    stage_background_logs+=("$1=$log")
}

# stage_beside NAME COMMAND...: starts COMMAND beside the stages that follow, in a session of its
# own (stopped at the script's exit) at the lowest priority (deploy/lib/background.sh), its output
# kept for stage_wait_beside NAME.
declare -A stage_beside_pids=() stage_beside_logs=()
stage_beside() {
    local name=$1 log
    shift
    log=$(mktemp)
    stage_temporary_files+=("$log")
    setsid bash -c 'source deploy/lib/background.sh && background_priority "$@"' "$name" "$@" </dev/null >"$log" 2>&1 &
    stage_background_groups+=($!)
    stage_beside_pids[$name]=$! stage_beside_logs[$name]=$log
}

# stage_wait_beside NAME: waits for the command stage_beside NAME started, prints its output, and
# returns its exit status.
stage_wait_beside() {
    local name=$1 status=0
    wait "${stage_beside_pids[$name]}" || status=$?
    cat "${stage_beside_logs[$name]}"
    return "$status"
}

# stage_background_report: what each background job did and how long each step took; the end of
# its output when a step failed.
stage_background_report() {
    local entry log
    for entry in "${stage_background_logs[@]}"; do
        log=${entry#*=}
        echo "switchboard: in the background (${entry%%=*}):"
        sed 's/^/  /' "$log"
        ! grep -q FAILED "$log" || tail -n 30 "$log.output" | sed 's/^/    /'
    done
}

stage_end() {
    [[ -n $stage_name ]] || return 0
    local line total idle total0 idle0 unused=""
    # The share of the machine's CPU time the stage left unused (background jobs use some of it).
    read -r total idle <<<"$(stage_cpu)"
    read -r total0 idle0 <<<"${stage_cpu_started:-0 0}"
    ((total > total0)) && unused=$(printf '  %3d%% idle' $((100 * (idle - idle0) / (total - total0))))
    line=$(printf '%-52s %5d s%s%s' "$stage_name" $((SECONDS - stage_started)) "$unused" "${1:-}")
    echo "switchboard: ━━ $line"
    echo "$line" >>"$SWITCHBOARD_STAGE_TIMES"
    stage_name=""
}

stages_report() {
    local status=$?
    if ((status)); then stage_end "  FAILED (exit $status)"; else stage_end; fi
    ((${#stage_temporary_files[@]})) && rm -f "${stage_temporary_files[@]}"
    local group
    for group in "${stage_background_groups[@]}"; do kill -TERM -- "-$group" 2>/dev/null || true; done
    if ((stage_owner)); then
        echo "switchboard: stage times"
        sed 's/^/  /' "$SWITCHBOARD_STAGE_TIMES"
        printf '  %-52s %5d s\n' "total" "$SECONDS"
        rm -f "$SWITCHBOARD_STAGE_TIMES"
    fi
    exit "$status"
}
trap stages_report EXIT

# Whether a Swift Testing run's output (a file) says that at least one test ran and all passed:
# "Test run with 129 tests in 33 suites passed" (Swift 6.1 and later) or "Test run with 129 tests
# passed" (6.0). A filter or a build that left every test out would otherwise pass.
tests_ran() {
    grep -Eq 'Test run with [1-9][0-9]* tests? (in [0-9]+ suites? )?passed' "$1"
}
