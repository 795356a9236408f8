#!/usr/bin/env bash
# Installs Switchboard on Raspberry Pi OS or Debian: builds in release mode, installs the
# binaries, puts devices.json in /etc/switchboard (keeping one that is there), creates the
# service user and groups, installs the udev rule where the distribution has none, and enables
# the systemd unit. Run from the repository as a user who can sudo. The packages are the same on
# Bookworm (Debian 12) and Trixie (Debian 13) but for libgpiod's runtime library, `libgpiod2`
# (1.6) or `libgpiod3` (2.x), which deploy/lib/packages.sh picks.
set -euo pipefail
cd "$(dirname "$0")/.."
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"

source deploy/lib/packages.sh
echo "switchboard: build and runtime packages: ${switchboard_build_packages[*]} ${switchboard_runtime_packages[*]}"
ensure_packages "${switchboard_build_packages[@]}" "${switchboard_runtime_packages[@]}"

echo "switchboard: building (release)"
# The Swift runtime linked in: about 3 MiB less resident memory than the shared libraries.
swift build -c release --static-swift-stdlib --product switchboardd
swift build -c release --static-swift-stdlib --product switchboard
bin="$(swift build -c release --static-swift-stdlib --show-bin-path)"
$sudo install -m 755 "$bin/switchboardd" "$bin/switchboard" /usr/local/bin/

echo "switchboard: service user and groups"
$sudo groupadd -f gpio
getent passwd switchboard >/dev/null || $sudo useradd --system --no-create-home --home-dir /var/lib/switchboard --shell /usr/sbin/nologin --user-group switchboard
$sudo usermod -aG gpio switchboard
if [ ! -e /etc/udev/rules.d/99-com.rules ] && ! grep -rqs 'gpiochip' /etc/udev/rules.d /lib/udev/rules.d; then
    $sudo install -m 644 deploy/99-switchboard-gpio.rules /etc/udev/rules.d/
    $sudo udevadm control --reload && $sudo udevadm trigger --subsystem-match=gpio || true
fi

echo "switchboard: configuration"
$sudo install -d -m 750 -o root -g switchboard /etc/switchboard
if [ ! -e /etc/switchboard/devices.json ]; then
    $sudo install -m 640 -o root -g switchboard devices.json /etc/switchboard/devices.json
    $sudo install -m 644 devices.schema.json /etc/switchboard/devices.schema.json
fi
/usr/local/bin/switchboard check /etc/switchboard/devices.json || {
    echo "switchboard: fix /etc/switchboard/devices.json (see above), then: sudo systemctl restart switchboardd"
}
$sudo install -d /usr/local/share/doc/switchboard
$sudo install -m 644 README.md /usr/local/share/doc/switchboard/README.md

echo "switchboard: systemd unit"
$sudo install -m 644 deploy/switchboardd.service /etc/systemd/system/switchboardd.service
$sudo systemctl daemon-reload
$sudo systemctl enable --now switchboardd
echo "switchboard: installed. Add yourself to the switchboard group to use the CLI: sudo usermod -aG switchboard \$USER"
