#!/usr/bin/env python3
"""Low-Latency HLS benchmark (issue 34; Docs/benchmarks.md, "Issue 34: how far behind the
camera"). Not a test: it prints figures beside the issue's targets for the reader to judge.

A release `sideline serve` on 127.0.0.1 runs the test pattern with the default ladder (three
rungs) and the default part duration (PART_DURATION to try another); the shipped nginx edge
(Config/nginx/sideline-edge.conf) stands in front of it on a port of its own. Then, one after
another, hls.js 1.6 in headless Chromium (Tests/Helpers/hlsjs_play.py) plays for DURATION
seconds:

  - in low-latency mode, straight from the origin;
  - in low-latency mode, through the edge;
  - without low-latency mode, straight from the origin (what a player that ignores parts
    gets from the same playlists: whole segments).

Then (unless SET=0) a second server runs a private angle set of two test-pattern cameras
(`wide`, the default angle, and `goal`, both with a viewer_token, the default ladder each, and
a signing key), the shipped private edge (Config/nginx/sideline-edge-private.conf) in front of
it, and hls.js in low-latency mode plays the set's signed URL (`sideline sign match`):

  - the set's master through the private edge (its default angle, `wide`);
  - the second angle's master (`goal`) with the same credential, straight from the origin.

Each prints how far behind the camera the picture on screen is: every half second after
WARMUP seconds, the wall clock minus the program date-time of the frame shown
(`hls.playingDate`; the server dates each segment with its frames' capture time, and both
run on this machine's clock): p50, p99 and the largest, with the parts and whole segments it
loaded, its stalls and the errors it logged.

    DURATION=300 WARMUP=30 scripts/bench/lowlatency/ll_latency.py     # the issue's 5 minutes
    DURATION=60 WARMUP=15 scripts/bench/lowlatency/ll_latency.py      # a quick run

The players start SERVER_WARMUP (20) seconds after the stream is live: a venue's server runs
long before an analyst opens it (a player joining the stream's first second stalled once in
2 of 2 runs and stayed a second further behind, 2026-11-29).

Environment: DURATION (300), WARMUP (30), PART_DURATION (the config's default), SERVER_WARMUP (20),
SET (1: the private set's rows; 0 leaves them out), OPEN (1: the open stream's rows), SIDELINE
(.build-release/release/sideline), HLSJS (.build-hlsjs/hls.mjs). Needs nginx and chromium
(scripts/ensure-deps.sh --test). Every wait is bounded; everything started is stopped by PID.
"""
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DURATION = float(os.environ.get("DURATION", "300"))
WARMUP = float(os.environ.get("WARMUP", "30"))
SIDELINE = os.environ.get("SIDELINE", os.path.join(ROOT, ".build-release/release/sideline"))
HLSJS = os.environ.get("HLSJS", os.path.join(ROOT, ".build-hlsjs/hls.mjs"))
PART = os.environ.get("PART_DURATION")
SERVER_WARMUP = float(os.environ.get("SERVER_WARMUP", "20"))
SET = os.environ.get("SET", "1") != "0"
OPEN = os.environ.get("OPEN", "1") != "0"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(started):
    """Stops what a benchmark started, last first, by its PID: the server (first) with SIGINT,
    nginx with SIGQUIT; killed after 20 s."""
    for process in reversed(started):
        process.send_signal(signal.SIGQUIT if process is not started[0] else signal.SIGINT)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


def wait_ok(url, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                if answer.status == 200:
                    return
        except Exception:
            pass
        time.sleep(0.2)
    raise SystemExit(f"{url} did not answer 200 within {seconds} s")


def nginx_wrapper(work, http_body):
    """A whole nginx.conf in `work` for a benchmark's nginx (in the foreground, its files in
    `work`), with `http_body` inside its http {} block."""
    os.makedirs(os.path.join(work, "tmp"), exist_ok=True)
    return f"""worker_processes 1;
user root;
daemon off;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {work}/tmp;
    proxy_temp_path {work}/tmp;
{http_body}
}}
"""


def nginx_config(work, listen, origin, edge_file="sideline-edge.conf"):
    """A shipped edge (Config/nginx/sideline-edge.conf, or sideline-edge-private.conf with the
    map it asks for) in front of `origin`."""
    for name in (edge_file, "sideline-edge-cache.conf"):
        shutil.copyfile(os.path.join(ROOT, "Config/nginx", name), os.path.join(work, name))
    return nginx_wrapper(work, f"""    proxy_cache_path {work}/cache levels=1:2 keys_zone=sideline_edge:8m max_size=256m inactive=1h use_temp_path=off;
    upstream sideline_origin {{ server 127.0.0.1:{origin}; keepalive 16; }}
    map $http_accept_encoding $sideline_encoding {{ ~*gzip gzip; default ""; }}
    map $upstream_http_content_type $sideline_not_segment {{ video/mp2t ""; default 1; }}
    server {{
        listen 127.0.0.1:{listen};
        include {work}/{edge_file};
    }}""")


def play(url, low_latency=True):
    command = ["python3", os.path.join(ROOT, "Tests/Helpers/hlsjs_play.py"), url, "--hlsjs", HLSJS,
               "--seconds", str(DURATION), "--warmup", str(WARMUP)]
    if not low_latency:
        command.append("--no-low-latency")
    run = subprocess.run(command, capture_output=True, text=True, timeout=DURATION + 120)
    try:
        return json.loads(run.stdout)
    except ValueError:
        return {"fatal": f"hlsjs_play.py exited {run.returncode}: {run.stdout[-500:]} {run.stderr[-1500:]}", "latencies": []}


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


OPEN_CONFIG = "stream: {name: main, input: testpattern}\n"
SET_CONFIG = """access: {signing_key: ll-bench-signing-key-0123456789}
streams:
  - {name: wide, input: testpattern, title: Wide, viewer_token: ll-bench-viewers-0123456789}
  - {name: goal, input: testpattern, title: Goal end, viewer_token: ll-bench-viewers-0123456789}
angle_sets:
  - {name: match, title: Bench, streams: [wide, goal]}
"""


def serve(work, config, edge_file):
    """Starts the release server on `config` and the shipped edge `edge_file` in front of it:
    (processes started, origin base URL, edge base URL)."""
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, "sideline.yaml"), "w") as f:
        f.write(config + (f"part_duration: {PART}\n" if PART else ""))
    origin, edge = free_port(), free_port()
    with open(os.path.join(work, "nginx.conf"), "w") as f:
        f.write(nginx_config(work, edge, origin, edge_file))
    started = []
    started.append(subprocess.Popen([SIDELINE, "serve", "--config", os.path.join(work, "sideline.yaml"), "--host", "127.0.0.1", "--port", str(origin),
                                     "--data-dir", os.path.join(work, "data")], stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "sideline.log"), "w")))
    started.append(subprocess.Popen(["nginx", "-c", os.path.join(work, "nginx.conf"), "-p", work], stderr=subprocess.DEVNULL))
    return started, f"http://127.0.0.1:{origin}", f"http://127.0.0.1:{edge}"


