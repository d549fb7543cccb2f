"""Kernel memory held by downloads that stop reading: this build against an anchor build, in
the same run. Each side serves cpu_per_request.py's copy of the recording; N clients (default
300, from distinct loopback addresses) each ask for the 1 MB segment thirty times and read
nothing; after 3 s the machine's TCP memory (/proc/net/sockstat, pages) is read and the
growth per stalled connection printed, both ends of each connection included (the clients'
receive buffers are on this machine too). Sides alternate over ROUNDS (default 3); medians.

  [N=300] [ROUNDS=3] python3 scripts/bench/serving/unsent_memory.py <this sideline> <anchor sideline>

What it shows: the bound on what a client that stops reading makes the server keep
(OriginHTTP1Channel.unsentBytes); 1cafd67 had none. Needs BENCH_DIR/cpu-probe (run
cpu_per_request.py once first). Machine-wide memory: run it on a quiet machine.
"""
import os, resource, signal, socket, statistics, subprocess, sys, time

import probe_server

PROBE = probe_server.PROBE
N = int(os.environ.get("N", "300"))
ROUNDS = int(os.environ.get("ROUNDS", "3"))
SEGMENT = probe_server.SEGMENT


def tcp_pages():
    for line in open("/proc/net/sockstat"):
        if line.startswith("TCP:"):
            fields = line.split()
            return int(fields[fields.index("mem") + 1])
    sys.exit("unsent_memory: no TCP line in /proc/net/sockstat")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def measure(binary, data):
    port = free_port()
    server = probe_server.start(binary, data, port, "unsent_memory")
    held = []
    try:
        time.sleep(0.5)
        before = tcp_pages()
        request = f"GET {SEGMENT} HTTP/1.1\r\nHost: x\r\n\r\n".encode() * 30
        for i in range(N):
            client = socket.socket()
            client.bind((f"127.0.{1 + i // 200}.{2 + i % 200}", 0))
            client.connect(("127.0.0.1", port))
            client.sendall(request)
            held.append(client)
        time.sleep(3)
        return (tcp_pages() - before) * 4096 / N / 1024
    finally:
        for client in held:
            client.close()
        server.send_signal(signal.SIGTERM)
        server.wait(30)


def main():
    if len(sys.argv) != 3 or not os.path.isdir(f"{PROBE}/data-this"):
        sys.exit(__doc__)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    sides = {"this": (sys.argv[1], f"{PROBE}/data-this"), "anchor": (sys.argv[2], f"{PROBE}/data-anchor")}
    results = {side: [] for side in sides}
    load = open("/proc/loadavg").read().split()[:3]
    for round_index in range(ROUNDS):
        order = list(sides.items())
        for side, (binary, data) in (order if round_index % 2 == 0 else reversed(order)):
            results[side].append(measure(binary, data))
    this, anchor = statistics.median(results["this"]), statistics.median(results["anchor"])
    print(f"{N} stalled downloads of the 1 MB segment: this {this:,.0f} KiB per connection, anchor {anchor:,.0f}, ratio {this / anchor:.3f}x   rounds "
          f"{' '.join(f'{x:.0f}' for x in results['this'])} / {' '.join(f'{x:.0f}' for x in results['anchor'])}")
    print(f"ROUNDS={ROUNDS}; load average before {' '.join(load)}, after {' '.join(open('/proc/loadavg').read().split()[:3])}")


main()
