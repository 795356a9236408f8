#!/bin/bash
# Runs INSIDE the VM of deploy/hil/systemd-test.sh, as a oneshot unit after multi-user.target,
# with systemd as PID 1. The boot's phase comes from the kernel command line
# (switchboard.phase=install|reboot|cutN|final); the repository is at /mnt/switchboard
# (read-only), the binaries and this script at /mnt/switchboard-hil, where results/PHASE.log gets
# one PASS or FAIL line per check. Ends the boot itself (`systemctl reboot` after install,
# power-off after reboot and final), except a power-cut boot, which the host ends by killing the
# VM in the middle of a burst of commands.
set -u
source /mnt/switchboard-hil/guest-checks.sh

echo "=== switchboard systemd HIL, boot \"$phase\", $(date -u '+%F %T') UTC, uptime $(cut -d' ' -f1 /proc/uptime)s"
check "PID 1 is systemd" systemd "$(cat /proc/1/comm)"
info "systemd $(systemctl --version | head -1), kernel $(uname -r), boot $(cat /proc/sys/kernel/random/boot_id)"
failed_units=$(systemctl list-units --failed --plain --no-legend | awk '{ print $1 }')
info "system state: $(systemctl is-system-running) (this unit is part of the boot)"
check "failed units" none "${failed_units:-none}"
for unit in $failed_units; do journalctl -b -u "$unit" --no-pager -o cat | tail -5 | sed "s/^/    $unit: /"; done

chip=$(gpiodetect | awk '/\[pinctrl-rp1\]/ { print $1; exit }')
check "gpio-sim impersonates the Pi 5 header" "gpiochip0 [pinctrl-rp1] (54 lines)" "$(gpiodetect | grep -F '[pinctrl-rp1]')"
check "line 17 is named GPIO17" GPIO17 "$(gpioinfo -c "${chip:-gpiochip0}" 17 2>/dev/null | awk '{ gsub(/"/, "", $3); print $3 }')"
# What gpio-sim drives an output line to (the value a relay on that pin would see).
line_value() { cat /sys/devices/platform/gpio-sim.*/"${chip:-gpiochip0}"/sim_gpio"$1"/value 2>/dev/null; }
active() { [[ $(systemctl is-active switchboardd.service) == active ]]; }
porch=17 fan=27

# After the power cut of boot cutN: the state must have parsed (no file moved aside) and its
# placements of that burst must be a prefix of the ones added, with no gap and none made up:
# kNn1 … kNnM, M at most one more than were acknowledged (the one in flight). Prints how many
# acknowledged ones the cut lost.
check_cut() {
    local n=$1 acked placed expected m
    # grep -c prints 0 and fails when no line was acknowledged: one count either way.
    acked=$(grep -c . "$results/cut$n.acks" 2>/dev/null || true)
    acked=${acked:-0}
    if until_true 90 active; then pass "switchboardd came up after power cut $n"; else fail "switchboardd not active after power cut $n"; return; fi
    if journalctl -b -u switchboardd.service --no-pager -o cat | grep -q 'moved aside'; then
        fail "power cut $n: the state did not parse: $(journalctl -b -u switchboardd.service --no-pager -o cat | grep -m1 'moved aside')"
    else pass "power cut $n: the state parsed"; fi
    placed=$(runuser -u alice -- switchboard status 2>/dev/null | sed -n "s/^control \(k${n}n[0-9]*\) .*/\1/p" | sort -V | tr '\n' ' ')
    m=$(wc -w <<<"$placed")
    expected=$(for ((i = 1; i <= m; i++)); do printf 'k%sn%s ' "$n" "$i"; done)
    if [[ $placed == "$expected" ]] && ((m <= acked + 1)); then
        pass "power cut $n: placements are a prefix of those added: $m kept, $acked acknowledged, $((acked > m ? acked - m : 0)) acknowledged lost"
    else fail "power cut $n: placements \"$placed\" are not a prefix of the $acked acknowledged ($(tr '\n' ' ' <"$results/cut$n.acks"))"; fi
    echo "cut $n: acknowledged $acked, kept $m" >>"$results/cuts.txt"
}

