#!/usr/bin/env bash
# Checks Switchboard's Debian packages as a user gets them: deploy/package.sh makes every package
# this machine can make, lintian passes each (no error, no warning), their contents and control
# fields are what a Raspberry Pi needs (`dpkg-deb -c`, `-I`), no program asks for a glibc or
# libstdc++ symbol version newer than its release has, and each arm64 package, in a fresh arm64
# system of its release (deploy/package-root.sh; an overlay of it, thrown away after) run through
# qemu-user:
#   `apt-get install ./switchboard_V_arm64.deb` and nothing else (apt fetches the libraries); the
#   user and groups, the configuration's owner, the state folder, the units enabled; the installed
#   `switchboardd --version`, `switchboard check /etc/switchboard/devices.json --simulate`, and
#   `switchboardd --simulate` on it until the CLI's status answers, then SIGINT; an upgrade to a
#   newer package that keeps an edited devices.json and the state; `dpkg -r` (programs gone,
#   configuration and state kept) and `dpkg -P` (those gone too, the user kept).
# No service starts in the chroot (policy-rc.d; no systemd runs there): the units under systemd
# are the systemd stage's. Prints PASS or FAIL per check; exits non-zero on any failure.
#
#   deploy/package-test.sh
# Env: SWITCHBOARD_PACKAGE_DEBS=DIR checks the switchboard_*.deb in DIR instead of making them,
# SWITCHBOARD_PACKAGE_KEEP=1 keeps the run folder (packages, logs), SWITCHBOARD_PACKAGE_CHROOTS the
# releases whose arm64 package is installed under qemu-user (default "trixie bookworm"). Needs
# root (runs itself through sudo otherwise). Run by deploy/test.sh after the arm64 stage.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
if ((EUID != 0)); then
    exec sudo --preserve-env=SWITCHBOARD_PACKAGE_DEBS,SWITCHBOARD_PACKAGE_KEEP,SWITCHBOARD_PACKAGE_CHROOTS,SWITCHBOARD_STAGE_TIMES,SWITCHBOARD_DEBIAN13_CACHE,SWITCHBOARD_ARM64_CACHE,SWITCHBOARD_PACKAGE_CACHE,DEBIAN_MIRROR \
        "$repo/deploy/package-test.sh" "$@"
fi
source deploy/lib/packages.sh
source deploy/lib/stages.sh

failures=0
pass() { echo "  PASS  $*"; }
fail() { echo "  FAIL  $*"; failures=$((failures + 1)); }
check() { # DESCRIPTION COMMAND...: PASS when the command succeeds
    local description=$1; shift
    if "$@" >>"$run/checks.log" 2>&1; then pass "$description"; else fail "$description (see below)"; tail -n 15 "$run/checks.log" | sed 's/^/        /'; fi
}
run=$(mktemp -d /var/tmp/switchboard-package-test.XXXXXX)
cleanup() { if [[ ${SWITCHBOARD_PACKAGE_KEEP:-0} == 1 ]]; then echo "switchboard package: kept $run"; else rm -rf "$run"; fi; }
trap 'status=$?; cleanup; ((failures == 0)) || status=1; (exit "$status"); stages_report' EXIT

stage "packages: deploy/package.sh"
ensure_packages lintian qemu-user-static binfmt-support >/dev/null
if [[ -n ${SWITCHBOARD_PACKAGE_DEBS:-} ]]; then
    ls "$(realpath -e "$SWITCHBOARD_PACKAGE_DEBS")"/switchboard_*.deb >"$run/debs.txt"
    : >"$run/package.log"
else
    # Into .build-deb, where the systemd stages find them (deploy/test.sh), instead of making them again.
    rm -f .build-deb/switchboard_*.deb
    deploy/package.sh --out .build-deb 2> >(tee "$run/package.log" >&2) >"$run/debs.txt" || fail "deploy/package.sh made every package (log above)"
