#!/usr/bin/env bash
# What each x264 preset and ladder reaches on this machine: `sideline encode` (release, not
# paced) on a clip, for every preset x ladder pair, printing the realtime factor and CPU
# seconds per media second. The default ladder of Config/sideline.yaml is chosen from this
# table (see Docs/benchmarks.md).
#
#   scripts/bench/run ladder-sweep                          # the benchmark clip and Samples/sample.mp4
#   PRESETS="veryfast" LADDERS="3" scripts/bench/run ladder-sweep
set -euo pipefail
cd "$(dirname "$0")/../../.."
PRESETS="${PRESETS:-superfast veryfast faster}"
LADDERS="${LADDERS:-1 2 3}"
LOOKAHEAD="${LOOKAHEAD:-5}"
source scripts/bench/encoding/clip_setup.sh

rungs_for() { # ladder size -> rungs (name width height kbit/s)
  case "$1" in
    1) echo "720p 1280 720 3000" ;;
    2) printf '%s\n' "720p 1280 720 3000" "360p 640 360 800" ;;
    3) printf '%s\n' "720p 1280 720 3000" "540p 960 540 1800" "360p 640 360 800" ;;
  esac
}

printf '%-28s %-10s %-7s %9s %16s\n' clip preset ladder realtime cpu_per_media_s
for clip in "$CLIP" Samples/sample.mp4; do
  for preset in $PRESETS; do
    for size in $LADDERS; do
      config="$WORK/sweep-$preset-$size.yaml"
      {
        echo "video:"
        echo "  ladder:"
        while read -r name w h k; do
          echo "    - {name: $name, width: $w, height: $h, bitrate: ${k}k, preset: $preset, profile: high, lookahead: $LOOKAHEAD}"
        done < <(rungs_for "$size")
      } >"$config"
      rm -rf "$WORK/sweep-data"
      # 48 s of media from either clip (the 24 s sample loops once).
      line=$("$SIDELINE" encode --config "$config" --input "$clip" --loop --media-limit 48 --data-dir "$WORK/sweep-data" --log-level error | grep '^encoded ')
      realtime=$(sed -n 's/.*realtime=\([0-9.]*\)x.*/\1/p' <<<"$line")
      cpm=$(sed -n 's/.*cpu_per_media_s=\([0-9.]*\).*/\1/p' <<<"$line")
      printf '%-28s %-10s %-7s %8sx %16s\n' "$(basename "$clip")" "$preset" "$size" "$realtime" "$cpm"
    done
  done
done