def print_row(name, report):
    latencies = report.get("latencies", [])
    errors = report.get("errors", [])
    fatal = report.get("fatal")
    print(f"{name:<44} {percentile(latencies, 0.5):>7.3f} {percentile(latencies, 0.99):>7.3f} {max(latencies, default=float('nan')):>7.3f} "
          f"{len(latencies):>8} {report.get('parts', 0):>6} {report.get('fragments', 0):>9} {report.get('stalls', 0):>7}  "
          f"{len(errors)}{' FATAL ' + str(fatal) if fatal else ''}{' e.g. ' + str(errors[0]) if errors else ''}")
    sys.stdout.flush()


def open_rows(work):
    started, origin, edge = serve(work, OPEN_CONFIG, "sideline-edge.conf")
    try:
        direct, through = f"{origin}/live/main/master.m3u8", f"{edge}/live/main/master.m3u8"
        wait_ok(direct, 60)
        wait_ok(through, 30)
        # A venue's server runs long before an analyst opens the stream: the players join a
        # stream that has been live SERVER_WARMUP seconds, not one a second old.
        time.sleep(SERVER_WARMUP)
        for name, url, low in [("hls.js lowLatencyMode, direct", direct, True), ("hls.js lowLatencyMode, through the edge", through, True),
                               ("hls.js without lowLatencyMode, direct", direct, False)]:
            print_row(name, play(url, low))
    finally:
        stop(started)


def set_rows(work):
    started, origin, edge = serve(work, SET_CONFIG, "sideline-edge-private.conf")
    try:
        sign = subprocess.run([SIDELINE, "sign", "match", "--config", os.path.join(work, "sideline.yaml"), "--base", edge, "--expires", "2h"],
                              capture_output=True, text=True, timeout=30)
        through = (sign.stdout.strip().splitlines() or [""])[-1]
        if "/live/match/master.m3u8" not in through:
            raise SystemExit(f"sideline sign match gave no set URL: {sign.stdout} {sign.stderr}")
        goal = through.replace(edge, origin).replace("/live/match/", "/live/goal/")
        wait_ok(goal, 60)
        wait_ok(through, 30)
        time.sleep(SERVER_WARMUP)
        for name, url in [("hls.js LL, private set, private edge", through), ("hls.js LL, private set's 2nd angle, direct", goal)]:
            print_row(name, play(url, True))
    finally:
        stop(started)


def main():
    if not os.path.isfile(SIDELINE):
        raise SystemExit(f"{SIDELINE} is missing: swift build -c release --product sideline --scratch-path .build-release")
    if not os.path.isfile(HLSJS):
        raise SystemExit(f"{HLSJS} is missing: scripts/ensure-deps.sh --hlsjs")
    work = tempfile.mkdtemp(prefix="sideline-ll-bench-")
    try:
        part_target = PART or "the default"
        print(f"ll_latency: DURATION={DURATION:g} s, WARMUP={WARMUP:g} s, part duration {part_target}; load average before {' '.join(open('/proc/loadavg').read().split()[:3])}")
        print("targets: hls.js low-latency p50 <= 1.5 s and p99 <= 2.0 s, direct and through the edge, open and private, every angle of a set")
        print(f"{'player':<44} {'p50 s':>7} {'p99 s':>7} {'max s':>7} {'samples':>8} {'parts':>6} {'segments':>9} {'stalls':>7}  errors")
        if OPEN:
            open_rows(os.path.join(work, "open"))
        if SET:
            set_rows(os.path.join(work, "set"))
        print(f"load average after {' '.join(open('/proc/loadavg').read().split()[:3])}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
