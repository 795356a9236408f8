#!/bin/bash
# Runs INSIDE a VM booted with systemd as PID 1 (deploy/hil/package-boots.sh: amd64 from
# deploy/hil/systemd-test.sh; any architecture whose VM follows the same layout), as a oneshot unit
# after multi-user.target, and checks the life of Switchboard's Debian package as apt runs it:
#   RELEASE-install: `apt-get install ./OLD.deb` on a root with no Switchboard (and no network:
#       the dependencies are installed already, or in apt's cache); the users and groups, the udev
#       rule, the unit enabled, active and READY under its hardening; the CLI for a member of the
#       switchboard group; a gpio-sim line driven from the unchanged sample devices.json; a state
#       change (porch on, a placement added); a local edit to /etc/switchboard/devices.json; then
#       `systemctl reboot`.
#   RELEASE-upgrade: the unit came up by itself with the state restored; `apt-get install
#       ./NEW.deb` keeps the edit (a conffile) and the state and restarts the daemon on the new
#       binary; `apt-get remove` stops the unit and removes the programs, keeping configuration
#       and state; `apt-get purge` removes those; then power-off.
# The phase comes from the kernel command line (switchboard.phase=RELEASE-install|RELEASE-upgrade).
# The folder /mnt/switchboard-hil holds this script, guest-checks.sh (the check helpers),
# debs/old.deb and debs/new.deb, and results/, where results/PHASE.log gets one PASS or FAIL line
# per check and results/PHASE.done marks a phase that ran to its end. Nothing here depends on the
# machine's architecture: the gpio-sim chip impersonating the Pi 5 header (label pinctrl-rp1) is
# found by its label.
set -u
source /mnt/switchboard-hil/guest-checks.sh
export DEBIAN_FRONTEND=noninteractive
active() { [[ $(systemctl is-active switchboardd.service) == active ]]; }
present() { [[ -e $1 ]] && echo present || echo absent; }
as() { local user=$1; shift; runuser -u "$user" -- "$@"; }
# apt_get ARGUMENTS...: apt-get as a user runs it (no answers on stdin), its output indented.
apt_get() {
    local status
    apt-get -y "$@" </dev/null 2>&1 | sed -u 's/^/    /'
    status=${PIPESTATUS[0]}
    return "$status"
}

# The gpio-sim chip that impersonates the Pi 5 header, found by its label in gpio-sim's configfs
# (systemd mounts it at /sys/kernel/config) or, failing that, by gpiodetect; and what gpio-sim drives
# a line to (the value a relay on that pin would see).
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config 2>/dev/null
chip=
for bank in /sys/kernel/config/gpio-sim/*/bank*; do
    if [[ $(cat "$bank/label" 2>/dev/null) == pinctrl-rp1 ]]; then chip=$(cat "$bank/chip_name"); break; fi
done
[[ -n $chip ]] || chip=$(gpiodetect 2>/dev/null | awk '/\[pinctrl-rp1\]/ { print $1; exit }')
line_value() { cat /sys/devices/platform/gpio-sim.*/"${chip:-gpiochip0}"/sim_gpio"$1"/value 2>/dev/null; }
porch=17 fan=27
# A local edit to the configuration: the node's display name (the sample says "Garage").
edited='"name": "Garage, edited on this machine"'

# The daemon's pid, or 1 when there is none (so that checks on it fail instead of reading nothing).
daemon_pid() { local pid; pid=$(prop MainPID); [[ $pid =~ ^[1-9][0-9]*$ ]] && echo "$pid" || echo 1; }
# hardened PID: the unit's hardening as systemd reads it and as the kernel applies it to the process.
hardened() {
    local pid=$1
    check "unit type" notify "$(prop Type)"
    check "READY=1 with STATUS= received" "Serving garage-pi" "$(prop StatusText)"
    check "unit's User, Group, SupplementaryGroups" "switchboard switchboard gpio" "$(prop User) $(prop Group) $(prop SupplementaryGroups)"
    check "unit's ProtectSystem, ProtectHome, NoNewPrivileges, PrivateTmp" "strict yes yes yes" "$(prop ProtectSystem) $(prop ProtectHome) $(prop NoNewPrivileges) $(prop PrivateTmp)"
    check "unit's DevicePolicy, CapabilityBoundingSet" "closed " "$(prop DevicePolicy) $(prop CapabilityBoundingSet)"
    check "daemon runs as" switchboard "$(ps -o user= -p "$pid" 2>&1)"
    check "daemon's supplementary groups (sorted)" "gpio,switchboard" "$(ps -o supgrp:40= -p "$pid" | tr -d ' ' | tr ',' '\n' | sort | paste -sd,)"
    check "daemon's effective capabilities, NoNewPrivs, Seccomp" "0000000000000000 1 2" "$(awk '/^CapEff:/ { c = $2 } /^NoNewPrivs:/ { n = $2 } /^Seccomp:/ { s = $2 } END { print c, n, s }' "/proc/$pid/status" 2>&1)"
    check "daemon sees / read-only (ProtectSystem=strict)" "ro" "$(awk '$5 == "/" { split($6, o, ","); print o[1]; exit }' "/proc/$pid/mountinfo" 2>&1)"
}

