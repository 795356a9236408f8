# Sourced INSIDE a VM booted with systemd as PID 1, by the check scripts of the systemd stage
# (deploy/hil/systemd-guest.sh) and of the package boots (deploy/hil/package-guest.sh), from the
# share at /mnt/switchboard-hil where the host put it beside them as guest-checks.sh. The boot's
# phase comes from the kernel command line (switchboard.phase=PHASE); results/PHASE.log in the share
# gets everything the script prints (one PASS or FAIL line per check), and results/PHASE.done marks
# a phase that ran to its end.
hil=/mnt/switchboard-hil
results=$hil/results
phase=$(sed -n 's/.*switchboard\.phase=\([a-z0-9-]*\).*/\1/p' /proc/cmdline)
log=$results/$phase.log
exec > >(tee -a "$log") 2>&1
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 SYSTEMD_PAGER='' SYSTEMD_COLORS=0

pass() { echo "PASS: [$phase] $*"; }
fail() { echo "FAIL: [$phase] $*"; }
info() { echo "INFO: [$phase] $*"; }
# check DESCRIPTION WANT GOT
check() { if [[ $3 == "$2" ]]; then pass "$1 ($3)"; else fail "$1: want \"$2\", got \"$3\""; fi; }
# until_true SECONDS COMMAND...: runs COMMAND every half second until it succeeds or SECONDS pass.
until_true() {
    local deadline=$((SECONDS + $1)); shift
    until "$@"; do ((SECONDS < deadline)) || return 1; sleep 0.5; done
}
prop() { systemctl show -p "$1" --value switchboardd.service; }
# finish reboot|poweroff: marks the phase done and ends the boot.
finish() {
    sync
    touch "$results/$phase.done"
    info "$1"
    systemctl "$1" --no-block
    exit 0
}
