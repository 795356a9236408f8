#!/usr/bin/env bash
# Sets up and runs switchboardd on the sample devices.json with simulated GPIO (real chips are
# not touched), with a mosquitto of its own set up as deploy/mosquitto ships it: no anonymous
# clients, a password per user, the shipped ACL (deploy/mosquitto/switchboard.acl), on
# 127.0.0.1:1884 (the next free port up to 1899 if that one is taken). The users' passwords are
# made on the first run and kept in ./.switchboard/broker (mode 600), with the daemon's state and
# control socket in ./.switchboard. Stop with Ctrl-C: the daemon stops cleanly, then the broker.
#   SWITCHBOARD_SAMPLE_PORT=N   the broker's port instead
#   SWITCHBOARD_BIN=FOLDER      switchboardd, switchboard and home-controls from FOLDER (built
#                               elsewhere, as the arm64 build run under qemu-user) instead of here
set -euo pipefail
cd "$(dirname "$0")/.."

source deploy/lib/packages.sh
ensure_packages "${switchboard_build_packages[@]}" "${switchboard_runtime_packages[@]}" mosquitto mosquitto-clients openssl

if [[ -n ${SWITCHBOARD_BIN:-} ]]; then
    bin=$SWITCHBOARD_BIN
else
    swift build --product switchboardd
    swift build --product switchboard
    swift build --product home-controls     # the sample's control extension, found beside switchboardd
    bin="$(swift build --show-bin-path)"
fi
state=$PWD/.switchboard
broker=$state/broker
mkdir -p "$broker"
chmod 700 "$broker"

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=${SWITCHBOARD_SAMPLE_PORT:-}
if [[ -z $port ]]; then
    for candidate in $(seq 1884 1899); do
        listening "$candidate" || { port=$candidate; break; }
    done
    [[ -n $port ]] || { echo "switchboard: ports 1884 to 1899 are all taken; give SWITCHBOARD_SAMPLE_PORT" >&2; exit 1; }
elif listening "$port"; then
    echo "switchboard: port $port is taken; give SWITCHBOARD_SAMPLE_PORT a free one" >&2
    exit 1
fi

# One password per user of the shipped ACL: the node (its devices.json "node"), you (house-admin:
# may lock and unlock), and Home Assistant if you point one at this broker.
for user in garage-pi house-admin homeassistant; do
    [[ -s $broker/$user.password ]] || (umask 077; openssl rand -hex 16 >"$broker/$user.password")
done
rm -f "$broker/passwd"
create=-c
for user in garage-pi house-admin homeassistant; do
    mosquitto_passwd $create -b "$broker/passwd" "$user" "$(cat "$broker/$user.password")"
    create=
done
chmod 600 "$broker/passwd"    # mosquitto_passwd 2.0.11 makes it world-readable
cp deploy/mosquitto/switchboard.acl "$broker/switchboard.acl"
chmod 600 "$broker/switchboard.acl"
cat >"$broker/mosquitto.conf" <<CONF
# deploy/mosquitto/switchboard.conf's loopback listener, for the sample (no TLS: loopback only).
per_listener_settings false
listener $port 127.0.0.1
# Each client is known by its user: no one can take the node's session with its client id.
use_username_as_clientid true
allow_anonymous false
password_file $broker/passwd
acl_file $broker/switchboard.acl
set_tcp_nodelay true
persistence false
CONF
# Started as root, mosquitto 2.0 would switch to the mosquitto user, which cannot read these files.
((EUID != 0)) || echo "user root" >>"$broker/mosquitto.conf"
mosquitto -c "$broker/mosquitto.conf" >"$broker/mosquitto.log" 2>&1 &
mosquitto_pid=$!
stop_broker() { kill "$mosquitto_pid" 2>/dev/null || true; wait "$mosquitto_pid" 2>/dev/null || true; }
trap stop_broker EXIT
for _ in $(seq 50); do listening "$port" && break; sleep 0.1; done
listening "$port" || { echo "switchboard: mosquitto did not start:" >&2; cat "$broker/mosquitto.log" >&2; exit 1; }

# The sample, pointed at this broker with the node's user and password file.
sed -e "s|\"port\": 1883,|\"port\": $port, \"username\": \"garage-pi\", \"passwordFile\": \"$broker/garage-pi.password\",|" \
    -e 's|"\$schema": "./devices.schema.json"|"$schema": "../devices.schema.json"|' devices.json >"$state/devices.json"
grep -q '"username": "garage-pi"' "$state/devices.json" ||
    { echo "switchboard: could not point the sample at the broker (devices.json has no \"port\": 1883)" >&2; exit 1; }

cat <<TOUR
switchboard: mosquitto on 127.0.0.1:$port, as deploy/mosquitto ships it (passwords in $broker)
switchboard: in another terminal, try
  $bin/switchboard --socket .switchboard/switchboard.sock center
  $bin/switchboard --socket .switchboard/switchboard.sock toggle porch
  $bin/switchboard --socket .switchboard/switchboard.sock gallery
  mosquitto_sub -h 127.0.0.1 -p $port -u house-admin -P "\$(cat .switchboard/broker/house-admin.password)" -t 'switchboard/#' -v
TOUR
# Ctrl-C stops the daemon cleanly; the script then ends with the daemon's exit status.
status=0
"$bin/switchboardd" --config "$state/devices.json" --simulate --state-dir "$state/state" --socket "$state/switchboard.sock" "$@" || status=$?
stop_broker
trap - EXIT
exit "$status"
