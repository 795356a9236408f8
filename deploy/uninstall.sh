#!/usr/bin/env bash
# Removes what deploy/install.sh installed: stops and disables the units (switchboardd.service,
# switchboard-extension.socket and its instances), and removes the units,
# the binaries, the extensions in /usr/local/libexec/switchboard, the udev rule it installed and
# the documentation. The configuration (/etc/switchboard, devices.json) and the state
# (/var/lib/switchboard: outputs, placements, the lock) are kept, so that installing again picks
# up where it left off, unless --purge is given: then they go too, with the service user and its
# group (the gpio group stays: other programs use it).
#
#   deploy/uninstall.sh            # remove Switchboard, keep devices.json and the state
#   deploy/uninstall.sh --purge    # remove those too
set -euo pipefail
purge=0
case ${1:-} in
    "") ;;
    --purge) purge=1 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "uninstall.sh: unknown argument \"$1\" (--purge, or none)" >&2; exit 2 ;;
esac
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"

echo "switchboard: stopping and disabling switchboardd"
if [ -e /etc/systemd/system/switchboardd.service ]; then
    # Stopping the unit stops the daemon cleanly: outputs are left as their onShutdown says.
    $sudo systemctl disable --now switchboardd.service || true
    $sudo rm -f /etc/systemd/system/switchboardd.service
    $sudo systemctl daemon-reload
    $sudo systemctl reset-failed switchboardd.service 2>/dev/null || true
fi
if [ -e /etc/systemd/system/switchboard-extension.socket ]; then
    # The daemon is gone, so no extension runs; any instance left is stopped with the socket.
    $sudo systemctl disable --now switchboard-extension.socket || true
    $sudo systemctl stop 'switchboard-extension@*.service' 2>/dev/null || true
    $sudo rm -f /etc/systemd/system/switchboard-extension.socket /etc/systemd/system/switchboard-extension@.service
    $sudo systemctl daemon-reload
fi

echo "switchboard: removing the programs, extensions, udev rule and documentation"
$sudo rm -f /usr/local/bin/switchboardd /usr/local/bin/switchboard /usr/local/libexec/switchboard-extension-launcher
$sudo rm -rf /usr/local/libexec/switchboard /usr/local/share/doc/switchboard
if [ -e /etc/udev/rules.d/99-switchboard-gpio.rules ]; then
    $sudo rm -f /etc/udev/rules.d/99-switchboard-gpio.rules
    $sudo udevadm control --reload 2>/dev/null || true
fi

if ((purge)); then
    echo "switchboard: removing /etc/switchboard, /var/lib/switchboard and the switchboard user"
    $sudo rm -rf /etc/switchboard /var/lib/switchboard
    if getent passwd switchboard >/dev/null; then $sudo userdel switchboard; fi
    if getent group switchboard >/dev/null; then $sudo groupdel switchboard; fi
    echo "switchboard: removed, with its configuration and state"
else
    echo "switchboard: removed; kept /etc/switchboard (devices.json) and /var/lib/switchboard (state): deploy/uninstall.sh --purge removes them"
fi
