#!/usr/bin/env python3
"""Uploads in a row to Sideline's ingest against the same uploads to nginx's WebDAV PUT
(Docs/benchmarks.md, "Ingest uploads"). Run by scripts/bench/run ingest-uploads, which builds
Sideline (release) and makes the segments.

Each upload is what ffmpeg's HLS muxer sends per segment over one kept-alive connection: the
segment (PUT), then the media playlist listing it (PUT, a sliding window of five entries).
Sideline checks the segment, keeps it, and on the playlist lists it (restamp, record, render);
nginx writes each body to a temporary file and renames it. The two servers take blocks of
BLOCK uploads in turn until each has had UPLOADS. Printed per server: segment upload time
(request sent to answer read) median, p99, max and max/median, playlist upload median, the
server's CPU per segment+playlist pair, and the ratio of the medians, Sideline over nginx.
"""
import http.client
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

SIDELINE = os.environ.get("SIDELINE", ".build/release/sideline")
SEGMENTS = sys.argv[1]
UPLOADS = int(os.environ.get("UPLOADS", "1000"))
BLOCK = int(os.environ.get("BLOCK", "100"))
TOKEN = "bench-ingest-token-0123456789"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    """The process's CPU and its children's (nginx's worker is the master's child)."""
    total = 0.0
    children = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    for one in [str(pid)] + children:
        with open(f"/proc/{one}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def wait_for(port, path, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            c.request("GET", path)
            c.getresponse().read()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"nothing answered on port {port} within {timeout} s")


def start_sideline(work):
    port = free_port()
    config = f"""video:
  ladder:
    - {{name: 720p, width: 1280, height: 720, bitrate: 3000k}}
streams:
  - name: bench
    ingest_token: {TOKEN}
"""
    with open(f"{work}/sideline.yaml", "w") as f:
        f.write(config)
    log = open(f"{work}/sideline.log", "w")
    process = subprocess.Popen([SIDELINE, "serve", "--config", f"{work}/sideline.yaml", "--host", "127.0.0.1", "--port", str(port),
                                "--data-dir", f"{work}/sideline-data"], stdout=log, stderr=log, stdin=subprocess.DEVNULL)
    wait_for(port, "/healthz")
    return process, port, "/ingest/bench/720p"


def start_nginx(work):
    port = free_port()
    os.makedirs(f"{work}/nginx-data/720p", exist_ok=True)
    os.makedirs(f"{work}/nginx-temp", exist_ok=True)
    # The worker writes where this script (root, or the user who runs it) made the directories.
    user = "user root;" if os.geteuid() == 0 else ""
    config = f"""{user}
worker_processes 1;
daemon off;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log;
events {{ worker_connections 64; }}
http {{
  access_log off;
  client_body_temp_path {work}/nginx-temp;
  client_max_body_size 64m;
  server {{
    listen 127.0.0.1:{port};
    root {work}/nginx-data;
    location / {{ dav_methods PUT; create_full_put_path on; }}
  }}
}}
"""
    with open(f"{work}/nginx.conf", "w") as f:
        f.write(config)
    process = subprocess.Popen(["nginx", "-c", f"{work}/nginx.conf"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for(port, "/")
    return process, port, "/720p"


def playlist(sequence, durations):
    first = max(0, sequence - 4)
    lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:2", f"#EXT-X-MEDIA-SEQUENCE:{first}"]
    for s in range(first, sequence + 1):
        lines += [f"#EXTINF:{durations[s % len(durations)]:.6f},", f"seg{s}.ts"]
    return ("\n".join(lines) + "\n").encode()


def put(connection, path, body, headers):
    started = time.perf_counter()
    connection.request("PUT", path, body=body, headers=headers)
    response = connection.getresponse()
    response.read()
    elapsed = time.perf_counter() - started
    if response.status not in (200, 201, 204):
        raise SystemExit(f"PUT {path} answered {response.status}")
    return elapsed


def main():
    names = sorted((n for n in os.listdir(SEGMENTS) if n.startswith("seg") and n.endswith(".ts")), key=lambda n: int(n[3:-3]))
    segments = [open(os.path.join(SEGMENTS, name), "rb").read() for name in names]
    durations = [2.0] * len(segments)
    with open("/proc/loadavg") as f:
        load_before = f.read().split()[:3]
    work = tempfile.mkdtemp(prefix="sideline-ingest-bench-")
    servers = {}
    for name, start in (("sideline", start_sideline), ("nginx", start_nginx)):
        process, port, base = start(work)
        servers[name] = {"process": process, "port": port, "base": base, "segment": [], "playlist": [], "cpu": 0.0, "next": 0,
                         "connection": http.client.HTTPConnection("127.0.0.1", port, timeout=30)}
    headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/octet-stream"}
    try:
        while any(s["next"] < UPLOADS for s in servers.values()):
            for name, server in servers.items():
                if server["next"] >= UPLOADS:
                    continue
                cpu0 = cpu_seconds(server["process"].pid)
                for _ in range(min(BLOCK, UPLOADS - server["next"])):
                    i = server["next"]
                    body = segments[i % len(segments)]
                    server["segment"].append(put(server["connection"], f"{server['base']}/seg{i}.ts", body, headers))
                    server["playlist"].append(put(server["connection"], f"{server['base']}/index.m3u8", playlist(i, durations), headers))
                    server["next"] += 1
                server["cpu"] += cpu_seconds(server["process"].pid) - cpu0
    finally:
        for server in servers.values():
            server["process"].send_signal(signal.SIGTERM)
            server["process"].wait(timeout=30)
    with open("/proc/loadavg") as f:
        load_after = f.read().split()[:3]
    size = statistics.mean(len(s) for s in segments)
    print(f"{UPLOADS} segment uploads (mean {size / 1000:.0f} kB) and {UPLOADS} playlist uploads per server, blocks of {BLOCK} alternating; "
          f"load average before {' '.join(load_before)}, after {' '.join(load_after)}")
    medians = {}
    for name, server in servers.items():
        times = sorted(server["segment"])
        median = statistics.median(times)
        medians[name] = median
        p99 = times[int(len(times) * 0.99) - 1]
        print(f"{name:9s} segment upload median {median * 1000:.2f} ms, p99 {p99 * 1000:.2f} ms, max {times[-1] * 1000:.2f} ms "
              f"(max/median {times[-1] / median:.1f}); playlist upload median {statistics.median(server['playlist']) * 1000:.2f} ms; "
              f"server CPU {server['cpu'] / UPLOADS * 1000:.2f} ms per segment+playlist")
    print(f"ratio of segment upload medians, sideline/nginx: {medians['sideline'] / medians['nginx']:.2f}x")
    listed = subprocess.run(["grep", "-c", "^seg\\|^0", f"{work}/sideline-data/bench/720p/index.m3u8"], capture_output=True, text=True).stdout.strip()
    print(f"entries in Sideline's recorded playlist: {listed}")


if __name__ == "__main__":
    main()
