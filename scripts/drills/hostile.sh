#!/usr/bin/env bash
# The hostile venue drill (issue 26; Docs/benchmarks.md, "Hostile venue"): a release server
# over TLS with an open, a private and a pushed stream, the shipped nginx edge config and a
# mirror of the private stream, probed by scripts/drills/hostile.py. Ends with
# 'N passed, N failed' and exits non-zero when a probe failed.
#   scripts/drills/hostile.sh                      every class
#   CLASSES="traps tls" scripts/drills/hostile.sh  only these (traps private disk connections tls)
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
scripts/ensure-deps.sh --test
swift build -c release --product sideline >/dev/null
exec python3 scripts/drills/hostile.py "$@"