fi
mapfile -t debs <"$run/debs.txt"
((${#debs[@]})) || { fail "deploy/package.sh made no package"; exit 1; }
grep -E '^switchboard package: .*(KiB|not made|no bookworm)' "$run/package.log" | sed 's/^switchboard package: /  /' || true

stage "packages: lintian and contents"
for deb in "${debs[@]}"; do
    name=$(basename "$deb")
    lintian --no-tag-display-limit "$deb" >"$run/lintian-$name.txt" 2>&1 || true
    if grep -Eq '^[EW]: ' "$run/lintian-$name.txt"; then
        fail "lintian $name: $(grep -Ec '^E: ' "$run/lintian-$name.txt") errors, $(grep -Ec '^W: ' "$run/lintian-$name.txt") warnings"
        grep -E '^[EW]: ' "$run/lintian-$name.txt" | sed 's/^/        /'
    else
        pass "lintian $name: no errors or warnings ($(grep -Ec '^[IP]: ' "$run/lintian-$name.txt" || true) notes)"
    fi
    contents=$(dpkg-deb -c "$deb" | awk '{ print $6 }')
    missing=()
    for path in ./usr/bin/switchboardd ./usr/bin/switchboard ./usr/libexec/switchboard-extension-launcher \
        ./usr/libexec/switchboard/home-controls ./etc/switchboard/devices.json \
        systemd/system/switchboardd.service systemd/system/switchboard-extension.socket \
        systemd/system/switchboard-extension@.service udev/rules.d/99-switchboard-gpio.rules \
        ./usr/share/doc/switchboard/examples/mosquitto/switchboard.conf ./usr/share/doc/switchboard/copyright \
        ./usr/share/doc/switchboard/README.md.gz ./usr/share/doc/switchboard/docs/devices-json.md.gz \
        ./usr/share/man/man8/switchboardd.8.gz ./usr/share/man/man1/switchboard.1.gz; do
        grep -q -- "$path\$" <<<"$contents" || missing+=("$path")
    done
    if ((${#missing[@]})); then fail "$name holds ${missing[*]}"; else pass "$name holds the programs, units, udev rule, devices.json, examples, documents, man pages"; fi
    depends=$(dpkg-deb -f "$deb" Depends)
    case $name in *+deb13_*) gpiod=libgpiod3 ;; *) gpiod=libgpiod2 ;; esac
    if [[ $depends == *"$gpiod ("* && $depends == *"libmosquitto1 ("* && $depends == *adduser* ]]; then
        pass "$name Depends: $depends"
    else
        fail "$name Depends \"$depends\": expected $gpiod, libmosquitto1 and adduser"
    fi
    conffiles=$(dpkg-deb -I "$deb" conffiles 2>/dev/null || true)
    if [[ $conffiles == /etc/switchboard/devices.json ]]; then pass "$name conffiles: /etc/switchboard/devices.json"; else fail "$name conffiles: \"$conffiles\""; fi
    arch=$(dpkg-deb -f "$deb" Architecture)
    case $arch in amd64) machine='x86-64' ;; arm64) machine='ARM aarch64' ;; esac
    dpkg-deb -x "$deb" "$run/x-$name"
    if file "$run/x-$name/usr/bin/switchboardd" | grep -q "$machine.*stripped" && ! file "$run/x-$name/usr/bin/switchboardd" | grep -q 'not stripped'; then
        pass "$name switchboardd is a stripped $arch program"
    else
        fail "$name switchboardd: $(file -b "$run/x-$name/usr/bin/switchboardd")"
    fi
    if readelf -d "$run/x-$name/usr/bin/switchboardd" | grep -q 'libswiftCore'; then
        fail "$name switchboardd needs libswiftCore.so: the Swift runtime is not linked in"
    else
        pass "$name switchboardd has the Swift runtime linked in (needs: $(readelf -d "$run/x-$name/usr/bin/switchboardd" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | paste -sd' '))"
    fi
    # The daemon and the CLI import FoundationEssentials only: ICU's data (about 30 MB a program)
    # is in neither. A source file of theirs that imports all of Foundation brings it back.
    for program in switchboardd switchboard; do
        if grep -qa 'icudt[0-9]*l' "$run/x-$name/usr/bin/$program"; then
            fail "$name $program carries ICU's data: a source file of it imports Foundation, not FoundationEssentials"
        else
            pass "$name $program carries no ICU data ($(($(stat -c %s "$run/x-$name/usr/bin/$program") / 1048576)) MiB)"
        fi
    done
    # What the programs ask of the C and C++ libraries: no symbol version newer than the release has
    # (Debian 12: glibc 2.36, libstdc++ of GCC 12, GLIBCXX_3.4.30; Debian 13: glibc 2.41, GCC 14).
    case $name in *+deb12_*) glibc_max=2.36 glibcxx_max=3.4.30 ;; *) glibc_max=2.41 glibcxx_max=3.4.33 ;; esac
    for program in usr/bin/switchboardd usr/bin/switchboard usr/libexec/switchboard-extension-launcher usr/libexec/switchboard/home-controls; do
        versions=$(readelf --dyn-syms -W "$run/x-$name/$program" | grep -o '@GLIBC\(XX\)\?_[0-9.]*' | sort -u)
        glibc=$(sed -n 's/^@GLIBC_//p' <<<"$versions" | sort -V | tail -n 1)
        glibcxx=$(sed -n 's/^@GLIBCXX_//p' <<<"$versions" | sort -V | tail -n 1)
        if [[ $(printf '%s\n' "$glibc" "$glibc_max" | sort -V | tail -n 1) == "$glibc_max" &&
            $(printf '%s\n' "${glibcxx:-0}" "$glibcxx_max" | sort -V | tail -n 1) == "$glibcxx_max" ]]; then
            pass "$name $(basename "$program") needs GLIBC_$glibc${glibcxx:+, GLIBCXX_$glibcxx} at most (the release has $glibc_max, $glibcxx_max)"
        else
            fail "$name $(basename "$program") needs GLIBC_$glibc${glibcxx:+, GLIBCXX_$glibcxx}: newer than the release's $glibc_max, $glibcxx_max"
        fi
    done
    rm -rf "$run/x-$name"
