#!/usr/bin/env bash
# The systemd stage: deploy/install.sh and deploy/switchboardd.service, run for real. Boots the
# Debian 13 root (deploy/debian13/root.sh) under qemu with systemd as PID 1, on a kernel with
# cgroup v2, namespaces, seccomp and BPF (deploy/hil/build-kernel.sh deploy/hil/kernel-systemd.config),
# with a gpio-sim chip impersonating a Raspberry Pi 5 header (gpiochip0, label pinctrl-rp1,
# 54 lines GPIO0…GPIO53) made by the initramfs before systemd starts. Inside, a test unit runs
# deploy/hil/systemd-guest.sh after multi-user.target:
#   boot 1: install.sh --prebuilt (user, groups, udev rule, /etc/switchboard, unit enabled and
#           started), READY under the hardening options, the CLI for a member of the switchboard
#           group and not for others, the sample's extension in a switchboard-extension@ instance
#           (own dynamic user, cgroup, limits), a hostile extension (deploy/hil/hostile-extension)
#           whose every way out fails while its controls work, the watchdog restarting a stopped
#           daemon, the journal, systemd-analyze security of both units; switches the porch light
#           on, then `systemctl reboot`
#   boot 2: on the same disk, the service came up by itself and restored the porch light.
#   boots cut1…cutN (HIL_POWER_CUTS, default 3): the daemon adds placements as fast as the CLI
#           goes, and the host kills qemu (a power cut) 1–3 s into the burst; each next boot
#           checks that the state parsed and that the placements kept are a prefix of the ones
#           acknowledged (results in cuts.txt: acknowledged and kept per cut).
#   final:  checks the last cut, then uninstall.sh and --purge.
# Then the Debian packages, as apt installs them (deploy/hil/package-boots.sh,
# deploy/hil/package-guest.sh), in Debian 13 (the same root) and in Debian 12 (a root of its own,
# deploy/hil/systemd-root.sh bookworm), each on a fresh disk:
#   RELEASE-install: `apt-get install ./switchboard_OLD.deb` with no network; users, groups, udev
#           rule, the unit enabled and READY under its hardening, the CLI, a gpio-sim line, a
#           state change and a local edit to devices.json; then `systemctl reboot`
#   RELEASE-upgrade: the unit came up by itself; `apt-get install ./switchboard_NEW.deb` keeps the
#           edit and the state and restarts the daemon; `apt-get remove` keeps configuration and
#           state; `apt-get purge` removes them.
# The cached root stays untouched: the guest's root is an overlay whose upper layer lives on a
# throw-away ext4 image (a virtio disk), which is what carries the installation and the state
# from the first boot to the second.
#
# The binaries are release builds made inside the Debian 13 root (against its libgpiod 2.x), in
# .build-debian13-release; SWITCHBOARD_PREBUILT=DIR uses switchboardd, switchboard,
# switchboard-extension-launcher and home-controls from DIR instead. Prints one PASS or FAIL line per check and exits non-zero on any failure.
#
#   deploy/hil/systemd-test.sh
# Env: HIL_SYSTEMD_KERNEL (a kernel image; default: built and cached by build-kernel.sh),
#      SWITCHBOARD_PREBUILT, HIL_TIMEOUT (seconds per boot, default 600), HIL_ACCEL (tcg or kvm),
#      HIL_POWER_CUTS (default 3),
#      HIL_KEEP=1 to keep the run folder (console logs, disk image), SWITCHBOARD_HIL_CACHE,
#      SWITCHBOARD_DEBS_TRIXIE and SWITCHBOARD_DEBS_BOOKWORM ("OLD.deb NEW.deb": the packages for the
#      package boots), SWITCHBOARD_DEB_DIR (where earlier stages left this tree's packages), HIL_ONLY=packages (the package boots only: no release build, no install.sh),
#      HIL_PACKAGE_RELEASES (default "trixie bookworm").
# Runs as root (through sudo otherwise): it mounts an overlay of the root and chroots into it.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
source deploy/lib/packages.sh
started=$(date +%s)

