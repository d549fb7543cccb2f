#!/usr/bin/env python3
"""What a player decodes when it moves between the two boxes of a pair in the middle of a
segment (issue 35; Docs/benchmarks.md, "The frames hls.js lost at a move"). Not a test.

Takes one slot both boxes recorded (a `failover.py` run kept with KEEP=1 has both data
folders), splices box A's bytes up to the start of a part with box B's from the same part on,
decodes all three (A, B, the splice) with ffmpeg and reads the test pattern's painted moment in
every frame. With one IDR per segment the spliced frames after the cut decode against A's
references: they differ from B's own pictures (some so much that the moment does not read)
until the next IDR; with an IDR at every part (`redundancy.keyframe_every_part`) every frame
after the cut is B's own picture, byte for byte.

    scripts/bench/redundancy/splice.py WORK [SEGMENT] [PART]

WORK: a kept failover folder (WORK/a/data and WORK/b/data); SEGMENT: a file name such as
897991198.ts (default: the newest both boxes recorded); PART: the part to cut at (default 2,
0.4 s in at 0.2 s parts, frame 12). Rung 360p of stream main, 320x180 grey frames read.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "angles"))
from angle_sync import read_clock  # noqa: E402

WIDTH, HEIGHT = 320, 180


def frame_starts(data):
    """For each video frame, where it starts: its PES's first packet, or the PAT that leads a
    part in front of it (a part begins with PAT and PMT, then its first frame)."""
    starts, table = [], None
    for i in range(0, len(data) - 187, 188):
        pid = (data[i + 1] & 0x1F) << 8 | data[i + 2]
        if not data[i + 1] & 0x40:
            continue
        if pid == 0:
            table = table if table is not None else i
            continue
        payload = i + 4 + (1 + data[i + 4] if data[i + 3] & 0x20 else 0)
        if data[payload:payload + 4] == b"\x00\x00\x01\xe0":
            starts.append(table if table is not None else i)
        if pid != 0x1000:
            table = None
    return starts


def frames(data):
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", "-", "-map", "0:v:0", "-f", "rawvideo", "-pix_fmt", "gray", "-s", f"{WIDTH}x{HEIGHT}", "-"],
                         input=data, capture_output=True, timeout=60).stdout
    size = WIDTH * HEIGHT
    return [out[i:i + size] for i in range(0, len(out) - size + 1, size)]


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    work = sys.argv[1]
    folders = [os.path.join(work, box, "data/main/360p") for box in ("a", "b")]
    both = sorted(set(f for f in os.listdir(folders[0]) if f[:-3].isdigit() and f.endswith(".ts")) & set(os.listdir(folders[1])))
    if not both:
        raise SystemExit(f"no slot recorded by both boxes in {folders}")
    segment = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else both[-2 if len(both) > 1 else -1]
    part = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    a, b = (open(os.path.join(folder, segment), "rb").read() for folder in folders)
    # Part k starts at frame 6k (0.2 s parts at 30 fps, as failover.py's boxes cut them).
    frame = 6 * part
    cut_a, cut_b = frame_starts(a)[frame], frame_starts(b)[frame]
    fa, fb, fs = frames(a), frames(b), frames(a[:cut_a] + b[cut_b:])
    unread, differing = 0, 0
    print(f"slot {segment}: A {len(fa)} frames, B {len(fb)}, spliced at part {part}, frame {frame} ({len(fs)} frames)")
    for index, (x, y, z) in enumerate(zip(fa, fb, fs)):
        ca, cb, cs = read_clock(x, WIDTH, HEIGHT), read_clock(y, WIDTH, HEIGHT), read_clock(z, WIDTH, HEIGHT)
        # After the cut a clean decode is B's own picture, byte for byte.
        off = sum(abs(p - q) for p, q in zip(z[::7], y[::7])) / len(z[::7]) if index >= frame else 0.0
        unread += cs is None
        differing += index >= frame and z != y
        source = "A" if cs is not None and cs == ca else "B" if cs is not None and cs == cb else "unreadable" if cs is None else "neither"
        print(f"  frame {index:2d}  A {ca}  B {cb}  spliced {cs}  ({source}){f'  mean |spliced - B| {off:.2f}' if index >= frame else ''}")
    print(f"after the cut {differing} of {len(fs) - frame} frames differ from B's own decoding; {unread} spliced frames do not read")

if __name__ == "__main__":
    main()
