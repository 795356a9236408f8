#!/usr/bin/env bash
# Makes (or finds) a Python venv with Home Assistant Core from PyPI inside a Debian 13 root made by
# deploy/debian13/root.sh, and prints the venv's path as seen inside the root. Home Assistant runs
# there on Debian 13's Python 3.13 (the machine's own Python may be older).
#
#   deploy/homeassistant/venv.sh ROOT
#
# The pinned release is the newest that supports Python 3.13: 2026.3 and later need Python 3.14.2.
# Besides Core, the venv gets the requirements of every integration the test configuration loads
# (Home Assistant's default integrations, the frontend among them, zeroconf, mqtt, and
# homekit_controller with what it depends on: aiohomekit, bluetooth, and thread, which it imports),
# read from their manifests, so Home Assistant runs with --skip-pip and needs no network afterwards.
# Cached in the root as /root/.cache/switchboard/homeassistant-<version>-<key of this script>;
# a newer one replaces older ones, and a new root (another key of root.sh) starts without any.
# The first run takes one to two minutes (downloads; python3-dev is installed into the root with
# apt, since lru-dict builds from source on Python 3.13). Needs root (chroot).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.." # deploy/debian13/run.sh runs commands from a folder of the repository
version=2026.2.3
(($# == 1)) || { echo "usage: $0 ROOT" >&2; exit 2; }
root=$(realpath -e "$1")
key=$(sha256sum "$0" | cut -c1-16)
cache=/root/.cache/switchboard
venv=$cache/homeassistant-$version-$key
if [[ -f $root$venv/.switchboard-ready ]]; then echo "$venv"; exit 0; fi

in_root() { "$here/../debian13/run.sh" "$@"; }
mkdir -p "$root$cache"
exec 9>"$root$cache/homeassistant.lock"
flock 9
if [[ -f $root$venv/.switchboard-ready ]]; then echo "$venv"; exit 0; fi
echo "switchboard: installing Home Assistant Core $version into $root$venv" >&2
rm -rf "$root$venv"
mkdir -p "$root$venv"
log=$root$venv.log
# pip checks PyPI's certificate against the machine's CA bundle (which may hold a proxy's CA
# that the root's bundle lacks).
pip_environment=(-e PIP_DISABLE_PIP_VERSION_CHECK=1 -e "PIP_DEFAULT_TIMEOUT=${PIP_DEFAULT_TIMEOUT:-60}")
if [[ -f /etc/ssl/certs/ca-certificates.crt ]]; then
    cp /etc/ssl/certs/ca-certificates.crt "$root$venv.ca.crt"
    pip_environment+=(-e "PIP_CERT=$venv.ca.crt" -e "SSL_CERT_FILE=$venv.ca.crt")
fi
# The root's own Python 3.13 and the headers for the one dependency that has no wheel.
in_root -e DEBIAN_FRONTEND=noninteractive "$root" sh -c \
    'dpkg-query -W -f="\${Status}" python3-dev 2>/dev/null | grep -q "install ok installed" ||
     { apt-get update -qq && apt-get install -y -qq --no-install-recommends python3-dev python3-venv; }' >"$log" 2>&1 ||
    { tail -20 "$log" >&2; exit 1; }
in_root "${pip_environment[@]}" "$root" sh -c "
    python3 -m venv '$venv' &&
    '$venv/bin/python' -m pip install --no-cache-dir --quiet 'homeassistant==$version'" >>"$log" 2>&1 ||
    { tail -30 "$log" >&2; exit 1; }

# The requirements of the integrations Home Assistant sets up with the test's configuration:
# its default integrations, what test.sh's configuration.yaml names, mqtt, homekit_controller (and
# thread, one of its after_dependencies that it imports), and what they depend on.
cat >"$root$venv/requirements.py" <<'EOF'
import json, pathlib, sys
import homeassistant, homeassistant.bootstrap as bootstrap
components = pathlib.Path(homeassistant.__file__).parent / "components"
manifest = lambda domain: json.loads((components / domain / "manifest.json").read_text())
todo = [*bootstrap.CORE_INTEGRATIONS, *bootstrap.DEFAULT_INTEGRATIONS, *sys.argv[1:]]
seen = set()
while todo:
    domain = todo.pop()
    if domain not in seen:
        seen.add(domain)
        todo += manifest(domain).get("dependencies", [])
print("\n".join(sorted({r for domain in seen for r in manifest(domain).get("requirements", [])})))
EOF
in_root "${pip_environment[@]}" "$root" sh -c "
    cd '$venv' &&
    ./bin/python requirements.py http api websocket_api config onboarding logger zeroconf mqtt homekit_controller thread >requirements.txt &&
    ./bin/python -m pip install --no-cache-dir --quiet \
        -c lib/python3.13/site-packages/homeassistant/package_constraints.txt -r requirements.txt &&
    ./bin/python -m homeassistant --version" >>"$log" 2>&1 ||
    { tail -30 "$log" >&2; exit 1; }
[[ $(tail -1 "$log") == "$version" ]] || { echo "switchboard: the venv runs Home Assistant $(tail -1 "$log"), not $version" >&2; exit 1; }
touch "$root$venv/.switchboard-ready"
# Older venvs (another version, or an older key of this script) are superseded.
for old in "$root$cache"/homeassistant-*; do
    [[ $old == "$root$venv" || $old == "$root$venv".* ]] || rm -rf "$old"
done
echo "switchboard: Home Assistant Core $version ready in $root$venv" >&2
echo "$venv"
