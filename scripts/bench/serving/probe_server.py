"""The server the memory probes measure (unsent_memory.py, unacked_memory.py): a build serving
cpu_per_request.py's copy of the recording (BENCH_DIR/cpu-probe) as a pushed stream, started
on a port and waited for until it answers the 1 MB segment whole (so it is in the cache)."""
import os, socket, subprocess, sys, time

WORK = os.environ.get("BENCH_DIR", "/tmp/sideline-serve-bench")
PROBE = f"{WORK}/cpu-probe"
SEGMENT = "/live/main/360p/000100.ts"


def start(binary, data, port, name):
    """The server, once it has served SEGMENT whole; exits with `name`'s message if it does not."""
    server = subprocess.Popen([binary, "serve", "--config", f"{PROBE}/config.yaml", "--data-dir", data, "--host", "127.0.0.1", "--port", str(port),
                               "--log-level", "warning"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as probe:
                probe.sendall(f"GET {SEGMENT} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
                answer = b""
                while chunk := probe.recv(1 << 20):
                    answer += chunk
                if answer.startswith(b"HTTP/1.1 200") and len(answer) > 900_000:
                    return server
        except OSError:
            pass
        if time.time() > deadline or server.poll() is not None:
            server.kill()
            sys.exit(f"{name}: {binary} did not serve {SEGMENT}")
        time.sleep(0.3)
