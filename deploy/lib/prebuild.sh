#!/usr/bin/env bash
# Builds, in the background, the last stages' programs: the fuzzer (deploy/fuzz.sh) and the suite
# under AddressSanitizer and ThreadSanitizer (deploy/sanitizers.sh). deploy/test.sh starts it when
# the Debian 13 stage ends. From there on much of the time leaves one of the two cores unused: the
# arm64 suites under qemu-user run one test at a time, the release builds of deploy/package.sh
# compile a module at a time, and in the VMs under TCG apt and dpkg run on one vCPU. These builds
# take that core at the lowest priority (deploy/lib/background.sh): they get CPU time only when
# nothing else wants it (the caches and memory they share still slow the stages beside them;
# docs/testing.md gives the measured cost). When their own stages come, the same `swift build`
# finds the build done (or, still running, waits for SwiftPM's lock on the folder) and only
# checks it. A build that fails here is only logged: the stage builds again and reports the
# failure.
#
#   deploy/lib/prebuild.sh LOG     # LOG gets one line per build and its time
set -uo pipefail
cd "$(dirname "$0")/../.."
log=${1:?usage: prebuild.sh LOG}
# Their own stage report, not deploy/test.sh's.
unset SWITCHBOARD_STAGE_TIMES
source deploy/lib/background.sh
background_steps "$log" built "deploy/fuzz.sh --build-only" "deploy/sanitizers.sh --build-only address thread"
