#!/usr/bin/env bash
# Makes (or finds) a Python venv with aiohomekit from PyPI, the HomeKit controller library of Home
# Assistant's HomeKit Controller integration, and prints its python. SwitchboardHomeKitTests'
# AiohomekitPairingTests pair it with the accessory's pairing state machines (they look for this
# venv, or for SWITCHBOARD_AIOHOMEKIT_PYTHON).
#
#   deploy/homekit/aiohomekit-venv.sh
#
# Cached in SWITCHBOARD_AIOHOMEKIT_CACHE (default ~/.cache/switchboard/hap/aiohomekit); a second
# run prints the cached python at once. Needs python3-venv and the network the first time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/packages.sh"
version=4.0.1
venv=${SWITCHBOARD_AIOHOMEKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/switchboard/hap/aiohomekit}
if [[ -f $venv/.switchboard-ready-$version ]]; then echo "$venv/bin/python"; exit 0; fi
python3 -m venv --help >/dev/null 2>&1 && python3 -c 'import ensurepip' 2>/dev/null || ensure_packages python3-venv >&2
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
echo "switchboard: installing aiohomekit $version into $venv" >&2
python3 -m venv "$venv"
PIP_DISABLE_PIP_VERSION_CHECK=1 "$venv/bin/python" -m pip install --no-cache-dir --quiet "aiohomekit==$version" >&2
touch "$venv/.switchboard-ready-$version"
echo "$venv/bin/python"
