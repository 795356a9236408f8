#!/usr/bin/env bash
# Makes Switchboard's Debian packages: one .deb per Debian release and architecture, with the
# Swift runtime linked statically (`swift build -c release --static-swift-stdlib`), so that the
# machine it is installed on needs no Swift. Prints the path of each .deb it made.
#
#   deploy/package.sh [--release trixie|bookworm]... [--arch amd64|arm64]... [--version V]
#                     [--out DIR] [--prebuilt DIR]
#
#   --release  Debian 13 "trixie" (Raspberry Pi OS Trixie: libgpiod3) or Debian 12 "bookworm"
#              (libgpiod2); repeatable; default both
#   --arch     amd64 or arm64 (every 64-bit Raspberry Pi); repeatable; default both
#   --version  the upstream version (default: Switchboard.version, then +git, the commit's UTC
#              date and time and its short hash: 0.1.0+git20261125.235200.83837f3); the release
#              is appended (+deb13, +deb12), so a release's package sorts above the other's
#   --out      where the .debs go (default .build-deb)
#   --prebuilt switchboardd, switchboard, switchboard-extension-launcher and home-controls from DIR
#              (one --release and one --arch) instead of building them
#
# Where each is built (all on an x86_64 Debian machine; the roots are cached, see each script; the
# arm64 builds run in the background beside the amd64 ones):
#   trixie amd64    in deploy/debian13/root.sh's root (an overlay: the cache stays untouched) with
#                   Debian's swiftlang 6.0.3, into .build-debian13-release (the folder the systemd
#                   stage's build uses)
#   trixie arm64    cross-compiled by deploy/arm64/build.sh trixie release (.build-arm64-trixie)
#   bookworm amd64  on this machine when it is Debian 12, with its Swift (swift.org's toolchain),
#                   into .build-bookworm-release
#   bookworm arm64  cross-compiled by deploy/arm64/build.sh bookworm release (.build-arm64-bookworm):
#                   Debian 13's arm64 Swift runtime (Debian 12 has none) with deploy/arm64/glibc-compat.c
#                   for the glibc 2.38 functions it calls
# The package holds the three programs and the example extension (/usr/libexec/switchboard), the
# systemd units of deploy/ (paths moved from /usr/local to /usr), the udev rule, the sample
# devices.json as the conffile /etc/switchboard/devices.json, the mosquitto configuration under
# /usr/share/doc/switchboard/examples, the README and docs/ under /usr/share/doc/switchboard, and
# two man pages; deploy/package/ holds the maintainer scripts (user and groups, units enabled and
# started, state kept on removal, gone on purge).
# Depends comes from dpkg-shlibdeps on the amd64 programs of the same release (run against that
# release's package database); an arm64 package takes the same list once its programs are shown
# to need the same libraries. Needs root (chroot, bind mounts); runs itself through sudo otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
source deploy/lib/packages.sh

usage() { sed -n '6,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
say() { echo "switchboard package: $*" >&2; }
releases=() arches=() version="" out=$repo/.build-deb prebuilt=""
while (($#)); do
    case $1 in
        --release) [[ -n ${2:-} ]] || usage; releases+=("$2"); shift 2 ;;
        --arch) [[ -n ${2:-} ]] || usage; arches+=("$2"); shift 2 ;;
        --version) [[ -n ${2:-} ]] || usage; version=$2; shift 2 ;;
        --out) [[ -n ${2:-} ]] || usage; out=$2; shift 2 ;;
        --prebuilt) [[ -n ${2:-} ]] || usage; prebuilt=$(realpath -e "$2"); shift 2 ;;
        -h | --help) usage ;;
        *) echo "package.sh: unknown argument \"$1\" (see --help)" >&2; exit 2 ;;
    esac
