#!/usr/bin/env bash
# Makes (or finds) a Python venv with HAP-python from PyPI, the Python HomeKit accessory server, and
# prints its python. `switchboard-bench homekit` serves the same Switch with it beside switchboardd
# (Tests/Fixtures/HomeKit/hap-python-switch.py), to compare the two through the same controller.
#
#   deploy/homekit/hap-python-venv.sh
#
# Cached in SWITCHBOARD_HAP_PYTHON_CACHE (default ~/.cache/switchboard/hap/hap-python); a second
# run prints the cached python at once. Needs python3-venv and the network the first time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/packages.sh"
version=5.0.0
(($# == 0)) || { echo "usage: $0" >&2; exit 2; }

venv=${SWITCHBOARD_HAP_PYTHON_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/switchboard/hap/hap-python}
if [[ -f $venv/.switchboard-ready-$version ]]; then echo "$venv/bin/python"; exit 0; fi
python3 -m venv --help >/dev/null 2>&1 && python3 -c 'import ensurepip' 2>/dev/null || ensure_packages python3-venv >&2
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
echo "switchboard: installing HAP-python $version into $venv" >&2
python3 -m venv "$venv"
# The venv's pip trusts its own certificates, not the machine's: give it the machine's bundle
# (which may hold a proxy's CA), as aiohomekit-venv.sh does.
certificates=()
[[ -f /etc/ssl/certs/ca-certificates.crt ]] && certificates=(PIP_CERT=/etc/ssl/certs/ca-certificates.crt)
env "${certificates[@]}" PIP_DISABLE_PIP_VERSION_CHECK=1 "$venv/bin/python" -m pip install --no-cache-dir --quiet "HAP-python==$version" >&2
"$venv/bin/python" -c 'import pyhap.accessory_driver' >&2
touch "$venv/.switchboard-ready-$version"
echo "$venv/bin/python"
