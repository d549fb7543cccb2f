#!/usr/bin/env bash
# Clip remux speed (Docs/benchmarks.md, "Clips"): `sideline export` against `ffmpeg -c copy` on
# the same 60 s of recorded segments, taken from hour 2 of a 3-hour recording (5,400 entries of
# 2 s), alternating the two, ROUNDS rounds; prints medians, the ratio and the machine's load.
#
#   scripts/bench/clip-benchmark.sh             # ROUNDS=9
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
source scripts/bench/bench-setup.sh
exec python3 scripts/bench/clip_benchmark.py "$SIDELINE" "$CLIP" "$WORK"
