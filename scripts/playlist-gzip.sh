#!/usr/bin/env bash
# What gzip makes of a long EVENT playlist (Docs/benchmarks.md, "Playlist compression"): a
# playlist of ENTRIES (5400: 3 h of 2 s segments) in the form Sideline writes it (a
# PROGRAM-DATE-TIME on each entry), compressed with zlib at levels 1, 6 and 9; size and the
# median of 7 runs. zlib is the library compress-nio wraps, so the sizes are Sideline's.
set -euo pipefail
ENTRIES="${ENTRIES:-5400}" python3 - <<'PY'
import datetime, gzip, os, time
entries = int(os.environ["ENTRIES"])
start = datetime.datetime(2026, 11, 23, 12, 0, 0)
lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:EVENT", "#EXT-X-INDEPENDENT-SEGMENTS"]
for i in range(entries):
    # Capture times wander by a few milliseconds from the 2 s grid, as a camera's do.
    stamp = (start + datetime.timedelta(seconds=2 * i, milliseconds=(i * 7) % 13)).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    lines += [f"#EXT-X-PROGRAM-DATE-TIME:{stamp}", "#EXTINF:2.000000,", f"{i:06d}.ts"]
text = ("\n".join(lines) + "\n").encode()
print(f"playlist: {entries} entries, {len(text)} bytes")
for level in (1, 6, 9):
    times = []
    for _ in range(7):
        began = time.perf_counter()
        out = gzip.compress(text, compresslevel=level)
        times.append(time.perf_counter() - began)
    times.sort()
    print(f"gzip level {level}: {len(out)} bytes ({len(text) / len(out):.1f}x smaller), median {times[3] * 1000:.1f} ms")
PY
