#!/usr/bin/env bash
# Sets up and runs every Switchboard test on Debian or Raspberry Pi OS with the Swift toolchain:
# installs the system packages the build and the tests need, builds with warnings as errors,
# builds README's ControlKit example as a package of its own (Tests/Packages/ReadmeExample), runs
# the whole suite, then the same suite in the Debian 13 (Trixie) userland with Debian's Swift,
# libgpiod 2.x and mosquitto 2.0.21 (deploy/debian13/test.sh; skipped on Debian 13 itself), the
# arm64 cross builds and the arm64 daemon on the sample under qemu-user (deploy/arm64/test.sh), the
# daemon against a real Home Assistant Core in the Debian 13 root (deploy/homeassistant/test.sh), the
# hardware-in-the-loop stage (the kernel GPIO tests in a qemu VM with gpio-sim, with both
# libgpiods; see deploy/hil/test.sh; then on arm64, and on QEMU's Raspberry Pi 3 with its real GPIO
# driver), deploy/install.sh, the systemd unit and the .debs under systemd
# in that VM (deploy/hil/systemd-test.sh), the parsers under libFuzzer for a bounded time
# (deploy/fuzz.sh, FUZZ_SECONDS, default 60; in the background beside the systemd stage, at the
# lowest priority) and the suite again under AddressSanitizer and
# ThreadSanitizer (deploy/sanitizers.sh). Those three builds are made in the background while the
# arm64 and VM stages run (deploy/lib/prebuild.sh; SWITCHBOARD_PREBUILD=0 leaves them to their
# stages). Each stage's time is printed as it ends and all of them at the end. Arguments go to the
# first `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."

source deploy/lib/packages.sh
source deploy/lib/stages.sh
source deploy/lib/watchdog.sh

stage "packages"
ensure_packages "${switchboard_build_packages[@]}" "${switchboard_runtime_packages[@]}" mosquitto mosquitto-clients openssl python3 python3-jsonschema \
    "${switchboard_discovery_test_packages[@]}"
# devices.schema.json is checked with Python's jsonschema.
python3 -c 'import jsonschema' 2>/dev/null || python3 -m pip install --quiet jsonschema
# aiohomekit, the HomeKit controller that AiohomekitPairingTests pair with (cached after the first run).
bash deploy/homekit/aiohomekit-venv.sh >/dev/null
bash deploy/lib/versions.sh
# The kernels and arm64 roots of the later stages, made in the background while the builds and
# suites before them leave CPU time unused (on a fresh machine; with warm caches it ends at once).
# What the kernels are built with is installed first, here: installed beside the build below, it
# upgraded linux-libc-dev while the compiler read <linux/stddef.h> (a truncated header, a failed
# build).
if ((EUID == 0)) && [[ ${SWITCHBOARD_PREWARM:-1} != 0 ]]; then
    ensure_packages "${switchboard_kernel_build_packages[@]}" gcc-aarch64-linux-gnu
    stage_background deploy/lib/prewarm.sh
fi

stage "build (this machine)"
swift build --build-tests -Xswiftc -warnings-as-errors

# README's ControlKit example as a package of its own that depends on Switchboard by path, built
# as someone using Switchboard would build it; its own scratch folder keeps a rerun incremental.
stage "README example package"
swift build --package-path Tests/Packages/ReadmeExample --scratch-path "$PWD/.build/readme-example" -Xswiftc -warnings-as-errors

stage "suite (this machine)"
log=$(mktemp)
stage_temporary_files+=("$log")
# The kernel GPIO tests need gpio-sim: they run in the VM below, not here. The watchdog
# (deploy/lib/watchdog.sh) stops a run in which no test finished for 300 s, naming the tests that
# were running, instead of leaving CI to hang.
watched_run_shown "$log" 300 1800 swift test --skip-build --skip 'SwitchboardHILTests\.Kernel' "$@" ||
    { echo "switchboard: the suite failed (exit $?)" >&2; exit 1; }
