#!/usr/bin/env python3
"""Does a stalled camera's playlist ever answer 404 before its first stand-in?

    scripts/drills/stale-probe.py [PORT] [ROUNDS]      (default 18431, 5 rounds)

Serves the sample over UDP with the debug build (`swift build` first) on 127.0.0.1:PORT,
with admin drills on, and stalls the input thread for 12 s ROUNDS times. Through each stall
and 8 s after, it reloads both media playlists every 50 ms and prints every answer that is not
200, then per round the count and the longest time without a new entry. The figures of
Docs/status-codes.md, "The grace". Stops what it started.
"""
import os, signal, subprocess, sys, tempfile, time, urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from probe_server import start, get as fetch  # noqa: E402

port = int(sys.argv[1]) if len(sys.argv) > 1 else 18431
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
token = "stale-probe-0123456789"
work = tempfile.mkdtemp(prefix="stale-probe-")
sender, server = start(work, port, 34567, token)
base = f"http://127.0.0.1:{port}/live/main/"


def get(path):
    return fetch(base + path)


try:
    started = time.time()
    while time.time() - started < 60:
        status, body = get("180p/index.m3u8")
        if status == 200 and body.count(b"#EXTINF") >= 4:
            break
        time.sleep(0.3)
    for round in range(rounds):
        stall = urllib.request.Request(f"http://127.0.0.1:{port}/admin/streams/main/stall?seconds=12", method="POST",
                                       headers={"Authorization": f"Bearer {token}"})
        urllib.request.urlopen(stall).close()
        start = time.time()
        last, refused, reloads, longest = {}, 0, 0, 0.0
        while time.time() - start < 20:
            for variant in ("180p", "360p"):
                status, body = get(variant + "/index.m3u8")
                reloads += 1
                now = time.time()
                if status != 200:
                    refused += 1
                    print(f"  {now - start:6.2f} s after the stall: {variant} answered {status}", flush=True)
                    continue
                entries = body.count(b"#EXTINF")
                if variant not in last or last[variant][0] != entries:
                    last[variant] = (entries, now)
                longest = max(longest, now - last[variant][1])
            time.sleep(0.05)
        print(f"round {round}: {refused} non-200 of {reloads}; longest without a new entry {longest:.2f} s", flush=True)
        time.sleep(6)
finally:
    server.send_signal(signal.SIGTERM)
    sender.kill()
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()
