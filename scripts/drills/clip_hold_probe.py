"""Holds six unread 30 s clips (over TLS, or plain HTTP with PLAIN=1), shows the server's queued
bytes per held socket each second (ss -tni), then asks for a seventh clip and prints its
status: 503 while clips.max_in_progress (4) holds, 200 if a held clip gave its place back.
The experiment behind Docs/benchmarks.md, "Hostile venue" (the TLS clip finding).
    SIDELINE=<binary> python3 scripts/drills/clip_hold_probe.py"""
import os, sys, time, socket, ssl, subprocess
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile as h
v = h.Venue()
if os.environ.get("PLAIN"):
    base = v.config
    v.config = lambda: "\n".join(l for l in base().splitlines() if "tls:" not in l and "plain_port" not in l and "public_name" not in l) + "\n"
    v.context = None
    v.origin = h.Client(v.tls_port)
try:
    if os.environ.get("PLAIN"):
        open(f"{v.work}/sideline.yaml", "w").write(v.config())
        v.server = h.spawn([h.BIN, "serve", "--config", f"{v.work}/sideline.yaml", "--host", "127.0.0.1", "--port", str(v.tls_port), "--data-dir", v.data], f"{v.work}/server.log")
        v.processes.append(v.server)
        v.wait_for(lambda: v.origin.status("GET", "/live/open/360p/index.m3u8") == 200, 90, "the open stream")
    else:
        v.start()
    v.wait_for(lambda: v.origin.request("GET", "/vod/open/360p/index.m3u8")[2].count(b"#EXTINF") * 2 > h.MAX_CLIP + 4, 120, "recording")
    held = []
    for n in range(6):
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
        sock.bind((f"127.0.3.{n + 1}", 0))
        sock.connect(("127.0.0.1", v.tls_port))
        tls = v.context.wrap_socket(sock, server_hostname="127.0.0.1") if v.context else sock
        tls.sendall(f"GET /api/streams/open/clip.mp4?start=0&end={h.MAX_CLIP}&variant=360p HTTP/1.1\r\nHost: held{n}\r\n\r\n".encode())
        held.append(tls)
    for t in range(8):
        time.sleep(1)
        out = subprocess.run(["ss", "-tni", "state", "established", "( sport = :%d )" % v.tls_port], capture_output=True, text=True).stdout
        lines = [l for l in out.splitlines() if "127.0.3." in l]
        print(t, [l.split()[0:2] + [l.split()[-1]] for l in lines], flush=True)
    print(v.origin.request("GET", f"/api/streams/open/clip.mp4?start=0&end={h.MAX_CLIP}&variant=360p", timeout=60)[0])
finally:
    v.stop()
