# Sourced by the benchmark scripts: deps, a release build, and the benchmark clip.
# Sets WORK, SIDELINE and CLIP.
WORK="${BENCH_DIR:-/tmp/sideline-bench}"
mkdir -p "$WORK"
scripts/ensure-deps.sh
swift build -c release --product sideline >/dev/null
SIDELINE=".build/release/sideline"

# 60 s of 720p30 with temporal noise (the encoder cannot coast) and a stereo tone.
CLIP="$WORK/clip-720p30-noise4-6M-60s.mp4"
if [ ! -f "$CLIP" ]; then
  ffmpeg -v error -y -f lavfi -i "testsrc2=size=1280x720:rate=30:duration=60" \
    -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=60" \
    -vf "noise=alls=4:allf=t,format=yuv420p" -c:v libx264 -preset veryfast -b:v 6M -maxrate 8M -bufsize 12M -g 60 \
    -c:a aac -b:a 128k -ac 2 "$CLIP"
fi
