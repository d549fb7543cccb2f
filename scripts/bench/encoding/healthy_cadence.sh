#!/usr/bin/env bash
# Checks the stand-in grace on a healthy stream (Docs/benchmarks.md, "Stand-ins on a healthy
# stream"): serves the sample with the default config (release build, 720p/540p/360p) for
# RUN_SECONDS (180) and prints, from /metrics, how many slots were filled with stand-ins and how
# many real segments came after their slot was filled (both should be 0), with the publish
# latency histogram and the machine's load.
set -euo pipefail
cd "$(dirname "$0")/../../.."
export PATH="/opt/swift/usr/bin:$PATH"
scripts/ensure-deps.sh
swift build -c release --product sideline >/dev/null
SECONDS_TO_RUN="${RUN_SECONDS:-180}"
WORK=$(mktemp -d)
PORT="${PORT:-18992}"
.build/release/sideline serve --host 127.0.0.1 --port "$PORT" --data-dir "$WORK/data" --log-level warning >"$WORK/log" 2>&1 &
PID=$!
trap 'kill -TERM $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$WORK"' EXIT
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
sleep "$SECONDS_TO_RUN"
echo "load after $SECONDS_TO_RUN s: $(cut -d' ' -f1-3 /proc/loadavg)"
curl -sf "http://127.0.0.1:$PORT/metrics" | grep -E "^sideline_(stand_in_segments|late_segments_dropped|segments_published)_total|^sideline_publish_latency_seconds_(bucket|count)" || true