echo "=== switchboard package lifecycle, boot \"$phase\", $(date -u '+%F %T') UTC, uptime $(cut -d' ' -f1 /proc/uptime)s"
check "PID 1 is systemd" systemd "$(cat /proc/1/comm)"
info "$(. /etc/os-release && echo "$PRETTY_NAME"), $(dpkg --print-architecture), systemd $(systemctl --version | head -1 | cut -d' ' -f2), kernel $(uname -r)"
check "gpio-sim impersonates the Pi 5 header (a chip labelled pinctrl-rp1 with 54 lines)" "${chip:-none}: 54 lines" "${chip:-none}: $(ls -d /sys/devices/platform/gpio-sim.*/"${chip:-none}"/sim_gpio* 2>/dev/null | wc -l) lines"
failed_units=$(systemctl list-units --failed --plain --no-legend | awk '{ print $1 }')
check "failed units" none "$(echo ${failed_units:-none})"

case $phase in
*-install)
    # The journal kept on disk: the next boot reads this boot's stop of the service.
    mkdir -p /var/log/journal && systemd-tmpfiles --create --prefix /var/log/journal && journalctl --flush
    check "no Switchboard before the package" "absent absent absent" "$(present /usr/bin/switchboardd) $(present /usr/local/bin/switchboardd) $(getent passwd switchboard >/dev/null && echo present || echo absent)"
    echo "--- apt-get install ./$(cat "$hil/debs/old.name")"
    t0=$SECONDS
    if apt_get install "$hil/debs/old.deb"; then pass "apt-get install of the package finished in $((SECONDS - t0))s with no network"
    else fail "apt-get install of the package exited with an error"; fi
    # When dpkg unpacked and configured the package (to the second), for where apt's time went.
    grep -E " (install|configure|status (unpacked|half-configured|installed)) switchboard" /var/log/dpkg.log | sed 's/^/    dpkg.log: /'
    info "installed: switchboard $(dpkg-query -W -f='${Version} ${Status}' switchboard 2>&1)"
    check "package installed" "install ok installed" "$(dpkg-query -W -f='${Status}' switchboard 2>&1)"
    check "programs on the PATH" "/usr/bin/switchboardd /usr/bin/switchboard" "$(command -v switchboardd) $(command -v switchboard)"
    out=$(switchboardd --version 2>&1); rc=$?
    if ((rc == 0)) && [[ $out == "switchboardd "* ]]; then pass "switchboardd --version: $out"; else fail "switchboardd --version: exit $rc: $out"; fi
    out=$(switchboard check /etc/switchboard/devices.json 2>&1); rc=$?
    echo "$out" | sed 's/^/    /'
    check "switchboard check /etc/switchboard/devices.json (the sample, on this board's chips)" 0 "$rc"

    echo "--- users, groups, udev"
    check "service user's groups" "switchboard gpio" "$(id -nG switchboard 2>&1)"
    uid=$(id -u switchboard 2>/dev/null) gid=$(getent group gpio | cut -d: -f3)
    if [[ -n $uid ]] && ((uid < 1000)); then pass "switchboard is a system user (uid $uid)"; else fail "switchboard user: \"$(getent passwd switchboard)\""; fi
    if [[ -n $gid ]] && ((gid < 1000)); then pass "gpio is a system group (gid $gid)"; else fail "gpio group: \"$(getent group gpio)\""; fi
    check "login shell of the service user" /usr/sbin/nologin "$(getent passwd switchboard | cut -d: -f7)"
    rules=$(dpkg -L switchboard 2>/dev/null | grep -E '/udev/rules\.d/[^/]+\.rules$' | head -1)
    if [[ -n $rules ]] && grep -q gpiochip "$rules"; then pass "the package's udev rule for the GPIO chips: $rules"; else fail "no udev rule for gpiochip in the package (\"$rules\")"; fi
    check "/dev/$chip owner, group and mode after the install" "root gpio 660" "$(stat -c '%U %G %a' "/dev/$chip" 2>&1)"
    check "/etc/switchboard/devices.json is a conffile" yes "$(dpkg-query -W -f='${Conffiles}' switchboard 2>/dev/null | grep -q ' /etc/switchboard/devices.json ' && echo yes || echo no)"
    check "/etc/switchboard" "root switchboard 750" "$(stat -c '%U %G %a' /etc/switchboard 2>&1)"
    check "/etc/switchboard/devices.json" "root switchboard 640" "$(stat -c '%U %G %a' /etc/switchboard/devices.json 2>&1)"

    echo "--- the unit"
    check "unit enabled" enabled "$(systemctl is-enabled switchboardd.service 2>&1)"
    if until_true 90 active; then pass "switchboardd active"; else fail "switchboardd not active: $(systemctl is-active switchboardd.service)"; fi
    # dpkg knows a file by the path in the package: /lib/… or /usr/lib/… (the same file on a merged /usr).
    unit_file=$(prop FragmentPath)
    check "unit file from the package" yes "$( { dpkg -S "$unit_file"; dpkg -S "/usr${unit_file#/usr}"; dpkg -S "${unit_file#/usr}"; } 2>/dev/null | grep -q '^switchboard:' && echo yes || echo "no: $unit_file")"
    hardened "$(daemon_pid)"
    check "restarts so far" 0 "$(prop NRestarts)"
    check "the extensions' socket, switchboard-extension.socket" "enabled active" "$(systemctl is-enabled switchboard-extension.socket 2>&1) $(systemctl is-active switchboard-extension.socket 2>&1)"
    systemctl status --no-pager -n5 switchboardd.service | sed 's/^/    /'

    echo "--- the CLI and a line"
    useradd --create-home --groups switchboard alice && useradd --create-home bob
    out=$(as alice switchboard status 2>&1); rc=$?
    echo "$out" | sed 's/^/    /'
    check "switchboard status as alice (group switchboard)" "0 node garage-pi, unlocked" "$rc $(head -1 <<<"$out")"
    out=$(as bob switchboard status 2>&1); rc=$?
    if ((rc != 0)); then pass "switchboard status refused for bob (not in the group): exit $rc"; else fail "switchboard status worked for bob"; fi
    check "porch line (GPIO$porch) before" 0 "$(line_value $porch)"
    out=$(as alice switchboard on porch 2>&1); rc=$?
    echo "    $out"
    check "switchboard on porch: exit, GPIO$porch driven high" "0 1" "$rc $(line_value $porch)"
    out=$(as alice switchboard add porch-light --id kept-placement 2>&1); rc=$?
    echo "    $out"
    check "switchboard add porch-light --id kept-placement" 0 "$rc"
    check "the state in /var/lib/switchboard has the placement" yes "$(grep -qs kept-placement /var/lib/switchboard/state.json /var/lib/switchboard/state.journal && echo yes || echo no)"
    check "/var/lib/switchboard" "switchboard" "$(stat -c '%U' /var/lib/switchboard 2>&1)"

    echo "--- a local edit to devices.json"
    sed -i 's/"name": "Garage"/'"$edited"'/' /etc/switchboard/devices.json
    check "devices.json edited" 1 "$(grep -c "$edited" /etc/switchboard/devices.json)"
    systemctl reload switchboardd.service
    sleep 2
    check "the edited configuration is valid and served: active" active "$(systemctl is-active switchboardd.service)"
    cat /proc/sys/kernel/random/boot_id >"$results/$phase.boot_id"
    finish reboot
    ;;
*-upgrade)
    release=${phase%-upgrade}
    before=$(cat "$results/$release-install.boot_id" 2>/dev/null)
    if [[ -n $before && $before != "$(cat /proc/sys/kernel/random/boot_id)" ]]; then pass "a new boot (boot id $before before)"; else fail "same boot id as the install boot, or none recorded"; fi
    check "unit enabled" enabled "$(systemctl is-enabled switchboardd.service 2>&1)"
    if until_true 90 active; then pass "switchboardd came up at boot by itself: active"; else fail "switchboardd not active after the reboot: $(systemctl is-active switchboardd.service)"; fi
    check "READY=1 with STATUS= received" "Serving garage-pi" "$(prop StatusText)"
    check "/dev/$chip group and mode at boot (udev coldplug)" "gpio 660" "$(stat -c '%G %a' "/dev/$chip" 2>&1)"
    check "porch (restore: last) restored on after the reboot: GPIO$porch" 1 "$(line_value $porch)"
    check "the placement kept across the reboot" 1 "$(as alice switchboard status 2>&1 | grep -c '^control kept-placement ')"

    echo "--- upgrade: apt-get install ./$(cat "$hil/debs/new.name")"
    old_pid=$(daemon_pid) old_version=$(dpkg-query -W -f='${Version}' switchboard 2>&1) new_version=$(dpkg-deb -f "$hil/debs/new.deb" Version)
    info "before: package $old_version, daemon pid $old_pid: $(switchboardd --version 2>&1)"
    sha256sum /var/lib/switchboard/state.json /var/lib/switchboard/state.journal 2>/dev/null | sort >"$results/$phase.state-before"
    t0=$SECONDS
    if apt_get install "$hil/debs/new.deb"; then pass "apt-get install of the newer package finished in $((SECONDS - t0))s"
    else fail "apt-get install of the newer package exited with an error"; fi
    check "package version after the upgrade" "$new_version install ok installed" "$(dpkg-query -W -f='${Version} ${Status}' switchboard 2>&1)"
    if [[ $old_version != "$new_version" ]]; then pass "the upgrade went from $old_version to $new_version"; else fail "the upgrade did not change the version ($old_version)"; fi
    check "the local edit to devices.json kept" 1 "$(grep -c "$edited" /etc/switchboard/devices.json 2>&1)"
    check "no devices.json.dpkg-new or .dpkg-dist left beside it" "" "$(ls /etc/switchboard/ | grep -E 'dpkg-(new|dist|old)$')"
    if until_true 90 active; then pass "switchboardd active after the upgrade"; else fail "switchboardd not active after the upgrade: $(systemctl is-active switchboardd.service)"; fi
    pid=$(daemon_pid)
    if [[ $pid != 1 && $pid != "$old_pid" ]]; then pass "the daemon restarted: pid $old_pid -> $pid"; else fail "the daemon did not restart: pid $old_pid -> $pid"; fi
    # A daemon still running the old program would show it deleted: dpkg unpacked a new file.
    check "the running daemon is the installed program" /usr/bin/switchboardd "$(readlink "/proc/$pid/exe" 2>&1)"
    info "after: $(switchboardd --version 2>&1)"
    hardened "$pid"
    check "porch still on after the upgrade: GPIO$porch" 1 "$(line_value $porch)"
    check "the placement kept across the upgrade" 1 "$(as alice switchboard status 2>&1 | grep -c '^control kept-placement ')"
    check "the state in /var/lib/switchboard has the placement" yes "$(grep -qs kept-placement /var/lib/switchboard/state.json /var/lib/switchboard/state.journal && echo yes || echo no)"
    out=$(as alice switchboard off porch 2>&1); rc=$?
    check "switchboard off porch after the upgrade: exit, GPIO$porch" "0 0" "$rc $(line_value $porch)"

    echo "--- apt-get remove switchboard"
    t0=$SECONDS
    if apt_get remove switchboard; then pass "apt-get remove finished in $((SECONDS - t0))s"; else fail "apt-get remove exited with an error"; fi
    check "package state after remove" "deinstall ok config-files" "$(dpkg-query -W -f='${Status}' switchboard 2>&1)"
    check "units after remove: switchboardd, the extensions' socket" "inactive inactive" "$(systemctl is-active switchboardd.service 2>&1) $(systemctl is-active switchboard-extension.socket 2>&1)"
    check "no switchboardd process left" "" "$(pgrep -x switchboardd)"
    check "programs after remove" "absent absent" "$(present /usr/bin/switchboardd) $(present /usr/bin/switchboard)"
    check "unit file after remove" absent "$(present /usr/lib/systemd/system/switchboardd.service)$( [[ -e /lib/systemd/system/switchboardd.service ]] && echo " (/lib)")"
    check "devices.json (with the edit) and the state kept" "1 kept" "$(grep -c "$edited" /etc/switchboard/devices.json 2>&1) $([[ -f /var/lib/switchboard/state.json || -f /var/lib/switchboard/state.journal ]] && echo kept || echo gone)"

    echo "--- apt-get purge switchboard"
    t0=$SECONDS
    if apt_get purge switchboard; then pass "apt-get purge finished in $((SECONDS - t0))s"; else fail "apt-get purge exited with an error"; fi
    check "package after purge" "unknown" "$(dpkg-query -W -f='${Status}' switchboard 2>/dev/null | grep -q 'installed\|config-files' && echo "still known: $(dpkg-query -W -f='${Status}' switchboard)" || echo unknown)"
    check "after purge: /etc/switchboard, /var/lib/switchboard" "gone gone" "$([[ -e /etc/switchboard ]] && echo "kept: $(ls -A /etc/switchboard | tr '\n' ' ')" || echo gone) $([[ -e /var/lib/switchboard ]] && echo kept || echo gone)"
    check "after purge: no ownership override left (dpkg-statoverride)" "" "$(dpkg-statoverride --list | grep switchboard)"
    # Debian keeps a package's system users and groups: files they own may remain.
    check "after purge: user switchboard, group gpio" "kept kept" "$(getent passwd switchboard >/dev/null && echo kept || echo gone) $(getent group gpio >/dev/null && echo kept || echo gone)"
    finish poweroff
    ;;
*)
    fail "unknown phase \"$phase\" (kernel command line: $(cat /proc/cmdline))"
    finish poweroff
    ;;
esac