say() { echo "switchboard systemd: $*"; }
[[ $(uname -m) == x86_64 ]] || { say "SKIPPED: the VM boots an x86_64 root; this machine is $(uname -m)"; exit 0; }
# Root: it mounts an overlay of the Debian 13 root to build in, and chroots into it.
if [[ $(id -u) != 0 ]]; then
    command -v sudo >/dev/null || { say "must run as root (mounts and chroot into the Debian 13 root)" >&2; exit 1; }
    exec sudo --preserve-env=SWITCHBOARD_PREBUILT,HIL_SYSTEMD_KERNEL,HIL_TIMEOUT,HIL_ACCEL,HIL_KEEP,HIL_POWER_CUTS,SWITCHBOARD_HIL_CACHE,SWITCHBOARD_DEBIAN13_CACHE,SWITCHBOARD_SYSTEMD_ROOT_CACHE,SWITCHBOARD_DEBS_TRIXIE,SWITCHBOARD_DEBS_BOOKWORM,SWITCHBOARD_DEB_DIR,HIL_ONLY,HIL_PACKAGE_RELEASES "$0" "$@"
fi
ensure_packages qemu-system-x86 busybox-static e2fsprogs cpio >&2
source deploy/hil/systemd-vm.sh
cache=${SWITCHBOARD_HIL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/switchboard/hil}
mkdir -p "$cache"

# --- the Debian 13 root and the kernel (both cached) ---------------------------------------
root=$(deploy/debian13/root.sh)
kernel=${HIL_SYSTEMD_KERNEL:-$(deploy/hil/build-kernel.sh deploy/hil/kernel-systemd.config)}
[[ -f $kernel ]] || { say "no kernel image at $kernel" >&2; exit 1; }
say "root $root"
say "kernel $kernel"

run=$(mktemp -d /var/tmp/switchboard-systemd.XXXXXX)
qemu=
cleanup() {
    [[ -n $qemu ]] && { pkill -KILL -P "$qemu"; kill -KILL "$qemu"; } 2>/dev/null
    if [[ ${HIL_KEEP:-0} == 1 ]]; then say "kept $run" >&2; else rm -rf "$run"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- the binaries: a release build inside the root (an overlay of it: the cache stays pristine) -
mkdir -p "$run/share/bin" "$run/share/results"
only=${HIL_ONLY:-}
[[ -z $only || $only == packages ]] || { say "HIL_ONLY is \"packages\" or empty, not \"$only\"" >&2; exit 2; }
if [[ $only == packages ]]; then
    say "the package boots only (HIL_ONLY=packages)"
elif [[ -n ${SWITCHBOARD_PREBUILT:-} ]]; then
    bin=$SWITCHBOARD_PREBUILT
    say "binaries from $bin (SWITCHBOARD_PREBUILT)"
else
    build_started=$(date +%s)
    say "building the release binaries in the Debian 13 root (.build-debian13-release)"
    mkdir -p "$run/build/upper" "$run/build/work" "$run/build/root"
    # In a private mount namespace: the overlay and the binds vanish with it, even after kill -9.
    if ! unshare --mount --propagation private bash -euc '
        root=$1 build=$2 repo=$3
        mount -t overlay none -o "lowerdir=$root,upperdir=$build/upper,workdir=$build/work" "$build/root"
        for fs in /proc /sys /dev "$repo"; do mkdir -p "$build/root$fs" && mount --bind "$fs" "$build/root$fs"; done
        swift=(swift build -c release --static-swift-stdlib --scratch-path .build-debian13-release)
        chroot "$build/root" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 \
            sh -c "cd \"\$1\" && shift && \"\$@\" --product switchboardd && \"\$@\" --product switchboard && \"\$@\" --product switchboard-extension-launcher && \"\$@\" --product home-controls" sh "$repo" "${swift[@]}"
        ' _ "$root" "$run/build" "$repo" >"$run/build.log" 2>&1; then
        tail -40 "$run/build.log" >&2
        say "FAIL: release build in the Debian 13 root (log above)"
        exit 1
    fi
    rm -rf "$run/build"
    bin=$repo/.build-debian13-release/release
    say "built in $(($(date +%s) - build_started))s"
fi
for binary in switchboardd switchboard switchboard-extension-launcher home-controls; do
    [[ $only == packages ]] && break
    [[ -x $bin/$binary ]] || { say "no $binary in $bin" >&2; exit 1; }
    cp "$bin/$binary" "$run/share/bin/"
done
cp deploy/hil/systemd-guest.sh "$run/share/guest.sh"
cp deploy/hil/guest-checks.sh "$run/share/guest-checks.sh"
cp deploy/hil/hostile-extension "$run/share/hostile-extension"

systemd_vm_check_unit "Switchboard systemd HIL checks" >"$run/share/switchboard-hil.service"

# --- the initramfs: overlay root, gpio-sim Pi 5 header, switch_root into systemd --------------
initramfs=$(systemd_vm_initramfs /bin/busybox systemd)

# --- the persistent disk: holds the overlay's upper layer across the reboot ---------------------
truncate -s 2G "$run/disk.img"
mkfs.ext4 -q -F -m 0 -L switchboard-hil "$run/disk.img"

accel=${HIL_ACCEL:-}
if [[ -z $accel ]]; then
    accel=tcg
    if [[ -w /dev/kvm ]] && timeout 10 qemu-system-x86_64 -accel kvm -cpu host -nodefaults -display none -m 64M \
        -kernel "$kernel" -append "console=ttyS0 panic=-1" -no-reboot -serial stdio </dev/null 2>/dev/null | grep -q 'Linux version'; then
        accel=kvm
    fi
fi
case $accel in
    kvm) accel_options=(-accel kvm -cpu host) ;;
    tcg) accel_options=(-accel tcg,thread=multi -cpu max) ;;
    *) say "HIL_ACCEL is kvm or tcg, not \"$accel\"" >&2; exit 2 ;;
