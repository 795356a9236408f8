#!/usr/bin/env bash
# Sets up and runs every Switchboard test on Debian or Raspberry Pi OS with the Swift toolchain:
# installs the system packages the build and the tests need, builds with warnings as errors,
# and runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."

source deploy/lib/packages.sh
ensure_packages pkg-config libgpiod-dev gpiod libmosquitto-dev mosquitto mosquitto-clients openssl python3 python3-jsonschema

# devices.schema.json is checked with Python's jsonschema.
python3 -c 'import jsonschema' 2>/dev/null || python3 -m pip install --quiet jsonschema

swift build --build-tests -Xswiftc -warnings-as-errors
swift test --skip-build "$@"
