# A Python venv on this machine with one package from PyPI, made once and cached; sourced by
# deploy/homekit/aiohomekit-venv.sh and deploy/homekit/hap-python-venv.sh (which need
# deploy/lib/packages.sh sourced first).
#
#   pypi_venv VENV REQUIREMENT MODULE   # prints VENV's python
#
# VENV is made with REQUIREMENT ("name==version") installed and MODULE importable, then marked
# ready for that requirement: a second call prints its python at once, a new requirement makes it
# again. Needs python3-venv (installed when missing) and the network the first time.
pypi_venv() {
    local venv=$1 requirement=$2 module=$3 ready certificates=()
    ready=$venv/.switchboard-ready-${requirement##*==}
    if [[ -f $ready ]]; then echo "$venv/bin/python"; return 0; fi
    python3 -m venv --help >/dev/null 2>&1 && python3 -c 'import ensurepip' 2>/dev/null || ensure_packages python3-venv >&2
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    echo "switchboard: installing $requirement into $venv" >&2
    python3 -m venv "$venv"
    # The venv's pip trusts its own certificates, not the machine's: give it the machine's bundle
    # (which may hold a proxy's CA).
    [[ -f /etc/ssl/certs/ca-certificates.crt ]] && certificates=(PIP_CERT=/etc/ssl/certs/ca-certificates.crt)
    env "${certificates[@]}" PIP_DISABLE_PIP_VERSION_CHECK=1 "$venv/bin/python" -m pip install --no-cache-dir --quiet "$requirement" >&2
    "$venv/bin/python" -c "import $module" >&2
    touch "$ready"
    echo "$venv/bin/python"
}
