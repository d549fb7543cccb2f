#!/usr/bin/env bash
# Installs what Sideline needs to build, run and test, and only what is missing, so running
# it again costs a few dpkg queries. Debian/Ubuntu; run as root (or with sudo available).
set -euo pipefail

packages=(
  pkg-config
  libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev libavdevice-dev
  zlib1g-dev  # zlib's own API: a live playlist's gzip made of a kept prefix and a new tail
  libssl-dev  # OpenSSL's libcrypto: HMAC-SHA256 of viewer credentials and signed URLs
  fonts-dejavu-core  # the font of the test pattern's burned-in clock (drawtext)
  ffmpeg   # ffprobe and the ffmpeg CLI: the test suite's HLS client and segment checker
)
# With --test: what only the test suite needs. GStreamer's playbin3 is the second real HLS
# player the input-loss tests play through a camera cut (hlsdemux from plugins-bad, H.264
# and AAC decoders from gstreamer1.0-libav). nginx is the edge cache the cache-tier test puts
# in front of Sideline (Config/nginx/). Chromium plays the page at / natively (PageEndToEndTests).
# Varnish is the low-latency edge (VarnishEdgeEndToEndTests).
# VLC (3.0) and streamlink (PyPI) are the other players a private stream's URL must reach
# (ViewerAccessEndToEndTests).
if [ "${1:-}" = "--test" ]; then
  packages+=(
    gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-libav
    nginx chromium vlc-bin vlc-plugin-base
    varnish curl  # the low-latency edge (Config/varnish, scripts/edge) and the tests' client of it
  )
fi
# With --players-bench: the players of --test, and GStreamer's Python bindings, through which
# the latency benchmarks (angle-sync, players-latency) read frames as playbin shows them.
if [ "${1:-}" = "--players-bench" ]; then
  packages+=(
    gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-libav
    nginx chromium python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
  )
fi
# With --serve-bench: nginx (the anchor) and wrk (the load) for scripts/bench/run serve.
if [ "${1:-}" = "--serve-bench" ]; then
  packages+=(nginx wrk)
fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing missing Debian packages: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ "${1:-}" = "--test" ] && ! command -v streamlink >/dev/null 2>&1; then
  echo "Installing streamlink (PyPI)"
  python3 -m pip install -q --root-user-action=ignore streamlink
fi

# hls.js 1.6 (Apache-2.0), the player that asks for parts (Low-Latency HLS): no npm here, so
# it is taken out of the gradio wheel on PyPI that bundles it (../shared/tools/hlsjs/README.md)
# into .build-hlsjs/hls.mjs, once.
if { [ "${1:-}" = "--test" ] || [ "${1:-}" = "--hlsjs" ]; } && [ ! -s .build-hlsjs/hls.mjs ]; then
  tool="$(dirname "$0")/../../shared/tools/hlsjs/make_hlsjs.py"
  if [ -f "$tool" ]; then
    echo "Making hls.js (from the gradio 6.31.0 wheel on PyPI, 31 MB)"
    python3 -m pip download --no-deps -q -d .build-hlsjs gradio==6.31.0
    python3 "$tool" .build-hlsjs/gradio-6.31.0-py3-none-any.whl .build-hlsjs/hls.mjs
    rm -f .build-hlsjs/gradio-6.31.0-py3-none-any.whl
  else
    echo "sideline: $tool is missing, so hls.js cannot be made: the low-latency player tests will say so and fail" >&2
  fi
fi

if ! command -v swift >/dev/null 2>&1; then
  for candidate in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
    [ -x "$candidate/swift" ] && { echo "swift is in $candidate: add it to PATH"; break; }
  done
  echo "sideline: the Swift 6 toolchain is not on PATH. Install it from swift.org (Linux, Swift 6.0 or later) and try again." >&2
  exit 1
fi
