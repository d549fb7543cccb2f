#!/usr/bin/env bash
# Capture-to-listed latency of sideline push against sideline serve's publish latency for the
# same input and ladder (Docs/benchmarks.md, "Push latency"): SEGMENTS (50) segments per side and
# round, ROUNDS (2) rounds alternating the sides, on loopback and through a 5 Mbit/s link with a
# 40 ms round trip (Tests/Helpers/link_proxy.py); prints p50/p99 per side and the differences.
#
#   scripts/bench/push-latency.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/ensure-deps.sh
swift build -c release --product sideline >/dev/null
exec python3 scripts/bench/push_latency.py "$@"
