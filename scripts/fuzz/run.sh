#!/usr/bin/env bash
# Fuzzes every parser that reads bytes from the network with libFuzzer (not run in CI).
#
#   scripts/fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]     (default: 60 s, every target)
#
# Each target stops after SECONDS or 20 million executions (FUZZ_RUNS), whichever comes first.
# Run one at a time: a target takes a core.
#
# The targets are Tests/FuzzCorpusTests/FuzzTargets.swift (with FuzzInputs.swift), the same
# files the unit tests compile to replay the seeds, so a target here is a target there. Each
# harness is built with `swiftc -sanitize=fuzzer,address` from the parsers' own sources
# (HLSPlaylist, MPEGTS, SidelineCore, StreamPushing, StreamMirroring, OriginPolicy, IngestPolicy,
# PlayerSessions with swift-http-structured-headers, OriginAccess's parsing files) into
# .build-fuzz/ (or FUZZ_OUT), seeded from Tests/Fixtures/fuzz/<target>/ (with the dictionary
# <target>.dict beside it, where there is one), and run for SECONDS with a scratch corpus. A crash leaves its input in .build-fuzz/crashes/<target>/;
# copy it into the target's seed directory so the unit tests replay it, and fix the parser.
#
# Prints one line per target: executions, seconds, executions per second, corpus size, and
# whether it crashed (the figures of Docs/benchmarks.md, "Fuzzing").
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
seconds=${1:-60}
runs_limit=${FUZZ_RUNS:-20000000}
shift || true
out=${FUZZ_OUT:-.build-fuzz}
mkdir -p "$out/lib"
[ -d .build/checkouts/swift-http-structured-headers ] || swift package resolve >/dev/null
flags=(-swift-version 6 -sanitize=fuzzer,address -parse-as-library -O -g -I "$out/lib")
library() { # name, sources...
  local name=$1; shift
  swiftc -emit-library -static -emit-module -enable-testing -module-name "$name" "${flags[@]}" "$@" \
    -o "$out/lib/lib$name.a" -emit-module-path "$out/lib/$name.swiftmodule"
}
echo "building the parsers with libFuzzer and AddressSanitizer..." >&2
library HLSPlaylist Sources/HLSPlaylist/*.swift
library MPEGTS Sources/MPEGTS/*.swift
library SidelineCore Sources/SidelineCore/*.swift
# OriginPolicy and IngestPolicy before StreamPushing, which imports them (PushedStreamCore).
library OriginPolicy Sources/OriginPolicy/*.swift
library IngestPolicy Sources/IngestPolicy/*.swift
library StreamPushing Sources/StreamPushing/*.swift
library StreamMirroring Sources/StreamMirroring/*.swift
library RawStructuredFieldValues .build/checkouts/swift-http-structured-headers/Sources/RawStructuredFieldValues/*.swift
library PlayerSessions Sources/PlayerSessions/*.swift
# The access credential's parsing and the gate's reading of a path, without swift-crypto.
library OriginAccess Sources/OriginAccess/AccessCredential.swift Sources/OriginAccess/AccessScope.swift

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(ls Tests/Fixtures/fuzz | grep -v '\.dict$')
fi
for target in "${targets[@]}"; do
  harness="$out/$target"
  printf 'let fuzzTarget = "%s"\n' "$target" > "$out/target-name.swift"
  swiftc "${flags[@]}" -use-ld=lld -module-name Fuzz Tests/FuzzCorpusTests/FuzzTargets.swift Tests/FuzzCorpusTests/FuzzInputs.swift \
    scripts/fuzz/harness.swift "$out/target-name.swift" \
    -L "$out/lib" -lStreamMirroring -lStreamPushing -lMPEGTS -lSidelineCore \
    -lOriginAccess -lPlayerSessions -lRawStructuredFieldValues -lIngestPolicy -lOriginPolicy -lHLSPlaylist -o "$harness"
  corpus="$out/corpus/$target"
  crashes="$out/crashes/$target"
  mkdir -p "$corpus" "$crashes"
  dictionary=()
  [ -f "Tests/Fixtures/fuzz/$target.dict" ] && dictionary=(-dict="Tests/Fixtures/fuzz/$target.dict")
  log="$out/$target.log"
  started=$(date +%s.%N)
  status=0
  SWIFT_BACKTRACE=enable=no "$harness" -max_total_time="$seconds" -runs="$runs_limit" -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$crashes/" \
    "${dictionary[@]}" "$corpus" "Tests/Fixtures/fuzz/$target" >"$log" 2>&1 || status=$?
  elapsed=$(echo "$(date +%s.%N) - $started" | bc)
  runs=$(grep -o 'Done [0-9]* runs' "$log" | grep -o '[0-9]*' || true)
  [ -n "$runs" ] || runs=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')
  files=$(ls "$corpus" | wc -l)
  verdict=$([ "$status" -eq 0 ] && echo "no crash" || echo "CRASH (status $status): $(ls "$crashes" | head -1), see $log")
  printf '%-22s %12s runs %7.1f s %10.0f/s %6s corpus files  %s\n' "$target" "${runs:-0}" "$elapsed" "$(echo "${runs:-0} / $elapsed" | bc -l)" "$files" "$verdict"
done
