#!/usr/bin/env bash
# Sets up and runs every Switchboard test on Debian or Raspberry Pi OS with the Swift toolchain:
# installs the system packages the build and the tests need, builds with warnings as errors,
# and runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(pkg-config libgpiod-dev gpiod libmosquitto-dev mosquitto mosquitto-clients python3 python3-jsonschema)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
    echo "switchboard: installing ${missing[*]}"
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# devices.schema.json is checked with Python's jsonschema.
python3 -c 'import jsonschema' 2>/dev/null || python3 -m pip install --quiet jsonschema

swift build --build-tests -Xswiftc -warnings-as-errors
swift test --skip-build "$@"
