#!/usr/bin/env bash
# What a GAP segment's 404 costs the server: a client re-requesting one 40 times a second
# (GStreamer playbin3 does) against the same 30 s without it, and the most such requests one
# connection gets answered per second (wrk), next to the same for a live playlist.
# See Docs/benchmarks.md. Serves the test pattern on 127.0.0.1; SIDELINE=path picks the binary.
set -euo pipefail
cd "$(dirname "$0")/../../.."
scripts/ensure-deps.sh
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }
BIN="${SIDELINE:-.build/release/sideline}"
[ -x "$BIN" ] || swift build -c release --product sideline >/dev/null
WORK=$(mktemp -d)
PORT="${PORT:-18990}"
TOKEN=bench-admin-0123456789
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
CPU_PIDS="$PID"
cpu() { local t=0 p; for p in $CPU_PIDS; do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done; echo $t; }
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
# Server CPU per request: a 10 s wrk run on one kept-alive connection (as players keep
# theirs), minus the mean of the 10 s windows without requests just before and after it
# (the encoders' share), divided by the requests answered. Then what 40 requests a second
# cost, as a share of one core. The live playlist is the anchor, measured the same way.
quiet() { local b a; b=$(cpu); sleep 10; a=$(cpu); echo $((a - b)); }
US=0
per_request() { # $1 = label, $2 = URL; sets US
  local q1 q2 b a out n
  q1=$(quiet)
  b=$(cpu)
  out=$(wrk -t1 -c1 -d10s "$2")
  a=$(cpu)
  q2=$(quiet)
  n=$(echo "$out" | awk '/requests in/ {print $1}')
  US=$(awk -v q1="$q1" -v q2="$q2" -v b="$b" -v a="$a" -v n="$n" -v hz="$hz" 'BEGIN {printf "%.2f", ((a - b) - (q1 + q2) / 2) / hz / n * 1e6}')
  awk -v l="$1" -v us="$US" -v n="$n" -v q1="$q1" -v q2="$q2" -v hz="$hz" 'BEGIN {
    printf "  %-20s %7d requests in 10 s, %6.1f us of server CPU each; 40/s = %.3f%% of one core (quiet 10 s windows: %.2f and %.2f s)\n", l, n, us, us * 40 / 1e4, q1 / hz, q2 / hz
  }'
}
echo "one kept-alive connection, 10 s each (wrk -t1 -c1):"
per_request "GAP segment (404)" "$URL/144p/$GAP"
GAP_US=$US
per_request "live playlist (200)" "$URL/240p/index.m3u8"
awk -v g="$GAP_US" -v p="$US" 'BEGIN {printf "  CPU per request, GAP 404 / live playlist: %.2f\n", g / p}'

# The anchor outside Sideline: nginx (one worker, no access log, like Sideline at
# --log-level error) answering 404 for a file that does not exist, measured the same way.
if command -v nginx >/dev/null; then
  NGINX_PORT=$((PORT + 1))
  mkdir -p "$WORK/www" "$WORK/nginx"
  cat >"$WORK/nginx/nginx.conf" <<NGINX
worker_processes 1;
daemon off;
pid $WORK/nginx/nginx.pid;
error_log stderr crit;
events {}
http {
  access_log off;
  client_body_temp_path $WORK/nginx; proxy_temp_path $WORK/nginx; fastcgi_temp_path $WORK/nginx;
  uwsgi_temp_path $WORK/nginx; scgi_temp_path $WORK/nginx;
  server { listen 127.0.0.1:$NGINX_PORT; root $WORK/www; }
}
NGINX
  nginx -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx" >/dev/null 2>&1 &
  NGINX_PID=$!
  trap 'kill -TERM $PID 2>/dev/null; wait $PID 2>/dev/null; kill -TERM $NGINX_PID 2>/dev/null; wait $NGINX_PID 2>/dev/null; rm -rf "$WORK"' EXIT
  sleep 1
  CPU_PIDS="$NGINX_PID $(pgrep -P "$NGINX_PID" | tr '\n' ' ')"
  per_request "nginx 404" "http://127.0.0.1:$NGINX_PORT/000001.ts"
  awk -v g="$GAP_US" -v n="$US" 'BEGIN {printf "  CPU per request, Sideline GAP 404 / nginx 404: %.2f\n", g / n}'
else
  echo "  (nginx is not installed: no outside anchor; apt-get install nginx-light)"
fi