done
explicit_releases=${#releases[@]} explicit_arches=${#arches[@]}
((${#releases[@]})) || releases=(trixie bookworm)
((${#arches[@]})) || arches=(amd64 arm64)
for release in "${releases[@]}"; do
    case $release in trixie | bookworm) ;; *) echo "package.sh: release \"$release\"? say trixie or bookworm" >&2; exit 2 ;; esac
done
for arch in "${arches[@]}"; do
    case $arch in amd64 | arm64) ;; *) echo "package.sh: architecture \"$arch\"? say amd64 or arm64" >&2; exit 2 ;; esac
done
if [[ -n $prebuilt ]] && ((${#releases[@]} != 1 || ${#arches[@]} != 1 || !explicit_releases || !explicit_arches)); then
    echo "package.sh: --prebuilt takes the programs of one release and architecture: give one --release and one --arch" >&2
    exit 2
fi
if ((EUID != 0)); then
    exec sudo --preserve-env=SWITCHBOARD_DEBIAN13_CACHE,SWITCHBOARD_ARM64_CACHE,DEBIAN_MIRROR,DEBIAN13_MIRROR,DEBFULLNAME,DEBEMAIL \
        "$repo/deploy/package.sh" "$@"
fi
[[ $(uname -m) == x86_64 ]] || { say "the builds run on an x86_64 Debian machine; this is $(uname -m)"; exit 1; }

upstream=$(sed -n 's/^ *public static let version = "\([^"]*\)".*/\1/p' Sources/SwitchboardCore/Switchboard.swift)
[[ -n $upstream ]] || { say "no Switchboard.version in Sources/SwitchboardCore/Switchboard.swift"; exit 1; }
if [[ -z $version ]]; then
    version=$upstream+git$(TZ=UTC git log -1 --format=%cd --date=format-local:%Y%m%d.%H%M%S).$(git rev-parse --short=7 HEAD)
fi
[[ $version =~ ^[0-9][A-Za-z0-9.+~]*$ ]] ||
    { echo "package.sh: version \"$version\" is not a Debian upstream version (digits first, then letters, digits, . + ~)" >&2; exit 2; }
# Who built it: DEBFULLNAME and DEBEMAIL as Debian's tools read them, else git's identity, else
# (a machine with neither, as CI's) the author of the commit built.
maintainer="${DEBFULLNAME:-$(git config user.name || git -C "$repo" log -1 --format=%an)} <${DEBEMAIL:-$(git config user.email || git -C "$repo" log -1 --format=%ae)}>"
mkdir -p "$out"
out=$(realpath "$out")
ensure_packages dpkg-dev binutils binutils-aarch64-linux-gnu >&2

# --- the programs ----------------------------------------------------------------------------
programs=(switchboardd switchboard switchboard-extension-launcher home-controls)
# GNU ld (the amd64 builds) marks nothing read-only after relocation unless asked; lld (arm64) does.
amd64_link_options=(-Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now)
products_built() { local program; for program in "${programs[@]}"; do [[ -x $1/$program ]] || return 1; done; }

# Debian 13, amd64: the release build inside the Debian 13 root, on an overlay of it (the same
# build deploy/hil/systemd-test.sh makes, into the same folder).
build_trixie_amd64() {
    local root scratch
    root=$(deploy/debian13/root.sh)
    scratch=$(mktemp -d /var/tmp/switchboard-package.XXXXXX)
    unshare --mount --propagation private bash -euc '
        root=$1 build=$2 repo=$3; shift 3
        mkdir -p "$build/upper" "$build/work" "$build/root"
        mount -t overlay none -o "lowerdir=$root,upperdir=$build/upper,workdir=$build/work" "$build/root"
        for fs in /proc /sys /dev "$repo"; do mkdir -p "$build/root$fs" && mount --bind "$fs" "$build/root$fs"; done
        link_options=(-Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now)
        for product in "$@"; do
            chroot "$build/root" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 \
                sh -c "cd \"\$1\" && shift && swift build -c release --static-swift-stdlib --scratch-path .build-debian13-release \"\$@\"" \
                sh "$repo" "${link_options[@]}" --product "$product"
        done
        ' _ "$root" "$scratch" "$repo" "${programs[@]}" >&2 || { rm -rf "$scratch"; return 1; }
    rm -rf "$scratch"
    echo "$repo/.build-debian13-release/release"
}
# Debian 13, arm64: cross-compiled (below, in the background).
build_bookworm_amd64() {
    local codename product
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    [[ $codename == bookworm ]] || { say "the bookworm amd64 package is built on Debian 12; this machine is \"$codename\""; return 1; }
    command -v swift >/dev/null || { say "no swift on the PATH for the bookworm amd64 build (swift.org's toolchain)"; return 1; }
    # The static runtime links libstdc++: its development files (libstdc++-12-dev on Debian 12).
    ensure_packages "${switchboard_build_packages[@]}" "$(libstdcxx_dev_package)" >&2
    for product in "${programs[@]}"; do
        swift build -c release --static-swift-stdlib --scratch-path .build-bookworm-release "${amd64_link_options[@]}" --product "$product" >&2
    done
    swift build -c release --static-swift-stdlib --scratch-path .build-bookworm-release --show-bin-path
}
# arm64 (below, in the background): deploy/arm64/build.sh RELEASE release. Debian 12 has no Swift
# for arm64: its build takes Debian 13's arm64 runtime, with deploy/arm64/glibc-compat.c for the
# glibc 2.38 functions it calls (see deploy/arm64/build.sh).

# --- what the package depends on -----------------------------------------------------------
# The libraries a program needs (its NEEDED entries), sorted, but for the dynamic loader (libc6's,
# named after the architecture).
needed_libraries() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -v '^ld-linux' | sort -u; }

# dpkg-shlibdeps on amd64 programs against a release's package database: this machine's for
# bookworm, the Debian 13 root's for trixie. dpkg-shlibdeps finds the libraries under the root
# (-l) and asks dpkg-query which package owns each: a dpkg-query in front of the real one takes
# the root off the paths it is asked about and puts it back on the answers.
shlibs_depends() {
    local release=$1 bin=$2 work root="" program arguments=()
    work=$(mktemp -d)
    mkdir -p "$work/debian" "$work/path"
    printf 'Source: switchboard\n\nPackage: switchboard\nArchitecture: any\n' >"$work/debian/control"
    if [[ $release == trixie ]]; then
        root=$(deploy/debian13/root.sh)
        cat >"$work/path/dpkg-query" <<QUERY
#!/bin/bash
arguments=()
for argument in "\$@"; do arguments+=("\${argument#"$root"}"); done
/usr/bin/dpkg-query --admindir="$root/var/lib/dpkg" "\${arguments[@]}" | sed 's|: /|: $root/|'
exit "\${PIPESTATUS[0]}"
QUERY
        chmod 755 "$work/path/dpkg-query"
        arguments=(--admindir="$root/var/lib/dpkg" -l"$root/usr/lib/x86_64-linux-gnu" -l"$root/lib/x86_64-linux-gnu")
    fi
    # Copies in a package tree, without SwiftPM's rpath, as dpkg-shlibdeps expects them.
    mkdir -p "$work/debian/switchboard/DEBIAN" "$work/debian/switchboard/usr/bin"
    for program in "${programs[@]}"; do
        cp "$bin/$program" "$work/debian/switchboard/usr/bin/"
        chrpath -d "$work/debian/switchboard/usr/bin/$program" >/dev/null 2>&1 || true
        arguments+=(-e"debian/switchboard/usr/bin/$program")
    done
    if ! (cd "$work" && PATH=$work/path:$PATH dpkg-shlibdeps -O "${arguments[@]}" 2>"$work/shlibdeps.log") >"$work/depends"; then
        cat "$work/shlibdeps.log" >&2
    fi
    sed -n 's/^shlibs:Depends=//p' "$work/depends"
    rm -rf "$work"
}

# --- the package ------------------------------------------------------------------------------
# make_package RELEASE ARCH BIN DEPENDS: prints the .deb's path.
make_package() {
    local release=$1 arch=$2 bin=$3 depends=$4 deb_version tree lib strip program file
    case $release in
        trixie) deb_version=$version+deb13; lib=/usr/lib ;;
        # Debian 12 keeps units and udev rules in /lib (lintian of that release says so).
        bookworm) deb_version=$version+deb12; lib=/lib ;;
    esac
    case $arch in amd64) strip=strip ;; arm64) strip=aarch64-linux-gnu-strip ;; esac
    tree=$(mktemp -d)/switchboard
    install -d -m 755 "$tree/DEBIAN" "$tree/usr/bin" "$tree/usr/libexec/switchboard" "$tree$lib/systemd/system" \
        "$tree$lib/udev/rules.d" "$tree/etc/switchboard" "$tree/usr/share/switchboard" \
        "$tree/usr/share/doc/switchboard/examples/mosquitto" "$tree/usr/share/man/man1" "$tree/usr/share/man/man8"
    install -m 755 "$bin/switchboardd" "$bin/switchboard" "$tree/usr/bin/"
    install -m 755 "$bin/switchboard-extension-launcher" "$tree/usr/libexec/"
    install -m 755 "$bin/home-controls" "$tree/usr/libexec/switchboard/"
    for program in "$tree/usr/bin/"* "$tree/usr/libexec/switchboard-extension-launcher" "$tree/usr/libexec/switchboard/"*; do
        "$strip" --remove-section=.comment --remove-section=.note "$program"
        # SwiftPM's rpath to the toolchain's runtime: the runtime is linked in, nothing is looked up.
        if readelf -d "$program" | grep -q 'R\(UN\)\?PATH'; then chrpath -d "$program" >/dev/null; fi
    done
    # The units, with the programs where the package puts them.
    for file in switchboardd.service switchboard-extension.socket switchboard-extension@.service; do
        sed -e 's|/usr/local/bin/|/usr/bin/|g; s|/usr/local/libexec/|/usr/libexec/|g' \
            -e 's|^Documentation=file:///usr/local/share/doc/switchboard/README.md|Documentation=man:switchboardd(8)|' \
            "deploy/$file" >"$tree$lib/systemd/system/$file"
        chmod 644 "$tree$lib/systemd/system/$file"
    done
    install -m 644 deploy/99-switchboard-gpio.rules "$tree$lib/udev/rules.d/"
    install -m 644 devices.json "$tree/etc/switchboard/devices.json"
    install -m 644 devices.schema.json "$tree/usr/share/switchboard/devices.schema.json"
    # The sample names "./devices.schema.json" beside it.
    ln -s /usr/share/switchboard/devices.schema.json "$tree/etc/switchboard/devices.schema.json"
    install -m 644 deploy/mosquitto/switchboard.conf deploy/mosquitto/switchboard.acl deploy/mosquitto/bridge.conf \
        "$tree/usr/share/doc/switchboard/examples/mosquitto/"
    install -m 644 deploy/mosquitto/README.md "$tree/usr/share/doc/switchboard/examples/mosquitto/README.md"
    install -m 644 README.md "$tree/usr/share/doc/switchboard/README.md"
    install -d "$tree/usr/share/doc/switchboard/docs"
    install -m 644 docs/*.md "$tree/usr/share/doc/switchboard/docs/"
    gzip -9n "$tree/usr/share/doc/switchboard/README.md" "$tree/usr/share/doc/switchboard/examples/mosquitto/README.md" \
        "$tree"/usr/share/doc/switchboard/docs/*.md
    install -m 644 deploy/package/copyright "$tree/usr/share/doc/switchboard/copyright"
    printf 'switchboard (%s) %s; urgency=medium\n\n  * Built by deploy/package.sh from commit %s.\n\n -- %s  %s\n' \
        "$deb_version" "$release" "$(git rev-parse --short=12 HEAD)" "$maintainer" \
        "$(TZ=UTC git log -1 --format=%cd --date=format-local:'%a, %d %b %Y %H:%M:%S +0000')" |
        gzip -9n >"$tree/usr/share/doc/switchboard/changelog.gz"
    gzip -9n <deploy/package/switchboard.1 >"$tree/usr/share/man/man1/switchboard.1.gz"
    gzip -9n <deploy/package/switchboardd.8 >"$tree/usr/share/man/man8/switchboardd.8.gz"
    chmod 644 "$tree/usr/share/doc/switchboard/changelog.gz" "$tree"/usr/share/man/man*/*.gz

    install -d -m 755 "$tree/usr/share/lintian/overrides"
    install -m 644 deploy/package/lintian-overrides "$tree/usr/share/lintian/overrides/switchboard"
    if [[ $release-$arch == trixie-amd64 ]]; then
        cat >>"$tree/usr/share/lintian/overrides/switchboard" <<'OVERRIDES'
# GNU ld 2.44 (Debian 13's, the trixie amd64 build's linker) writes no PT_GNU_RELRO segment into
# these links of the static Swift runtime although it is given -z relro (it honours -z now:
# BIND_NOW is set). The arm64 packages (lld) and the bookworm amd64 one have it. Linking with lld
# here too is the fix.
switchboard: hardening-no-relro [usr/bin/switchboard]
switchboard: hardening-no-relro [usr/bin/switchboardd]
switchboard: hardening-no-relro [usr/libexec/switchboard-extension-launcher]
switchboard: hardening-no-relro [usr/libexec/switchboard/home-controls]
OVERRIDES
    fi
    install -m 755 deploy/package/postinst deploy/package/prerm deploy/package/postrm "$tree/DEBIAN/"
    echo /etc/switchboard/devices.json >"$tree/DEBIAN/conffiles"
    chmod 644 "$tree/DEBIAN/conffiles"
    cat >"$tree/DEBIAN/control" <<CONTROL
Package: switchboard
Version: $deb_version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$tree" | cut -f1)
Depends: $depends, adduser, init-system-helpers (>= 1.52)
Recommends: gpiod, mosquitto-clients, avahi-daemon
Suggests: mosquitto
Section: misc
Priority: optional
Description: controls for GPIO lines and MQTT topics on Raspberry Pi-class boards
 Switchboard runs the controls declared in /etc/switchboard/devices.json:
 switches, buttons, sensors and timers bound to GPIO lines (libgpiod) and
 MQTT topics (libmosquitto), with their state kept across restarts, Home
 Assistant discovery and a physical Action button.
 .
 This package holds the daemon switchboardd (run by switchboardd.service
 under systemd's sandboxing, as the switchboard user in the gpio group),
 the switchboard command line tool, the sandboxed launcher of control
 extensions and the example extension. The Swift runtime is linked in.
CONTROL
    (cd "$tree" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum >DEBIAN/md5sums)
    chmod 644 "$tree/DEBIAN/md5sums"
    # xz at its fastest level: 6 (dpkg-deb's default) takes about 40 s a package for a tenth less
    # size, and these packages are copied to a board, not served from an archive.
    dpkg-deb --root-owner-group -Zxz -z1 --build "$tree" "$out/switchboard_${deb_version}_$arch.deb" >/dev/null
    rm -rf "$(dirname "$tree")"
    echo "$out/switchboard_${deb_version}_$arch.deb"
}

# --- the arm64 builds, beside the amd64 ones -----------------------------------------------------
# A release build compiles one module at a time (whole-module optimization), which keeps one core
# busy: the arm64 cross builds (their own scratch folders and roots) run in the background while the
# amd64 ones run here, each release's log and exit status in $arm64_builds/RELEASE.{log,status}.
arm64_builds="" arm64_builder=""
if [[ -z $prebuilt && " ${arches[*]} " == *" arm64 "* ]]; then
    arm64_builds=$(mktemp -d)
    # A session of its own: the whole build stops with it if this script ends first.
    setsid bash -c 'out=$1; shift
        for release; do
            status=0
            deploy/arm64/build.sh "$release" release >"$out/$release.log" 2>&1 || status=$?
            echo "$status" >"$out/$release.status"
        done' _ "$arm64_builds" "${releases[@]}" </dev/null &
    arm64_builder=$!
    trap 'kill -- "-$arm64_builder" 2>/dev/null || true; rm -rf "$arm64_builds"' EXIT
fi
# arm64_built RELEASE: waits for the background arm64 build of RELEASE, copies its log to stderr and
# prints where its programs are; fails as the build did.
arm64_built() {
    local status=$arm64_builds/$1.status
    while [[ ! -f $status ]]; do
        kill -0 "$arm64_builder" 2>/dev/null || [[ -f $status ]] || { say "the background arm64 builds ended before the $1 one"; return 1; }
        sleep 1
    done
    cat "$arm64_builds/$1.log" >&2
    (($(cat "$status") == 0)) && echo "$repo/.build-arm64-$1/aarch64-unknown-linux-gnu/release"
}

# --- each release and architecture ------------------------------------------------------------
ensure_packages chrpath >&2
declare -A amd64_bin=()
made=() failed=()
for release in "${releases[@]}"; do
    for arch in amd64 arm64; do
        [[ " ${arches[*]} " == *" $arch "* ]] || continue
        started=$(date +%s)
        say "$release $arch: building"
        if [[ -n $prebuilt ]]; then
            bin=$prebuilt
        elif [[ $arch == arm64 ]]; then
            bin=$(arm64_built "$release") || { say "FAILED: the $release $arch build"; failed+=("$release $arch"); continue; }
        else
            bin=$("build_${release}_$arch") || { say "FAILED: the $release $arch build"; failed+=("$release $arch"); continue; }
        fi
        products_built "$bin" || { say "FAILED: not all of ${programs[*]} in $bin"; failed+=("$release $arch"); continue; }
        [[ $arch == amd64 ]] && amd64_bin[$release]=$bin
        # Depends: from the amd64 programs of the release (built now when only arm64 was asked for).
        reference=${amd64_bin[$release]:-}
        if [[ -z $reference ]]; then
            for candidate in "$repo/.build-debian13-release/release" "$repo/.build-bookworm-release/release"; do
                [[ $release == trixie && $candidate == *debian13* || $release == bookworm && $candidate == *bookworm* ]] || continue
                products_built "$candidate" && reference=$candidate
            done
            [[ -n $reference ]] || reference=$("build_${release}_amd64") || { say "FAILED: the $release amd64 build its Depends come from"; failed+=("$release $arch"); continue; }
            amd64_bin[$release]=$reference
        fi
        if [[ $arch == arm64 ]]; then
            for program in "${programs[@]}"; do
                if [[ $(needed_libraries "$bin/$program") != $(needed_libraries "$reference/$program") ]]; then
                    say "FAILED: the arm64 $program needs other libraries than the amd64 one: $(needed_libraries "$bin/$program" | paste -sd' ') against $(needed_libraries "$reference/$program" | paste -sd' ')"
                    failed+=("$release $arch"); continue 2
                fi
            done
        fi
        depends=$(shlibs_depends "$release" "$reference")
        [[ -n $depends ]] || { say "FAILED: dpkg-shlibdeps found no dependencies for the $release programs"; failed+=("$release $arch"); continue; }
        deb=$(make_package "$release" "$arch" "$bin" "$depends")
        say "$release $arch: $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB, Installed-Size $(dpkg-deb -f "$deb" Installed-Size) KiB) in $(($(date +%s) - started))s"
        made+=("$deb")
        echo "$deb"
    done
done
((${#made[@]})) || { say "no package made"; exit 1; }
((${#failed[@]} == 0)) || { say "not made: $(IFS=,; echo "${failed[*]}")"; exit 1; }
