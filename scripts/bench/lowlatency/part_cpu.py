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

Then the held playlist request (a low-latency player's blocking reload): CLIENTS threads each
ask for the media playlist with `_HLS_msn`/`_HLS_part` of the part after the last one it saw,
so every request is held until that part is made and then answered, for HELD_SECONDS; the
idle CPU of an equally long window just before is taken off, and what is left is divided by
the answers. nginx cannot hold a request: its anchor is the same playlist's bytes (the last
answer, as a file) served from disk, N requests one at a time. The Sideline figure includes
the hold (a waiter per request, woken once), rendering each new version once for all of
them, and the write.

    [N=3000] [ROUNDS=5] [CLIENTS=100] [HELD_SECONDS=10] scripts/bench/lowlatency/part_cpu.py

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
import threading
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
CLIENTS = int(os.environ.get("CLIENTS", "100"))
HELD_SECONDS = float(os.environ.get("HELD_SECONDS", "10"))
# 100 players from one address: above the per-client connection limit a venue keeps (64), which
# stands for 100 players on as many addresses here.
CONFIG = """server: {max_connections_per_client: 1000}
video:
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


def next_part(text):
    """(msn, part) of the part after the newest listed in a playlist's text: the blocking
    reload a low-latency player sends next."""
    sequence = int(re.search(r"#EXT-X-MEDIA-SEQUENCE:(\d+)", text).group(1))
    entries = text.count("#EXTINF")
    trailing = text[text.rfind("#EXTINF"):] if entries else text
    open_parts = trailing.count("#EXT-X-PART:")
    return sequence + entries, open_parts


def held(port, seconds):
    """CLIENTS players reloading with _HLS_msn/_HLS_part for `seconds`; returns the answers
    and the last playlist text."""
    answers, last, failures, stop_at = [0], [""], [], time.monotonic() + seconds
    lock = threading.Lock()

    def player():
        try:
            reload()
        except Exception as error:  # counted and reported: a round with a failed player is no figure
            with lock:
                failures.append(repr(error))

    def reload():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
        conn.request("GET", "/live/main/180p/index.m3u8")
        text = conn.getresponse().read().decode()
        while time.monotonic() < stop_at:
            msn, part = next_part(text)
            conn.request("GET", f"/live/main/180p/index.m3u8?_HLS_msn={msn}&_HLS_part={part}")
            response = conn.getresponse()
            text = response.read().decode()
            if response.status != 200:
                raise SystemExit(f"a held reload answered {response.status}")
            with lock:
                answers[0] += 1
                last[0] = text
        conn.close()

    threads = [threading.Thread(target=player, daemon=True) for _ in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(seconds + 20)
    if failures:
        raise SystemExit(f"{len(failures)} of {CLIENTS} held players failed, e.g. {failures[0]}")
    return answers[0], last[0]


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

        # Held playlist requests, against nginx serving the playlist's bytes from disk.
        _, text = held(port, 2)
        with open(f"{work}/www/index.m3u8", "w") as f:
            f.write(text)
        print(f"held playlist requests: CLIENTS={CLIENTS}, HELD_SECONDS={HELD_SECONDS:g}, playlist {len(text)} bytes")
        ours, theirs = [], []
        for _ in range(ROUNDS):
            idle_start = cpu(server.pid)
            time.sleep(HELD_SECONDS)
            idle_rate = (cpu(server.pid) - idle_start) / HELD_SECONDS
            before, wall_start = cpu(server.pid), time.monotonic()
            answers, _ = held(port, HELD_SECONDS)
            wall = time.monotonic() - wall_start
            ours.append(max(0.0, cpu(server.pid) - before - idle_rate * wall) / max(answers, 1) * 1e6)
            before = sum(cpu(w) for w in workers)
            run(nginx_port, ["/index.m3u8"])
            theirs.append((sum(cpu(w) for w in workers) - before) / N * 1e6)
            print(f"  round: sideline {ours[-1]:.1f} us per held request ({answers} answered in {wall:.1f} s, idle {idle_rate * 100:.1f}% of a core taken off), "
                  f"nginx {theirs[-1]:.1f} us/request")
        print(f"median: sideline {statistics.median(ours):.1f} us per held playlist request, nginx {statistics.median(theirs):.1f} us per request of its bytes: "
              f"{statistics.median(ours) / max(statistics.median(theirs), 1e-9):.2f}x; load average after {' '.join(open('/proc/loadavg').read().split()[:3])}")
    finally:
        stop(started)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