done

# The glibc 2.38 functions the Bookworm arm64 programs carry (deploy/arm64/glibc-compat.c), checked
# on this machine: the same C, compiled for x86_64.
ensure_packages gcc "$(libstdcxx_dev_package)" >/dev/null
if gcc -O2 -Wall -Werror -o "$run/glibc-compat-test" deploy/arm64/glibc-compat-test.c deploy/arm64/glibc-compat.c -lstdc++ \
    >"$run/glibc-compat.log" 2>&1 && "$run/glibc-compat-test" >>"$run/glibc-compat.log" 2>&1; then
    pass "deploy/arm64/glibc-compat.c: C23 strtol family with 0b prefixes, sscanf, strlcpy, strlcat"
else
    fail "deploy/arm64/glibc-compat.c: $(tail -n 5 "$run/glibc-compat.log")"
fi

# --- the arm64 packages installed into a fresh arm64 system ------------------------------------
mountpoint -q /proc/sys/fs/binfmt_misc || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
[[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]] || update-binfmts --enable qemu-aarch64

# installed_test RELEASE DEB: the whole life of the package in an overlay of a fresh system.
installed_test() {
    local release=$1 deb=$2 system layer upgrade version
    system=$(deploy/package-root.sh "$release")
    layer=$run/$release-arm64
    mkdir -p "$layer/upper" "$layer/work" "$layer/root" "$layer/debs"
    # A newer package of the same contents, to upgrade to: the package unpacked, its version raised,
    # packed again (gzip -1: quick; the contents are what is tested, not the compression).
    version=$(dpkg-deb -f "$deb" Version)
    version=${version%+deb*}.1+${version##*+}
    dpkg-deb -R "$deb" "$layer/unpacked"
    sed -i "s/^Version: .*/Version: $version/" "$layer/unpacked/DEBIAN/control"
    upgrade=$layer/switchboard_${version}_arm64.deb
    dpkg-deb --root-owner-group -Zgzip -z1 --build "$layer/unpacked" "$upgrade" >/dev/null ||
        { fail "$release arm64: the upgrade package"; return; }
    rm -rf "$layer/unpacked"
    cp "$deb" "$upgrade" "$layer/debs/"
    SYSTEM=$system LAYER=$layer DEB=$(basename "$deb") UPGRADE=$(basename "$upgrade") RELEASE=$release \
        unshare --mount --propagation private bash -euc '
        mount -t overlay none -o "lowerdir=$SYSTEM,upperdir=$LAYER/upper,workdir=$LAYER/work" "$LAYER/root"
        for fs in /proc /sys /dev /dev/pts; do mkdir -p "$LAYER/root$fs" && mount --bind "$fs" "$LAYER/root$fs"; done
        mkdir -p "$LAYER/root/srv/debs" && mount --bind "$LAYER/debs" "$LAYER/root/srv/debs"
        cp /etc/resolv.conf "$LAYER/root/etc/resolv.conf"
        # No service starts inside a chroot.
        printf "#!/bin/sh\nexit 101\n" >"$LAYER/root/usr/sbin/policy-rc.d" && chmod 755 "$LAYER/root/usr/sbin/policy-rc.d"
        exec chroot "$LAYER/root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
            DEB="$DEB" UPGRADE="$UPGRADE" RELEASE="$RELEASE" /bin/bash /srv/debs/guest.sh
        ' _ >"$layer/guest.log" 2>&1 </dev/null || true
    grep -E '^  (PASS|FAIL) ' "$layer/guest.log" || true
    failures=$((failures + $(grep -c '^  FAIL ' "$layer/guest.log" || true)))
    if ! grep -q '^guest: done$' "$layer/guest.log"; then
        fail "$release arm64: the installed checks did not finish; their log's end:"
        tail -n 30 "$layer/guest.log" | sed 's/^/        /'
    fi
}

# What runs inside the arm64 system (arm64 programs, through qemu-user): one PASS or FAIL per check.
read -r -d '' guest <<'GUEST' || true
set -u
export DEBIAN_FRONTEND=noninteractive
pass() { echo "  PASS  $RELEASE arm64: $*"; }
fail() { echo "  FAIL  $RELEASE arm64: $*"; }
check() { local d=$1; shift; if "$@"; then pass "$d"; else fail "$d"; fi; }
cd /srv/debs
apt-get update -qq || true
if apt-get install -y -q "./$DEB" >apt.log 2>&1; then pass "apt-get install ./$DEB"; else fail "apt-get install ./$DEB: $(tail -n 5 apt.log)"; echo "guest: done"; exit 0; fi
check "the package is installed ($(dpkg-query -W -f='${Version}' switchboard))" test "$(dpkg-query -W -f='${db:Status-Abbrev}' switchboard)" = "ii "
check "the switchboard system user, in the gpio group" sh -c 'id -nG switchboard | grep -qw gpio && test "$(id -u switchboard)" -lt 1000'
check "/etc/switchboard/devices.json is root:switchboard 0640, its folder 0750" \
    test "$(stat -c '%U:%G %a' /etc/switchboard/devices.json) $(stat -c '%a' /etc/switchboard)" = "root:switchboard 640 750"
check "/var/lib/switchboard belongs to switchboard" test "$(stat -c %U /var/lib/switchboard)" = switchboard
check "switchboardd.service and switchboard-extension.socket are enabled" \
    test -L /etc/systemd/system/multi-user.target.wants/switchboardd.service -a -L /etc/systemd/system/sockets.target.wants/switchboard-extension.socket
version=$(/usr/bin/switchboardd --version 2>&1)
case $RELEASE in trixie) gpiod="libgpiod 2." ;; *) gpiod="libgpiod 1." ;; esac
case $version in "switchboardd "*"$gpiod"*) pass "switchboardd --version: $version" ;; *) fail "switchboardd --version: $version (expected $gpiod)" ;; esac
check "switchboard check /etc/switchboard/devices.json --simulate" /usr/bin/switchboard check /etc/switchboard/devices.json --simulate

