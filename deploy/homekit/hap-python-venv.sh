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
source "$here/../lib/pypi-venv.sh"
version=5.0.0
(($# == 0)) || { echo "usage: $0" >&2; exit 2; }

pypi_venv "${SWITCHBOARD_HAP_PYTHON_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/switchboard/hap/hap-python}" \
    "HAP-python==$version" pyhap.accessory_driver
