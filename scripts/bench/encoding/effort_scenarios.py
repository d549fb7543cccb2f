#!/usr/bin/env python3
"""Effort under load (Docs/benchmarks.md, "Effort under load"): `sideline serve` (release) on
this machine, for SECONDS (600) each, in four scenarios:

  a  two cameras with the default ladder
  b  one camera, with a headless Chromium playing it on the same box
  c  one camera, with 200 simulated players (scripts/bench/serving/player_simulator.py)
  d  three cameras with the default ladder

Each camera is Samples/sample.mp4 looped at real time. A sampler reads /metrics every 2 s.
Per stream it prints: frames dropped by slow variants and by the input, segments above their
advertised BANDWIDTH, effort steps down and up, and the seconds each variant spent at each
effort step. For the first stream of each scenario it prints the quality of the top rung's
recording against the source (ffmpeg's psnr and ssim filters over the whole recording), next
to the anchor: the same input encoded by `sideline encode` at the fixed configured effort
(ANCHOR_SECONDS, 48: two passes of the sample), measured the same way in the same run.

    scripts/bench/run effort-scenarios                     # all four, 10 minutes each
    SECONDS_EACH=120 SCENARIOS="a d" scripts/bench/run effort-scenarios
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "scripts", "bench", "serving"))
from serve_benchmark import free_port, get, wait_for  # noqa: E402
SIDELINE = os.environ.get("SIDELINE", os.path.join(ROOT, ".build", "release", "sideline"))
SAMPLE = os.path.join(ROOT, "Samples", "sample.mp4")
SECONDS = int(os.environ.get("SECONDS_EACH", "600"))
SCENARIOS = os.environ.get("SCENARIOS", "a b c d").split()
ANCHOR_SECONDS = int(os.environ.get("ANCHOR_SECONDS", "48"))
WORK = os.environ.get("BENCH_DIR", "/tmp/sideline-bench") + "/effort-scenarios"
TOP = ("720p", 1280, 720)
METRIC = re.compile(r'^(\w+)\{([^}]*)\} ([0-9.eE+-]+)$')


def metrics(port):
    """{(name, frozenset of (label, value)): value} from /metrics."""
    values = {}
    for line in get(f"http://127.0.0.1:{port}/metrics").decode().splitlines():
        match = METRIC.match(line)
        if match:
            labels = frozenset(re.findall(r'(\w+)="([^"]*)"', match.group(2)))
            values[(match.group(1), labels)] = float(match.group(3))
    return values


def total(values, name, **labels):
    return sum(v for (n, l), v in values.items() if n == name and all((k, str(x)) in l for k, x in labels.items()))


def write_config(path, streams, port, data):
    # The simulated players all come from 127.0.0.1: no per-client connection limit.
    with open(path, "w") as f:
        f.write(f"server: {{host: 127.0.0.1, port: {port}, max_connections_per_client: 0}}\ndata_dir: {data}\nstreams:\n")
        for name in streams:
            f.write(f"  - {{name: {name}, input: {SAMPLE}, loop: true}}\n")


def has_segments(count):
    """For `wait_for`: a media playlist listing at least `count` segments."""
    return lambda body: body.count(b".ts\n") >= count


def chromium_load(port, stream, stop):
    """Headless Chromium's native HLS playing the stream until `stop` is set; returns its last currentTime."""
    sys.path.insert(0, os.path.join(ROOT, "Tests", "Helpers"))
    from page_check import Browser
    profile = tempfile.mkdtemp(prefix="sideline-effort-")
    browser = Browser(shutil.which("chromium") or "chromium", profile)
    report = {}
    try:
        evaluate = browser.open(f"http://127.0.0.1:{port}/healthz")
        evaluate("window.v = document.createElement('video'); v.muted = true; document.body.appendChild(v); "
                 f"v.src = 'http://127.0.0.1:{port}/live/{stream}/master.m3u8'; v.play().catch(() => {{}}); 0")
        while not stop.wait(5):
            report = {"currentTime": evaluate("v.currentTime"), "error": evaluate("v.error && v.error.message")}
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)
    return report


