#!/usr/bin/env bash
# Memory over a long encode: `sideline encode` on the looped sample, as fast as it goes
# (benchmark mode, not paced), with RSS of the process sampled every INTERVAL seconds for
# DURATION seconds. Prints each sample and, at the end, the RSS after the first minute
# against the last, as a ratio. See Docs/benchmarks.md.
#
#   scripts/bench/run memory-soak                      # one hour, default config
#   DURATION=600 CONFIG=x.yaml scripts/bench/run memory-soak
set -euo pipefail
cd "$(dirname "$0")/../../.."
DURATION="${DURATION:-3600}"
INTERVAL="${INTERVAL:-60}"
CONFIG="${CONFIG:-Config/sideline.yaml}"
WORK="${SOAK_DIR:-/tmp/sideline-soak}"
SIDELINE="${SIDELINE:-.build/release/sideline}"
rm -rf "$WORK"; mkdir -p "$WORK"

if [ -z "${SKIP_BUILD:-}" ]; then
  scripts/ensure-deps.sh
  swift build -c release --product sideline >/dev/null
fi

# Media limit far beyond what DURATION can encode; the loop below stops it by PID.
"$SIDELINE" encode --config "$CONFIG" --input Samples/sample.mp4 --loop --media-limit 1000000 \
  --data-dir "$WORK/data" --stream soak >"$WORK/encode.log" 2>&1 &
PID=$!
trap 'kill "$PID" 2>/dev/null || true' EXIT

start=$(date +%s)
first=""
printf '%8s %10s %9s\n' elapsed_s rss_kb segments
while kill -0 "$PID" 2>/dev/null; do
  sleep "$INTERVAL"
  now=$(date +%s); elapsed=$((now - start))
  rss=$(awk '/^VmRSS/ {print $2}' "/proc/$PID/status" 2>/dev/null || echo 0)
  segments=$(find "$WORK/data/soak" -name '*.ts' 2>/dev/null | wc -l)
  printf '%8d %10d %9d\n' "$elapsed" "$rss" "$segments"
  [ -z "$first" ] && first=$rss
  last=$rss
  # Old segments are deleted as they go so an hour fits any disk; the playlist keeps growing,
  # as a real recording's does.
  find "$WORK/data/soak" -name '*.ts' -mmin +2 -delete 2>/dev/null || true
  [ "$elapsed" -ge "$DURATION" ] && break
done
kill -TERM "$PID" 2>/dev/null || true
wait "$PID" 2>/dev/null || true
awk -v a="$first" -v b="$last" 'BEGIN {printf "rss_after_1_interval_kb=%d rss_at_end_kb=%d ratio=%.3f\n", a, b, b / a}'