# The daemon as its unit runs it (its user, the gpio group), on simulated chips.
install -d -o switchboard -g switchboard -m 0750 /run/switchboard
as_switchboard() { setpriv --reuid=switchboard --regid=switchboard --groups="$(getent group gpio | cut -d: -f3)" -- "$@"; }
# A background job of a script starts with SIGINT ignored: the daemon gets it back, as from a terminal.
env --default-signal=INT setpriv --reuid=switchboard --regid=switchboard --groups="$(getent group gpio | cut -d: -f3)" -- \
    /usr/bin/switchboardd --simulate --config /etc/switchboard/devices.json --state-dir /var/lib/switchboard \
    --socket /run/switchboard/switchboard.sock >daemon.log 2>&1 &
daemon=$!
started=$(date +%s)
ready=0
for _ in $(seq 240); do
    if as_switchboard /usr/bin/switchboard status >status.txt 2>&1; then ready=1; break; fi
    kill -0 "$daemon" 2>/dev/null || break
    sleep 0.5
done
if ((ready)); then
    pass "switchboardd --simulate answers switchboard status after $(($(date +%s) - started)) s (emulated): $(head -n 1 status.txt)"
else
    fail "switchboardd --simulate did not answer switchboard status: $(tail -n 5 daemon.log)"
