#!/usr/bin/env bash
# What a GAP segment's 404 costs the server: a client re-requesting one 40 times a second
# (GStreamer playbin3 does) against the same 30 s without it, and the most such requests one
# connection gets answered per second (wrk), next to the same for a live playlist.
# See Docs/benchmarks.md. Serves the test pattern on 127.0.0.1; SIDELINE=path picks the binary.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }
BIN="${SIDELINE:-.build/release/sideline}"
[ -x "$BIN" ] || swift build -c release --product sideline >/dev/null
WORK=$(mktemp -d)
PORT="${PORT:-18990}"
TOKEN=bench
cat >"$WORK/gap.yaml" <<YAML
admin: {token: $TOKEN, drills: true}
stream: {input: testpattern}
video:
  ladder:
    - {name: 240p, width: 426, height: 240, bitrate: 400k, preset: ultrafast, profile: main}
    - {name: 144p, width: 256, height: 144, bitrate: 150k, preset: ultrafast, profile: baseline}
YAML
"$BIN" serve --config "$WORK/gap.yaml" --host 127.0.0.1 --port "$PORT" --data-dir "$WORK/data" --log-level error >/dev/null 2>&1 &
PID=$!
trap 'kill -TERM $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$WORK"' EXIT
URL="http://127.0.0.1:$PORT/live/main"
for _ in $(seq 1 100); do curl -sf -o /dev/null "$URL/144p/index.m3u8" && break; sleep 0.2; done
curl -sf -X POST -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/admin/streams/main/variants/144p/fail" >/dev/null
GAP=""
for _ in $(seq 1 100); do
  GAP=$(curl -sf "$URL/144p/index.m3u8" | awk '/#EXT-X-GAP/ {getline; print; exit}')
  [ -n "$GAP" ] && break
  sleep 0.2
done
[ -n "$GAP" ] || { echo "no GAP entry appeared" >&2; exit 1; }
echo "GAP segment: $URL/144p/$GAP -> $(curl -s -o /dev/null -w '%{http_code}' "$URL/144p/$GAP")"

hz=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$PID/stat"; }
window() { # $1 = label, $2 = 1 to request the GAP segment about 40 times a second
  local before after end=$((SECONDS + 30)) n=0
  before=$(cpu)
  while [ $SECONDS -lt $end ]; do
    if [ "$2" = 1 ]; then curl -s -o /dev/null "$URL/144p/$GAP"; n=$((n + 1)); fi
    sleep 0.025
  done
  after=$(cpu)
  awk -v l="$1" -v b="$before" -v a="$after" -v hz="$hz" -v n="$n" 'BEGIN {printf "%-30s server CPU %.2f s in 30 s (%d GAP requests)\n", l, (a - b) / hz, n}'
}
for round in 1 2; do
  window "round $round, no GAP requests" 0
  window "round $round, GAP requests" 1
done
echo "one connection, 10 s each (wrk -t1 -c1):"
wrk -t1 -c1 -d10s "$URL/144p/$GAP" | awk '/Requests\/sec/ {print "  GAP segment (404):   " $2 " requests/s"}'
wrk -t1 -c1 -d10s "$URL/240p/index.m3u8" | awk '/Requests\/sec/ {print "  live playlist (200): " $2 " requests/s"}'
