#!/usr/bin/env bash
# Boots the hardware-in-the-loop kernel under qemu and runs one command inside it, as root, on the
# host's own root filesystem (shared read-only over 9p, with a throw-away tmpfs overlay on top).
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
#   -C  the command's working directory (default: this one)
# Env: HIL_KERNEL (the kernel image, required), SWITCHBOARD_HIL_CACHE (initramfs cache),
#      HIL_ACCEL (tcg or kvm; default kvm when /dev/kvm boots a guest, else tcg),
#      HIL_CONSOLE=1 to copy the guest's kernel log to standard error.
set -euo pipefail
limit=900 directory=$PWD environment=() shared=()
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
command -v qemu-system-x86_64 >/dev/null || { echo "vm.sh: qemu-system-x86_64 is missing; apt-get install qemu-system-x86" >&2; exit 125; }
busybox=/bin/busybox
applets=$("$busybox" --list 2>/dev/null || true)
[[ $'\n'$applets$'\n' == *$'\n'cpio$'\n'* ]] && ! ldd "$busybox" >/dev/null 2>&1 ||
    { echo "vm.sh: a static $busybox is needed; apt-get install busybox-static" >&2; exit 125; }
cache=${SWITCHBOARD_HIL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/switchboard/hil}
mkdir -p "$cache"

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
if [[ ! -f $initramfs ]]; then
    stage=$(mktemp -d)
    mkdir -p "$stage/bin"
    cp "$busybox" "$stage/bin/busybox"
    printf '%s\n' "$init" >"$stage/init" && chmod 755 "$stage/init"
    (cd "$stage" && find . | "$busybox" cpio -o -H newc 2>/dev/null | gzip -1) >"$initramfs.tmp"
    mv "$initramfs.tmp" "$initramfs" && rm -rf "$stage"
fi

run=$(mktemp -d "${TMPDIR:-/tmp}/switchboard-hil.XXXXXX")
qemu=
cleanup() { [[ -n $qemu ]] && kill -KILL "$qemu" 2>/dev/null; rm -rf "$run"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
{
    echo 'export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
    [[ -d /opt/swift/usr/bin ]] && echo 'export PATH=/opt/swift/usr/bin:$PATH'
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
    *) echo "vm.sh: HIL_ACCEL is kvm or tcg, not \"$accel\"" >&2; exit 2 ;;
esac

started=$(date +%s.%N)
timeout -k 5 "$limit" qemu-system-x86_64 "${accel_options[@]}" -M pc -smp 2 -m 2G \
    -nodefaults -no-user-config -display none -no-reboot \
    -kernel "$kernel" -initrd "$initramfs" -append "console=ttyS0 panic=-1 rdinit=/init quiet loglevel=3" \
    -serial "file:$run/console" \
    -virtfs "local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap" \
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
