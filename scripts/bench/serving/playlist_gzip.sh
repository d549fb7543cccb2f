#!/usr/bin/env bash
# What gzip makes of a long EVENT playlist (Docs/benchmarks.md, "Playlist compression"): a
# playlist of ENTRIES (5400: 3 h of 2 s segments) in the form Sideline serves it (server
# control, a PROGRAM-DATE-TIME on each entry), compressed with zlib at levels 1, 6 and 9; size
# and the median of 7 runs. zlib is the library compress-nio wraps, so the sizes are Sideline's.
# The dates are what decides the size, so three patterns are measured:
#   grid    - exactly 2 s apart (a file played as live, the test pattern);
#   camera  - a camera's: 2 s apart with a millisecond of jitter now and then (what a real
#             Sideline recording of Samples/sample.mp4 showed: .973, .973, .975, .974 ...);
#   ragged  - 0-12 ms of jitter on every entry, a worst case.
set -euo pipefail
ENTRIES="${ENTRIES:-5400}" python3 - <<'PY'
import datetime, gzip, os, time
entries = int(os.environ["ENTRIES"])
start = datetime.datetime(2026, 11, 23, 12, 0, 0, 973000)
patterns = {
    "grid": lambda i: 0,
    "camera": lambda i: (1 if i % 7 == 0 else 0) + (2 if i % 11 == 0 else 0),
    "ragged": lambda i: (i * 7) % 13,
}
for name, jitter in patterns.items():
    lines = ["#EXTM3U", "#EXT-X-SERVER-CONTROL:CAN-SKIP-UNTIL=12,CAN-SKIP-DATERANGES=YES,CAN-BLOCK-RELOAD=YES", "#EXT-X-VERSION:3",
             "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:EVENT", "#EXT-X-INDEPENDENT-SEGMENTS"]
    for i in range(entries):
        stamp = (start + datetime.timedelta(seconds=2 * i, milliseconds=jitter(i))).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        lines += [f"#EXT-X-PROGRAM-DATE-TIME:{stamp}", "#EXTINF:2.000000,", f"{i:06d}.ts"]
    text = ("\n".join(lines) + "\n").encode()
    print(f"{name}: {entries} entries, {len(text)} bytes")
    for level in (1, 6, 9):
        times = []
        for _ in range(7):
            began = time.perf_counter()
            out = gzip.compress(text, compresslevel=level)
            times.append(time.perf_counter() - began)
        times.sort()
        print(f"  gzip level {level}: {len(out)} bytes ({len(text) / len(out):.1f}x smaller), median {times[3] * 1000:.1f} ms")
PY
