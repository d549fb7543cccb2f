#!/usr/bin/env python3
"""Server CPU per part request (issue 34; Docs/benchmarks.md, "Issue 34"): a release
`sideline serve` with one light camera rung (the test pattern, 180p ultrafast, 0.2 s parts)
against nginx serving the same parts' bytes as files from disk (sendfile). Not a test.

The parts asked for are those of listed segments (Sideline answers them as ranges of the
segment's file, through its segment cache); one request at a time on one kept-alive
connection, cycling through them, N requests per round, ROUNDS rounds alternating the two
servers. Sideline also encodes while it serves, so each of its rounds is preceded by an idle
interval as long as the round, and the CPU it spent idle is taken off: what is left is the
serving. Medians of the rounds, and their ratio, are printed with the load average.

    [N=3000] [ROUNDS=5] scripts/bench/lowlatency/part_cpu.py

Environment: SIDELINE (.build-release/release/sideline). Needs nginx. Everything started is
stopped by its PID.
"""
import http.client
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time
import sys
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "serving"))
from serve_benchmark import cpu_seconds  # noqa: E402
from ll_latency import free_port, nginx_wrapper, stop  # noqa: E402


def cpu(pid):
    return cpu_seconds([pid])

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SIDELINE = os.environ.get("SIDELINE", os.path.join(ROOT, ".build-release/release/sideline"))
N = int(os.environ.get("N", "3000"))
ROUNDS = int(os.environ.get("ROUNDS", "5"))
CONFIG = """video:
  ladder:
    - {name: 180p, width: 320, height: 180, bitrate: 200k, preset: ultrafast, profile: baseline}
stream: {name: main, input: testpattern}
part_duration: 0.2
"""


def run(port, paths):
    """N GETs on one kept-alive connection; returns the wall time."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    started = time.monotonic()
    for i in range(N):
        conn.request("GET", paths[i % len(paths)])
        response = conn.getresponse()
        response.read()
        if response.status != 200:
            raise SystemExit(f"{paths[i % len(paths)]} answered {response.status} on port {port}")
    conn.close()
    return time.monotonic() - started


def main():
    work = tempfile.mkdtemp(prefix="sideline-part-cpu-")
    started = []
    try:
        with open(f"{work}/sideline.yaml", "w") as f:
            f.write(CONFIG)
        port, nginx_port = free_port(), free_port()
        server = subprocess.Popen([SIDELINE, "serve", "--config", f"{work}/sideline.yaml", "--host", "127.0.0.1", "--port", str(port),
                                   "--data-dir", f"{work}/data", "--log-level", "warning"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        started.append(server)
        deadline = time.monotonic() + 60
        text = ""
        while time.monotonic() < deadline:
            try:
                text = urllib.request.urlopen(f"http://127.0.0.1:{port}/live/main/180p/index.m3u8", timeout=2).read().decode()
                if text.count("#EXTINF") >= 8:
                    break
            except Exception:
                pass
            time.sleep(0.5)
        # Parts of the listed entries (every one but the newest few), served from their files.
        listed = re.findall(r'#EXT-X-PART:[^\n]*URI="(parts/[^"]+)"[^\n]*\n(?=(?:#EXT-X-PART[^\n]*\n)*#EXTINF)', text)
        if len(listed) < 8:
            raise SystemExit(f"too few listed parts: {len(listed)}\n{text[-800:]}")
        os.makedirs(f"{work}/www/parts")
        paths = []
        for uri in listed:
            body = urllib.request.urlopen(f"http://127.0.0.1:{port}/live/main/180p/{uri}", timeout=5).read()
            with open(f"{work}/www/{uri}", "wb") as f:
                f.write(body)
            paths.append(f"/live/main/180p/{uri}")
        nginx_paths = ["/" + path.split("/180p/", 1)[1] for path in paths]
        with open(f"{work}/nginx.conf", "w") as f:
            f.write(nginx_wrapper(work, f"""    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    server {{ listen 127.0.0.1:{nginx_port}; root {work}/www; }}"""))
        nginx = subprocess.Popen(["nginx", "-c", f"{work}/nginx.conf", "-p", work], stderr=subprocess.DEVNULL)
        started.append(nginx)
        time.sleep(1)
        workers = [int(p) for p in subprocess.run(["pgrep", "-P", str(nginx.pid)], capture_output=True, text=True).stdout.split()]
        print(f"part_cpu: {len(paths)} listed parts (mean {sum(os.path.getsize(f'{work}/www/' + p.split('/180p/', 1)[1]) for p in paths) // len(paths)} bytes), "
              f"N={N}, ROUNDS={ROUNDS}; load average before {' '.join(open('/proc/loadavg').read().split()[:3])}")
        ours, theirs = [], []
        for _ in range(ROUNDS):
            # Sideline: idle for as long as the last round took, then the round; idle CPU off.
            idle_start = cpu(server.pid)
            time.sleep(2)
            idle_rate = (cpu(server.pid) - idle_start) / 2
            before = cpu(server.pid)
            wall = run(port, paths)
            ours.append(max(0.0, cpu(server.pid) - before - idle_rate * wall) / N * 1e6)
            before = sum(cpu(w) for w in workers)
            run(nginx_port, nginx_paths)
            theirs.append((sum(cpu(w) for w in workers) - before) / N * 1e6)
            print(f"  round: sideline {ours[-1]:.1f} us/request (idle {idle_rate * 100:.1f}% of a core taken off), nginx {theirs[-1]:.1f} us/request")
        print(f"median: sideline {statistics.median(ours):.1f} us, nginx {statistics.median(theirs):.1f} us per part request: "
              f"{statistics.median(ours) / max(statistics.median(theirs), 1e-9):.2f}x; load average after {' '.join(open('/proc/loadavg').read().split()[:3])}")
    finally:
        stop(started)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
