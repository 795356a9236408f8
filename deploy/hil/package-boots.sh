# The boots of the package lifecycle test (deploy/hil/package-guest.sh), for any VM that boots a
# Debian root with systemd as PID 1; sourced by deploy/hil/systemd-test.sh (amd64). The VM must
# follow systemd-test.sh's layout: a folder of the host (the "share") mounted read-write at
# /mnt/switchboard-hil, its switchboard-hil.service installed and enabled in the guest before
# systemd starts (it runs /mnt/switchboard-hil/guest.sh after multi-user.target), the phase on the
# kernel command line as switchboard.phase=PHASE, a gpio-sim chip labelled pinctrl-rp1 with 54
# lines, and a disk that keeps the root's changes from one boot to the next. No network is needed.
#
#   source deploy/hil/package-boots.sh
#   package_previous NEW.deb DIR           # NEW.deb with a lower version (V~previous), in DIR
#   package_share SHARE OLD.deb NEW.deb    # the guest script, the two packages, the unit, results/
#   package_boots RELEASE BOOT             # BOOT RELEASE-install, then BOOT RELEASE-upgrade
#   package_results SHARE                  # the PASS, FAIL and INFO lines of both boots
#
# BOOT is the name of a command that boots the VM once with the given phase, waits for it to end
# (the guest reboots or powers off itself; the VM must not restart), and fails when
# SHARE/results/PHASE.done is missing (the guest did not finish its checks).
package_boots_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The check unit (systemd_vm_check_unit).
source "$package_boots_here/systemd-vm.sh"

# package_previous NEW DIR: the package NEW, its version lowered to V~previous (before the release
# suffix: 0.1.0+git…+deb13 becomes 0.1.0+git…~previous+deb13), made in DIR; prints its path. It
# stands for the build before this one: the same files and maintainer scripts, so an upgrade from
# it to NEW runs NEW's upgrade path (postinst configure with the old version, conffiles kept).
# Repacked with fast compression: it is installed once and thrown away.
package_previous() {
    local new=$1 dir=$2 version base tree previous
    version=$(dpkg-deb -f "$new" Version) || return 1
    base=${version%+deb*}
    previous=$base~previous${version#"$base"}
    tree=$(mktemp -d)
    dpkg-deb -R "$new" "$tree/package" || { rm -rf "$tree"; return 1; }
    sed -i "s/^Version: .*/Version: $previous/" "$tree/package/DEBIAN/control"
    mkdir -p "$dir"
    dpkg-deb --root-owner-group -Zgzip -z1 -b "$tree/package" "$dir/switchboard_${previous}_$(dpkg-deb -f "$new" Architecture).deb" >/dev/null ||
        { rm -rf "$tree"; return 1; }
    rm -rf "$tree"
    echo "$dir/switchboard_${previous}_$(dpkg-deb -f "$new" Architecture).deb"
}

# package_share SHARE OLD NEW: a fresh share for one release's pair of packages.
package_share() {
    local share=$1 old=$2 new=$3 deb
    for deb in "$old" "$new"; do
        [[ -f $deb ]] || { echo "package_share: no package at \"$deb\"" >&2; return 1; }
    done
    rm -rf "$share"
    mkdir -p "$share/debs" "$share/results"
    cp "$package_boots_here/package-guest.sh" "$share/guest.sh"
    cp "$package_boots_here/guest-checks.sh" "$share/guest-checks.sh"
    # Readable by apt's unprivileged download user, as a .deb copied into a home folder would be.
    cp "$old" "$share/debs/old.deb" && basename "$old" >"$share/debs/old.name"
    cp "$new" "$share/debs/new.deb" && basename "$new" >"$share/debs/new.name"
    chmod -R a+rX "$share"
    systemd_vm_check_unit "Switchboard package lifecycle checks" >"$share/switchboard-hil.service"
}

# package_boots RELEASE BOOT: the install boot, then (when it finished) the upgrade boot.
package_boots() {
    local release=$1 boot=$2
    "$boot" "$release-install" || return 1
    "$boot" "$release-upgrade"
}

# package_results SHARE: what the guest reported, in the order of the boots.
package_results() {
    local share=$1 log
    for log in "$share"/results/*-install.log "$share"/results/*-upgrade.log; do
        [[ -f $log ]] && grep -h -E '^(PASS|FAIL|INFO)' "$log"
    done
    return 0
}
