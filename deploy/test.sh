#!/usr/bin/env bash
# Sets up and runs every Switchboard test on Debian or Raspberry Pi OS with the Swift toolchain:
# installs the system packages the build and the tests need, builds with warnings as errors,
# runs the whole suite, then the hardware-in-the-loop stage (the kernel GPIO tests in a qemu VM
# with gpio-sim; see deploy/hil/test.sh), the parsers under libFuzzer for a bounded time
# (deploy/fuzz.sh, FUZZ_SECONDS, default 60) and the suite again under AddressSanitizer and
# ThreadSanitizer (deploy/sanitizers.sh). Arguments go to the first `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."

source deploy/lib/packages.sh
ensure_packages pkg-config libgpiod-dev gpiod libmosquitto-dev mosquitto mosquitto-clients openssl python3 python3-jsonschema

# devices.schema.json is checked with Python's jsonschema.
python3 -c 'import jsonschema' 2>/dev/null || python3 -m pip install --quiet jsonschema

swift build --build-tests -Xswiftc -warnings-as-errors
# The kernel GPIO tests need gpio-sim: they run in the VM below, not here.
swift test --skip-build --skip 'SwitchboardHILTests\.Kernel' "$@"
bash deploy/hil/test.sh
bash deploy/fuzz.sh "${FUZZ_SECONDS:-60}"
bash deploy/sanitizers.sh
