#!/usr/bin/env bash
# What cutting parts (Low-Latency HLS, issue 34) costs in picture quality at the same bit rate:
# the sample encoded at each rung of the shipped ladder with today's x264 settings for whole
# segments and with the settings Sideline uses when it cuts parts (VideoEncoder(forParts:)),
# and with those settings and an IDR at every part, as a redundant pair cuts them
# (`redundancy.keyframe_every_part`, KeyframeSchedule), each compared with the source scaled to the rung (ffmpeg's psnr and ssim filters). Not a
# test: it prints the figures side by side. One thread per encode, so each figure is the same
# every run (the machine's load changes the time, not the result).
#
#   scripts/bench/encoding/part_quality.sh [SECONDS]       # default: the first 60 s of the sample (all of it)
set -euo pipefail
cd "$(dirname "$0")/../../.."
seconds=${1:-60}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# name width height bitrate maxrate bufsize profile (Config/sideline.yaml's ladder)
ladder=(
  "720p 1280 720 3000k 3300k 6000k high"
  "540p 960 540 1800k 1980k 3600k high"
  "360p 640 360 800k 880k 1600k main"
)
# Today's whole-segment settings (VideoEncoder: scenecut off, closed GOPs, lookahead 5), and
# the same with what cutting the default 0.2 s parts at 30 fps adds
# (VideoEncoder.partParameters(framesPerPart: 6, lookahead: 5); EncoderDelayTests checks that
# this line says the same).
whole="scenecut=0:open-gop=0:rc-lookahead=5"
parts="scenecut=0:open-gop=0:bframes=0:sliced-threads=1:sync-lookahead=0:rc-lookahead=4"
pair=$parts
# Seconds between forced IDRs: a segment (2 s), or a part (0.2 s) on a redundant pair.
declare -A every=([whole]=2 [parts]=2 [pair]=0.2)

printf '%-6s %-7s %10s %10s %12s %12s\n' rung settings "PSNR dB" SSIM "kbit/s" "x264-params"
for rung in "${ladder[@]}"; do
  read -r name width height bitrate maxrate bufsize profile <<<"$rung"
  ffmpeg -y -v error -t "$seconds" -i Samples/sample.mp4 -vf "scale=$width:$height" -an -c:v rawvideo -f nut "$work/ref.nut"
  for kind in whole parts pair; do
    params=${!kind}
    ffmpeg -y -v error -i "$work/ref.nut" -c:v libx264 -threads 1 -preset veryfast -profile:v "$profile" -b:v "$bitrate" -maxrate "$maxrate" -bufsize "$bufsize" \
      -g 60 -keyint_min 60 -force_key_frames "expr:gte(t,n_forced*${every[$kind]})" -x264-params "$params" -an -f mpegts "$work/$kind.ts"
    psnr=$(ffmpeg -i "$work/$kind.ts" -i "$work/ref.nut" -lavfi "[0:v][1:v]psnr" -f null - 2>&1 | grep -o 'average:[0-9.inf]*' | tail -1 | cut -d: -f2)
    ssim=$(ffmpeg -i "$work/$kind.ts" -i "$work/ref.nut" -lavfi "[0:v][1:v]ssim" -f null - 2>&1 | grep -o 'All:[0-9.]*' | tail -1 | cut -d: -f2)
    duration=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$work/$kind.ts")
    kbps=$(awk -v bytes="$(stat -c %s "$work/$kind.ts")" -v s="$duration" 'BEGIN { printf "%d", bytes * 8 / 1000 / s }')
    printf '%-6s %-7s %10s %10s %12s   %s\n' "$name" "$kind" "$psnr" "$ssim" "$kbps" "$params"
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
