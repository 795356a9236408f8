#!/usr/bin/env bash
# Runs one command as root inside a Debian 13 root made by deploy/debian13/root.sh, as on Raspberry
# Pi OS Trixie: the machine's /proc, /sys (with configfs at /sys/kernel/config when it is mounted,
# for gpio-sim), /dev and this repository are bound into the root at their own paths, and the
# command runs in the current folder with a clean environment (Debian's PATH, HOME=/root). The
# binds are undone when the command ends, even when it fails; where the kernel allows, they live in
# a private mount namespace, so other processes never see them. Exits with the command's status.
# Used on the host by deploy/debian13/test.sh and inside the HIL VM by deploy/hil/test.sh.
#
#   deploy/debian13/run.sh [-e VAR=VALUE]... ROOT [--] COMMAND [ARGUMENT...]
#
#   -e  an environment variable for the command (repeatable)
set -euo pipefail
arguments=("$@")
usage() { sed -n '10,12p' "$0" >&2; exit 2; }
environment=()
while getopts ":e:" option; do
    case $option in
        e) [[ $OPTARG == *=* ]] || { echo "run.sh: -e takes VAR=VALUE, not \"$OPTARG\"" >&2; exit 2; }; environment+=("$OPTARG") ;;
        *) usage ;;
    esac
done
shift $((OPTIND - 1))
(($# >= 2)) || usage
root=$(realpath -e "$1") || { echo "run.sh: no Debian 13 root at $1; make one with deploy/debian13/root.sh" >&2; exit 2; }
shift
[[ $1 == -- ]] && shift
(($#)) || usage
[[ -f $root/.switchboard-ready ]] || { echo "run.sh: $root is not a finished Debian 13 root; make one with deploy/debian13/root.sh" >&2; exit 2; }
((EUID == 0)) || { echo "run.sh: entering the root (chroot, bind mounts) needs root; run it through sudo" >&2; exit 2; }

# A private mount namespace: the binds are invisible outside and go away with it, even after kill -9.
# The HIL kernel has no namespaces; the VM is thrown away afterwards anyway.
if [[ -z ${SWITCHBOARD_DEBIAN13_NAMESPACE:-} ]] && unshare --mount --propagation private true 2>/dev/null; then
    SWITCHBOARD_DEBIAN13_NAMESPACE=1 exec unshare --mount --propagation private "$0" "${arguments[@]}"
fi

repository=$(cd "$(dirname "$0")/../.." && pwd -P)
directory=$(pwd -P)
mounts=()
unmount() {
    local index
    for ((index = ${#mounts[@]} - 1; index >= 0; index--)); do
        umount "${mounts[$index]}" 2>/dev/null || umount -l "${mounts[$index]}" ||
            echo "run.sh: could not unmount ${mounts[$index]}" >&2
    done
    mounts=()
}
trap unmount EXIT
trap 'exit 130' INT TERM
bind() {
    mkdir -p "$root$1"
    mount --bind "$1" "$root$1" || { echo "run.sh: cannot bind $1 into $root" >&2; exit 1; }
    mounts+=("$root$1")
}
bind /proc
bind /sys
if mountpoint -q /sys/kernel/config; then bind /sys/kernel/config; fi
bind /dev
for folder in /dev/pts /dev/shm; do
    if mountpoint -q "$folder"; then bind "$folder"; fi
done
bind "$repository"
[[ -d $root$directory ]] || { echo "run.sh: the current folder $directory is not in the root; run from the repository" >&2; exit 2; }

set +e
chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 TERM="${TERM:-dumb}" "${environment[@]}" /bin/sh -c 'cd "$1" && shift && exec "$@"' sh "$directory" "$@"
status=$?
set -e
exit "$status"
