#!/usr/bin/env bash
# Fuzzes the parsers of outside input (devices.json, MQTT command and state payloads, the local
# socket's line protocol) with libFuzzer and AddressSanitizer for a bounded time, starting from
# the repository's broken devices.json corpus, the sample and example payloads. Exits non-zero
# with the crashing input saved under .build-fuzz/crashes when any input crashes a parser.
#
#   deploy/fuzz.sh [SECONDS]      # default 60 (FUZZ_SECONDS); FUZZ_TIMEOUT: seconds one input may
#                                 # take before it counts as a hang (default 10; deploy/test.sh
#                                 # gives 60 to the fuzzer it runs at the lowest priority, which may
#                                 # wait for the CPU that long)
#   deploy/fuzz.sh --build-only   # only build the fuzzer (deploy/lib/prebuild.sh)
#   $(swift build --show-bin-path)/switchboard-fuzz FILE...   # replay inputs without the fuzzer
set -euo pipefail
cd "$(dirname "$0")/.."
build_only=0
[[ ${1:-} != --build-only ]] || { build_only=1; shift; }
seconds=${1:-${FUZZ_SECONDS:-60}}
source deploy/lib/packages.sh
ensure_packages "$(libstdcxx_dev_package)"

# The linker: lld with swift.org's toolchains. Debian's swiftlang (Trixie; in /usr/libexec/swift)
# links libFuzzer only with its default linker: its lld rejects libFuzzer's own C++ library
# ("relocation refers to a symbol in a discarded section").
linker=(-Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld)
[[ $(readlink -f "$(command -v swift)") != /usr/libexec/swift/* ]] || linker=()
swift build --product switchboard-fuzz --scratch-path .build-fuzz \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DSWITCHBOARD_FUZZING "${linker[@]}"
fuzzer=$(swift build --scratch-path .build-fuzz --show-bin-path)/switchboard-fuzz
((build_only == 0)) || exit 0

# Seeds: the first byte picks the parser (0 devices.json, 1 command, 2 and 3 device state, 4 socket
# line, 5 HomeKit's TLV8, 6 pair-setup and 7 pair-verify requests, each a 2-byte little-endian length
# and its TLV8, 8 HAP's HTTP requests after a byte saying where to cut them, 9 session frames, 10 a
# controller's JSON).
seeds=.build-fuzz/seeds crashes=.build-fuzz/crashes corpus=.build-fuzz/corpus
rm -rf "$seeds" && mkdir -p "$seeds" "$crashes" "$corpus"
n=0
seed() { printf "\\x$(printf %02x "$1")" > "$seeds/$n"; cat >> "$seeds/$n"; n=$((n + 1)); }
for file in devices.json Tests/SwitchboardCoreTests/Corpus/*.json; do seed 0 < "$file"; done
for payload in ON OFF TOGGLE PRESS '{"value": true, "transaction": 42}' '{"value": "TOGGLE"}'; do seed 1 <<<"$payload"; done
for payload in '{"state":"ON","brightness":254}' '{"state":"OFF"}' ON off; do seed 2 <<<"$payload"; seed 3 <<<"$payload"; done
# TLV8: pair-setup's M1 (state 1, method 0), a fragmented value, a pairings list with a separator.
seed 5 < <(printf '\x06\x01\x01\x00\x01\x00')
seed 5 < <(printf '\x09\xff'; head -c 255 /dev/zero; printf '\x09\x03abc')
seed 5 < <(printf '\x01\x02ab\xff\x00\x01\x02cd')
# Pair-setup: M1, then an M3 with a 384-byte key and a 64-byte proof; pair-verify: M1 with a key, then an M3.
seed 6 < <(printf '\x06\x00\x06\x01\x01\x00\x01\x00\xc9\x01\x06\x01\x03\x03\xff'; head -c 255 /dev/urandom
    printf '\x03\x81'; head -c 129 /dev/urandom; printf '\x04\x40'; head -c 64 /dev/urandom)
seed 7 < <(printf '\x25\x00\x06\x01\x01\x03\x20'; head -c 32 /dev/urandom; printf '\x15\x00\x06\x01\x03\x05\x10'; head -c 16 /dev/urandom)
# HAP: a GET, a PUT with its body, two requests in one read; a frame's plaintext; a PUT's JSON.
seed 8 < <(printf '\x10GET /accessories HTTP/1.1\r\nHost: bridge\r\n\r\n')
seed 8 < <(printf '\x2aPUT /characteristics HTTP/1.1\r\nContent-Type: application/hap+json\r\nContent-Length: 52\r\n\r\n{"characteristics":[{"aid":2,"iid":9,"value":true}]}')
seed 8 < <(printf '\x05POST /pair-verify HTTP/1.1\r\nContent-Length: 3\r\n\r\n\x06\x01\x01GET /characteristics?id=2.9,3.9&ev=1 HTTP/1.1\r\n\r\n')
seed 9 < <(printf 'HTTP/1.1 204 No Content\r\n\r\n')
seed 10 <<<'{"characteristics":[{"aid":2,"iid":9,"value":1,"ev":true},{"aid":1,"iid":2,"value":"x\u00e9"}]}'
for line in '{"op":"status"}' '{"op":"perform","id":"porch","value":true}' '{"op":"button","id":"button","hold":"1s"}'; do seed 4 <<<"$line"; done

echo "switchboard fuzz: $seconds s over $n seeds"
ASAN_OPTIONS=detect_leaks=0 "$fuzzer" -max_total_time="$seconds" -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 -max_len=65536 \
    -artifact_prefix="$crashes/" -print_final_stats=1 "$corpus" "$seeds"
