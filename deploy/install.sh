#!/usr/bin/env bash
# Installs Switchboard on Raspberry Pi OS or Debian: builds in release mode, installs the
# binaries, puts devices.json in /etc/switchboard (keeping one that is there), creates the
# service user and groups, installs the udev rule where the distribution has none, and enables
# the systemd units (switchboardd.service, and switchboard-extension.socket with its template
# switchboard-extension@.service, which runs each control extension in a sandbox of its own).
# Run from the repository as a user who can sudo.
#
#   deploy/install.sh                  # build here (release), then install
#   deploy/install.sh --prebuilt DIR   # install switchboardd, switchboard and
#                                      # switchboard-extension-launcher from DIR instead of
#                                      # building (binaries built for this release elsewhere, e.g.
#                                      # `swift build -c release --static-swift-stdlib` in a root
#                                      # of the same Debian release); SWITCHBOARD_PREBUILT=DIR too
#
# Packages are installed only when missing (apt is not asked when everything is there, so an
# offline machine that has them installs fine): the runtime libraries of the release (libgpiod3
# on Debian 13 / Raspberry Pi OS Trixie, libgpiod2 on Debian 12 / Bookworm, libmosquitto1) and,
# when building, the development packages (with the C++ library's, for the static link).
set -euo pipefail
cd "$(dirname "$0")/.."
source deploy/lib/packages.sh
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"

prebuilt=${SWITCHBOARD_PREBUILT:-}
while (($#)); do
    case $1 in
        --prebuilt) [[ -n ${2:-} ]] || { echo "install.sh: --prebuilt needs a folder" >&2; exit 2; }; prebuilt=$2; shift 2 ;;
        --prebuilt=*) prebuilt=${1#--prebuilt=}; shift ;;
        -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
        *) echo "install.sh: unknown argument \"$1\" (see --help)" >&2; exit 2 ;;
    esac
done
if [[ -n $prebuilt ]]; then
    for binary in switchboardd switchboard switchboard-extension-launcher; do
        [[ -x $prebuilt/$binary ]] || { echo "install.sh: no executable $binary in $prebuilt (--prebuilt)" >&2; exit 1; }
    done
fi

# libgpiod's shared library is libgpiod.so.3 (libgpiod 2.x) from Debian 13 on, libgpiod.so.2
# (libgpiod 1.6) before: deploy/lib/packages.sh names the release's packages.
runtime_packages=("${switchboard_runtime_packages[@]}")

if [[ -n $prebuilt ]]; then
    echo "switchboard: runtime packages (${runtime_packages[*]})"
    ensure_packages "${runtime_packages[@]}"
    bin=$prebuilt
else
    echo "switchboard: build and runtime packages"
    # The static Swift runtime links libstdc++ (`-lstdc++`), whose development files Debian's
    # swiftlang does not pull in: without them the link fails with "cannot find -lstdc++".
    ensure_packages "${switchboard_build_packages[@]}" "$(libstdcxx_dev_package)" "${runtime_packages[@]}"
    command -v swift >/dev/null || {
        echo "switchboard: no swift on the PATH: install Swift 6 (Debian 13: apt-get install swiftlang; see the README), or give --prebuilt DIR" >&2
        exit 1
    }
    echo "switchboard: building (release)"
    # The Swift runtime linked in: about 3 MiB less resident memory than the shared libraries.
    build=(swift build -c release --static-swift-stdlib)
    # On arm64, GNU ld puts the compiler's writable .rodata next to the code and makes one RWX
    # segment of the whole program; separate-code keeps the code read-only (docs/arm64.md).
    [[ $(uname -m) == aarch64 ]] && build+=(-Xlinker -z -Xlinker separate-code)
    "${build[@]}" --product switchboardd
    "${build[@]}" --product switchboard
    "${build[@]}" --product switchboard-extension-launcher
    "${build[@]}" --product home-controls
    bin="$("${build[@]}" --show-bin-path)"
fi
$sudo install -m 755 "$bin/switchboardd" "$bin/switchboard" /usr/local/bin/
# The main process of each switchboard-extension@.service instance (not itself an extension).
$sudo install -d -m 755 /usr/local/libexec
$sudo install -m 755 "$bin/switchboard-extension-launcher" /usr/local/libexec/
# Control extensions go where switchboardd looks for a bare "executable" name in devices.json.
if [[ -x $bin/home-controls ]]; then
    $sudo install -d -m 755 /usr/local/libexec/switchboard
    $sudo install -m 755 "$bin/home-controls" /usr/local/libexec/switchboard/
else
    echo "switchboard: no home-controls in $bin: the sample's example extension will say it cannot start (switchboard status)"
fi

echo "switchboard: service user and groups"
$sudo groupadd -f --system gpio
getent passwd switchboard >/dev/null || $sudo useradd --system --no-create-home --home-dir /var/lib/switchboard --shell /usr/sbin/nologin --user-group switchboard
$sudo usermod -aG gpio switchboard
if [ ! -e /etc/udev/rules.d/99-com.rules ] && ! grep -rqs 'gpiochip' /etc/udev/rules.d /lib/udev/rules.d; then
    $sudo install -m 644 deploy/99-switchboard-gpio.rules /etc/udev/rules.d/
    # The chips must be the gpio group's before the service starts below.
    { $sudo udevadm control --reload && $sudo udevadm trigger --subsystem-match=gpio --action=change && $sudo udevadm settle --timeout=30; } || true
fi

echo "switchboard: configuration"
$sudo install -d -m 750 -o root -g switchboard /etc/switchboard
if [ ! -e /etc/switchboard/devices.json ]; then
    $sudo install -m 640 -o root -g switchboard devices.json /etc/switchboard/devices.json
    $sudo install -m 644 devices.schema.json /etc/switchboard/devices.schema.json
fi
# As root: /etc/switchboard is readable by root and the switchboard group only.
$sudo /usr/local/bin/switchboard check /etc/switchboard/devices.json || {
    echo "switchboard: fix /etc/switchboard/devices.json (see above), then: sudo systemctl restart switchboardd"
}
$sudo install -d /usr/local/share/doc/switchboard
$sudo install -m 644 README.md /usr/local/share/doc/switchboard/README.md
$sudo install -d /usr/local/share/doc/switchboard/docs
$sudo install -m 644 docs/*.md /usr/local/share/doc/switchboard/docs/

echo "switchboard: systemd units"
$sudo install -m 644 deploy/switchboardd.service deploy/switchboard-extension.socket deploy/switchboard-extension@.service /etc/systemd/system/
$sudo systemctl daemon-reload
# The extensions' socket first: switchboardd connects to it for each extension it starts.
$sudo systemctl enable --now switchboard-extension.socket
$sudo systemctl enable switchboardd
# A daemon already running (a reinstall) restarts with the new binaries and units.
$sudo systemctl restart switchboardd
echo "switchboard: installed. Add yourself to the switchboard group to use the CLI: sudo usermod -aG switchboard \$USER"
