#!/usr/bin/env python3
"""Server CPU of a pushed stream against the same stream encoded by the server itself
(Docs/benchmarks.md, "Pushed stream CPU"). Run by scripts/bench/run pushed-cpu.

Both sides serve the same two-rung ladder (640x360 at 600 kbit/s and 320x180 at 200 kbit/s,
30 fps, 2 s segments, AAC) for SECONDS of wall clock: "local" is `sideline serve --input
testpattern`; "pushed" is `sideline serve` with the stream as an ingest_token entry while the
ffmpeg CLI encodes the same kind of picture (lavfi testsrc2 and a sine) and PUTs it to the
ingest. Only the server's CPU is counted (from /proc, after it announced its URL); ffmpeg's
is printed beside it. The sides alternate ROUNDS times; medians and their ratio are printed.
"""
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

SIDELINE = os.environ.get("SIDELINE", ".build/release/sideline")
SECONDS = float(os.environ.get("SECONDS_PER_SIDE", "30"))
ROUNDS = int(os.environ.get("ROUNDS", "2"))
TOKEN = "bench-ingest-token-0123456789"
LADDER = """video:
  ladder:
    - {name: 360p, width: 640, height: 360, bitrate: 600k, preset: veryfast, profile: main}
    - {name: 180p, width: 320, height: 180, bitrate: 200k, preset: veryfast, profile: baseline}
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_for_url(log_path, process, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        with open(log_path) as f:
            if "Open: " in f.read():
                return
        if process.poll() is not None:
            raise SystemExit(f"sideline exited: {open(log_path).read()}")
        time.sleep(0.1)
    raise SystemExit("sideline printed no URL")


def run_side(work, side, round_number):
    port = free_port()
    directory = f"{work}/{side}-{round_number}"
    os.makedirs(directory)
    stream = "  - name: cam\n" + (f"    ingest_token: {TOKEN}\n" if side == "pushed" else "    input: testpattern\n")
    with open(f"{directory}/config.yaml", "w") as f:
        f.write(LADDER + "streams:\n" + stream)
    log_path = f"{directory}/sideline.log"
    log = open(log_path, "w")
    server = subprocess.Popen([SIDELINE, "serve", "--config", f"{directory}/config.yaml", "--host", "127.0.0.1", "--port", str(port),
                               "--data-dir", f"{directory}/data"], stdout=log, stderr=log, stdin=subprocess.DEVNULL)
    wait_for_url(log_path, server)
    pusher = None
    if side == "pushed":
        ingest = f"http://127.0.0.1:{port}/ingest/cam"
        pusher = subprocess.Popen([
            "ffmpeg", "-v", "error", "-re", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
            "-filter_complex", "[0:v]split=2[a][b];[b]scale=320:180[small]", "-map", "[a]", "-map", "[small]", "-map", "1:a", "-map", "1:a",
            "-c:v", "libx264", "-preset", "veryfast", "-g", "60", "-keyint_min", "60", "-sc_threshold", "0", "-force_key_frames", "expr:gte(t,n_forced*2)",
            "-b:v:0", "600k", "-b:v:1", "200k", "-c:a", "aac", "-b:a", "128k",
            "-f", "hls", "-hls_time", "2", "-hls_list_size", "0", "-hls_playlist_type", "event", "-method", "PUT", "-http_persistent", "1",
            "-headers", f"Authorization: Bearer {TOKEN}\r\n", "-master_pl_name", "master.m3u8", "-var_stream_map", "v:0,a:0,name:360p v:1,a:1,name:180p",
            "-hls_segment_filename", f"{ingest}/%v/seg%d.ts", f"{ingest}/%v/index.m3u8"], stdin=subprocess.DEVNULL)
    server0 = cpu_seconds(server.pid)
    pusher0 = cpu_seconds(pusher.pid) if pusher else 0
    time.sleep(SECONDS)
    server_cpu = cpu_seconds(server.pid) - server0
    pusher_cpu = (cpu_seconds(pusher.pid) - pusher0) if pusher else 0
    if pusher:
        pusher.send_signal(signal.SIGINT)
        pusher.wait(timeout=30)
    server.send_signal(signal.SIGTERM)
    server.wait(timeout=30)
    segments = 0
    playlist = f"{directory}/data/cam/360p/index.m3u8"
    if os.path.exists(playlist):
        segments = sum(1 for line in open(playlist) if line.strip().endswith(".ts"))
    return server_cpu / SECONDS, pusher_cpu / SECONDS, segments


def main():
    with open("/proc/loadavg") as f:
        load_before = f.read().split()[:3]
    work = tempfile.mkdtemp(prefix="sideline-pushed-cpu-")
    results = {"local": [], "pushed": []}
    pushers = []
    for round_number in range(ROUNDS):
        for side in ("local", "pushed") if round_number % 2 == 0 else ("pushed", "local"):
            server, pusher, segments = run_side(work, side, round_number)
            results[side].append(server)
            if side == "pushed":
                pushers.append(pusher)
            print(f"round {round_number + 1} {side:6s}: server {server * 100:.1f}% of a core over {SECONDS:.0f} s"
                  + (f", ffmpeg pushing {pusher * 100:.1f}%" if side == "pushed" else "") + f", {segments} entries in 360p")
    with open("/proc/loadavg") as f:
        load_after = f.read().split()[:3]
    local, pushed = statistics.median(results["local"]), statistics.median(results["pushed"])
    print(f"median server CPU: local {local * 100:.1f}% of a core, pushed {pushed * 100:.1f}% (the encoder's own {statistics.median(pushers) * 100:.1f}% runs elsewhere); "
          f"pushed/local {pushed / local:.3f}x; load average before {' '.join(load_before)}, after {' '.join(load_after)}")


if __name__ == "__main__":
    main()
