#!/usr/bin/env bash
# Uploads in a row to Sideline's ingest against nginx's WebDAV PUT (Docs/benchmarks.md,
# "Ingest uploads"): each server takes UPLOADS (1000) segment+playlist uploads over one kept-
# alive connection, in alternating blocks of BLOCK (100); prints median, p99, max and max/median
# of the segment uploads, CPU per upload, and the ratio of the medians.
#
#   scripts/bench/ingest-uploads.sh            # UPLOADS=1000 BLOCK=100
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/ensure-deps.sh --serve-bench
swift build -c release --product sideline >/dev/null
WORK="${BENCH_DIR:-/tmp/sideline-bench}/ingest-segments"
# Ten real 2 s segments of 720p at 3 Mbit/s with AAC, as a field encoder would push them.
if [ ! -f "$WORK/seg9.ts" ]; then
  mkdir -p "$WORK"
  ffmpeg -v error -y -f lavfi -i "testsrc2=size=1280x720:rate=30:duration=20" -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=20" \
    -vf "noise=alls=4:allf=t,format=yuv420p" -c:v libx264 -preset veryfast -b:v 3M -maxrate 3.3M -bufsize 6M -g 60 -keyint_min 60 -sc_threshold 0 \
    -force_key_frames 'expr:gte(t,n_forced*2)' -c:a aac -b:a 128k -f hls -hls_time 2 -hls_list_size 0 \
    -hls_segment_filename "$WORK/seg%d.ts" "$WORK/index.m3u8"
fi
exec python3 scripts/bench/ingest_uploads.py "$WORK"
