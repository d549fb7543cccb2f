"""Kernel memory a download holds when its client stops acknowledging (not reading: a client
that drops its own ACKs, or a laptop that leaves the Wi-Fi mid-answer): what is sent and not
acknowledged stays in the server's retransmit queue, bounded by the send buffer alone
(`OriginHTTP1Channel.sendBufferCeiling`) until the user timeout drops the connection.

Run as root inside a network namespace of its own, since it stops all traffic on that
namespace's loopback (a pfifo qdisc of no packets; netem is not in every kernel):

  ip netns add sideline-acks && ip netns exec sideline-acks ip link set lo up
  ip netns exec sideline-acks python3 scripts/bench/serving/unacked_memory.py <sideline> [N]

N clients (default 50) each ask for the 1 MB segment 200 times, read for half a second (their
windows open), and then nothing on loopback gets through; 3 s later the server's sockets'
queued bytes (`ss -tm`, wmem_queued) and send buffers are printed. Needs BENCH_DIR/cpu-probe
(run cpu_per_request.py once first).
"""
import os, re, resource, socket, subprocess, sys, time

WORK = os.environ.get("BENCH_DIR", "/tmp/sideline-serve-bench")
SEGMENT = "/live/main/360p/000100.ts"


def serve(binary, port):
    return subprocess.Popen([binary, "serve", "--config", f"{WORK}/cpu-probe/config.yaml", "--data-dir", f"{WORK}/cpu-probe/data-this",
                             "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def wait_until_served(port, server):
    deadline = time.time() + 60
    while time.time() < deadline and server.poll() is None:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2) as probe:
                probe.sendall(f"GET {SEGMENT} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
                answer = b""
                while chunk := probe.recv(1 << 20):
                    answer += chunk
                if len(answer) > 900_000:
                    return
        except OSError:
            pass
        time.sleep(0.3)
    sys.exit(f"unacked_memory: the server did not serve {SEGMENT}")


def main():
    if len(sys.argv) not in (2, 3) or not os.path.isdir(f"{WORK}/cpu-probe/data-this"):
        sys.exit(__doc__)
    binary, count = sys.argv[1], int(sys.argv[2]) if len(sys.argv) == 3 else 50
    resource.setrlimit(resource.RLIMIT_NOFILE, (resource.getrlimit(resource.RLIMIT_NOFILE)[1],) * 2)
    port = 18777
    server = serve(binary, port)
    clients = []
    try:
        wait_until_served(port, server)
        request = f"GET {SEGMENT} HTTP/1.1\r\nHost: x\r\n\r\n".encode() * 200
        for _ in range(count):
            client = socket.create_connection(("127.0.0.1", port))
            client.sendall(request)
            client.setblocking(False)
            clients.append(client)
        stop = time.time() + 0.5
        while time.time() < stop:
            for client in clients:
                try:
                    client.recv(1 << 20)
                except BlockingIOError:
                    pass
        subprocess.run(["tc", "qdisc", "add", "dev", "lo", "root", "pfifo", "limit", "0"], check=True)
        time.sleep(3)
        listing = subprocess.run(["ss", "-tmnH", "state", "established", f"( sport = :{port} )"], capture_output=True, text=True).stdout
        queued = sorted(int(x) for x in re.findall(r"skmem:\(r\d+,rb\d+,t\d+,tb\d+,f\d+,w(\d+)", listing))
        buffers = sorted(int(x) for x in re.findall(r"skmem:\(r\d+,rb\d+,t\d+,tb(\d+)", listing))
        if not queued:
            sys.exit("unacked_memory: no server socket found")
        print(f"{binary}: {len(queued)} downloads whose client stopped acknowledging: queued KiB median {queued[len(queued) // 2] / 1024:.0f}, "
              f"max {queued[-1] / 1024:.0f}; send buffer KiB median {buffers[len(buffers) // 2] / 1024:.0f}, max {buffers[-1] / 1024:.0f}")
    finally:
        subprocess.run(["tc", "qdisc", "del", "dev", "lo", "root"], capture_output=True)
        for client in clients:
            client.close()
        server.terminate()
        server.wait(30)


main()