case $phase in
install)
    # The journal kept on disk: the second boot reads this boot's shutdown of the service.
    mkdir -p /var/log/journal && systemd-tmpfiles --create --prefix /var/log/journal && journalctl --flush

    echo "--- deploy/install.sh --prebuilt $hil/bin"
    t0=$SECONDS
    if /mnt/switchboard/deploy/install.sh --prebuilt "$hil/bin"; then
        pass "install.sh --prebuilt finished in $((SECONDS - t0))s with no network (packages already there)"
    else
        fail "install.sh --prebuilt exited with $?"
    fi
    for package in libgpiod3 libmosquitto1 gpiod; do
        check "runtime package $package installed" "install ok installed" "$(dpkg-query -W -f='${Status}' "$package" 2>&1)"
    done
    check "service user's groups" "switchboard gpio" "$(id -nG switchboard 2>&1)"
    gid=$(getent group gpio | cut -d: -f3)
    if [[ -n $gid ]] && ((gid < 1000)); then pass "gpio is a system group (gid $gid)"; else fail "gpio group: \"$(getent group gpio)\""; fi
    check "login shell of the service user" /usr/sbin/nologin "$(getent passwd switchboard | cut -d: -f7)"
    check "udev rule installed (Debian has none for gpiochip)" present "$([[ -f /etc/udev/rules.d/99-switchboard-gpio.rules ]] && echo present || echo missing)"
    check "/dev/$chip owner, group and mode after udev" "root gpio 660" "$(stat -c '%U %G %a' "/dev/$chip" 2>&1)"
    check "/etc/switchboard" "root switchboard 750" "$(stat -c '%U %G %a' /etc/switchboard 2>&1)"
    check "/etc/switchboard/devices.json" "root switchboard 640" "$(stat -c '%U %G %a' /etc/switchboard/devices.json 2>&1)"
    check "unit enabled" enabled "$(systemctl is-enabled switchboardd.service 2>&1)"

    if until_true 90 active; then pass "switchboardd active"; else fail "switchboardd not active: $(systemctl is-active switchboardd.service)"; fi
    check "unit type" notify "$(prop Type)"
    # Only READY=1 makes a Type=notify unit active; STATUS= comes in the same message.
    check "READY=1 with STATUS= received" "Serving garage-pi" "$(prop StatusText)"
    check "restarts so far" 0 "$(prop NRestarts)"
    pid=$(prop MainPID); [[ $pid =~ ^[1-9][0-9]*$ ]] || pid=1   # none: the checks below fail on PID 1
    check "daemon runs as" switchboard "$(ps -o user= -p "$pid" 2>&1)"
    check "daemon's group; supplementary groups" "switchboard; switchboard,gpio" "$(ps -o egroup:20= -p "$pid" | tr -d ' '); $(ps -o supgrp:40= -p "$pid" | tr -d ' ')"
    check "no capabilities (CapEff)" 0000000000000000 "$(awk '/^CapEff/ { print $2 }' "/proc/$pid/status")"
    check "NoNewPrivileges" 1 "$(awk '/^NoNewPrivs/ { print $2 }' "/proc/$pid/status")"
    check "seccomp filter on" 2 "$(awk '/^Seccomp:/ { print $2 }' "/proc/$pid/status")"
    check "socket" "srw-rw---- switchboard switchboard" "$(stat -c '%A %U %G' /run/switchboard/switchboard.sock 2>&1)"
    systemctl status --no-pager -n0 switchboardd.service | sed 's/^/    /'

    echo "--- the CLI"
    useradd --create-home --groups switchboard alice && useradd --create-home bob
    as() { local user=$1; shift; runuser -u "$user" -- "$@"; }
    out=$(as alice switchboard status 2>&1); rc=$?
    echo "$out" | sed 's/^/    /'
    check "switchboard status as alice (group switchboard)" 0 "$rc"
    out=$(as alice switchboard center 2>&1); rc=$?
    echo "$out" | sed 's/^/    /'
    check "switchboard center as alice" 0 "$rc"
    check "porch line (GPIO$porch) before" 0 "$(line_value $porch)"
    out=$(as alice switchboard on porch 2>&1); rc=$?
    echo "    $out"
    check "switchboard on porch as alice" 0 "$rc"
    check "porch line (GPIO$porch) driven high" 1 "$(line_value $porch)"
    out=$(as bob switchboard status 2>&1); rc=$?
    echo "    bob: $out (exit $rc)"
    if ((rc != 0)); then pass "switchboard status refused for bob (not in the group): exit $rc"; else fail "switchboard status worked for bob"; fi
    out=$(as bob switchboard off porch 2>&1); rc=$?
    if ((rc != 0)) && [[ $(line_value $porch) == 1 ]]; then pass "switchboard off porch refused for bob, porch still on"; else fail "bob switched the porch: exit $rc, line $(line_value $porch)"; fi

    echo "--- the sample's control extension, in switchboard-extension@.service"
    # extension_unit NAME: the unit of the extension's current run, from the daemon's journal.
    extension_unit() { journalctl -b -u switchboardd.service --no-pager -o cat | sed -n "s/.*extension $1: running (systemd unit \([^,)]*\).*/\1/p" | tail -1; }
    # extension_pid UNIT: the extension itself, the child of the unit's launcher.
    extension_pid() { local launcher; launcher=$(systemctl show -p MainPID --value "$1" 2>/dev/null); pgrep -P "${launcher:-1}" | head -1; }
    check "switchboard-extension.socket" "enabled active" "$(systemctl is-enabled switchboard-extension.socket 2>&1) $(systemctl is-active switchboard-extension.socket 2>&1)"
    check "extension socket: owner and mode" "srw------- switchboard switchboard" "$(stat -c '%A %U %G' /run/switchboard-extension/extension.sock 2>&1)"
    unit=$(extension_unit home)
    check "extension home runs in a switchboard-extension@ instance" yes "$([[ $unit == switchboard-extension@*.service ]] && echo yes || echo "no: \"$unit\"")"
    check "its unit is active" active "$(systemctl is-active "$unit" 2>&1)"
    ext=$(extension_pid "$unit")
    [[ $ext =~ ^[1-9][0-9]*$ ]] || ext=1   # none: the checks below fail on PID 1
    ext_uid=$(ps -o uid= -p "$ext" | tr -d ' ')
    if [[ -n $ext_uid ]] && ((ext_uid != 0 && ext_uid != $(id -u switchboard))); then
        pass "extension home runs as a user of its own: uid $ext_uid ($(ps -o user= -p "$ext")), not root, not switchboard ($(id -u switchboard))"
    else fail "extension home runs as uid \"$ext_uid\""; fi
    check "extension home's program" /usr/local/libexec/switchboard/home-controls "$(readlink "/proc/$ext/exe" 2>&1)"
    check "extension home's cgroup is its unit's" "$unit" "$(awk -F/ '/^0::/ { print $NF }' "/proc/$ext/cgroup" 2>&1)"
    check "extension home's unit: TasksMax, MemoryMax, PrivateNetwork, DynamicUser" "64 134217728 yes yes" "$(for p in TasksMax MemoryMax PrivateNetwork DynamicUser; do systemctl show -p $p --value "$unit"; done | tr '\n' ' ' | sed 's/ $//')"
    out=$(as alice switchboard status 2>&1)
    if grep -q "^extension home: systemd unit $unit: own dynamic user" <<<"$out"; then
        pass "switchboard status says how: $(grep '^extension home:' <<<"$out")"
    else fail "switchboard status does not say how extension home is isolated: $(grep -i extension <<<"$out")"; fi
    out=$(as alice switchboard add com.switchboard.example.Light --device porch --id swift-porch 2>&1); rc=$?
    echo "    $out"
    check "switchboard add the extension's light, for the porch" 0 "$rc"
    out=$(as alice switchboard off swift-porch 2>&1); rc=$?
    echo "    $out"
    check "the extension's Swift intent switched the porch line off (exit, line)" "0 0" "$rc $(line_value $porch)"
    out=$(as alice switchboard on porch 2>&1); rc=$?
    check "porch on again from devices.json's control (exit, line)" "0 1" "$rc $(line_value $porch)"

    echo "--- a hostile control extension under the shipped units"
    # The sample's extension becomes deploy/hil/hostile-extension: it tries each way out, reports
    # each attempt in its unit's journal, then serves the sample's controls. The node is locked,
    # and a password file stands where devices.json would name one.
    install -m 755 "$hil/hostile-extension" /usr/local/libexec/switchboard/hostile-extension
    echo "not-to-be-read" >/etc/switchboard/mqtt-password
    chown root:switchboard /etc/switchboard/mqtt-password && chmod 640 /etc/switchboard/mqtt-password
    out=$(as alice switchboard lock 2>&1); rc=$?
    check "switchboard lock as alice" "0 locked" "$rc $out"
    daemon=$(prop MainPID)
    state_file=$(find /var/lib/switchboard -maxdepth 1 -type f | head -1)
    info "broker from outside the sandbox: $(systemctl is-active mosquitto.service 2>&1), $(timeout 5 bash -c 'exec 3<>/dev/tcp/127.0.0.1/1883' 2>/dev/null && echo "127.0.0.1:1883 accepts connections" || echo "127.0.0.1:1883 refuses connections")"
    cp /etc/switchboard/devices.json "$results/devices.json.before-hostile"
    # First a neighbour: a second extension (the sample's program again; its kinds are taken by
    # home's and left out), running when the hostile one starts.
    python3 - <<'PY'
