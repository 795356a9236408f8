#!/usr/bin/env bash
# Boots the hardware-in-the-loop kernel under qemu and runs one command inside it, as root, on the
# host's own root filesystem (shared read-only over 9p, with a throw-away tmpfs overlay on top) or,
# for an arm64 guest, on an arm64 root.
# The guest has fresh /proc, /sys, configfs at /sys/kernel/config (gpio-sim), /dev, /tmp, /run
# and loopback networking. The command's output streams to standard output; the script exits with
# the command's status, 124 when the time limit passed, 125 when the VM itself failed.
#
#   deploy/hil/vm.sh [-t SECONDS] [-e VAR=VALUE]... [-w DIRECTORY]... [-C DIRECTORY] [--] COMMAND [ARGUMENT...]
#
#   -t  time limit for the whole run (default 900)
#   -e  an environment variable for the command (repeatable)
#   -w  a host folder shared read-write at the same path (repeatable); needed for folders under
#       /tmp, /run or /dev, which the guest mounts afresh
#   -C  the command's working directory (default: this one; on an arm64 root, this one when it is
#       in a folder shared with -w, else /)
# Env: HIL_KERNEL (the kernel image, required), SWITCHBOARD_HIL_CACHE (initramfs cache),
#      HIL_ACCEL (tcg or kvm; default kvm when /dev/kvm boots a guest, else tcg),
#      HIL_CONSOLE=1 to copy the guest's kernel log to standard error,
#      HIL_ARCH=arm64 for qemu-system-aarch64's virt machine (TCG) with an arm64 kernel
#      (build-kernel.sh --arch arm64) and HIL_ROOT, an arm64 root (default: the Debian 13 arm64
#      root of deploy/arm64/sysroot.sh trixie; its initramfs gets Debian 13's arm64 busybox-static,
#      deploy/hil/arm64-busybox.sh). A root without /etc/passwd (an unconfigured sysroot) gets
#      base-passwd's in the overlay.
set -euo pipefail
limit=900 directory="" environment=() shared=()
while getopts ":t:e:w:C:" option; do
    case $option in
        t) limit=$OPTARG ;;
        e) [[ $OPTARG == *=* ]] || { echo "vm.sh: -e takes VAR=VALUE, not \"$OPTARG\"" >&2; exit 2; }; environment+=("$OPTARG") ;;
        w) shared+=("$(realpath -e "$OPTARG")") ;;
        C) directory=$OPTARG ;;
        *) sed -n '2,16p' "$0" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[[ ${1:-} == -- ]] && shift
(($#)) || { sed -n '2,16p' "$0" >&2; exit 2; }

kernel=${HIL_KERNEL:-}
[[ -n $kernel && -f $kernel ]] || { echo "vm.sh: no kernel image at \"$kernel\"; set HIL_KERNEL or run deploy/hil/build-kernel.sh" >&2; exit 125; }
cache=${SWITCHBOARD_HIL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/switchboard/hil}
mkdir -p "$cache"
here=$(cd "$(dirname "$0")" && pwd)
case ${HIL_ARCH:-x86_64} in
    x86_64)
        qemu_system=qemu-system-x86_64 qemu_package=qemu-system-x86 console=ttyS0 root=/
        busybox=/bin/busybox
        applets=$("$busybox" --list 2>/dev/null || true)
        [[ $'\n'$applets$'\n' == *$'\n'cpio$'\n'* ]] && ! ldd "$busybox" >/dev/null 2>&1 ||
            { echo "vm.sh: a static $busybox is needed; apt-get install busybox-static" >&2; exit 125; }
        packer=("$busybox" cpio) ;;
    arm64)
        qemu_system=qemu-system-aarch64 qemu_package=qemu-system-arm console=ttyAMA0
        root=${HIL_ROOT:-$("$here/../arm64/sysroot.sh" trixie)}
        [[ -x $root/bin/sh ]] || { echo "vm.sh: HIL_ROOT \"$root\" is no root filesystem (no /bin/sh)" >&2; exit 125; }
        busybox=$("$here/arm64-busybox.sh") || { echo "vm.sh: no arm64 busybox for the initramfs" >&2; exit 125; }
        # This machine's cpio packs it (or its own busybox's).
        if command -v cpio >/dev/null; then packer=(cpio)
        elif [[ -x /bin/busybox ]]; then packer=(/bin/busybox cpio)
        else echo "vm.sh: cpio is missing; apt-get install cpio" >&2; exit 125; fi ;;
    *) echo "vm.sh: HIL_ARCH is x86_64 or arm64, not \"$HIL_ARCH\"" >&2; exit 2 ;;