def quality(playlist):
    """PSNR and SSIM (all planes) of a recorded 720p playlist against the looped source scaled to 720p.

    The playlist is a live EVENT playlist (a stopped server leaves it open for a restart), which
    ffmpeg would follow from its live edge: its segments are joined into one file instead.
    """
    directory = os.path.dirname(playlist)
    joined = playlist + ".joined.ts"
    with open(playlist) as listing, open(joined, "wb") as out:
        for line in listing:
            line = line.strip()
            if line and not line.startswith("#"):
                with open(os.path.join(directory, line), "rb") as segment:
                    shutil.copyfileobj(segment, out)
    graph = (f"[1:v]scale={TOP[1]}:{TOP[2]}:flags=bicubic,setpts=PTS-STARTPTS[ref];[0:v]setpts=PTS-STARTPTS[enc];"
             "[enc]split[e1][e2];[ref]split[r1][r2];[e1][r1]psnr=shortest=1;[e2][r2]ssim=shortest=1")
    result = subprocess.run(["ffmpeg", "-nostats", "-v", "info", "-i", joined, "-stream_loop", "-1", "-i", SAMPLE,
                             "-lavfi", graph, "-an", "-f", "null", "-"], capture_output=True, text=True)
    os.remove(joined)
    psnr = re.search(r"PSNR .* average:([0-9.]+)", result.stderr)
    ssim = re.search(r"SSIM .* All:([0-9.]+)", result.stderr)
    if not psnr or not ssim:
        return None
    return float(psnr.group(1)), float(ssim.group(1))


def anchor_quality():
    """The same input encoded at the fixed configured effort (`sideline encode`, no steps)."""
    data = f"{WORK}/anchor"
    shutil.rmtree(data, ignore_errors=True)
    subprocess.run([SIDELINE, "encode", "--input", SAMPLE, "--loop", "--media-limit", str(ANCHOR_SECONDS), "--data-dir", data,
                    "--stream", "main", "--log-level", "error"], check=True, stdout=subprocess.DEVNULL)
    return quality(f"{data}/main/{TOP[0]}/index.m3u8")