fi
check "switchboard on porch" as_switchboard /usr/bin/switchboard on porch
kill -INT "$daemon" 2>/dev/null
stopped=0
for _ in $(seq 60); do kill -0 "$daemon" 2>/dev/null || { stopped=1; break; }; sleep 0.5; done
if ((stopped)); then wait "$daemon"; status=$?; check "switchboardd stops on SIGINT (exit $status)" test "$status" = 0
else kill -KILL "$daemon"; fail "switchboardd did not stop within 30 s of SIGINT"; fi
check "the daemon left its state in /var/lib/switchboard" test -s /var/lib/switchboard/state.json

# An upgrade keeps an edited configuration and the state.
sed -i 's/"node": "garage-pi"/"node": "upgraded-pi"/' /etc/switchboard/devices.json
state=$(md5sum </var/lib/switchboard/state.json)
if apt-get install -y -q "./$UPGRADE" >>apt.log 2>&1; then pass "upgrade: apt-get install ./$UPGRADE"; else fail "upgrade: apt-get install ./$UPGRADE: $(tail -n 5 apt.log)"; fi
check "upgrade: the edited devices.json is kept" grep -q '"node": "upgraded-pi"' /etc/switchboard/devices.json
check "upgrade: the state is kept" test "$(md5sum </var/lib/switchboard/state.json)" = "$state"

dpkg -r switchboard >>apt.log 2>&1 || fail "dpkg -r switchboard"
check "remove: the programs are gone" test ! -e /usr/bin/switchboardd -a ! -e /usr/bin/switchboard
check "remove: devices.json and the state are kept" test -f /etc/switchboard/devices.json -a -f /var/lib/switchboard/state.json
check "remove: the package is in config-files state" test "$(dpkg-query -W -f='${db:Status-Abbrev}' switchboard)" = "rc "
dpkg -P switchboard >>apt.log 2>&1 || fail "dpkg -P switchboard"
check "purge: /etc/switchboard and /var/lib/switchboard are gone" test ! -e /etc/switchboard -a ! -e /var/lib/switchboard
check "purge: no ownership override is left" sh -c '! dpkg-statoverride --list | grep -q switchboard'
check "purge: the switchboard user stays (Debian keeps system users)" getent passwd switchboard
check "purge: dpkg knows the package no more" sh -c '! dpkg-query -W switchboard 2>/dev/null'
echo "guest: done"
GUEST

for deb in "${debs[@]}"; do
    [[ $(dpkg-deb -f "$deb" Architecture) == arm64 ]] || continue
    case $(basename "$deb") in *+deb13_*) release=trixie ;; *+deb12_*) release=bookworm ;; *) continue ;; esac
    [[ " ${SWITCHBOARD_PACKAGE_CHROOTS:-trixie bookworm} " == *" $release "* ]] || continue
    stage "packages: the $release arm64 package installed, run, upgraded, removed (qemu-user)"
    mkdir -p "$run/$release-arm64/debs"
    printf '%s\n' "$guest" >"$run/$release-arm64/debs/guest.sh"
    installed_test "$release" "$deb"
done
stage_end
if ((failures)); then echo "switchboard package: $failures checks FAILED"; exit 1; fi
echo "switchboard package: all checks passed"
