#!/usr/bin/env bash
# The cost of rendering one version of a 3-hour live playlist with and without markers
# (Docs/benchmarks.md, "Playlist rendering with markers"), optimised (-O), next to what gzip
# costs on the same size of playlist (scripts/bench/playlist-gzip.sh), in the same run.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
swiftc -O -parse-as-library -module-name PlaylistRenderBench Sources/HLSPlaylist/*.swift scripts/bench/playlist_render.swift -o "$work/bench"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
"$work/bench"
scripts/bench/playlist-gzip.sh | grep -A3 '^camera'
