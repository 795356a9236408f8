#!/usr/bin/env bash
# Prints, on one line, the distribution and the versions of Swift, libgpiod and mosquitto a build
# and test run here uses: `bash deploy/lib/versions.sh [LABEL]`. Run by deploy/test.sh on the
# machine and by deploy/debian13/test.sh inside the Debian 13 root.
set -euo pipefail
label=${1:-switchboard}
distribution=$(. /etc/os-release && echo "${PRETTY_NAME:-unknown}")
swift=$(swift --version 2>/dev/null | sed -n 's/.*Swift version \([^ ]*\).*/\1/p' | head -1)
gpiod=$(pkg-config --modversion libgpiod 2>/dev/null || echo missing)
gpiod_runtime=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' 'libgpiod[0-9]*' 2>/dev/null | awk '$1 == "ii" { print $2 }' | paste -sd ' ' || true)
libmosquitto=$(pkg-config --modversion libmosquitto 2>/dev/null || echo missing)
broker=$( { mosquitto -h 2>&1 || true; } | sed -n 's/^mosquitto version \([^ ]*\).*/\1/p' | head -1)
echo "$label: $distribution: Swift ${swift:-missing}, libgpiod $gpiod${gpiod_runtime:+ ($gpiod_runtime)}, libmosquitto $libmosquitto, mosquitto ${broker:-missing}"
