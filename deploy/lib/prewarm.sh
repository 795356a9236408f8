#!/usr/bin/env bash
# Makes, in the background and at the lowest CPU and I/O priority, the cached things the later
# stages of deploy/test.sh need and that take minutes to make the first time: the x86_64 and arm64
# kernels with gpio-sim, the installed arm64 systems the packages are tested in, the arm64 root the
# arm64 VM boots, the Debian 12 root of the systemd stage's package boots, the arm64 busybox. On a
# fresh machine they are then made while the builds and suites before them leave CPU time unused,
# instead of one after another when each stage comes; with warm caches every step returns at once.
# Each maker holds a lock on what it makes (deploy/lib/cache.sh): a stage that needs something
# still being made here waits for it, then finds it made. A step that fails here is only logged:
# the stage that needs it makes it again and reports the failure.
#
#   deploy/lib/prewarm.sh LOG      # deploy/test.sh starts it; LOG gets one line per step and its time
# Needs root (the roots are made with mmdebstrap and debootstrap).
set -uo pipefail
cd "$(dirname "$0")/../.."
log=${1:?usage: prewarm.sh LOG}
source deploy/lib/background.sh
# Each step installs what it needs itself; ensure_packages runs one apt at a time.
steps=(
    "deploy/hil/build-kernel.sh deploy/hil/kernel-systemd.config"
    "deploy/package-root.sh trixie"
    "deploy/package-root.sh bookworm"
    "deploy/hil/arm64-root.sh fresh"
    "deploy/hil/arm64-busybox.sh"
    "deploy/hil/raspi3b-kernel.sh"
    "deploy/hil/build-kernel.sh --arch arm64 deploy/hil/kernel-systemd.config"
    "deploy/hil/systemd-root.sh bookworm"
)
background_steps "$log" ready "${steps[@]}"
