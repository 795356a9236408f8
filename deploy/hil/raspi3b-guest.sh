#!/bin/sh
# The init of the raspi3b VM (deploy/hil/raspi3b-test.sh): on QEMU's Raspberry Pi 3 Model B, with
# the Pi 3's own device tree and Debian 13's arm64 kernel, the header is the kernel's real
# pinctrl-bcm2835 driver over the emulated SoC's GPIO registers. The arm64 release switchboardd
# runs on the repository's devices.json, unchanged (copied into the initramfs as
# /switchboard/devices.json), finds that chip by the sample's chip "header", and the release CLI
# switches the sample's relays. Each line's level is read back from the GPIO controller: the
# kernel's debugfs report asks the driver, which reads the SoC's level register (GPLEV).
# Prints PASS or FAIL per check, then "raspi3b: N failures", and halts (the host then stops QEMU).
# Written for busybox sh: the initramfs has busybox, the binaries and the libraries they load.
PATH=/bin:/sbin:/usr/bin:/usr/sbin
export PATH
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /tmp
failures=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
check() { if [ "$2" = "$3" ]; then pass "$1: $3"; else fail "$1: expected \"$2\", got \"$3\""; fi; }
finish() {
    echo "raspi3b: $failures failures"
    sync
    poweroff -f
}

bin=/switchboard/bin
echo "raspi3b: $(uname -m), kernel $(uname -r), board \"$(tr -d '\0' </proc/device-tree/model)\", $("$bin/switchboardd" --version 2>&1 | head -1)"
controller=$(grep -m1 "pinctrl-bcm2835" /sys/kernel/debug/gpio)
[ -n "$controller" ] || { fail "the kernel serves no pinctrl-bcm2835 GPIO chip"; grep gpiochip /sys/kernel/debug/gpio; finish; }
pass "the Pi's GPIO controller: $controller"

# level LINE: "hi" or "lo" as the driver reads line LINE of the header (its name is GPIO<LINE> in
# the Pi 3's device tree), or "none" while no one holds it.
level() {
    report=$(grep "(GPIO$1 " /sys/kernel/debug/gpio)
    case $report in
        *" out hi"*) echo hi ;;
        *" out lo"*) echo lo ;;
        *) echo none ;;
    esac
}

state=/tmp/switchboard
mkdir -p "$state"
cd /switchboard || finish
started=$(date +%s)
"$bin/switchboardd" --config devices.json --state-dir "$state/state" --socket "$state/switchboard.sock" >"$state/log" 2>&1 &
daemon=$!
cli() { "$bin/switchboard" --socket "$state/switchboard.sock" "$@"; }
tries=0
until cli status >/dev/null 2>&1; do
    tries=$((tries + 1))
    kill -0 "$daemon" 2>/dev/null && [ $tries -lt 600 ] || break
    sleep 0.5
done
if cli status >/dev/null 2>&1; then
    pass "the daemon answers after $(($(date +%s) - started)) s (emulated)"
    echo "raspi3b: switchboardd's resident memory once it answers: $(sed -n 's/^VmRSS:[[:space:]]*//p' "/proc/$daemon/status")"
    grep -q "pinctrl-bcm2835" "$state/log" && pass "the daemon's log names the Pi's controller: $(grep -m1 pinctrl-bcm2835 "$state/log")"
    check "porch (GPIO17) at start" lo "$(level 17)"
    check "fan (GPIO27) at start" lo "$(level 27)"
    check "garage opener (GPIO22, active low) at rest" hi "$(level 22)"
    cli on porch >/dev/null 2>&1
    check "switchboard on porch, GPIO17" hi "$(level 17)"
    cli on fan >/dev/null 2>&1
    check "switchboard on fan, GPIO27" hi "$(level 27)"
    cli off porch >/dev/null 2>&1
    check "switchboard off porch, GPIO17" lo "$(level 17)"
    check "fan stays on, GPIO27" hi "$(level 27)"
    cli off fan >/dev/null 2>&1
    check "switchboard off fan, GPIO27" lo "$(level 27)"
else
    fail "the daemon did not answer on $state/switchboard.sock"
fi
kill -INT "$daemon" 2>/dev/null
wait "$daemon"
check "the daemon stops on SIGINT with status" 0 "$?"
check "porch (GPIO17) released after the stop" none "$(level 17)"
if [ $failures -ne 0 ]; then
    echo "--- the GPIO report:"; grep -E "gpiochip|GPIO(5|17|22|23|27) " /sys/kernel/debug/gpio
    echo "--- the daemon's log:"; tail -40 "$state/log"
fi
finish
