#!/usr/bin/env python3
"""What each effort step of Sideline's encoders costs and loses, per rung of the default ladder.

For every rung (720p, 540p, 360p of Samples/sample.mp4, its real footage) and every candidate
step, the ffmpeg CLI encodes the clip with the rung's rate control (bitrate, maxrate 1.1x,
bufsize 2x, GOP 2 s, rc-lookahead 5) on one thread, and this script reads:
  - CPU seconds per media second of the encode (user + system from getrusage, less the same
    decode and scale run with no encode),
  - PSNR and SSIM of the result against the source scaled to the rung (ffmpeg's psnr/ssim).
Every step keeps B-frames as veryfast has them (bframes=3, b-pyramid normal): a new encoder
joins the running stream at a segment boundary, and its decode delay must not change there
(DTS would go backwards). The anchor is the configured veryfast, measured in the same run;
cells alternate over ROUNDS rounds and medians are printed.

    python3 scripts/bench/encoding/effort_steps.py            # 3 rounds
    ROUNDS=1 python3 scripts/bench/encoding/effort_steps.py   # quicker
"""
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
CLIP = os.environ.get("CLIP", os.path.join(ROOT, "Samples", "sample.mp4"))
ROUNDS = int(os.environ.get("ROUNDS", "3"))
SECONDS = float(os.environ.get("SECONDS_OF_MEDIA", "20"))

RUNGS = [("720p", 1280, 720, 3000), ("540p", 960, 540, 1800), ("360p", 640, 360, 800)]
KEEP = "bframes=3:b-pyramid=normal:scenecut=0:open-gop=0:rc-lookahead=5"
# (name, preset, extra x264 params): Sources/EncoderEffort/EffortStep.swift's steps below veryfast,
# and one candidate that lost (superfast-lean: dearer than ultrafast-b on every rung, lower PSNR).
STEPS = [
    ("veryfast", "veryfast", ""),
    ("superfast", "superfast", ""),
    ("superfast-lean", "superfast", "subme=0:partitions=none:weightp=0:8x8dct=0"),
    ("ultrafast-b", "ultrafast", "cabac=1"),
]


def cpu_of(args):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def encode(rung, step, out):
    name, w, h, k = rung
    _, preset, extra = step
    params = KEEP + (":" + extra if extra else "")
    return cpu_of(["ffmpeg", "-v", "error", "-y", "-t", str(SECONDS), "-i", CLIP, "-an",
                   "-vf", f"scale={w}:{h}:flags=bicubic", "-c:v", "libx264", "-threads", "1",
                   "-preset", preset, "-profile:v", "high", "-b:v", f"{k}k", "-maxrate", f"{k * 11 // 10}k",
                   "-bufsize", f"{k * 2}k", "-g", "60", "-keyint_min", "60", "-x264-params", params, out])


def decode_and_scale(rung):
    """The same input read, decoded and scaled with no encode: subtracted from every cell."""
    name, w, h, k = rung
    return cpu_of(["ffmpeg", "-v", "error", "-y", "-t", str(SECONDS), "-i", CLIP, "-an", "-threads", "1",
                   "-vf", f"scale={w}:{h}:flags=bicubic", "-f", "null", "-"])


def quality(rung, encoded):
    name, w, h, k = rung
    result = subprocess.run(["ffmpeg", "-v", "info", "-nostats", "-i", encoded, "-t", str(SECONDS), "-i", CLIP,
                             "-lavfi", f"[1:v]scale={w}:{h}:flags=bicubic[ref];[0:v]split[a][b];[ref]split[r1][r2];"
                                       f"[a][r1]psnr;[b][r2]ssim", "-f", "null", "-"],
                            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True).stderr
    psnr = float(re.search(r"PSNR .* average:([0-9.]+|inf)", result).group(1))
    ssim = float(re.search(r"SSIM .* All:([0-9.]+)", result).group(1))
    return psnr, ssim


def main():
    load = os.getloadavg()[0]
    cells = {}
    with tempfile.TemporaryDirectory() as work:
        for _ in range(ROUNDS):
            for rung in RUNGS:
                cells.setdefault((rung[0], "decode"), []).append(decode_and_scale(rung) / SECONDS)
                for step in STEPS:
                    out = os.path.join(work, f"{rung[0]}-{step[0]}.ts")
                    cpu = encode(rung, step, out)
                    cells.setdefault((rung[0], step[0]), []).append((cpu / SECONDS,) + quality(rung, out))
    decode = {rung[0]: statistics.median(cells[(rung[0], "decode")]) for rung in RUNGS}
    print(f"clip {os.path.basename(CLIP)}, {SECONDS:g} s, {ROUNDS} rounds, medians; load average {load:.2f} before, {os.getloadavg()[0]:.2f} after")
    print("cpu_s/media_s is the encode alone: the same decode and scale with no encode, measured per rung, is subtracted")
    print(f"{'rung':6} {'step':15} {'cpu_s/media_s':>13} {'vs veryfast':>11} {'PSNR dB':>8} {'dPSNR':>6} {'SSIM':>7}")
    for rung in RUNGS:
        anchor = None
        for step in STEPS:
            rows = cells[(rung[0], step[0])]
            cpu = statistics.median(r[0] for r in rows) - decode[rung[0]]
            psnr = statistics.median(r[1] for r in rows)
            ssim = statistics.median(r[2] for r in rows)
            if anchor is None:
                anchor = (cpu, psnr)
            print(f"{rung[0]:6} {step[0]:15} {cpu:13.3f} {cpu / anchor[0]:10.2f}x {psnr:8.2f} {psnr - anchor[1]:6.2f} {ssim:7.4f}")


if __name__ == "__main__":
    sys.exit(main())