import json
path = "/etc/switchboard/devices.json"
configuration = json.load(open(path))
configuration["extensions"].append({"id": "neighbour", "executable": "home-controls", "devices": []})
json.dump(configuration, open(path, "w"), indent=2)
PY
    systemctl reload switchboardd.service
    neighbour_ran() { journalctl -b -u switchboardd.service --no-pager -o cat | grep -q 'extension neighbour: running'; }
    if until_true 120 neighbour_ran; then pass "a second extension, neighbour, runs"; else fail "the extension neighbour never ran"; fi
    python3 - "$daemon" "$state_file" <<'PY'
import json, sys
path = "/etc/switchboard/devices.json"
configuration = json.load(open(path))
for extension in configuration["extensions"]:
    if extension["id"] == "home":
        extension.update({"executable": "hostile-extension", "timeout": "30s", "user": "nobody",
                          "arguments": [sys.argv[1], sys.argv[2], "/etc/switchboard/devices.json", "/etc/switchboard/mqtt-password"]})
json.dump(configuration, open(path, "w"), indent=2)
PY
    runs_before=$(journalctl -b -u switchboardd.service --no-pager -o cat | grep -c 'extension home: running')
    systemctl reload switchboardd.service
    hostile_ran() { (($(journalctl -b -u switchboardd.service --no-pager -o cat | grep -c 'extension home: running') > runs_before)); }
    if until_true 120 hostile_ran; then pass "the hostile extension started and listed its controls"; else fail "the hostile extension never listed its controls"; fi
    unit=$(extension_unit home)
    journalctl -b -u "$unit" --no-pager -o cat | sed 's/^/    /'
    reports=$(journalctl -b -u "$unit" --no-pager -o cat | grep '^hostile: ')
    for attempt in "inherited descriptors beyond 0-2" "list /var/lib/switchboard" "read $state_file" "read /etc/switchboard/devices.json" \
        "read /etc/switchboard/mqtt-password" "send unlock over /run/switchboard/switchboard.sock" "make a Unix socket" \
        "signal switchboardd (pid $daemon, SIGTERM)" "see other processes in /proc" "signal processes of other users or extensions" \
        "TCP connection to the broker 127.0.0.1:1883" \
        "write /usr/local/libexec/switchboard/planted" "setuid(0)" "fork 300 processes"; do
        line=$(grep -F -m1 "hostile: $attempt: " <<<"$reports")
        if [[ $line == "hostile: $attempt: refused "* ]]; then pass "hostile extension: $attempt: ${line#hostile: $attempt: }"
        else fail "hostile extension: $attempt: ${line:-no report}"; fi
    done
    environment=$(grep -m1 '^hostile: environment: ' <<<"$reports")
    if [[ -n $environment ]] && ! grep -qE 'NOTIFY_SOCKET|LISTEN_FDS|INVOCATION_ID|HOME=/root' <<<"$environment"; then pass "hostile extension's $environment"; else fail "hostile extension's environment: ${environment:-no report}"; fi
    check "switchboardd still running, same pid" "active $daemon" "$(systemctl is-active switchboardd.service) $(prop MainPID)"
    check "the node is still locked" "node garage-pi, locked" "$(as alice switchboard status 2>&1 | head -1)"
    check "the planted file is not there" absent "$([[ -e /usr/local/libexec/switchboard/planted ]] && echo present || echo absent)"
    out=$(as alice switchboard status 2>&1)
    if grep -q "^extension home: systemd unit $unit: own dynamic user.*\"user\": \"nobody\" is not used" <<<"$out"; then
        pass "status says devices.json's \"user\" is not used under systemd: $(grep '^extension home:' <<<"$out")"
    else fail "status about the hostile extension: $(grep '^extension' <<<"$out")"; fi
    home_uid=$(sed -n 's/^extension home: .*own dynamic user (uid \([0-9]*\)).*/\1/p' <<<"$out")
    neighbour_uid=$(sed -n 's/^extension neighbour: .*own dynamic user (uid \([0-9]*\)).*/\1/p' <<<"$out")
    if [[ -n $home_uid && -n $neighbour_uid && $home_uid != "$neighbour_uid" ]]; then
        pass "each extension has a user of its own: home uid $home_uid, neighbour uid $neighbour_uid"
    else fail "extensions' users: home \"$home_uid\", neighbour \"$neighbour_uid\""; fi
    out=$(as alice switchboard unlock 2>&1); rc=$?
    check "switchboard unlock as alice" "0 unlocked" "$rc $out"
    out=$(as alice switchboard off swift-porch 2>&1); rc=$?
    check "the hostile extension's controls still work: swift-porch off (exit, line)" "0 0" "$rc $(line_value $porch)"
    out=$(as alice switchboard on swift-porch 2>&1); rc=$?
    check "swift-porch on (exit, line)" "0 1" "$rc $(line_value $porch)"
    systemd-analyze security --no-pager "$unit" >"$results/security-extension.txt" 2>&1
    score=$(grep -m1 'Overall exposure level' "$results/security-extension.txt" | sed 's/^→ *//')
    if [[ -n $score ]]; then pass "systemd-analyze security $unit: $score"; else fail "systemd-analyze security $unit printed no exposure level"; fi
    sed 's/^/    /' "$results/security-extension.txt"
    # The sample's extension again, for the rest of the boots.
    cp "$results/devices.json.before-hostile" /etc/switchboard/devices.json
    runs_before=$(journalctl -b -u switchboardd.service --no-pager -o cat | grep -c 'extension home: running')
    systemctl reload switchboardd.service
    if until_true 120 hostile_ran; then pass "the sample's extension is back"; else fail "the sample's extension did not come back"; fi
    if until_true 20 bash -c "[[ \$(systemctl is-active '$unit') == inactive ]]"; then pass "the hostile extension's unit ended with its connection"; else fail "the hostile extension's unit is $(systemctl is-active "$unit")"; fi

    echo "--- reload (SIGHUP)"
    pid=$(prop MainPID)
    if systemctl reload switchboardd.service && until_true 30 bash -c "journalctl -b -u switchboardd.service --no-pager -o cat | grep -q '^reloading '"; then
        check "systemctl reload: same process, still active, porch still on" "$pid active 1" "$(prop MainPID) $(systemctl is-active switchboardd.service) $(line_value $porch)"
    else fail "systemctl reload switchboardd: no \"reloading\" in the journal"; fi

    echo "--- the journal"
    journalctl -b -u switchboardd.service --no-pager -o short-monotonic | tail -30 | sed 's/^/    /'
    if journalctl -b -u switchboardd.service --no-pager -o cat | grep -q 'switchboardd ready'; then
        pass "journalctl -u switchboardd has the daemon's \"switchboardd ready\""
    else fail "no \"switchboardd ready\" in journalctl -u switchboardd"; fi

    echo "--- the watchdog"
    check "WatchdogUSec" 30s "$(prop WatchdogUSec)"
    first=$(prop WatchdogTimestampMonotonic)
    if until_true 40 bash -c "[[ \$(systemctl show -p WatchdogTimestampMonotonic --value switchboardd.service) != $first ]]"; then
        pass "WATCHDOG=1 pings arrive (WatchdogTimestamp advanced from $first to $(prop WatchdogTimestampMonotonic) µs)"
    else fail "WatchdogTimestamp did not advance in 40s (still $first)"; fi
    pid=$(prop MainPID)
    [[ $pid =~ ^[1-9][0-9]*$ ]] && kill -STOP "$pid"
    info "SIGSTOP to switchboardd ($pid) at uptime $(cut -d' ' -f1 /proc/uptime)s"
    restarted() { local now; now=$(prop MainPID); [[ $now != 0 && $now != "$pid" ]] && active; }
    if until_true 90 restarted; then
        pass "systemd restarted the stopped daemon (pid $pid -> $(prop MainPID), NRestarts $(prop NRestarts)) at uptime $(cut -d' ' -f1 /proc/uptime)s"
    else fail "no restart within 90s of SIGSTOP (MainPID $(prop MainPID), $(systemctl is-active switchboardd.service))"; fi
    if journalctl -b -u switchboardd.service --no-pager -o cat | grep -q 'Watchdog timeout'; then
        pass "journal: \"$(journalctl -b -u switchboardd.service --no-pager -o cat | grep -m1 'Watchdog timeout')\""
    else fail "no \"Watchdog timeout\" in the journal"; fi
    if until_true 20 bash -c "[[ \$(cat /sys/devices/platform/gpio-sim.*/${chip:-gpiochip0}/sim_gpio$porch/value) == 1 ]]"; then
        pass "porch restored on after the watchdog restart (restore: last)"
    else fail "porch line is $(line_value $porch) after the watchdog restart"; fi

    echo "--- systemd-analyze security"
    systemd-analyze security --no-pager switchboardd.service >"$results/security.txt" 2>&1
    sed 's/^/    /' "$results/security.txt"
    score=$(grep -m1 'Overall exposure level' "$results/security.txt" | sed 's/^→ *//')
    if [[ -n $score ]]; then pass "systemd-analyze security: $score"; else fail "systemd-analyze security printed no exposure level"; fi

    echo "--- before the reboot"
    as alice switchboard status 2>&1 | sed 's/^/    /'
    check "porch on before the reboot" 1 "$(line_value $porch)"
    check "fan off before the reboot" 0 "$(line_value $fan)"
    cat /proc/sys/kernel/random/boot_id >"$results/install.boot_id"
    finish reboot
    ;;