esac

# start_vm PHASE: one run of the VM, in the background ($qemu), its guest results followed. The
# root (an image of it: systemd_vm_root_image), the test folder and the disk are $vm_image,
# $vm_share and $vm_disk (the package boots set their own).
vm_share=$run/share vm_disk=$run/disk.img boot_timeout=${HIL_TIMEOUT:-600}
root_image=$(systemd_vm_root_image "$root" debian13) vm_image=$root_image
start_vm() {
    local phase=$1
    timeout -k 5 "$boot_timeout" qemu-system-x86_64 "${accel_options[@]}" -M pc -smp 2 -m 2G \
        -nodefaults -no-user-config -display none -no-reboot \
        -kernel "$kernel" -initrd "$initramfs" \
        -append "console=ttyS0 panic=-1 rdinit=/init quiet loglevel=3 switchboard.lowerdisk=/dev/vdb switchboard.repo=$repo switchboard.phase=$phase" \
        -serial "file:$run/console-$phase.log" \
        -drive "file=$vm_disk,format=raw,if=virtio,cache=writeback" \
        -drive "file=$vm_image,format=raw,if=virtio,readonly=on" \
        -virtfs "local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap" \
        -virtfs "local,path=$vm_share,mount_tag=hil,security_model=none" \
        </dev/null >"$run/qemu-$phase.log" 2>&1 &
    qemu=$!
    tail -n +1 -F -s 0.5 --pid="$qemu" "$vm_share/results/$phase.log" 2>/dev/null &
    follower=$!
}

# boot PHASE: one run of the VM; the guest ends it by rebooting or powering off (-no-reboot).
boot() { systemd_vm_boot "$1"; }


# Kills qemu itself (not the `timeout` in front of it) at once, as a power cut would.
pull_the_plug() {
    pkill -KILL -P "$qemu" 2>/dev/null
    wait "$qemu" 2>/dev/null
    qemu=
    wait "$follower" 2>/dev/null
}

# power_cut N: a boot whose guest starts a burst of commands; the host cuts the power 1–3 s into it.
power_cut() {
    local phase=cut$1 boot_started=$(date +%s) waited=0 delay
    say "boot $phase"
    set +e
    start_vm "$phase"
    until [[ -f $run/share/results/$phase.burst ]] || ! kill -0 "$qemu" 2>/dev/null; do
        sleep 0.2
        ((++waited < 5 * ${HIL_TIMEOUT:-600})) || break
    done
    if [[ ! -f $run/share/results/$phase.burst ]]; then
        echo "FAIL: boot $phase never started its burst; console tail:"
        tail -40 "$run/console-$phase.log" | sed 's/^/    /'
        pull_the_plug
        set -e
        return 1
    fi
    delay=$(awk -v seed="$RANDOM" 'BEGIN { srand(seed); printf "%.2f", 1 + 2 * rand() }')
    sleep "$delay"
    pull_the_plug
    set -e
    say "boot $phase: power cut ${delay}s into the burst, $(grep -c . "$run/share/results/$phase.acks") commands acknowledged ($(($(date +%s) - boot_started))s)"
}

failed=0
if [[ $only != packages ]]; then
    boot install || failed=1
    if ((failed == 0)); then boot reboot || failed=1; fi
    for ((n = 1; failed == 0 && n <= ${HIL_POWER_CUTS:-3}; n++)); do power_cut "$n" || failed=1; done
    if ((failed == 0)); then boot final || failed=1; fi
fi

