#!/usr/bin/env python3
"""Capture-to-listed latency of `sideline push` beside `sideline serve`'s publish latency
(Docs/benchmarks.md, "Push latency"). Run by scripts/bench/run push-latency.

The same input (the test pattern, paced at real time) and the config's default ladder on
every side. Both measure from the input thread reading a segment's last frame to the segment
being listed, for every rung's segments:
- local:    `sideline encode --realtime` (the pipeline and publishing of `serve`, no HTTP),
            its `publish_latency_ms` line;
- loopback: `sideline push` to a `sideline serve` with the stream as an ingest_token entry,
            its `capture_to_listed_ms` line (until the server answered the playlist's upload);
- link:     the same through Tests/Helpers/link_proxy.py at 5 Mbit/s with 20 ms each way.
Each side encodes SEGMENTS segments per round; the sides alternate for ROUNDS rounds; the
percentiles are over every sample of a side. Push's segment upload times are printed beside.
"""
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

SIDELINE = os.environ.get("SIDELINE", ".build/release/sideline")
SEGMENTS = int(os.environ.get("SEGMENTS", "50"))
ROUNDS = int(os.environ.get("ROUNDS", "2"))
SIDES = os.environ.get("SIDES", "local,loopback,link").split(",")
DURATION = 2.0
TOKEN = "bench-push-token-0123456789"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def samples(line_prefix, text):
    """The p50/p99/max/samples of a `<prefix> p50=.. p99=.. max=.. samples=..` line."""
    for line in text.splitlines():
        if line.startswith(line_prefix):
            return {k: float(v) for k, v in re.findall(r"(\w+)=([\d.]+)", line)}
    raise SystemExit(f"no '{line_prefix}' line in:\n{text[-2000:]}")


def local(work):
    out = subprocess.run([SIDELINE, "encode", "--realtime", "--input", "testpattern", "--data-dir", f"{work}/local-{time.time_ns()}",
                          "--media-limit", str(SEGMENTS * DURATION)], capture_output=True, text=True)
    return samples("publish_latency_ms", out.stdout)


def pushed(work, throttled):
    stamp = time.time_ns()
    config = f"{work}/server-{stamp}.yaml"
    with open(config, "w") as f:
        f.write(f"streams:\n  - name: cam\n    ingest_token: {TOKEN}\n")
    port = free_port()
    log = open(f"{work}/server-{stamp}.log", "w")
    server = subprocess.Popen([SIDELINE, "serve", "--config", config, "--host", "127.0.0.1", "--port", str(port), "--data-dir", f"{work}/data-{stamp}"],
                              stdout=log, stderr=log, stdin=subprocess.DEVNULL)
    proxy = None
    try:
        deadline = time.time() + 60
        while "Open: " not in open(f"{work}/server-{stamp}.log").read():
            if time.time() > deadline or server.poll() is not None:
                raise SystemExit("the server did not start")
            time.sleep(0.1)
        target = port
        if throttled:
            proxy = subprocess.Popen(["python3", "Tests/Helpers/link_proxy.py", "--target", f"127.0.0.1:{port}", "--rate", "5000000", "--delay", "0.02"],
                                     stdout=subprocess.PIPE, text=True)
            target = int(proxy.stdout.readline().split()[1])
        push = subprocess.Popen([SIDELINE, "push", "--input", "testpattern", "--to", f"http://127.0.0.1:{target}/ingest/cam", "--token", TOKEN,
                                 "--queue-dir", f"{work}/queue-{stamp}", "--log-level", "warning"],
                                stdout=subprocess.PIPE, stderr=open(f"{work}/push-{stamp}.log", "w"), text=True)
        # Started on the next slot boundary, then SEGMENTS segments and the last one's upload.
        time.sleep(DURATION + SEGMENTS * DURATION + 1.5)
        push.send_signal(signal.SIGINT)
        out, _ = push.communicate(timeout=60)
        warnings = [line for line in open(f"{work}/push-{stamp}.log") if " warning " in line or " error " in line]
        if warnings:
            print(f"  push logged {len(warnings)} warnings ({work}/push-{stamp}.log), first: {warnings[0].strip()[:200]}")
        latency = samples("capture_to_listed_ms", out)
        upload = samples("segment_upload_ms", out)
        upload["best_p50"], upload["best_p99"] = (samples("capture_to_listed_best_rung_ms", out)[k] for k in ("p50", "p99"))
        return latency, upload
    finally:
        if proxy:
            proxy.kill()
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)


def main():
    with open("/proc/loadavg") as f:
        load_before = f.read().split()[:3]
    work = tempfile.mkdtemp(prefix="sideline-push-latency-")
    results = {"local": [], "loopback": [], "link": []}
    uploads = {"loopback": [], "link": []}
    for round_number in range(ROUNDS):
        order = [s for s in (["local", "loopback", "link"] if round_number % 2 == 0 else ["link", "loopback", "local"]) if s in SIDES]
        for side in order:
            if side == "local":
                figures = local(work)
            else:
                figures, upload = pushed(work, throttled=side == "link")
                uploads[side].append(upload)
            results[side].append(figures)
            extra = (f", segment upload p50 {upload['p50']:.0f} ms p99 {upload['p99']:.0f} ms; best rung alone p50 {upload['best_p50']:.0f} ms p99 {upload['best_p99']:.0f} ms"
                     if side != "local" else "")
            print(f"round {round_number + 1} {side:8s}: p50 {figures['p50']:.0f} ms, p99 {figures['p99']:.0f} ms, max {figures['max']:.0f} ms "
                  f"over {figures['samples']:.0f} segments{extra}", flush=True)
    with open("/proc/loadavg") as f:
        load_after = f.read().split()[:3]
    summary = {side: (statistics.median(r["p50"] for r in rounds), statistics.median(r["p99"] for r in rounds)) for side, rounds in results.items() if rounds}
    for side, (p50, p99) in summary.items():
        print(f"{side:8s}: median of rounds' p50 {p50:.0f} ms, p99 {p99:.0f} ms")
    if "loopback" in summary and "local" in summary:
        print(f"loopback - local at p99: {summary['loopback'][1] - summary['local'][1]:+.0f} ms (target: within 150 ms)")
    if uploads["link"]:
        link_upload = statistics.median(u["p99"] for u in uploads["link"])
        best = statistics.median(u["best_p99"] for u in uploads["link"])
        print(f"link p99 {summary['link'][1]:.0f} ms (best rung alone {best:.0f} ms) against one segment duration plus one segment's upload "
              f"(p99 {link_upload:.0f} ms): {DURATION * 1000 + link_upload:.0f} ms")
    print(f"load average before {' '.join(load_before)}, after {' '.join(load_after)}")


if __name__ == "__main__":
    main()