reboot)
    before=$(cat "$results/install.boot_id" 2>/dev/null)
    if [[ -n $before && $before != "$(cat /proc/sys/kernel/random/boot_id)" ]]; then pass "a new boot (boot id $before before)"; else fail "same boot id as the install boot, or none recorded"; fi
    journalctl --list-boots --no-pager 2>&1 | sed 's/^/    /'
    check "boots in the journal" 2 "$(journalctl --list-boots --no-pager 2>/dev/null | grep -cE '^ *-?[0-9]+ +[0-9a-f]{32} ')"
    check "unit enabled" enabled "$(systemctl is-enabled switchboardd.service 2>&1)"
    if until_true 90 active; then pass "switchboardd came up at boot: active"; else fail "switchboardd not active after the reboot: $(systemctl is-active switchboardd.service)"; fi
    check "READY=1 with STATUS= received" "Serving garage-pi" "$(prop StatusText)"
    check "restarts" 0 "$(prop NRestarts)"
    check "/dev/$chip group and mode at boot (udev coldplug)" "gpio 660" "$(stat -c '%G %a' "/dev/$chip" 2>&1)"
    check "porch (restore: last) restored on after the reboot: GPIO$porch" 1 "$(line_value $porch)"
    check "fan (restore: off) off after the reboot: GPIO$fan" 0 "$(line_value $fan)"
    out=$(runuser -u alice -- switchboard status 2>&1); rc=$?
    echo "$out" | sed 's/^/    /'
    check "switchboard status as alice after the reboot" 0 "$rc"
    echo "--- the previous boot's end and this boot's start"
    journalctl -b -1 -u switchboardd.service --no-pager -o short-monotonic | tail -8 | sed 's/^/    /'
    previous=$(journalctl -b -1 -u switchboardd.service --no-pager -o cat)
    if grep -q '^Stopped switchboardd.service' <<<"$previous" && grep -q 'switchboardd stopped' <<<"$previous"; then
        pass "the reboot stopped the unit and the daemon cleanly (\"switchboardd stopped\", \"Stopped switchboardd.service\" in the previous boot's journal)"
    else fail "the previous boot's journal lacks \"switchboardd stopped\" or \"Stopped switchboardd.service\""; fi
    # KillMode=mixed: the stop signals the daemon only, which stops its extension itself.
    stopping=$(sed -n '/switchboardd stopping/,$p' <<<"$previous")
    if [[ -n $stopping ]] && ! grep -q 'extension home: .*restarting' <<<"$stopping"; then
        pass "the stop left the extension to the daemon (no \"extension home: … restarting\" after \"switchboardd stopping\")"
    else fail "the stop killed the extension under the daemon: $(grep 'extension home' <<<"$stopping" | head -3)"; fi
    journalctl -b -u switchboardd.service --no-pager -o short-monotonic | tail -30 | sed 's/^/    /'

    finish poweroff
    ;;
