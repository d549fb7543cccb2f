#!/usr/bin/env python3
"""The per-slot spread between two boxes of a redundant pair (issue 35, benchmark; Docs/benchmarks.md,
"Issue 35: one timeline"). Not a test: it prints how far apart the two boxes list each slot.

Two release `sideline serve` boxes on 127.0.0.1 (`redundancy`: A primary, B standby), one light
rung each (180p ultrafast, so both fit on 2 cores beside the camera), fed one UDP camera: one
ffmpeg process encoding a test source at 30 fps and sending the same MPEG-TS packets to both
boxes (the tee muxer), as a camera on a venue LAN would send to two receivers. It runs DURATION
seconds; A is restarted (SIGTERM, DOWN seconds down) at 30% of it and B killed (-9, DOWN
seconds down) at 60%.

At the end, every slot either box lists is compared from the two boxes' recordings on disk:

  number    the slot each box lists under a media sequence number: its EXT-X-PROGRAM-DATE-TIME
            / segment_duration must be the number, on both (a mismatch is a slot listed under
            another number)
  date      for a number both list, the difference of their EXT-X-PROGRAM-DATE-TIMEs (ms)
  PTS       for a number both list as a segment of their own camera (not GAP, not a stand-in
            or sibling fill, which the playlist's date ranges mark), the difference of the first video
            presentation timestamps (ms), as ratio to one frame (33.3 ms), the issue's bound
  picture   for the same slots, whether the two first frames are the same camera frame: the
            first two decoded frames of each box's segment compared (mean squared difference
            of their luma, every fourth pixel); the same frame when A's first is nearer B's
            first than B's second, and B's first nearer A's first than A's second (the camera
            is a moving test source, so neighbouring frames differ)

The anchor is that bound, one frame: the spread is printed as a ratio to it. The load average
before and after is printed beside.

    DURATION=600 scripts/bench/run spread

Environment: DURATION (600), DOWN (10), SIDELINE (.build-release/release/sideline). Every wait is
bounded; everything started is stopped by its PID.
"""
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts/bench/lowlatency"))
from ll_latency import free_port, wait_ok  # noqa: E402
from failover import write_pair_configs  # noqa: E402

DURATION = float(os.environ.get("DURATION", "600"))
DOWN = float(os.environ.get("DOWN", "10"))
SIDELINE = os.environ.get("SIDELINE", os.path.join(ROOT, ".build-release/release/sideline"))
D = 2.0
FRAME_MS = 1000 / 30


def load():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def fill_spans(lines):
    """[(start, end)] of the stand-in and sibling spans the playlist's date ranges mark (end None: open)."""
    spans = {}
    for line in lines:
        if line.startswith("#EXT-X-DATERANGE:") and ("com.sideline.stand-in" in line or "com.sideline.sibling" in line):
            ident = re.search(r'ID="([^"]+)"', line).group(1)
            start = re.search(r'START-DATE="([^"]+)"', line)
            end = re.search(r'END-DATE="([^"]+)"', line)
            parse = lambda m: datetime.fromisoformat(m.group(1).replace("Z", "+00:00")).timestamp() if m else None
            spans[ident] = (parse(start), parse(end) if end else spans.get(ident, (None, None))[1])
    return list(spans.values())


def parse_playlist(path):
    """{number: (date seconds since 1970, uri or None for GAP and for a stand-in or sibling fill)}
    of a recorded media playlist."""
    entries, sequence, date, gap = {}, 0, None, False
    with open(path) as f:
        lines = f.read().splitlines()
    fills = fill_spans(lines)
    number = None
    for line in lines:
        if line.startswith("#EXT-X-MEDIA-SEQUENCE:"):
            sequence = int(line.split(":", 1)[1])
            number = sequence
        elif line.startswith("#EXT-X-PROGRAM-DATE-TIME:"):
            text = line.split(":", 1)[1].replace("Z", "+00:00")
            date = datetime.fromisoformat(text).timestamp()
        elif line.startswith("#EXT-X-GAP"):
            gap = True
        elif line and not line.startswith("#"):
            filled = date is not None and any(start is not None and start <= date + 1e-3 and (end is None or date < end - 1e-3) for start, end in fills)
            entries[number] = (date, None if gap or filled else line)
            number += 1
            date = date + D if date is not None else None
            gap = False
    return entries


def first_pts(path):
    run = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time", "-read_intervals", "%+#1",
                          "-of", "csv=p=0", path], capture_output=True, text=True, timeout=30)
    try:
        return float(run.stdout.split()[0].rstrip(","))
    except (IndexError, ValueError):
        return None


def first_frames(path):
    """The first two decoded frames' luma (320x180 grey), or None."""
    run = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-frames:v", "2", "-vf", "scale=320:180", "-f", "rawvideo", "-pix_fmt", "gray", "-"],
                         capture_output=True, timeout=30)
    size = 320 * 180
    return (run.stdout[:size], run.stdout[size:2 * size]) if len(run.stdout) >= 2 * size else None


