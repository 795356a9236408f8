#!/usr/bin/env bash
# Inside the HIL VM: the release switchboardd on the repository's devices.json, unchanged, on a
# gpio-sim chip made as each Raspberry Pi's 40-pin header appears to the kernel (Pi 3:
# pinctrl-bcm2835, 54 lines; Pi 4: pinctrl-bcm2711, 58 lines; Pi 5: pinctrl-rp1, 54 lines), found
# by the sample's chip "header". The CLI switches the porch light (GPIO17) on and off; the line's
# level is read back from gpio-sim's sysfs. Prints PASS or FAIL per check; exits non-zero on a failure.
#
#   deploy/hil/sample-guest.sh BIN_DIR     # BIN_DIR holds switchboardd, switchboard, home-controls
set -uo pipefail
bin=${1:?the folder of the release binaries}
cd "$(dirname "$0")/../.."
failures=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
check() { if [[ $2 == "$3" ]]; then pass "$1: $3"; else fail "$1: expected \"$2\", got \"$3\""; fi; }

echo "switchboard sample on gpio-sim: $(uname -m), kernel $(uname -r), $("$bin/switchboardd" --version 2>&1 | head -1)"
configfs=/sys/kernel/config/gpio-sim
[[ -d $configfs ]] || { echo "FAIL: no gpio-sim in configfs"; exit 1; }
porch=17
for board in "pi3 pinctrl-bcm2835 54" "pi4 pinctrl-bcm2711 58" "pi5 pinctrl-rp1 54"; do
    read -r name label lines <<<"$board"
    chip=$configfs/$name
    mkdir "$chip" "$chip/bank0" && echo "$lines" >"$chip/bank0/num_lines" && echo "$label" >"$chip/bank0/label" &&
        for ((line = 0; line < lines; line++)); do mkdir "$chip/bank0/line$line" && echo "GPIO$line" >"$chip/bank0/line$line/name"; done &&
        echo 1 >"$chip/live" || { fail "$name: the gpio-sim header chip could not be made"; continue; }
    gpiochip=$(cat "$chip/bank0/chip_name")
    value=/sys/devices/platform/$(cat "$chip/dev_name")/$gpiochip/sim_gpio$porch/value
    state=$(mktemp -d)
    started=$(date +%s%N)
    "$bin/switchboardd" --config devices.json --state-dir "$state/state" --socket "$state/switchboard.sock" >"$state/log" 2>&1 &
    daemon=$!
    cli() { "$bin/switchboard" --socket "$state/switchboard.sock" "$@"; }
    for _ in $(seq 300); do cli status >/dev/null 2>&1 && break; kill -0 "$daemon" 2>/dev/null || break; sleep 0.2; done
    if cli status >/dev/null 2>&1; then
        pass "$name ($gpiochip [$label], $lines lines): the daemon answers after $((($(date +%s%N) - started) / 1000000)) ms"
        check "$name: porch (GPIO$porch) before" 0 "$(cat "$value")"
        cli on porch >/dev/null 2>&1
        check "$name: switchboard on porch, GPIO$porch" 1 "$(cat "$value")"
        cli off porch >/dev/null 2>&1
        check "$name: switchboard off porch, GPIO$porch" 0 "$(cat "$value")"
        grep -q "$gpiochip" "$state/log" && pass "$name: the daemon's log names $gpiochip: $(grep -m1 "$gpiochip" "$state/log")"
    else
        fail "$name: the daemon did not answer on $state/switchboard.sock"
    fi
    kill -INT "$daemon" 2>/dev/null
    wait "$daemon"
    check "$name: the daemon stops on SIGINT with status" 0 "$?"
    ((failures == 0)) || { echo "--- the daemon's log:"; tail -30 "$state/log"; }
    rm -rf "$state"
    echo 0 >"$chip/live"
    rmdir "$chip"/bank0/line* "$chip/bank0" "$chip"
done
echo "switchboard sample on gpio-sim: $failures failures"
((failures == 0))
