#!/usr/bin/env bash
# Checks README's first command as a user runs it: deploy/run-sample.sh in the background, then
# the CLI and MQTT clients against what it started — the daemon on the sample devices.json, and the
# broker set up as deploy/mosquitto ships it (no anonymous clients, the shipped ACL). Ctrl-C (SIGINT)
# stops both. Each check says what it expected and what it saw; the first failure ends the run.
# SWITCHBOARD_BIN=FOLDER runs the daemon and the CLI from FOLDER (as deploy/run-sample.sh does),
# SWITCHBOARD_SAMPLE_LABEL names that build in the stage's name.
set -euo pipefail
cd "$(dirname "$0")/.."
source deploy/lib/stages.sh

stage "README's run command: deploy/run-sample.sh${SWITCHBOARD_SAMPLE_LABEL:+ ($SWITCHBOARD_SAMPLE_LABEL)}"
log=$(mktemp)
stage_temporary_files+=("$log")
# Its own process group, so that Ctrl-C reaches the script and the daemon as from a terminal.
setsid bash deploy/run-sample.sh >"$log" 2>&1 &
sample=$!
cleanup() { kill -INT -- -"$sample" 2>/dev/null || true; wait "$sample" 2>/dev/null || true; }
# stages_report exits with the status it is entered with: the script's, not cleanup's.
trap 'status=$?; cleanup; (exit "$status"); stages_report' EXIT

fail() { echo "switchboard run-sample: FAIL: $*" >&2; echo "--- its output:" >&2; tail -30 "$log" >&2; exit 1; }
ok() { echo "  ok    $*"; }
bin=${SWITCHBOARD_BIN:-$(swift build --show-bin-path)}
cli() { "$bin/switchboard" --socket .switchboard/switchboard.sock "$@"; }

for _ in $(seq 600); do
    cli status >/dev/null 2>&1 && break
    kill -0 "$sample" 2>/dev/null || fail "deploy/run-sample.sh exited before the daemon answered"
    sleep 0.5
done
cli status >/dev/null 2>&1 || fail "the daemon did not answer on .switchboard/switchboard.sock within 5 minutes"
port=$(sed -n 's/^switchboard: mosquitto on 127.0.0.1:\([0-9]*\),.*/\1/p' "$log")
[[ -n $port ]] || fail "run-sample.sh did not say which port its broker is on"
ok "the daemon answers on .switchboard/switchboard.sock; the broker is on 127.0.0.1:$port"

# The sample's hosted extension (home-controls) is started by the daemon and lists its controls.
for _ in $(seq 100); do grep -q "extension home: running" "$log" && break; sleep 0.2; done
grep -q "extension home: running" "$log" || fail "the sample's extension (home) did not start and list its controls within 20 s"
[[ $(cli gallery) == *"com.switchboard.example.Sprinkler"* ]] || fail "the gallery has no control of the extension's: $(cli gallery)"
ok "the sample's extension runs and its controls are in the gallery"

password() { cat ".switchboard/broker/$1.password"; }
sub() { # USER TOPIC: the first message on TOPIC, as USER
    mosquitto_sub -h 127.0.0.1 -p "$port" -u "$1" -P "$(password "$1")" -t "$2" -C 1 -W 5 2>&1 || true
}
base=switchboard/garage-pi
for _ in $(seq 50); do [[ $(sub house-admin "$base/status") == online ]] && break; sleep 0.2; done
[[ $(sub house-admin "$base/status") == online ]] || fail "$base/status is not online for house-admin: $(sub house-admin "$base/status")"
ok "the node connected with its own user and password: house-admin reads $base/status online"

anonymous=$(mosquitto_sub -h 127.0.0.1 -p "$port" -t '#' -C 1 -W 3 2>&1 || true)
[[ $anonymous == *"not authorised"* || $anonymous == *"not authorized"* || $anonymous == *"Connection Refused"* ]] ||
    fail "an anonymous client was not refused: $anonymous"
ok "an anonymous client is refused ($anonymous)"

cli on porch >/dev/null || fail "switchboard on porch failed"
[[ $(sub house-admin "$base/controls/porch") == *'"value":true'* ]] || fail "the porch light's presentation is not on: $(sub house-admin "$base/controls/porch")"
ok "switchboard on porch: its retained presentation says on"

mosquitto_pub -h 127.0.0.1 -p "$port" -u homeassistant -P "$(password homeassistant)" -t "$base/lock/set" -m LOCK
sleep 1
[[ $(cli status | head -1) == "node garage-pi, unlocked" ]] || fail "homeassistant locked the node, which the shipped ACL does not allow: $(cli status | head -1)"
ok "homeassistant may not lock the node (the shipped ACL): still unlocked"
mosquitto_pub -h 127.0.0.1 -p "$port" -u house-admin -P "$(password house-admin)" -t "$base/lock/set" -m LOCK
for _ in $(seq 25); do [[ $(cli status | head -1) == "node garage-pi, locked" ]] && break; sleep 0.2; done
[[ $(cli status | head -1) == "node garage-pi, locked" ]] || fail "house-admin could not lock the node: $(cli status | head -1)"
cli unlock >/dev/null
ok "house-admin may: locked, then unlocked from the CLI"

kill -INT -- -"$sample"
status=0
wait "$sample" || status=$?
grep -q "switchboardd stopped" "$log" || fail "the daemon did not say it stopped (run-sample.sh exited $status)"
((status == 0)) || fail "run-sample.sh exited $status after Ctrl-C; expected 0, as the daemon stops cleanly"
stopping=$(sed -n '/switchboardd stopping/,$p' "$log")
grep -q "^error:" <<<"$stopping" && fail "errors while stopping (its extension is stopped by the daemon, not by Ctrl-C): $stopping"
(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && fail "the broker still listens on $port after Ctrl-C"
ok "Ctrl-C stops the daemon cleanly (exit 0, no error while stopping) and the broker with it"
trap stages_report EXIT
