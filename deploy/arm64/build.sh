#!/usr/bin/env bash
# Cross-compiles Switchboard for arm64 (aarch64-unknown-linux-gnu, every 64-bit Raspberry Pi) on
# this x86_64 machine: Debian 13's amd64 Swift 6.0.3 (the compiler of deploy/debian13/root.sh's
# root) against a Debian arm64 root (deploy/arm64/sysroot.sh) as its sysroot, linking with lld.
#
#   deploy/arm64/build.sh [trixie|bookworm] [debug|release|all|gpio]    # defaults: trixie all
#
#   debug    the package and its tests, warnings as errors, into .build-arm64-RELEASE
#   release  switchboardd, switchboard, switchboard-extension-launcher and home-controls with the
#            Swift runtime linked statically (`-c release --static-swift-stdlib`), into
#            .build-arm64-RELEASE too
#   all      both
#   gpio     the GPIO layer only (SwitchboardGPIO and its libgpiod adapter), warnings as errors:
#            the code that differs between the releases (libgpiod 1.6 or 2.x)
#
# Debian 12 (bookworm) has no Swift of its own: its root carries Debian 13's arm64 Swift runtime,
# built against glibc 2.41 and GCC 14's libstdc++, which calls glibc 2.38 functions
# (__isoc23_strtol, strlcpy, …) that Debian 12's glibc 2.36 lacks, and one GCC 13 libstdc++ symbol.
# So against Debian 12 the package and its tests compile and link (the runtime as shared
# libraries), but those binaries cannot start on Debian 12; the static release build links
# deploy/arm64/glibc-compat.c, which supplies those functions on top of glibc 2.36 (see there).
# Prints each build's bin folder when it is done. The Swift SDK (swift-sdk.json and toolset.json,
# made here) is in .build-arm64-RELEASE/sdk; inside the compiler's root the arm64 root is at /mnt.
# Needs root (chroot, bind mounts).
set -euo pipefail
cd "$(dirname "$0")/../.."
release=${1:-trixie}
what=${2:-all}
case $what in debug | release | all | gpio) ;; *) echo "build.sh: build \"$what\"? say debug, release, all or gpio" >&2; exit 2 ;; esac
case $release in trixie | bookworm) ;; *) echo "build.sh: no arm64 root for \"$release\": say trixie (Debian 13) or bookworm (Debian 12)" >&2; exit 2 ;; esac
((EUID == 0)) || { echo "build.sh: the compiler's root is entered with chroot and bind mounts: run it as root (sudo)" >&2; exit 2; }

compiler_root=$(deploy/debian13/root.sh)
sysroot=$(deploy/arm64/sysroot.sh "$release")
scratch=.build-arm64-$release
sdk=$scratch/sdk
mkdir -p "$sdk"
# The arm64 root as the compiler sees it, and its Swift resource folders (Debian's swiftlang keeps
# them in /usr/libexec/swift/lib).
target_root=/mnt
swift_lib=$target_root/usr/libexec/swift/lib
cat >"$sdk/swift-sdk.json" <<JSON
{
  "schemaVersion": "4.0",
  "targetTriples": {
    "aarch64-unknown-linux-gnu": {
      "sdkRootPath": "$target_root",
      "swiftResourcesPath": "$swift_lib/swift",
      "swiftStaticResourcesPath": "$swift_lib/swift_static",
      "toolsetPaths": ["toolset.json"]
    }
  }
}
JSON
# lld links for any target (GNU ld in the compiler's root is x86_64's). SwiftPM 6.0 passes the
# sysroot to the compiles but not to the links: -sdk again for every swiftc. The arm64 binaries
# find the Swift runtime (when it is not linked statically) where Debian's libswiftlang installs
# it on the board, not at the compiler's path to it.
cat >"$sdk/toolset.json" <<JSON
{
  "schemaVersion": "1.0",
  "swiftCompiler": {
    "extraCLIOptions": [
      "-use-ld=lld", "-sdk", "$target_root", "-no-toolchain-stdlib-rpath",
      "-Xlinker", "-rpath", "-Xlinker", "/usr/libexec/swift/lib/swift/linux"
    ]
  }
}
JSON

# In a mount namespace of its own: the arm64 root bound at /mnt of the compiler's root, then the
# command in that root (deploy/debian13/run.sh binds the rest). pkg-config reads the arm64 root's
# libgpiod.pc and libmosquitto.pc: the compiler root's own name its x86_64 libraries.
pkg_config_path=$target_root/usr/lib/aarch64-linux-gnu/pkgconfig:$target_root/usr/share/pkgconfig
# Debian 12's libm.so is an absolute link (/lib/aarch64-linux-gnu/libm.so.6), which in the
# compiler's root points nowhere, so that -lm would take the static libm.a and fail to link: its
# root is seen through an overlay (in the build folder; the cached root stays as it is) where the
# link is relative.
sysroot_layer=""
[[ $release != bookworm ]] || sysroot_layer=$PWD/$scratch/sysroot-layer
in_root() {
    unshare --mount --propagation private bash -c '
        if [[ -n $3 ]]; then
            mkdir -p "$3/upper" "$3/work"
            mount -t overlay none -o "lowerdir=$1,upperdir=$3/upper,workdir=$3/work" "$2/mnt"
            ln -sfn libm.so.6 "$2/mnt/usr/lib/aarch64-linux-gnu/libm.so"
        else
            mount --bind "$1" "$2/mnt"
        fi
        shift 3 && exec "$@"' \
        bash "$sysroot" "$compiler_root" "$sysroot_layer" deploy/debian13/run.sh \
        -e PKG_CONFIG_PATH="$pkg_config_path" -e PKG_CONFIG_LIBDIR="$pkg_config_path" -e PKG_CONFIG_SYSROOT_DIR="$target_root" \
        "$compiler_root" "$@"
}
cross_build() {
    in_root swift build --scratch-path "$scratch" --destination "$sdk/swift-sdk.json" "$@"
}

if [[ $what == debug || $what == all ]]; then
    cross_build --build-tests -Xswiftc -warnings-as-errors
    echo "switchboard arm64 ($release): debug build and tests in $(cross_build --show-bin-path)"
fi
if [[ $what == gpio ]]; then
    cross_build --target SwitchboardGPIO -Xswiftc -warnings-as-errors
    echo "switchboard arm64 ($release): GPIO layer built in $(cross_build --show-bin-path)"
fi
if [[ $what == release || $what == all ]]; then
    release_options=()
    if [[ $release == bookworm ]]; then
        # Compiled for the arm64 root with the compiler root's clang, linked into each program.
        in_root /usr/libexec/swift/bin/clang --target=aarch64-unknown-linux-gnu --sysroot="$target_root" -O2 -fPIC \
            -Wall -Werror -c deploy/arm64/glibc-compat.c -o "$PWD/$scratch/glibc-compat.o"
        release_options=(-Xlinker "$PWD/$scratch/glibc-compat.o")
    fi
    for product in switchboardd switchboard switchboard-extension-launcher home-controls; do
        cross_build -c release --static-swift-stdlib "${release_options[@]}" --product "$product"
    done
    echo "switchboard arm64 ($release): static release build in $(cross_build -c release --show-bin-path)"
fi
