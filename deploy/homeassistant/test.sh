#!/usr/bin/env bash
# Checks Switchboard's Home Assistant support against a real Home Assistant Core: the newest
# release that runs on Debian 13's Python 3.13 (pinned in venv.sh), installed from PyPI into a venv
# inside the Debian 13 root (deploy/debian13/root.sh; both cached), a real mosquitto and a real
# switchboardd (--simulate) on the sample devices.json, with a HomeKit bridge. check.py onboards
# Home Assistant's owner, makes a long-lived access token, adds the MQTT integration through its
# config flow, and checks entities, states, names, services, availability, removals and the log;
# then adds the node's HomeKit bridge to Home Assistant's HomeKit Controller as a user does (the
# flow its zeroconf discovered from the daemon's Avahi advertisement, and the setup code), and
# checks its entities and states and switching relays both ways (see the test report at the end of
# docs/home-assistant.md). Everything runs in a network namespace of its own, with a private
# avahi-daemon and D-Bus for mDNS; ports are chosen at run time on 127.0.0.1; every process it
# starts is stopped when it ends, even when it fails.
#
#   deploy/homeassistant/test.sh
# Env: SWITCHBOARD_BIN (the folder of switchboardd and switchboard; default: `swift build` here),
#      SWITCHBOARD_HOMEASSISTANT=0 to skip it (saying so), SWITCHBOARD_HOMEASSISTANT_KEEP=1 to keep
#      the run's folders (logs, Home Assistant's configuration), SWITCHBOARD_DEBIAN13_CACHE.
# Needs root (the Debian 13 root is entered with chroot; the network namespace): runs through sudo
# otherwise, after building. Installs avahi-daemon, dbus, iproute2 and util-linux when missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
version=$(sed -n 's/^version=//p' deploy/homeassistant/venv.sh)

say() { echo "switchboard Home Assistant: $*"; }
if [[ ${SWITCHBOARD_HOMEASSISTANT:-1} == 0 ]]; then
    say "SKIPPED: SWITCHBOARD_HOMEASSISTANT=0"
    [[ -z ${SWITCHBOARD_STAGE_TIMES:-} ]] || echo "Home Assistant: skipped (SWITCHBOARD_HOMEASSISTANT=0)" >>"$SWITCHBOARD_STAGE_TIMES"
    exit 0
fi
if [[ -z ${SWITCHBOARD_BIN:-} ]]; then
    # Built as the calling user, before sudo.
    swift build --product switchboardd
    swift build --product switchboard
    SWITCHBOARD_BIN=$(swift build --show-bin-path)
fi
export SWITCHBOARD_BIN
if ((EUID != 0)); then
    say "entering the Debian 13 root needs root; running through sudo"
    exec sudo --preserve-env=SWITCHBOARD_BIN,SWITCHBOARD_HOMEASSISTANT_KEEP,SWITCHBOARD_DEBIAN13_CACHE,DEBIAN13_MIRROR,SWITCHBOARD_STAGE_TIMES \
        "$PWD/deploy/homeassistant/test.sh" "$@"
fi
for program in switchboardd switchboard; do
    [[ -x $SWITCHBOARD_BIN/$program ]] || { say "no $program in $SWITCHBOARD_BIN" >&2; exit 1; }
done

source deploy/lib/packages.sh
source deploy/lib/stages.sh

stage "Home Assistant: Core $version in the Debian 13 root"
ensure_packages mosquitto python3 avahi-daemon dbus iproute2 util-linux
root=$(deploy/debian13/root.sh)
venv=$(deploy/homeassistant/venv.sh "$root")
say "Home Assistant Core $version: $root$venv"

