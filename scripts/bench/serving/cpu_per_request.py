"""Server CPU per request, one request at a time on one kept-alive connection: a probe beside
serve_benchmark.py (which loads 50 connections with wrk), for taking a difference apart.

Both builds serve their own linked copy of serve_benchmark.py's recording as a pushed
stream (no encoder runs, so only serving is counted); the rounds alternate the two sides and
the medians are compared. CPU is read from /proc in clock ticks (10 ms): keep N * time per
request well above a second.

The client's own CPU per request is printed beside it: on loopback the kernel charges part of
a transfer to whichever side's call moves it, so a server that hands a large answer to the
kernel in one write leaves more of the sending to the client's reads (Docs/benchmarks.md,
"Issue 33: the bound on unsent bytes"). The two together are the transfer's whole cost.

  [N=6000] [ROUNDS=5] [PATHS=/live/main/master.m3u8,...] \
    python3 scripts/bench/serving/cpu_per_request.py <this sideline> <anchor sideline>

Needs BENCH_DIR/data (run scripts/bench/serving/serve_benchmark.py once first).
"""
import http.client, os, shutil, signal, socket, statistics, subprocess, sys, time

WORK = os.environ.get("BENCH_DIR", "/tmp/sideline-serve-bench")
PROBE = f"{WORK}/cpu-probe"
CONFIG = "server:\n  max_connections_per_client: 0\nstream:\n  name: main\n  ingest_token: cpu-probe-ingest-token-0123456789\n"
TICK = os.sysconf("SC_CLK_TCK")
N = int(os.environ.get("N", "6000"))
ROUNDS = int(os.environ.get("ROUNDS", "5"))
PATHS = os.environ.get("PATHS", "/live/main/master.m3u8,/live/main/360p/index.m3u8,/live/main/360p/000100.ts").split(",")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def copy_recording(source, target):
    """Playlists copied; every segment a hard link of one copy of the 1 MB segment per side
    (the recording's own links of it are at the file system's link limit, and the server
    refuses to serve a symbolic link)."""
    os.makedirs(target)
    segment = f"{target}.segment"
    shutil.copyfile(f"{WORK}/segment-1MB.ts", segment)
    for root, _, files in os.walk(source):
        here = os.path.join(target, os.path.relpath(root, source))
        os.makedirs(here, exist_ok=True)
        for name in files:
            if name.endswith(".ts"):
                os.link(segment, os.path.join(here, name))
            else:
                shutil.copy2(os.path.join(root, name), os.path.join(here, name))


def start(label, binary):
    data = f"{PROBE}/data-{label}"
    shutil.rmtree(data, ignore_errors=True)
    shutil.rmtree(f"{data}.segment", ignore_errors=True)
    copy_recording(f"{WORK}/data", data)
    open(f"{PROBE}/config.yaml", "w").write(CONFIG)
    port = free_port()
    server = subprocess.Popen([binary, "serve", "--config", f"{PROBE}/config.yaml", "--data-dir", data, "--host", "127.0.0.1", "--port", str(port),
                               "--log-level", "warning"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while True:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            # Ready once every path answers (the recording is restored after /healthz answers).
            for path in PATHS:
                connection.request("GET", path)
                response = connection.getresponse()
                response.read()
                if response.status != 200:
                    raise OSError(f"{path}: {response.status}")
            return server, connection
        except OSError:
            if time.time() > deadline or server.poll() is not None:
                sys.exit(f"cpu_per_request: {binary} did not start")
            time.sleep(0.2)


def fetch(connection, path, side):
    connection.request("GET", path, headers={"Accept-Encoding": "gzip"})
    response = connection.getresponse()
    response.read()
    if response.status != 200:
        sys.exit(f"cpu_per_request: {side} answered {response.status} to {path}")


def main():
    if len(sys.argv) != 3 or not os.path.isdir(f"{WORK}/data/main"):
        sys.exit(__doc__)
    os.makedirs(PROBE, exist_ok=True)
    sides = {"this": start("this", sys.argv[1]), "anchor": start("anchor", sys.argv[2])}
    try:
        results = {(side, path): [] for side in sides for path in PATHS}
        clients = {(side, path): [] for side in sides for path in PATHS}
        for path in PATHS:
            for side, (_, connection) in sides.items():
                for _ in range(300):
                    fetch(connection, path, side)
        load = open("/proc/loadavg").read().split()[:3]
        for round_index in range(ROUNDS):
            for path in PATHS:
                order = list(sides.items())
                for side, (server, connection) in (order if round_index % 2 == 0 else reversed(order)):
                    before, mine = cpu(server.pid), os.times()
                    for _ in range(N):
                        fetch(connection, path, side)
                    results[(side, path)].append((cpu(server.pid) - before) / N * 1e6)
                    now = os.times()
                    clients[(side, path)].append((now.user + now.system - mine.user - mine.system) / N * 1e6)
        for path in PATHS:
            this, anchor = statistics.median(results[("this", path)]), statistics.median(results[("anchor", path)])
            client = {side: statistics.median(clients[(side, path)]) for side in sides}
            print(f"{path:40} this {this:6.1f} us/req  anchor {anchor:6.1f}  ratio {this / anchor:.3f}x   rounds "
                  f"{' '.join(f'{x:.0f}' for x in results[('this', path)])} / {' '.join(f'{x:.0f}' for x in results[('anchor', path)])}"
                  f"   client this {client['this']:.1f} anchor {client['anchor']:.1f}")
        print(f"N={N} ROUNDS={ROUNDS}; load average before {' '.join(load)}, after {' '.join(open('/proc/loadavg').read().split()[:3])}")
    finally:
        for server, _ in sides.values():
            server.send_signal(signal.SIGTERM)
            server.wait(30)


main()
