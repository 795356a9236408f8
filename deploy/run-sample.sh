#!/usr/bin/env bash
# Sets up and runs switchboardd on the sample devices.json with simulated GPIO (real chips are
# not touched), starting a local mosquitto on 127.0.0.1:1883 when none is listening. State and
# the control socket live in ./.switchboard. Stop with Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."

source deploy/lib/packages.sh
ensure_packages "${switchboard_build_packages[@]}" "${switchboard_runtime_packages[@]}" mosquitto mosquitto-clients

swift build --product switchboardd
swift build --product switchboard
swift build --product home-controls     # the sample's control extension, found beside switchboardd
bin="$(swift build --show-bin-path)"
mkdir -p .switchboard

if ! (exec 3<>/dev/tcp/127.0.0.1/1883) 2>/dev/null; then
    printf 'listener 1883 127.0.0.1\nallow_anonymous true\nset_tcp_nodelay true\npersistence false\n' > .switchboard/mosquitto.conf
    mosquitto -c .switchboard/mosquitto.conf -d
    echo "switchboard: started mosquitto on 127.0.0.1:1883"
fi

cat <<TOUR
switchboard: in another terminal, try
  $bin/switchboard --socket .switchboard/switchboard.sock center
  $bin/switchboard --socket .switchboard/switchboard.sock toggle porch
  $bin/switchboard --socket .switchboard/switchboard.sock gallery
  mosquitto_sub -h 127.0.0.1 -t 'switchboard/#' -v
TOUR
exec "$bin/switchboardd" --config devices.json --simulate --state-dir .switchboard/state --socket .switchboard/switchboard.sock "$@"
