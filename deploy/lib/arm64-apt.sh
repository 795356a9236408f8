# Sourced by the scripts that take Debian 13 arm64 packages without touching this machine's apt.
#
# arm64_apt DIR: makes DIR an apt of its own for Debian 13 "Trixie" arm64 (its own sources list,
# package lists and archive cache; the machine's apt, its architectures and its dpkg status stay as
# they are), fetches the package lists, and sets the array arm64_apt_options for apt-get and
# apt-cache. Packages it downloads land in DIR/cache/archives. Env: DEBIAN_MIRROR (default
# http://deb.debian.org/debian).
arm64_apt() {
    local apt=$1
    mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
    echo "deb [arch=arm64] ${DEBIAN_MIRROR:-http://deb.debian.org/debian} trixie main" >"$apt/sources.list"
    arm64_apt_options=(-o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
        -o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache" -o Dir::State::Status=/dev/null
        -o APT::Architecture=arm64 -o APT::Architectures=arm64 -o Debug::NoLocking=1
        -o APT::Sandbox::User=root)
    apt-get "${arm64_apt_options[@]}" -qq update >&2
}