esac
command -v $qemu_system >/dev/null || { echo "vm.sh: $qemu_system is missing; apt-get install $qemu_package" >&2; exit 125; }

# The guest's first process: mount the host root and the run folder, run the command, power off.
read -r -d '' init <<'INIT' || true
#!/bin/busybox sh
/bin/busybox mkdir -p /proc /sys /dev /bin /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc none /proc; mount -t sysfs none /sys; mount -t devtmpfs none /dev
exec </dev/null >/dev/console 2>&1
fail() { echo "switchboard-hil: $*"; poweroff -f; }
p9=trans=virtio,version=9p2000.L,msize=262144
mkdir -p /host /scratch /root
mount -t 9p -o $p9,ro,cache=loose host /host || fail "cannot mount the host root"
mount -t tmpfs none /scratch && mkdir /scratch/upper /scratch/work
mount -t overlay none -o lowerdir=/host,upperdir=/scratch/upper,workdir=/scratch/work /root || fail "no overlayfs"
# A root unpacked by debootstrap --foreign has /proc as a link to the host's.
[ -L /root/proc ] && rm /root/proc && mkdir /root/proc
mount -t proc none /root/proc
mount -t sysfs none /root/sys
mount -t configfs none /root/sys/kernel/config || fail "no configfs"
mount -t devtmpfs none /root/dev
mkdir -p /root/dev/pts /root/dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 none /root/dev/pts
for d in /root/dev/shm /root/tmp; do mount -t tmpfs -o mode=1777 none $d; done
mount -t tmpfs -o mode=0755 none /root/run
mkdir -p /root/run/switchboard-hil
mount -t 9p -o $p9 run /root/run/switchboard-hil || fail "cannot mount the run folder"
while read -r tag path; do
    mkdir -p "/root$path" && mount -t 9p -o $p9 "$tag" "/root$path" || fail "cannot mount $path"
done </root/run/switchboard-hil/shared
ip link set lo up
hostname switchboard-hil
chroot /root /bin/sh /run/switchboard-hil/command >/root/run/switchboard-hil/output 2>&1
echo $? >/root/run/switchboard-hil/status
sync
poweroff -f
INIT

key=$( { printf '%s' "$init"; sha256sum "$busybox"; } | sha256sum | cut -c1-16)
initramfs=$cache/initramfs-$key.cpio.gz
[[ $busybox == /bin/busybox ]] || initramfs=$cache/initramfs-${HIL_ARCH}-$key.cpio.gz
if [[ ! -f $initramfs ]]; then
    stage=$(mktemp -d)
    mkdir -p "$stage/bin"
    cp "$busybox" "$stage/bin/busybox"
    printf '%s\n' "$init" >"$stage/init" && chmod 755 "$stage/init"
    (cd "$stage" && find . | "${packer[@]}" -o -H newc 2>/dev/null | gzip -1) >"$initramfs.tmp"
    mv "$initramfs.tmp" "$initramfs" && rm -rf "$stage"
fi

