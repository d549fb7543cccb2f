#!/usr/bin/env python3
"""The clip benchmark behind scripts/bench/run clips.

A real 720p recording of the benchmark clip (60 s, 30 segments of 2 s, `sideline encode`) is
lengthened to a 3-hour EVENT recording: entry i is a hard link to real segment i mod 30, dated
2 s after the one before, with EXT-X-DISCONTINUITY where the 60 s cycle restarts (the media
timestamps do). The clip is entries 3600-3629 (seconds 7200-7260, one whole cycle, so its
timestamps run on): `sideline export` reads the 5,400-entry playlist, finds them and remuxes
them; `ffmpeg -c copy -movflags +faststart` remuxes the same 30 files (concat protocol). Two
figures, alternating the two sides:
  - the whole command, wall clock (process start, dynamic linking, the playlist, the remux);
  - the copy alone: what `sideline export` prints as ClipRemuxer's copying time (packets,
    trailer, the faststart pass, after the input and the MP4 are open) against ffmpeg's own
    `-benchmark` rtime (its transcode loop and trailer, after it opened the input).
ffprobe checks both clips hold the same packets."""
import datetime
import json
import re
import os
import shutil
import statistics
import subprocess
import sys
import time

SIDELINE, CLIP, WORK = sys.argv[1:4]
ROUNDS = int(os.environ.get("ROUNDS", "9"))
ENTRIES = 5400
CYCLE = 30
FIRST = 3600  # hour 2
TICK = os.sysconf("SC_CLK_TCK")

CONFIG = """video:
  ladder:
    - {name: 720p, width: 1280, height: 720, bitrate: 3000k, preset: veryfast, profile: high}
"""


def machine_busy():
    fields = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    return sum(fields) / TICK, (sum(fields) - fields[3] - fields[4]) / TICK


def children_cpu():
    usage = os.times()
    return usage.children_user + usage.children_system


def source_recording():
    """60 s of the clip recorded by Sideline itself: 30 real segments."""
    data = os.path.join(WORK, "clip-source")
    if not os.path.exists(os.path.join(data, "main", "720p", "index.m3u8")):
        shutil.rmtree(data, ignore_errors=True)
        os.makedirs(data)
        config = os.path.join(WORK, "clip-720p.yaml")
        open(config, "w").write(CONFIG)
        subprocess.run([SIDELINE, "encode", "--config", config, "--input", CLIP, "--data-dir", data, "--no-loop"],
                       check=True, stdout=subprocess.DEVNULL)
    variant = os.path.join(data, "main", "720p")
    names = sorted(n for n in os.listdir(variant) if n.endswith(".ts") and n[0].isdigit())
    return [os.path.join(variant, n) for n in names[:CYCLE]]


def three_hours(segments):
    data = os.path.join(WORK, "clip-3h")
    variant = os.path.join(data, "main", "720p")
    if os.path.exists(os.path.join(variant, "index.m3u8")):
        return data
    shutil.rmtree(data, ignore_errors=True)
    os.makedirs(variant)
    start = datetime.datetime(2026, 11, 24, 12, 0, 0, tzinfo=datetime.timezone.utc)
    lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:0",
             "#EXT-X-PLAYLIST-TYPE:EVENT", "#EXT-X-INDEPENDENT-SEGMENTS"]
    for i in range(ENTRIES):
        name = f"{i:06d}.ts"
        os.link(segments[i % CYCLE], os.path.join(variant, name))
        if i and i % CYCLE == 0:
            lines.append("#EXT-X-DISCONTINUITY")
        date = start + datetime.timedelta(seconds=2 * i)
        lines += [f"#EXT-X-PROGRAM-DATE-TIME:{date.strftime('%Y-%m-%dT%H:%M:%S.000Z')}", "#EXTINF:2.000000,", name]
    lines.append("#EXT-X-ENDLIST")
    open(os.path.join(variant, "index.m3u8"), "w").write("\n".join(lines) + "\n")
    return data


def probe(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration:stream=codec_type,nb_frames", "-of", "json", path],
                         check=True, capture_output=True, text=True).stdout
    info = json.loads(out)
    return float(info["format"]["duration"]), {s["codec_type"]: int(s.get("nb_frames", 0)) for s in info["streams"]}


def timed(command):
    """Wall seconds of the whole command, and the remux seconds it reports itself."""
    started = time.monotonic()
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    wall = time.monotonic() - started
    own = re.search(r"copying ([0-9.]+) s", done.stdout) or re.search(r"rtime=([0-9.]+)s", done.stderr)
    return wall, float(own.group(1)) if own else float("nan")


def main():
    segments = source_recording()
    data = three_hours(segments)
    files = [os.path.join(data, "main", "720p", f"{i:06d}.ts") for i in range(FIRST, FIRST + CYCLE)]
    size = sum(os.path.getsize(f) for f in files)
    ours_out, theirs_out = os.path.join(WORK, "clip-sideline.mp4"), os.path.join(WORK, "clip-ffmpeg.mp4")
    ours = [SIDELINE, "export", "main", "--data-dir", data, "--start", str(2 * FIRST), "--end", str(2 * (FIRST + CYCLE)), "-o", ours_out]
    theirs = ["ffmpeg", "-v", "info", "-nostats", "-hide_banner", "-benchmark", "-y", "-i", "concat:" + "|".join(files),
              "-c", "copy", "-movflags", "+faststart", theirs_out]
    load_before = open("/proc/loadavg").read().split()[:3]
    total0, busy0 = machine_busy()
    cpu0 = children_cpu()
    times = {"sideline": [], "ffmpeg": []}
    remux = {"sideline": [], "ffmpeg": []}
    for _ in range(ROUNDS):
        for name, command in (("sideline", ours), ("ffmpeg", theirs)):
            wall, own = timed(command)
            times[name].append(wall)
            remux[name].append(own)
    total1, busy1 = machine_busy()
    ours_cpu = children_cpu() - cpu0
    elapsed = total1 - total0
    (d1, f1), (d2, f2) = probe(ours_out), probe(theirs_out)
    med = statistics.median
    print(f"60 s clip of 720p ({len(files)} segments, {size / 1e6:.1f} MB) from a {ENTRIES}-entry (3 h) recording; {ROUNDS} rounds alternating")
    print(f"  clips: sideline {d1:.3f} s, packets {f1}; ffmpeg {d2:.3f} s, packets {f2}")
    for label, figures in (("whole command", times), ("copy alone   ", remux)):
        s, f = med(figures["sideline"]), med(figures["ffmpeg"])
        print(f"  {label}  sideline median {s * 1000:6.1f} ms (min {min(figures['sideline']) * 1000:.1f}, max {max(figures['sideline']) * 1000:.1f})"
              f"   ffmpeg median {f * 1000:6.1f} ms (min {min(figures['ffmpeg']) * 1000:.1f}, max {max(figures['ffmpeg']) * 1000:.1f})"
              f"   speed ratio (ffmpeg / sideline) {f / s:.2f}x; per round "
              + " ".join(f"{b / a:.2f}" for a, b in zip(figures["sideline"], figures["ffmpeg"])))
    print(f"load average before {' '.join(load_before)}, after {' '.join(open('/proc/loadavg').read().split()[:3])}; "
          f"machine busy {100 * (busy1 - busy0) / elapsed:.0f}% of all cores over the run, "
          f"the two commands {100 * ours_cpu / elapsed:.0f}% (the rest is other tenants)")


if __name__ == "__main__":
    main()
