# What every VM that boots a Debian root with systemd as PID 1 shares, on either architecture;
# sourced by deploy/hil/systemd-test.sh (amd64) and deploy/hil/arm64-package-test.sh (arm64):
#
#   systemd_vm_initramfs BUSYBOX NAME   # the initramfs below with that busybox (cached), its path
#   systemd_vm_root_image ROOT NAME     # ROOT as an ext4 image for the VM's second disk (cached), its path
#   systemd_vm_check_unit DESCRIPTION   # the unit that runs the checks of a boot
#   systemd_vm_boot PHASE               # one boot with the caller's start_vm, waited for, judged
#
# The initramfs: the root to boot is the ext4 image on the read-only disk named by
# switchboard.lowerdisk (systemd_vm_root_image) or, without it, the shared folder "host" (9p) at
# switchboard.lower on the kernel command line (the whole share when not given); an overlay over it
# whose upper layer is on the virtio disk /dev/vda (so changes last from one boot to the next)
# becomes the root; a gpio-sim
# chip as a Raspberry Pi 5 shows its header (gpiochip0, label pinctrl-rp1, 54 lines GPIO0…GPIO53);
# the shared folder "hil" (read-write: results come back through it) at /mnt/switchboard-hil and,
# when switchboard.repo is given, that folder of "host" read-only at /mnt/switchboard; the share's
# switchboard-hil.service installed and enabled; then switch_root into systemd.
#
# systemd_vm_boot calls start_vm PHASE, which the caller defines: it starts the VM in the
# background with switchboard.phase=PHASE on its command line and -no-reboot, sets $qemu to its
# process, and follows the guest's results log with a process in $follower. The boot is judged by
# the file $vm_share/results/PHASE.done the guest writes when its checks ended. Also from the
# caller: say, $run (console and qemu logs), $vm_share, $boot_timeout (seconds), $accel (a label).
# Needs $cache (where the initramfs images are kept).

read -r -d '' systemd_vm_init <<'INIT' || true
#!/bin/busybox sh
/bin/busybox mkdir -p /proc /sys /dev /bin /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc none /proc; mount -t sysfs none /sys; mount -t devtmpfs none /dev
exec </dev/console >/dev/console 2>&1
fail() { echo "switchboard-hil: FATAL: $*"; sync; poweroff -f; sleep 10; }
argument() { for word in $(cat /proc/cmdline); do case $word in "$1"=*) echo "${word#*=}" ;; esac; done; }
lower=$(argument switchboard.lower) repo=$(argument switchboard.repo)
p9=trans=virtio,version=9p2000.L,msize=262144
mkdir -p /host /persist /newroot
mount -t 9p -o $p9,ro,cache=loose host /host || fail "cannot mount the shared root"
mount -t ext4 /dev/vda /persist || fail "cannot mount the disk /dev/vda"
mkdir -p /persist/upper /persist/work
lowerdisk=$(argument switchboard.lowerdisk) lowerpath=/host$lower
if [ -n "$lowerdisk" ]; then
    mkdir -p /lower
    mount -t ext4 -o ro,noload "$lowerdisk" /lower || fail "cannot mount the root image $lowerdisk"
    lowerpath=/lower
fi
mount -t overlay none -o lowerdir=$lowerpath,upperdir=/persist/upper,workdir=/persist/work /newroot ||
    fail "cannot lay the overlay on $lowerpath"

# A Raspberry Pi 5's header as the kernel shows it: gpiochip0, label pinctrl-rp1, 54 lines.
mount -t configfs none /sys/kernel/config || fail "no configfs"
c=/sys/kernel/config/gpio-sim/pi5-header
mkdir $c $c/bank0 || fail "no gpio-sim"
echo 54 > $c/bank0/num_lines && echo pinctrl-rp1 > $c/bank0/label || fail "gpio-sim bank"
i=0
while [ $i -lt 54 ]; do mkdir $c/bank0/line$i && echo GPIO$i > $c/bank0/line$i/name; i=$((i + 1)); done
echo 1 > $c/live || fail "gpio-sim live"
echo "switchboard-hil: $(cat $c/bank0/chip_name) [pinctrl-rp1] (54 lines) on $(cat $c/dev_name)"
umount /sys/kernel/config

# The test material (read-write: results come back through it) and the repository (read-only).
mkdir -p /newroot/mnt/switchboard-hil
mount -t 9p -o $p9 hil /newroot/mnt/switchboard-hil || fail "cannot mount the test folder"
if [ -n "$repo" ]; then
    mkdir -p /newroot/mnt/switchboard
    mount --bind /host$repo /newroot/mnt/switchboard || fail "cannot mount the repository"