run=$(mktemp -d "${TMPDIR:-/tmp}/switchboard-hil.XXXXXX")
qemu=
cleanup() { [[ -n $qemu ]] && kill -KILL "$qemu" 2>/dev/null; rm -rf "$run"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
if [[ -z $directory ]]; then
    directory=$PWD
    if [[ $root != / ]]; then
        directory=/
        for folder in "${shared[@]}"; do [[ $PWD/ == "$folder"/* ]] && directory=$PWD; done
    fi
fi
{
    echo 'export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
    [[ $root == / && -d /opt/swift/usr/bin ]] && echo 'export PATH=/opt/swift/usr/bin:$PATH'
    # An unconfigured root (a sysroot unpacked without maintainer scripts) has no user database.
    [[ $root == / ]] || echo '[ -e /etc/passwd ] || cp /usr/share/base-passwd/passwd.master /etc/passwd; [ -e /etc/group ] || cp /usr/share/base-passwd/group.master /etc/group'
    echo 'export HOME=/root LANG=C.UTF-8 TERM=dumb SWITCHBOARD_HIL=1'
    for assignment in "${environment[@]}"; do printf 'export %s=%q\n' "${assignment%%=*}" "${assignment#*=}"; done
    printf 'cd %q || exit 125\n' "$directory"
    printf 'exec'; printf ' %q' "$@"; echo
} >"$run/command"
: >"$run/output"
shares=()
: >"$run/shared"
for index in "${!shared[@]}"; do
    shares+=(-virtfs "local,path=${shared[$index]},mount_tag=shared$index,security_model=none,multidevs=remap")
    echo "shared$index ${shared[$index]}" >>"$run/shared"
done

accel=${HIL_ACCEL:-}
[[ $qemu_system == qemu-system-x86_64 ]] || accel=${accel:-tcg}
if [[ -z $accel ]]; then
    accel=tcg
    if [[ -w /dev/kvm ]] && timeout 10 qemu-system-x86_64 -accel kvm -cpu host -nodefaults -display none -m 64M \
        -kernel "$kernel" -append "console=ttyS0 panic=-1" -no-reboot -serial stdio </dev/null 2>/dev/null | grep -q 'Linux version'; then
        accel=kvm
    fi
fi
case $accel in
    kvm) accel_options=(-accel kvm -cpu host -M pc) ;;
    tcg) accel_options=(-accel tcg,thread=multi -cpu max -M pc) ;;
    *) echo "vm.sh: HIL_ACCEL is kvm or tcg, not \"$accel\"" >&2; exit 2 ;;
esac
# arm64: the virt machine (GICv3, PSCI, PL011), the emulated CPU with the cheaper of QEMU's
# pointer-authentication algorithms (the architected one costs every call and return dearly).
[[ $qemu_system == qemu-system-x86_64 ]] || accel_options=(-accel tcg,thread=multi -M virt,gic-version=3 -cpu max,pauth-impdef=on)

started=$(date +%s.%N)
timeout -k 5 "$limit" $qemu_system "${accel_options[@]}" -smp 2 -m 2G \
    -nodefaults -no-user-config -display none -no-reboot \
    -kernel "$kernel" -initrd "$initramfs" -append "console=$console panic=-1 rdinit=/init quiet loglevel=3" \
    -serial "file:$run/console" \
    -virtfs "local,path=$root,mount_tag=host,security_model=none,readonly=on,multidevs=remap" \
    -virtfs "local,path=$run,mount_tag=run,security_model=none" "${shares[@]}" \
    </dev/null >"$run/qemu" 2>&1 &
qemu=$!
tail -n +1 -F -s 0.2 --pid="$qemu" "$run/output" 2>/dev/null &
follower=$!
[[ ${HIL_CONSOLE:-0} == 1 ]] && tail -n +1 -F -s 0.2 --pid="$qemu" "$run/console" >&2 2>/dev/null &
set +e
wait "$qemu"; qemu_status=$?
set -e
qemu=
wait "$follower" 2>/dev/null || true

elapsed=$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
if [[ -f $run/status ]]; then
    status=$(cat "$run/status")
    echo "vm.sh: the command exited with $status after ${elapsed}s in the VM ($accel)" >&2
    exit "$status"
fi
if ((qemu_status == 124 || qemu_status == 137)); then
    echo "vm.sh: time limit of ${limit}s reached; the VM was stopped" >&2
    exit 124
fi
echo "vm.sh: the VM stopped before the command finished (qemu exit $qemu_status); its console:" >&2
tail -25 "$run/console" >&2; cat "$run/qemu" >&2
exit 125