# --- the Debian packages: install, reboot, upgrade, remove and purge with apt, per release -------
source deploy/hil/package-boots.sh
# package_pair RELEASE: "OLD NEW", the release's amd64 packages to install and then upgrade to:
# SWITCHBOARD_DEBS_TRIXIE or SWITCHBOARD_DEBS_BOOKWORM when given; else NEW is this tree's package,
# the newest switchboard_*+deb13_amd64.deb (or +deb12) in SWITCHBOARD_DEB_DIR (packages made earlier
# in the run) or made now by deploy/package.sh, and OLD is NEW with a lower version
# (package_previous: the build before it).
package_pair() {
    local release=$1 given suffix candidate new="" old
    case $release in
        trixie) given=${SWITCHBOARD_DEBS_TRIXIE:-} suffix=deb13 ;;
        bookworm) given=${SWITCHBOARD_DEBS_BOOKWORM:-} suffix=deb12 ;;
    esac
    if [[ -n $given ]]; then echo "$given"; return; fi
    for candidate in ${SWITCHBOARD_DEB_DIR:+"$SWITCHBOARD_DEB_DIR"/switchboard_*+${suffix}_amd64.deb}; do
        [[ -f $candidate ]] || continue
        if [[ -z $new ]] || dpkg --compare-versions "$(dpkg-deb -f "$candidate" Version)" gt "$(dpkg-deb -f "$new" Version)"; then new=$candidate; fi
    done
    if [[ -z $new ]]; then
        [[ -x deploy/package.sh ]] || { say "FAIL: no deploy/package.sh to make the $release packages (or give SWITCHBOARD_DEBS_${release^^}=\"OLD.deb NEW.deb\")" >&2; return 1; }
        new=$(deploy/package.sh --release "$release" --arch amd64 --out "$run/debs-$release") || return 1
    fi
    old=$(package_previous "$new" "$run/debs-$release/previous") || return 1
    echo "$old $new"
}
package_failed=0 package_times=()
for release in ${HIL_PACKAGE_RELEASES:-trixie bookworm}; do
    case $release in trixie | bookworm) ;; *) say "HIL_PACKAGE_RELEASES: \"$release\"? say trixie, bookworm or both" >&2; exit 2 ;; esac
    package_started=$(date +%s)
    case $release in
        trixie) vm_root=$root vm_image=$root_image ;;
        bookworm) vm_root=$(deploy/hil/systemd-root.sh bookworm) vm_image=$(systemd_vm_root_image "$vm_root" bookworm) ;;
    esac
    debs=$(package_pair "$release") || { say "FAIL: the $release packages (above)"; package_failed=1; continue; }
    read -r old new <<<"$debs"
    say "$release packages ready in $(($(date +%s) - package_started))s"
    vm_share=$run/package-$release vm_disk=$run/package-$release.img
    say "packages for $release: $old, then $new; root $vm_root"
    package_share "$vm_share" "$old" "$new" || { package_failed=1; continue; }
    truncate -s 2G "$vm_disk"
    mkfs.ext4 -q -F -m 0 -L switchboard-package "$vm_disk"
    package_boots "$release" boot || package_failed=1
    package_times+=("$release $(($(date +%s) - package_started))s")
    rm -f "$vm_disk"
done

echo
say "results"
grep -h -E '^(PASS|FAIL|INFO)' "$run/share/results/install.log" "$run/share/results/reboot.log" "$run/share/results/"cut*.log "$run/share/results/final.log" 2>/dev/null || true
[[ -f $run/share/results/cuts.txt ]] && say "power cuts: $(paste -sd ';' "$run/share/results/cuts.txt")"
for release in ${HIL_PACKAGE_RELEASES:-trixie bookworm}; do package_results "$run/package-$release"; done
say "package boots: ${package_times[*]}"
passes=$(cat "$run/share/results/"*.log "$run"/package-*/results/*.log 2>/dev/null | grep -c '^PASS' || true)
failures=$(cat "$run/share/results/"*.log "$run"/package-*/results/*.log 2>/dev/null | grep -c '^FAIL' || true)
[[ -f $run/share/results/security.txt ]] && say "systemd-analyze security switchboardd.service: $(grep -m1 'Overall exposure level' "$run/share/results/security.txt" | sed 's/^→ *//')"
[[ -f $run/share/results/security-extension.txt ]] && say "systemd-analyze security switchboard-extension@….service: $(grep -m1 'Overall exposure level' "$run/share/results/security-extension.txt" | sed 's/^→ *//')"
say "$passes passed, $failures failed, $(($(date +%s) - started))s in all"
((failures == 0 && failed == 0 && package_failed == 0))
