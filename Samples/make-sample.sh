#!/usr/bin/env bash
# Regenerates Samples/sample.mp4: 24 s of 1280x720 at 30 fps with a moving picture,
# fine detail (a Game of Life inset panning across a test card, plus light temporal noise) and a
# stereo AAC tone (440 Hz left, 660 Hz right). Keyframes are every 2.5 s and B-frames
# are on, deliberately NOT aligned with Sideline's 2 s segments, so the pipeline has to
# force its own IDRs. Needs only the ffmpeg CLI (Debian package `ffmpeg`).
set -euo pipefail
cd "$(dirname "$0")"
ffmpeg -hide_banner -loglevel error -y \
  -f lavfi -i "testsrc2=size=1280x720:rate=30:duration=24" \
  -f lavfi -i "life=size=320x180:rate=30:mold=10:ratio=0.1:life_color=#00ff00:death_color=#c83232" \
  -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=24" \
  -f lavfi -i "sine=frequency=660:sample_rate=48000:duration=24" \
  -filter_complex "[0:v][1:v]overlay=x='mod(t*160,960)':y=40,noise=alls=5:allf=t,format=yuv420p[v];[2:a][3:a]join=inputs=2:channel_layout=stereo[a]" \
  -map "[v]" -map "[a]" -t 24 \
  -c:v libx264 -preset medium -profile:v high -b:v 1100k -maxrate 1500k -bufsize 3000k -g 75 -keyint_min 75 -sc_threshold 0 -bf 2 \
  -c:a aac -b:a 96k -ar 48000 -ac 2 \
  -movflags +faststart sample.mp4
ls -l sample.mp4
