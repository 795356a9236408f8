# Installs the given Debian packages with apt when any is missing (through sudo unless root).
# Sourced by deploy/test.sh, deploy/run-sample.sh, deploy/install.sh and the HIL and Debian 13 scripts.
ensure_packages() {
    local missing=() package wanted=("$@")
    # mmdebstrap makes roots of another architecture (arm64 here) only with arch-test, which it
    # merely recommends, and recommends are not installed here.
    [[ " $* " == *" mmdebstrap "* ]] && wanted+=(arch-test)
    for package in "${wanted[@]}"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    ((${#missing[@]})) || return 0
    echo "switchboard: installing ${missing[*]}"
    local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    # One apt at a time among Switchboard's scripts (deploy/lib/prewarm.sh runs beside the stages),
    # and a wait for dpkg's own lock when another program holds it.
    # An install that was killed (a failed run ends the background steps with it) leaves dpkg
    # "interrupted", and apt refuses to install anything until it is finished.
    $sudo flock /var/lock/switchboard-apt.lock sh -c '[ -z "$(dpkg --audit 2>/dev/null)" ] || DEBIAN_FRONTEND=noninteractive dpkg --configure -a'
    $sudo flock /var/lock/switchboard-apt.lock apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo flock /var/lock/switchboard-apt.lock \
        apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 "${missing[@]}"
}

# The libgpiod runtime library's package, which is named after its soname: `libgpiod2` (libgpiod
# 1.6) on Debian 12 / Raspberry Pi OS Bookworm, `libgpiod3` (libgpiod 2.x) on Debian 13 / Raspberry
# Pi OS Trixie. The development package is `libgpiod-dev` on both, the tools `gpiod`.
libgpiod_runtime_package() {
    case $(. /etc/os-release && echo "${VERSION_CODENAME:-}") in
        bullseye | bookworm) echo libgpiod2 ;;
        trixie) echo libgpiod3 ;;
        *) # Another release: whichever apt offers, the newer first.
            local package
            for package in libgpiod3 libgpiod2; do
                if apt-cache policy "$package" 2>/dev/null | grep -q 'Candidate: [0-9]'; then echo "$package"; return; fi
            done
            echo libgpiod3 ;;
    esac
}

# What building Switchboard needs, and what running it needs (the libraries and the broker's client
# tools; the daemon also works without a local broker). libssl-dev is OpenSSL's libcrypto for the
# HomeKit primitives (CCrypto); its runtime, libssl3 (libssl3t64 on Trixie), comes with libmosquitto1.
# libavahi-client-dev advertises the HomeKit bridge on the LAN through avahi-daemon (CAvahi),
# libqrencode-dev draws its setup code's QR code in the terminal (CQREncode).
switchboard_build_packages=(pkg-config libgpiod-dev libmosquitto-dev libssl-dev libavahi-client-dev libqrencode-dev)
switchboard_runtime_packages=("$(libgpiod_runtime_package)" libmosquitto1 libavahi-client3 libqrencode4 gpiod)
# What the discovery tests run: a private avahi-daemon on a private D-Bus, avahi-browse as the
# LAN's client, and zbarimg to read the terminal's QR code back.
switchboard_discovery_test_packages=(avahi-daemon avahi-utils dbus zbar-tools)

# What deploy/hil/build-kernel.sh builds the VMs' kernels with (the arm64 kernel also needs
# gcc-aarch64-linux-gnu, which deploy/test.sh installs beside these). Installing them can upgrade the system's own headers (linux-libc-dev), so
# deploy/test.sh installs them before it builds anything, not in the background beside a compile.
switchboard_kernel_build_packages=(linux-source-6.1 build-essential bc bison flex libelf-dev libssl-dev xz-utils)

# The C++ standard library's development files for the system's gcc (libstdc++-12-dev on Bookworm,
# libstdc++-14-dev on Trixie): libFuzzer and the static Swift runtime (`--static-swift-stdlib`,
# deploy/install.sh's build) link against libstdc++. swift.org's toolchain lists it among its
# dependencies; Debian's swiftlang does not pull it in.
libstdcxx_dev_package() {
    local version
    version=$(gcc -dumpversion 2>/dev/null | cut -d. -f1)
    if [[ -n $version ]]; then echo "libstdc++-$version-dev"; else echo g++; fi
}