fi
cp /newroot/mnt/switchboard-hil/switchboard-hil.service /newroot/etc/systemd/system/
mkdir -p /newroot/etc/systemd/system/multi-user.target.wants
ln -sf ../switchboard-hil.service /newroot/etc/systemd/system/multi-user.target.wants/switchboard-hil.service

mount --move /dev /newroot/dev
umount /sys /proc
exec switch_root /newroot /sbin/init
INIT

# systemd_vm_initramfs BUSYBOX NAME: the initramfs of $systemd_vm_init with the static BUSYBOX (of
# the guest's architecture) as its only program, cached in $cache by a key of both; prints its path.
systemd_vm_initramfs() {
    local busybox=$1 name=$2 key image stage
    key=$( { printf '%s' "$systemd_vm_init"; sha256sum "$busybox"; } | sha256sum | cut -c1-16)
    image=$cache/initramfs-$name-$key.cpio.gz
    if [[ ! -f $image ]]; then
        stage=$(mktemp -d)
        mkdir -p "$stage/bin"
        cp "$busybox" "$stage/bin/busybox"
        printf '%s\n' "$systemd_vm_init" >"$stage/init" && chmod 755 "$stage/init"
        (cd "$stage" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$image.tmp"
        mv "$image.tmp" "$image" && rm -rf "$stage"
    fi
    echo "$image"
}

# systemd_vm_root_image ROOT NAME: ROOT as an ext4 image for the VM's read-only second disk
# (/dev/vdb), which the initramfs lays the overlay on (switchboard.lowerdisk) instead of reading
# ROOT over 9p: under TCG every 9p request is a round trip through the emulated virtio queue, and
# the boots read thousands of small files (units, dpkg's database, apt's lists). Measured on the
# Debian 12 package boots: the checks began at uptime 16.7 s instead of 22–24 s. Cached in $cache
# by a key of ROOT's path and its package and user databases (made again when one changes, the
# older image of NAME removed); making the Debian 13 root's (3.7 GB) took 50 s. Prints its path.
systemd_vm_root_image() {
    local root=$1 name=$2 key image megabytes files
    key=$( { echo "$root"; cat "$root/var/lib/dpkg/status" "$root/etc/passwd" "$root/etc/group"; } | sha256sum)
    image=$cache/root-$name-${key:0:16}.ext4
    if [[ ! -f $image ]]; then
        echo "switchboard: making the root image $image of $root (once per root)" >&2
        rm -f "$cache/root-$name-"*.ext4
        megabytes=$(du -s --apparent-size --block-size=1M "$root")
        megabytes=${megabytes%%[[:space:]]*}
        files=$(find "$root" -xdev | wc -l)
        truncate -s $((megabytes * 5 / 4 + 512))M "$image.$$"
        mkfs.ext4 -q -F -m 0 -N $((files * 5 / 4 + 10000)) -L switchboard-root -d "$root" "$image.$$" >&2 ||
            { rm -f "$image.$$"; echo "switchboard: cannot make the root image of $root" >&2; return 1; }
        mv "$image.$$" "$image"
    fi
    echo "$image"
}

# systemd_vm_check_unit DESCRIPTION: the unit that runs the share's guest.sh after
# multi-user.target; the script ends the boot itself (reboot or power-off).
systemd_vm_check_unit() {
    cat <<UNIT
[Unit]
Description=$1
After=multi-user.target
[Service]
Type=oneshot
ExecStart=/bin/bash /mnt/switchboard-hil/guest.sh
StandardOutput=journal+console
StandardError=journal+console
TimeoutStartSec=480
# A crash or a time-out ends the boot at once; the SIGTERM of the reboot or power-off the script
# asked for, which may reach it before it has exited, is no failure.
FailureAction=poweroff-force
SuccessExitStatus=SIGTERM
[Install]
WantedBy=multi-user.target
UNIT
}

# systemd_vm_boot PHASE: one run of the VM; the guest ends it by rebooting or powering off.
systemd_vm_boot() {
    local phase=$1 boot_started status began
    boot_started=$(date +%s)
    say "boot $phase"
    set +e
    start_vm "$phase"
    wait "$qemu"; status=$?
    qemu=
    wait "$follower" 2>/dev/null
    set -e
    began=$(grep -m1 -o 'uptime [0-9.]*s' "$vm_share/results/$phase.log" 2>/dev/null || true)
    say "boot $phase: $(($(date +%s) - boot_started))s in all, the checks began at ${began:-?} (qemu exit $status, $accel)"
    if [[ ! -f $vm_share/results/$phase.done ]]; then
        echo "FAIL: boot $phase did not finish its checks$( ((status == 124 || status == 137)) && echo " (time limit ${boot_timeout}s)"); console tail:"
        tail -40 "$run/console-$phase.log" | sed 's/^/    /'
        cat "$run/qemu-$phase.log"
        return 1
    fi
}