stage "Home Assistant: checks against switchboardd"
free_port() { in_net python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
listening() { in_net python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1)' "$1" 2>/dev/null; }

# Home Assistant's configuration lives in the root (it runs there); the daemon's state and socket
# in a short path on this machine.
hass=$(mktemp -d "$root/tmp/switchboard-homeassistant.XXXXXX")
work=$(mktemp -d /tmp/switchboard-ha.XXXXXX)
net_pid="" bus_pid="" avahi_pid="" mosquitto_pid="" hass_pid="" check_pid=""
stop_group() { # PID (a process group's leader) SECONDS: TERM, then KILL after SECONDS
    local pid=$1 waited=0
    kill -TERM -- "-$pid" 2>/dev/null || return 0
    while kill -0 -- "-$pid" 2>/dev/null; do
        if ((waited++ >= $2 * 10)); then kill -KILL -- "-$pid" 2>/dev/null; break; fi
        sleep 0.1
    done
}
# At exit: stop what was started, show the logs if it failed, then the stage times (stages.sh).
cleanup() {
    local status=$?
    set +e
    [[ -z $check_pid ]] || stop_group "$check_pid" 10
    [[ -z $hass_pid ]] || stop_group "$hass_pid" 30
    [[ -z $mosquitto_pid ]] || stop_group "$mosquitto_pid" 5
    [[ -z $avahi_pid ]] || stop_group "$avahi_pid" 5
    [[ -z $bus_pid ]] || stop_group "$bus_pid" 5
    [[ -z $net_pid ]] || stop_group "$net_pid" 5
    if ((status)); then
        # Home Assistant's console repeats its log file, and has what came before it.
        local hass_log=$hass/home-assistant.log
        [[ -s $hass_log ]] || hass_log=$hass/stdout.log
        for log in "$hass_log" "$work/switchboardd.log" "$work/mosquitto.log" "$work/avahi.log"; do
            [[ -s $log ]] || continue
            echo "── last lines of $log"
            tail -n 25 "$log" | cut -c1-400
        done
    fi
    if [[ ${SWITCHBOARD_HOMEASSISTANT_KEEP:-0} == 1 ]]; then say "kept $hass and $work"; else rm -rf "$hass" "$work"; fi
    (exit "$status")
    stages_report
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Everything below runs in a network namespace of its own (held by a `sleep`): loopback, and a veth
# pair whose end sb0 (198.51.100.1, a documentation network) has the default route and multicast.
# There a private avahi-daemon on a private D-Bus advertises the node's HomeKit bridge (_hap._tcp)
# and Home Assistant's zeroconf discovers it, as on a LAN, while nothing reaches the machine's network.
setsid unshare --net sleep infinity &
net_pid=$!
own_net=$(readlink /proc/self/ns/net)
net_of() { readlink "/proc/$net_pid/ns/net" 2>/dev/null || echo "$own_net"; }
for _ in {1..100}; do [[ $(net_of) != "$own_net" ]] && break; sleep 0.05; done
[[ $(net_of) != "$own_net" ]] || { say "no network namespace of its own (unshare --net)" >&2; exit 1; }
in_net() { nsenter "--net=/proc/$net_pid/ns/net" -- "$@"; }
in_net sh -ec 'ip link set lo up
    ip link add sb0 type veth peer name sb1
    ip addr add 198.51.100.1/24 dev sb0
    ip link set sb1 up
    ip link set sb0 up
    ip route add default dev sb0'

# The private system bus, for the daemon's Avahi client and avahi-daemon.
sed "s|@SOCKET@|$work/bus|" deploy/homekit/private-bus.conf.in >"$work/bus.conf"
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$work/bus
setsid dbus-daemon --config-file="$work/bus.conf" --nofork --nopidfile >"$work/dbus.log" 2>&1 &
bus_pid=$!
for _ in {1..100}; do [[ -S $work/bus ]] && break; sleep 0.05; done
[[ -S $work/bus ]] || { say "dbus-daemon is not listening at $work/bus" >&2; exit 1; }
sed "s|@INTERFACE@|sb0|" deploy/homekit/private-avahi-daemon.conf.in >"$work/avahi-daemon.conf"
# With a /run of its own (its pid file and socket; the machine's avahi-daemon, if any, keeps its).
setsid nsenter "--net=/proc/$net_pid/ns/net" -- unshare --mount --propagation private sh -c \
    "mount -t tmpfs switchboard-ha-avahi /run && mkdir -p /run/avahi-daemon &&
     exec avahi-daemon -f '$work/avahi-daemon.conf' --no-drop-root --no-chroot --no-rlimits --no-proc-title" \
    >"$work/avahi.log" 2>&1 &
avahi_pid=$!
for _ in {1..200}; do grep -q "Server startup complete" "$work/avahi.log" && break; sleep 0.05; done
grep -q "Server startup complete" "$work/avahi.log" || { say "avahi-daemon did not start" >&2; exit 1; }

broker_port=$(free_port)
cat >"$work/mosquitto.conf" <<EOF
listener $broker_port 127.0.0.1
allow_anonymous true
persistence false
log_dest stderr
EOF
setsid nsenter "--net=/proc/$net_pid/ns/net" -- mosquitto -c "$work/mosquitto.conf" >"$work/mosquitto.log" 2>&1 &
mosquitto_pid=$!
for _ in {1..100}; do listening "$broker_port" && break; sleep 0.1; done
listening "$broker_port" || { say "mosquitto is not listening on $broker_port" >&2; exit 1; }

hass_port=$(free_port)
cat >"$hass/configuration.yaml" <<EOF
homeassistant:
  name: Switchboard test
  latitude: 52.37
  longitude: 4.89
  elevation: 0
  unit_system: metric
  time_zone: UTC
  country: NL
  currency: EUR
http:
  server_host: 127.0.0.1
  server_port: $hass_port
api:
websocket_api:
config:
onboarding:
zeroconf:
logger:
  default: info
EOF
say "Home Assistant $version on 127.0.0.1:$hass_port, mosquitto on 127.0.0.1:$broker_port"
setsid nsenter "--net=/proc/$net_pid/ns/net" -- deploy/debian13/run.sh "$root" "$venv/bin/python" -m homeassistant --config "${hass#"$root"}" --skip-pip \
    >"$hass/stdout.log" 2>&1 &
hass_pid=$!

setsid nsenter "--net=/proc/$net_pid/ns/net" -- python3 -B deploy/homeassistant/check.py --hass-port "$hass_port" \
    --hass-log "$hass/home-assistant.log" --hass-version "$version" --broker-port "$broker_port" \
    --homekit-port "$(free_port)" --bin "$SWITCHBOARD_BIN" --work "$work" --sample devices.json &
check_pid=$!
wait "$check_pid"
check_pid=""