cut*)
    # Power cut N: check the cut before (if any), then add placements as fast as the CLI goes,
    # each acknowledged one written to the results folder (on the host) as it returns, until the
    # host kills the VM.
    n=${phase#cut}
    if ((n > 1)); then check_cut $((n - 1)); elif until_true 90 active; then pass "switchboardd active"; else fail "switchboardd not active"; fi
    : >"$results/$phase.acks"
    touch "$results/$phase.burst"
    info "burst started; the host cuts the power"
    for ((i = 1; ; i++)); do
        if runuser -u alice -- switchboard add porch-light --id "k${n}n$i" >/dev/null 2>&1; then echo "k${n}n$i" >>"$results/$phase.acks"; fi
    done
    ;;
final)
    last=$(ls "$results"/cut*.acks 2>/dev/null | sed 's/.*cut\([0-9]*\)\.acks/\1/' | sort -n | tail -1)
    [[ -n $last ]] && check_cut "$last"
    echo "--- deploy/uninstall.sh, then --purge"
    if /mnt/switchboard/deploy/uninstall.sh; then pass "uninstall.sh finished"; else fail "uninstall.sh exited with $?"; fi
    check "unit after uninstall (is-active; unit file)" "inactive absent" "$(systemctl is-active switchboardd.service 2>&1) $([[ -e /etc/systemd/system/switchboardd.service ]] && echo present || echo absent)"
    check "programs and extensions after uninstall" "absent absent absent" "$([[ -e /usr/local/bin/switchboardd ]] && echo present || echo absent) $([[ -e /usr/local/bin/switchboard ]] && echo present || echo absent) $([[ -e /usr/local/libexec/switchboard ]] && echo present || echo absent)"
    check "extension units and launcher after uninstall (socket, template, launcher)" "absent absent absent" "$(for f in /etc/systemd/system/switchboard-extension.socket /etc/systemd/system/switchboard-extension@.service /usr/local/libexec/switchboard-extension-launcher; do [[ -e $f ]] && echo present || echo absent; done | tr '\n' ' ' | sed 's/ $//')"
    check "no switchboard-extension@ instance left" "" "$(systemctl list-units --plain --no-legend 'switchboard-extension@*' 2>/dev/null)"
    check "devices.json and the state kept" "kept kept" "$([[ -e /etc/switchboard/devices.json ]] && echo kept || echo gone) $([[ -d /var/lib/switchboard ]] && echo kept || echo gone)"
    check "no switchboardd process left" "" "$(pgrep -x switchboardd)"
    if /mnt/switchboard/deploy/uninstall.sh --purge; then pass "uninstall.sh --purge finished"; else fail "uninstall.sh --purge exited with $?"; fi
    check "after --purge: configuration, state, user" "gone gone gone" "$([[ -e /etc/switchboard ]] && echo kept || echo gone) $([[ -e /var/lib/switchboard ]] && echo kept || echo gone) $(getent passwd switchboard >/dev/null && echo kept || echo gone)"
    finish poweroff
    ;;
*)
    fail "unknown phase \"$phase\" (kernel command line: $(cat /proc/cmdline))"
    finish poweroff
    ;;
esac
