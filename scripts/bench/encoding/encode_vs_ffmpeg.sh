#!/usr/bin/env bash
# Encoding speed: Sideline against the ffmpeg CLI, same clip, same ladder, same settings,
# measured in the same run, alternating, medians of REPS runs. See Docs/benchmarks.md.
#
#   scripts/bench/run encode            # 3 repetitions of each case
#   REPS=1 scripts/bench/run encode     # quicker, noisier
set -euo pipefail
cd "$(dirname "$0")/../../.."
REPS="${REPS:-3}"
source scripts/bench/encoding/clip_setup.sh

# name width height bitrate(k) for each rung; maxrate 1.1x, bufsize 2x, GOP 2 s, PRESET
# (default veryfast) and x264 rc-lookahead LOOKAHEAD (default 5, Sideline's default) on both sides.
PRESET="${PRESET:-veryfast}"
LOOKAHEAD="${LOOKAHEAD:-5}"
LADDER_1=("720p 1280 720 3000")
LADDER_3=("720p 1280 720 3000" "540p 960 540 1800" "360p 640 360 800")

write_config() { # $1 = file, rest = rungs
  local file="$1"; shift
  {
    echo "segment_duration: 2"
    echo "video:"
    echo "  frame_rate: 30"
    echo "  ladder:"
    for rung in "$@"; do
      read -r name w h k <<<"$rung"
      echo "    - {name: $name, width: $w, height: $h, bitrate: ${k}k, maxrate: $((k * 11 / 10))k, bufsize: $((k * 2))k, preset: $PRESET, profile: high, lookahead: $LOOKAHEAD}"
    done
    echo "audio: {bitrate: 128k, sample_rate: 48000, channels: 2}"
  } >"$file"
}

ffmpeg_args() { # rungs -> one ffmpeg process: decode once, split, scale, encode each (audio once per output)
  local n=$# i=0
  local graph="[0:v]split=$n" maps=()
  for ((i = 0; i < n; i++)); do graph+="[s$i]"; done
  graph+=";"
  i=0
  for rung in "$@"; do
    read -r name w h k <<<"$rung"
    graph+="[s$i]scale=$w:$h[v$i];"
    maps+=(-map "[v$i]" -map 0:a -c:v libx264 -preset "$PRESET" -profile:v high -rc-lookahead "$LOOKAHEAD" -b:v "${k}k" -maxrate "$((k * 11 / 10))k" -bufsize "$((k * 2))k"
      -g 60 -keyint_min 60 -sc_threshold 0 -force_key_frames "expr:gte(t,n_forced*2)"
      -c:a aac -b:a 128k -ar 48000 -ac 2 -f hls -hls_time 2 -hls_playlist_type event "$WORK/cli/$name/index.m3u8")
    i=$((i + 1))
  done
  printf '%s\n' -v error -y -i "$CLIP" -filter_complex "${graph%;}" "${maps[@]}"
}

# Runs a command; prints "wall cpu" in seconds. cpu is the user + system time of the
# command and its threads, read from this shell's children counters (/proc/self/stat 16, 17).
measure() {
  local before after start end
  before=$(awk '{print $16 + $17}' /proc/$$/stat)
  start=$(date +%s.%N)
  "$@" >/dev/null
  end=$(date +%s.%N)
  after=$(awk '{print $16 + $17}' /proc/$$/stat)
  awk -v s="$start" -v e="$end" -v b="$before" -v a="$after" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.3f %.3f\n", e - s, (a - b) / hz}'
}

calc() { awk "BEGIN {printf \"%.3f\", $1}"; }

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

MEDIA=60
printf '%-10s %-9s %10s %10s %14s\n' ladder encoder realtime cpu_s cpu_per_media_s
for size in 1 3; do
  eval "rungs=(\"\${LADDER_${size}[@]}\")"
  write_config "$WORK/ladder-$size.yaml" "${rungs[@]}"
  mapfile -t cli < <(ffmpeg_args "${rungs[@]}")
  : >"$WORK/side.txt"; : >"$WORK/cli.txt"
  for ((r = 1; r <= REPS; r++)); do
    rm -rf "$WORK/data" "$WORK/cli"; for rung in "${rungs[@]}"; do mkdir -p "$WORK/cli/${rung%% *}"; done
    measure "$SIDELINE" encode --config "$WORK/ladder-$size.yaml" --input "$CLIP" --data-dir "$WORK/data" --log-level error >>"$WORK/side.txt"
    measure ffmpeg "${cli[@]}" >>"$WORK/cli.txt"
  done
  side_wall=$(cut -d' ' -f1 "$WORK/side.txt" | median); side_cpu=$(cut -d' ' -f2 "$WORK/side.txt" | median)
  cli_wall=$(cut -d' ' -f1 "$WORK/cli.txt" | median); cli_cpu=$(cut -d' ' -f2 "$WORK/cli.txt" | median)
  printf '%-10s %-9s %9.2fx %10.1f %14.3f\n' "$size" sideline "$(calc "$MEDIA / $side_wall")" "$side_cpu" "$(calc "$side_cpu / $MEDIA")"
  printf '%-10s %-9s %9.2fx %10.1f %14.3f\n' "$size" ffmpeg "$(calc "$MEDIA / $cli_wall")" "$cli_cpu" "$(calc "$cli_cpu / $MEDIA")"
  printf '%-10s ratio sideline/ffmpeg: realtime %s, cpu %s (medians of %d)\n' "$size" "$(calc "$cli_wall / $side_wall")" "$(calc "$side_cpu / $cli_cpu")" "$REPS"
done

# Publish latency, as a live stream sees it: the clip paced at real time and looped for 100
# segments (200 s), one variant; from the input thread reading a segment's last frame to the
# registry serving it. Skip with SKIP_LATENCY=1.
if [ "${SKIP_LATENCY:-0}" != 1 ]; then
  rm -rf "$WORK/data"
  "$SIDELINE" encode --config "$WORK/ladder-1.yaml" --input "$CLIP" --data-dir "$WORK/data" --realtime --loop --media-limit 200 --log-level error \
    | sed -n 's/^publish_latency_ms/latency (1 variant, real time, 100 segments): publish_latency_ms/p'
fi
