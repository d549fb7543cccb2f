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

import probe_server

PROBE = probe_server.PROBE
SEGMENT = probe_server.SEGMENT


def main():
    if len(sys.argv) not in (2, 3) or not os.path.isdir(f"{PROBE}/data-this"):
        sys.exit(__doc__)
    binary, count = sys.argv[1], int(sys.argv[2]) if len(sys.argv) == 3 else 50
    resource.setrlimit(resource.RLIMIT_NOFILE, (resource.getrlimit(resource.RLIMIT_NOFILE)[1],) * 2)
    port = 18777
    server = probe_server.start(binary, f"{PROBE}/data-this", port, "unacked_memory")
    clients = []
    try:
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