def scenario(name):
    streams = {"a": ["cam1", "cam2"], "b": ["main"], "c": ["main"], "d": ["cam1", "cam2", "cam3"]}[name]
    load = {"a": "none", "b": "headless Chromium playing it", "c": "200 simulated players", "d": "none"}[name]
    data = f"{WORK}/{name}/data"
    shutil.rmtree(f"{WORK}/{name}", ignore_errors=True)
    os.makedirs(data)
    port = free_port()
    config = f"{WORK}/{name}/sideline.yaml"
    write_config(config, streams, port, data)
    log = open(f"{WORK}/{name}/sideline.log", "w")
    load_before = os.getloadavg()
    server = subprocess.Popen([SIDELINE, "serve", "--config", config], stdout=subprocess.DEVNULL, stderr=log)
    started = time.time()
    at_step = {}
    stop = threading.Event()
    extra = {}
    helpers = []
    try:
        wait_for(f"http://127.0.0.1:{port}/healthz", seconds=120)

        def sample():
            last = time.time()
            while not stop.wait(2):
                now = time.time()
                try:
                    values = metrics(port)
                except Exception:
                    continue
                for (metric, labels), value in values.items():
                    if metric == "sideline_encoder_effort":
                        key = (dict(labels)["stream"], dict(labels)["variant"], int(value))
                        at_step[key] = at_step.get(key, 0) + (now - last)
                last = now

        sampler = threading.Thread(target=sample)
        sampler.start()
        helpers.append(sampler)
        if name == "b":
            # Chromium gave up (DEMUXER_ERROR_COULD_NOT_PARSE) on the stream opened at two segments; at eight s it plays.
            wait_for(f"http://127.0.0.1:{port}/live/{streams[0]}/360p/index.m3u8", has_segments(4), seconds=120)

            def play():
                extra["chromium"] = chromium_load(port, streams[0], stop)
            player = threading.Thread(target=play)
            player.start()
            helpers.append(player)
        if name == "c":
            # The simulated players start three segments back from the live edge.
            wait_for(f"http://127.0.0.1:{port}/live/main/360p/index.m3u8", has_segments(4), seconds=120)
            simulator = subprocess.Popen([sys.executable, "-c",
                                          "import sys; sys.path.insert(0, 'scripts/bench/serving'); import player_simulator as s; "
                                          f"s.run('127.0.0.1', {port}, {server.pid}, ['720p', '540p', '360p'], 200, {SECONDS - 20}, processes=2)"],
                                         cwd=ROOT, stdout=open(f"{WORK}/{name}/players.txt", "w"), stderr=subprocess.STDOUT)
        deadline = started + SECONDS
        while time.time() < deadline and server.poll() is None:
            time.sleep(1)
        final = metrics(port)
        if name == "c":
            simulator.wait(60)
    finally:
        stop.set()
        for helper in helpers:
            helper.join(60)
        server.send_signal(signal.SIGTERM)
        server.wait(60)
    load_after = os.getloadavg()
    print(f"\n== scenario {name}: {len(streams)} camera(s), load: {load}; {SECONDS} s; load average {load_before[0]:.2f} before, {load_after[0]:.2f} after")
    if "chromium" in extra:
        print(f"   Chromium: currentTime {extra['chromium'].get('currentTime')}, error {extra['chromium'].get('error')}")
    if name == "c":
        print("   players: " + " | ".join(line.strip() for line in open(f"{WORK}/{name}/players.txt") if line.startswith(("unexpected", "playlist latency", "segment"))))
    calibrated = [line for line in open(f"{WORK}/{name}/sideline.log") if "cores at" in line]
    if calibrated:
        print("   start: " + calibrated[0].split("[StreamServices] ", 1)[-1].strip())
    for stream in streams:
        slow = total(final, "sideline_frames_dropped_by_slow_variants_total", stream=stream)
        input_dropped = total(final, "sideline_input_frames_dropped_total", stream=stream)
        over = total(final, "sideline_segment_bandwidth_exceeded_total", stream=stream)
        segments = total(final, "sideline_segments_published_total", stream=stream)
        down = total(final, "sideline_effort_steps_total", stream=stream, direction="down")
        up = total(final, "sideline_effort_steps_total", stream=stream, direction="up")
        times = {}
        for (s, variant, step), seconds in sorted(at_step.items()):
            if s == stream:
                times.setdefault(variant, []).append(f"{step}:{seconds:.0f}s")
        print(f"   {stream}: slow-variant drops {slow:.0f}, input drops {input_dropped:.0f}, over BANDWIDTH {over:.0f} of {segments:.0f} segments,"
              f" effort steps down {down:.0f} up {up:.0f}; seconds at each step (0 = as configured): "
              + "; ".join(f"{v} {' '.join(t)}" for v, t in times.items()))
    measured = quality(f"{data}/{streams[0]}/{TOP[0]}/index.m3u8")
    return measured


def main():
    os.makedirs(WORK, exist_ok=True)
    print(f"{os.cpu_count()} cores; {SECONDS} s per scenario; scenarios {' '.join(SCENARIOS)}; load average {os.getloadavg()[0]:.2f} at start")
    results = {}
    for name in SCENARIOS:
        results[name] = scenario(name)
    anchor = anchor_quality()
    print(f"\nQuality of the {TOP[0]} rung against the source, whole recording of each scenario's first stream;"
          f" anchor: the same input at the fixed configured effort ({ANCHOR_SECONDS} s, sideline encode), same run")
    if anchor:
        print(f"   anchor: PSNR {anchor[0]:.2f} dB, SSIM {anchor[1]:.4f}")
    for name, measured in results.items():
        if measured and anchor:
            print(f"   {name}: PSNR {measured[0]:.2f} dB ({measured[0] - anchor[0]:+.2f}), SSIM {measured[1]:.4f} ({measured[1] - anchor[1]:+.4f})")
        else:
            print(f"   {name}: not measured (no recording, or ffmpeg could not compare it)")


if __name__ == "__main__":
    main()