def difference(x, y):
    return sum((x[i] - y[i]) ** 2 for i in range(0, len(x), 4)) / (len(x) / 4)


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def main():
    if os.environ.get("ANALYZE"):
        return analyze(os.environ["ANALYZE"])
    work = tempfile.mkdtemp(prefix="spread-")
    ports = {"a": free_port(), "b": free_port()}
    udp = {"a": free_port(), "b": free_port()}
    processes = {}
    write_pair_configs(work, ports, "{name: 180p, width: 320, height: 180, bitrate: 300k, preset: ultrafast, profile: baseline}",
                       lambda name: f"stream: {{name: main, input: 'udp://127.0.0.1:{udp[name]}', input_timeout: 20, loss_timeout: 2}}")

    def start(name):
        processes[name] = subprocess.Popen([SIDELINE, "serve", "--config", f"{work}/{name}/sideline.yaml", "--data-dir", f"{work}/{name}/data"],
                                           stdout=subprocess.DEVNULL, stderr=open(f"{work}/{name}/log", "a"))

    def stop(name, sig):
        process = processes[name]
        if process.poll() is None:
            process.send_signal(sig)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)

    print(f"spread: DURATION={DURATION:g} s, DOWN={DOWN:g} s, 180p ultrafast on each box, one UDP camera to both; load average before {load()}", flush=True)
    camera = subprocess.Popen(["ffmpeg", "-v", "error", "-re", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30", "-f", "lavfi", "-i", "sine=frequency=440",
                               "-t", str(DURATION + 120), "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-g", "30", "-b:v", "1M",
                               "-c:a", "aac", "-map", "0:v", "-map", "1:a", "-f", "tee",
                               f"[f=mpegts]udp://127.0.0.1:{udp['a']}?pkt_size=1316|[f=mpegts]udp://127.0.0.1:{udp['b']}?pkt_size=1316"],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(f"{work}/camera.log", "w"))
    try:
        start("a")
        start("b")
        for name in ("a", "b"):
            wait_ok(f"http://127.0.0.1:{ports[name]}/live/main/180p/index.m3u8", 60)
        begin = time.monotonic()
        events = [(0.3 * DURATION, "a", signal.SIGTERM), (0.6 * DURATION, "b", signal.SIGKILL)]
        for at, name, sig in events:
            time.sleep(max(0, begin + at - time.monotonic()))
            stop(name, sig)
            print(f"spread: box {name.upper()} stopped ({'SIGTERM' if sig == signal.SIGTERM else 'SIGKILL'}) at {time.monotonic() - begin:.0f} s", flush=True)
            time.sleep(DOWN)
            start(name)
            wait_ok(f"http://127.0.0.1:{ports[name]}/live/main/180p/index.m3u8", 60)
        time.sleep(max(0, begin + DURATION - time.monotonic()))
    finally:
        for name in ("a", "b"):
            if name in processes:
                stop(name, signal.SIGINT)
        camera.kill()
        camera.wait(timeout=10)
    analyze(work)


def analyze(work):
    """Compares the two recordings under `work` (ANALYZE=<work> compares a kept run again)."""
    lists = {name: parse_playlist(f"{work}/{name}/data/main/180p/index.m3u8") for name in ("a", "b")}
    misnumbered = sum(1 for entries in lists.values() for number, (date, _) in entries.items() if date is None or abs(date / D - number) > 1e-6)
    both = sorted(set(lists["a"]) & set(lists["b"]))
    dates = [abs(lists["a"][n][0] - lists["b"][n][0]) * 1000 for n in both]
    segments = [n for n in both if lists["a"][n][1] and lists["b"][n][1]]
    spreads, same, other = [], 0, []
    for n in segments:
        fa, fb = f"{work}/a/data/main/180p/{lists['a'][n][1]}", f"{work}/b/data/main/180p/{lists['b'][n][1]}"
        pa, pb = first_pts(fa), first_pts(fb)
        if pa is not None and pb is not None:
            spreads.append(abs(pa - pb) * 1000)
        framesA, framesB = first_frames(fa), first_frames(fb)
        if framesA and framesB:
            aligned = difference(framesA[0], framesB[0])
            if aligned < difference(framesA[0], framesB[1]) and aligned < difference(framesA[1], framesB[0]):
                same += 1
            else:
                other.append(n)
    only = len(set(lists["a"]) ^ set(lists["b"]))
    gaps = {name: sum(1 for _, uri in entries.values() if uri is None) for name, entries in lists.items()}
    print(f"spread: slots listed: A {len(lists['a'])}, B {len(lists['b'])}, both {len(both)}, by one box only {only}; GAP or fill entries A {gaps['a']}, B {gaps['b']}")
    print(f"spread: number: slots listed under another number than their date's: {misnumbered}")
    print(f"spread: date: for the {len(both)} numbers both list, max difference {max(dates, default=0):.3f} ms")
    if spreads:
        print(f"spread: first PTS, {len(spreads)} slots both list as segments: p50 {percentile(spreads, 0.5):.3f} ms, p99 {percentile(spreads, 0.99):.3f} ms, "
              f"max {max(spreads):.3f} ms; max / one frame ({FRAME_MS:.1f} ms) = {max(spreads) / FRAME_MS:.3f}; mean {statistics.mean(spreads):.3f} ms")
        over = [n for n, s in zip(segments, spreads) if s >= FRAME_MS]
        print(f"spread: slots whose first PTS differ by a frame or more: {len(over)} {over[:10]}")
        print(f"spread: picture: the same camera frame first in both boxes' segment in {same} of {same + len(other)} slots; not in {other[:10]}")
    print(f"spread: load average after {load()}; work directory {work}")


if __name__ == "__main__":
    main()
