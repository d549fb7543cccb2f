#!/usr/bin/env bash
# Server CPU of a pushed stream against the same ladder encoded by the server (Docs/benchmarks.md,
# "Pushed stream CPU"): SECONDS_PER_SIDE (30) per side, ROUNDS (2) alternating, medians and ratio.
#
#   scripts/bench/pushed-cpu.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/ensure-deps.sh
swift build -c release --product sideline >/dev/null
exec python3 scripts/bench/pushed_cpu.py "$@"