tests_ran "$log" ||
    { echo "switchboard: no tests ran" >&2; exit 1; }
stage_end

# README's first command as a user runs it, with its broker set up as deploy/mosquitto ships it.
bash deploy/run-sample-test.sh

bash deploy/debian13/test.sh
# The fuzzer and the sanitizer builds of the last stages, made in the background at the lowest
# priority from here on: the arm64 suites under qemu-user, package.sh's release builds and the VM
# stages below leave a core unused much of the time, the builds before them none.
if [[ ${SWITCHBOARD_PREBUILD:-1} != 0 ]]; then
    stage_background deploy/lib/prebuild.sh
fi
# arm64, as every 64-bit Raspberry Pi: cross-compiled with Debian 13's Swift against Debian 13's and
# Debian 12's arm64 userland, and the release binaries run on the sample under qemu-user.
bash deploy/arm64/test.sh
# The .debs: lintian, contents, and the Bookworm arm64 one installed under qemu-user. The Trixie
# arm64 one's life (install, upgrade, remove, purge) is checked under systemd on an arm64 kernel
# below (deploy/hil/arm64-package-test.sh), a superset of what the qemu-user chroot checks.
SWITCHBOARD_PACKAGE_CHROOTS=bookworm bash deploy/package-test.sh
# The packages it made (in .build-deb) are the ones the systemd stages below install.
export SWITCHBOARD_DEB_DIR=$PWD/.build-deb
SWITCHBOARD_DEBS_ARM64=$(ls "$SWITCHBOARD_DEB_DIR"/switchboard_*+deb13_arm64.deb)
export SWITCHBOARD_DEBS_ARM64
# This machine's daemon and CLI (built above) against Home Assistant Core from PyPI, run in the
# Debian 13 root on its Python 3.13 (the venv is cached there after the first run).
SWITCHBOARD_BIN=$(swift build --show-bin-path) bash deploy/homeassistant/test.sh
bash deploy/hil/test.sh
bash deploy/hil/arm64-test.sh   # the arm64 binaries (deploy/arm64/test.sh) on an arm64 kernel with gpio-sim
bash deploy/hil/raspi3b-test.sh # the same on QEMU's Raspberry Pi 3: its device tree, the real pinctrl-bcm2835

# install.sh and the systemd unit, for real: Debian 13 booted with systemd in the VM, a gpio-sim
# chip as a Pi 5 header (the systemd kernel and the release build are cached after the first run);
# then the Debian 12 amd64 .deb installed, upgraded, removed and purged by apt in Debian 12, and the
# Debian 13 arm64 .deb the same way in Debian 13 on an arm64 kernel: each release and each
# architecture once under systemd. The Debian 13 amd64 .deb has the same maintainer scripts, units
# and Depends as the arm64 one and the release binaries the install.sh boots run; its boots (about
# 280 s) are left to `deploy/hil/systemd-test.sh` run by hand (HIL_PACKAGE_RELEASES).
# The parsers under libFuzzer for FUZZ_SECONDS (deploy/fuzz.sh) meanwhile, in the background at the
# lowest priority: an emulated VM leaves about a third of the two cores idle, and the fuzzer, which
# waits for nothing, takes that share instead of a stage of its own. Its output follows the VMs'.
stage_beside fuzz env FUZZ_TIMEOUT=60 bash deploy/fuzz.sh "${FUZZ_SECONDS:-60}"
stage "systemd: install.sh, the unit and the Debian 12 .deb in the VM"
HIL_PACKAGE_RELEASES=bookworm bash deploy/hil/systemd-test.sh
stage "systemd: the arm64 .deb on an arm64 kernel"
bash deploy/hil/arm64-package-test.sh

stage "fuzzing (since the systemd stage began, beside it)"
stage_wait_beside fuzz || { echo "switchboard: deploy/fuzz.sh failed (exit $?, above)" >&2; exit 1; }
stage_end

bash deploy/sanitizers.sh

stage_background_report
