#!/usr/bin/env bash
# Makes (or finds) a Python venv with aiohomekit from PyPI, the HomeKit controller library of Home
# Assistant's HomeKit Controller integration, and prints its python. SwitchboardHomeKitTests'
# AiohomekitPairingTests pair it with the accessory's pairing state machines (they look for this
# venv, or for SWITCHBOARD_AIOHOMEKIT_PYTHON).
#
#   deploy/homekit/aiohomekit-venv.sh          # on this machine
#   deploy/homekit/aiohomekit-venv.sh ROOT     # inside a Debian 13 root of deploy/debian13/root.sh
#
# On this machine: cached in SWITCHBOARD_AIOHOMEKIT_CACHE (default ~/.cache/switchboard/hap/aiohomekit);
# a second run prints the cached python at once. Needs python3-venv and the network the first time.
# With ROOT: the venv runs on the root's own Python 3.13 and is cached in the root as
# /root/.cache/switchboard/aiohomekit-<version>-<key of this script> (older ones are removed); the
# python printed is its path as seen inside the root, for SWITCHBOARD_AIOHOMEKIT_PYTHON there
# (deploy/debian13/test.sh passes it). Needs root (chroot).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/packages.sh"
source "$here/../lib/pypi-venv.sh"
version=4.0.1
(($# <= 1)) || { echo "usage: $0 [ROOT]" >&2; exit 2; }

if (($# == 0)); then
    pypi_venv "${SWITCHBOARD_AIOHOMEKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/switchboard/hap/aiohomekit}" \
        "aiohomekit==$version" aiohomekit.controller.ip.connection
    exit 0
fi

cd "$here/../.." # deploy/debian13/run.sh runs commands from a folder of the repository
root=$(realpath -e "$1")
key=$(sha256sum "$0" | cut -c1-16)
cache=/root/.cache/switchboard
venv=$cache/aiohomekit-$version-$key
if [[ -f $root$venv/.switchboard-ready ]]; then echo "$venv/bin/python"; exit 0; fi
in_root() { "$here/../debian13/run.sh" "$@"; }
mkdir -p "$root$cache"
exec 9>"$root$cache/aiohomekit.lock"
flock 9
if [[ -f $root$venv/.switchboard-ready ]]; then echo "$venv/bin/python"; exit 0; fi
echo "switchboard: installing aiohomekit $version into $root$venv" >&2
rm -rf "$root$venv"
mkdir -p "$root$venv"
log=$root$venv.log
# pip checks PyPI's certificate against the machine's CA bundle (which may hold a proxy's CA that
# the root's bundle lacks), as deploy/homeassistant/venv.sh does.
pip_environment=(-e PIP_DISABLE_PIP_VERSION_CHECK=1 -e "PIP_DEFAULT_TIMEOUT=${PIP_DEFAULT_TIMEOUT:-60}")
if [[ -f /etc/ssl/certs/ca-certificates.crt ]]; then
    cp /etc/ssl/certs/ca-certificates.crt "$root$venv.ca.crt"
    pip_environment+=(-e "PIP_CERT=$venv.ca.crt" -e "SSL_CERT_FILE=$venv.ca.crt")
fi
in_root -e DEBIAN_FRONTEND=noninteractive "$root" sh -c \
    'dpkg-query -W -f="\${Status}" python3-venv 2>/dev/null | grep -q "install ok installed" ||
     { apt-get update -qq && apt-get install -y -qq --no-install-recommends python3-venv; }' >"$log" 2>&1 ||
    { tail -20 "$log" >&2; exit 1; }
in_root "${pip_environment[@]}" "$root" sh -c "
    python3 -m venv '$venv' &&
    '$venv/bin/python' -m pip install --no-cache-dir --quiet 'aiohomekit==$version' &&
    '$venv/bin/python' -c 'import aiohomekit.controller.ip.connection'" >>"$log" 2>&1 ||
    { tail -30 "$log" >&2; exit 1; }
touch "$root$venv/.switchboard-ready"
# Older venvs (another version, or an older key of this script) are superseded.
for old in "$root$cache"/aiohomekit-*; do
    [[ $old == "$root$venv" || $old == "$root$venv".* || $old == "$root$cache/aiohomekit.lock" ]] || rm -rf "$old"
done
echo "switchboard: aiohomekit $version ready in $root$venv" >&2
echo "$venv/bin/python"
