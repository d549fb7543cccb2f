#!/usr/bin/env bash
# Effort under load: four scenarios of `sideline serve` on this machine, 10 minutes each, with
# frames dropped, BANDWIDTH overruns, effort steps and quality against the fixed default effort
# per stream. See scripts/bench/effort_scenarios.py and Docs/benchmarks.md ("Effort under load").
#
#   scripts/bench/effort-scenarios.sh                          # a b c d, 600 s each
#   SECONDS_EACH=120 SCENARIOS="a d" scripts/bench/effort-scenarios.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/ensure-deps.sh --test
swift build -c release --product sideline >/dev/null
exec python3 scripts/bench/effort_scenarios.py
