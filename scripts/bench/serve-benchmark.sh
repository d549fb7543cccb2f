#!/usr/bin/env bash
# Sideline against nginx on the same bytes (Docs/benchmarks.md, "Serving"): a 3-hour recording
# (5,400 entries of 2 s) that Sideline keeps continuing live, nginx 1 worker with sendfile and
# gzip_static (playlists compressed once with gzip -9: nginx's best case) serving a snapshot
# of the same playlists and segments. wrk -t2 -c50, cells alternating between the two, two
# rounds; prints req/s, p50/p99 and server CPU per request, and the machine's load.
#
#   scripts/bench/serve-benchmark.sh            # ROUNDS=2 SECONDS_PER_CELL=5 ENTRIES=5400
#   FAST_PATH=0 scripts/bench/serve-benchmark.sh  # every request through the router (server.fast_path: false)
#   ANCHOR_SIDELINE=/tmp/before/.build/release/sideline scripts/bench/serve-benchmark.sh
#                                               # this build against an earlier one instead of nginx
#   ACCESS=1 ANCHOR_SIDELINE=.build/release/sideline scripts/bench/serve-benchmark.sh
#                                               # a private stream (signed URLs) against the same build, open
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/ensure-deps.sh --serve-bench
swift build -c release --product sideline >/dev/null
exec python3 scripts/bench/serve_benchmark.py "$@"
