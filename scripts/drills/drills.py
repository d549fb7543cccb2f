"""Runs each failure drill against a real `sideline serve` (release build) while six real
players play the stream, and prints, per cell, the seconds each played per wall second from
its first frame, and how many seconds it fell behind over the run (wall time since its first
frame minus what it played: a player that keeps 1x stays at the live edge it joined at).

Players: the ffmpeg CLI (-c copy; -progress out_time), VLC 3.0 (rc interface get_time),
GStreamer playbin and playbin3 (fakesink messages per video frame), streamlink (records the
stream; its file's duration afterwards), Chromium's native HLS (headless; the page logs
video.currentTime). Called by scripts/drills/drills.sh, which installs them.

EDGE=varnish or EDGE=nginx puts an edge cache between the players and the server (the shipped
rules: scripts/edge with Config/varnish, or nginx with Config/nginx's files in nginx.conf's
shape), started once per run and kept up across the restart drill; unset, they play the
origin. SIDELINE: the binary (default .build/release/sideline).
"""
import json, os, re, shutil, signal, socket, subprocess, sys, tempfile, time, urllib.request

PLAY_FOR = 60.0
DRILL_AT = 15.0
TOKEN = "drills-admin-0123456789"
BIN = os.environ.get("SIDELINE", ".build/release/sideline")
EDGE = os.environ.get("EDGE", "")
SAMPLE = "Samples/sample.mp4"

DRILLS = {
    "cut": "/admin/streams/main/cut?seconds=20",
    "fail": "/admin/streams/main/variants/360p/fail?seconds=20",
    "stall": "/admin/streams/main/stall?seconds=12",
    "restart": None,  # kill -9, and a new process 1 s later
}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def config(udp, policies):
    extra = "".join(f"  {k}: {v}\n" for k, v in policies.items())
    return (f"admin:\n  token: {TOKEN}\n  drills: true\nstream:\n  input: udp://127.0.0.1:{udp}\n  input_timeout: 8\n  loss_timeout: 1\n{extra}"
            "video:\n  ladder:\n"
            "    - {name: 360p, width: 640, height: 360, bitrate: 600k, preset: ultrafast, profile: main}\n"
            "    - {name: 180p, width: 320, height: 180, bitrate: 250k, preset: ultrafast, profile: main}\n"
            + ("server: {trusted_proxies: [127.0.0.1]}\n" if EDGE else ""))


def nginx_config(directory, listen, origin):
    # Config/nginx/nginx.conf's shape, its paths in `directory` (EdgeCacheEndToEndTests.nginxConfig).
    for file in ["sideline-edge.conf", "sideline-edge-cache.conf"]:
        shutil.copy(f"Config/nginx/{file}", directory)
    return f"""worker_processes 1;
user root;
daemon off;
pid {directory}/nginx.pid;
error_log {directory}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    sendfile on;
    tcp_nopush on;
    keepalive_timeout 65;
    log_format edge '$request_uri $status $upstream_cache_status $upstream_addr';
    access_log {directory}/access.log edge;
    client_body_temp_path {directory}/tmp;
    proxy_temp_path {directory}/tmp;
    fastcgi_temp_path {directory}/tmp;
    uwsgi_temp_path {directory}/tmp;
    scgi_temp_path {directory}/tmp;
    proxy_cache_path {directory}/cache levels=1:2 keys_zone=sideline_edge:32m max_size=256m inactive=1h use_temp_path=off;
    upstream sideline_origin {{
        server 127.0.0.1:{origin} max_fails=1 fail_timeout=3s;
        keepalive 64;
    }}
    map $http_accept_encoding $sideline_encoding {{ ~*gzip gzip; default ""; }}
    server {{
        listen 127.0.0.1:{listen};
        include {directory}/sideline-edge.conf;
    }}
}}
"""


def start_edge(work, origin):
    """The edge (EDGE) in front of the server on `origin`, on a free port: its process and port."""
    directory, listen = f"{work}/edge", free_port()
    os.makedirs(f"{directory}/tmp")
    os.chmod(directory, 0o755)  # varnishd's own user reads the rules here
    if EDGE == "varnish":
        args = ["scripts/edge", "--origin", f"127.0.0.1:{origin}", "--listen", f"127.0.0.1:{listen}", "--workdir", directory, "--storage", "256M"]
    else:
        open(f"{directory}/nginx.conf", "w").write(nginx_config(directory, listen, origin))
        args = ["nginx", "-c", f"{directory}/nginx.conf", "-p", directory]
    return spawn(args, f"{work}/edge.log"), listen


def spawn(args, log):
    return subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=open(log, "wb"), stderr=subprocess.STDOUT, start_new_session=True)


def stop(process):
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def stop_edge(process):
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            stop(process)


def segments(url):
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return r.read().decode().count("#EXTINF")
    except Exception:
        return 0


class Player:
    def __init__(self, name, work):
        self.name, self.work, self.samples = name, work, []
        self.log = f"{work}/{name}.log"

    def sample(self):
        try:
            self.samples.append((time.monotonic(), self.played()))
        except Exception:
            self.samples.append((time.monotonic(), self.samples[-1][1] if self.samples else 0.0))

    def result(self):
        started = next(((w, p) for w, p in self.samples if p > 0), None)
        if not started:
            return None, None
        wall = self.samples[-1][0] - started[0]
        played = self.samples[-1][1] - started[1]
        return played / wall if wall > 0 else None, wall - played

    def text(self):
        try:
            return open(self.log, errors="replace").read()
        except OSError:
            return ""


class FFmpeg(Player):
    def start(self, master):
        self.progress = f"{self.work}/ffmpeg.progress"
        self.process = spawn(["ffmpeg", "-hide_banner", "-v", "error", "-progress", self.progress, "-i", master, "-map", "0:v:0", "-map", "0:a:0?",
                              "-c", "copy", "-t", "600", "-f", "null", "-"], self.log)

    def played(self):
        values = re.findall(r"out_time_us=(\d+)", open(self.progress).read())
        return int(values[-1]) / 1e6 if values else 0.0


class GStreamer(Player):
    def start(self, master):
        self.process = spawn(["gst-launch-1.0", "-v", self.name, f"uri={master}", "video-sink=fakesink name=vsink sync=true silent=false",
                              "audio-sink=fakesink sync=true"], self.log)

    def played(self):
        return self.text().count("(vsink:sink)") / 30.0


class VLC(Player):
    def start(self, master):
        self.port = free_port()
        # VLC refuses to run as root: run it as nobody, with a home of its own.
        home = f"{self.work}/vlc-home"
        os.makedirs(home, exist_ok=True)
        os.chmod(home, 0o777)
        prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "env", f"HOME={home}"] if os.geteuid() == 0 else []
        self.process = spawn(prefix + ["cvlc", "--no-video-title-show", "--vout", "dummy", "--aout", "dummy", "--extraintf", "rc", "--rc-host", f"127.0.0.1:{self.port}",
                              master], self.log)

    def played(self):
        with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
            s.sendall(b"get_time\n")
            time.sleep(0.1)
            numbers = re.findall(rb"^\s*>?\s*(\d+)\s*$", s.recv(4096), re.M)
            return float(numbers[-1]) if numbers else 0.0


class Streamlink(Player):
    def start(self, master):
        self.recording = f"{self.work}/streamlink.ts"
        self.process = spawn(["streamlink", "--hls-live-edge", "3", "-o", self.recording, f"hls://{master}", "best"], self.log)

    def played(self):
        # A downloader: what it has recorded so far, by the file's duration.
        out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", self.recording], capture_output=True, text=True).stdout
        return float(out.strip() or 0)


class Chromium(Player):
    def start(self, master):
        page = f"{self.work}/player.html"
        open(page, "w").write(f"""<!doctype html><video id=v src="{master}" muted autoplay playsinline></video><script>
const v = document.getElementById('v');
setInterval(() => console.log('played=' + v.currentTime + ' error=' + (v.error ? v.error.code : 0) + ' paused=' + v.paused), 500);
</script>""")
        self.process = spawn(["chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--autoplay-policy=no-user-gesture-required",
                              f"--user-data-dir={self.work}/chromium", "--enable-logging=stderr", "--v=0", f"file://{page}"], self.log)

    def played(self):
        values = re.findall(r"played=([0-9.]+)", self.text())
        return float(values[-1]) if values else 0.0


def run(drill, policies):
    work = tempfile.mkdtemp(prefix=f"sideline-drill-{drill}-")
    os.chmod(work, 0o755)  # VLC runs as nobody (below) and keeps its home here
    udp, port = free_port(), free_port()
    open(f"{work}/drill.yaml", "w").write(config(udp, policies))
    sender = spawn(["ffmpeg", "-v", "error", "-re", "-stream_loop", "-1", "-i", SAMPLE, "-c", "copy", "-f", "mpegts", f"udp://127.0.0.1:{udp}?pkt_size=1316"], f"{work}/sender.log")
    serve = [BIN, "serve", "--config", f"{work}/drill.yaml", "--host", "127.0.0.1", "--port", str(port), "--data-dir", f"{work}/data", "--log-level", "warning"]
    server = spawn(serve, f"{work}/server.log")
    edge, listen = start_edge(work, port) if EDGE else (None, port)
    base = f"http://127.0.0.1:{listen}/live/main"  # what the players play: the edge, or the origin
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and segments(f"{base}/360p/index.m3u8") < 4:
        time.sleep(0.2)
    if edge and edge.poll() is not None:
        print(f"# {drill}: the edge exited ({edge.returncode}) before the players started; see {work}/edge.log", file=sys.stderr)
    players = [FFmpeg("ffmpeg", work), VLC("vlc", work), GStreamer("playbin", work), GStreamer("playbin3", work), Streamlink("streamlink", work), Chromium("chromium", work)]
    for player in players:
        player.start(f"{base}/master.m3u8")
    started, drilled = time.monotonic(), False
    try:
        while time.monotonic() - started < PLAY_FOR:
            for player in players:
                player.sample()
            if not drilled and time.monotonic() - started >= DRILL_AT:
                drilled = True
                if DRILLS[drill]:
                    request = urllib.request.Request(f"http://127.0.0.1:{port}{DRILLS[drill]}", method="POST", headers={"Authorization": f"Bearer {TOKEN}"})
                    urllib.request.urlopen(request, timeout=5).read()
                else:
                    os.killpg(server.pid, signal.SIGKILL)
                    server.wait()
                    time.sleep(1)
                    server = spawn(serve, f"{work}/server2.log")
            time.sleep(0.5)
        for player in players:
            player.sample()
    finally:
        for process in [p.process for p in players] + [server, sender]:
            stop(process)
        if edge:
            stop_edge(edge)
    cells = {}
    for player in players:
        ratio, behind = player.result()
        cells[player.name] = {"ratio": ratio, "behind": behind, "running_at_end": player.process.returncode in (None, -9)}
    return cells, work


def main():
    if EDGE not in ("", "varnish", "nginx"):
        sys.exit(f"EDGE={EDGE}: give varnish, nginx, or nothing (the players play the origin)")
    chosen = os.environ.get("DRILLS", "").split() or list(DRILLS)
    runs = [(d, {}) for d in chosen]
    if not os.environ.get("DRILLS"):
        runs += [("fail", {"on_variant_failure": "standin"}), ("fail", {"on_variant_failure": "gap"}), ("stall", {"on_late_segment": "stale"})]
    load = open("/proc/loadavg").read().split()[:3]
    print(f"# load average before: {' '.join(load)}; {PLAY_FOR:.0f} s per run, drill at {DRILL_AT:.0f} s; cell = played s per wall s / s fallen behind")
    print(f"# players play: {'the origin directly' if not EDGE else 'scripts/edge (Varnish, Config/varnish)' if EDGE == 'varnish' else 'nginx (Config/nginx)'}; server {BIN}")
    names = ["ffmpeg", "vlc", "playbin", "playbin3", "streamlink", "chromium"]
    print("| drill | policy | " + " | ".join(names) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in names) + " |")
    for drill, policies in runs:
        cells, work = run(drill, policies)
        policy = ", ".join(f"{k}: {v}" for k, v in policies.items()) or "defaults"
        row = []
        for name in names:
            c = cells[name]
            if c["ratio"] is None:
                row.append("never played")
            else:
                row.append(f"{c['ratio']:.2f} / {c['behind']:.1f}" + ("" if c["running_at_end"] else " (exited)"))
        print(f"| {drill} | {policy} | " + " | ".join(row) + " |", flush=True)
        json.dump(cells, open(f"{work}/cells.json", "w"))
    print(f"# load average after: {' '.join(open('/proc/loadavg').read().split()[:3])}")


if __name__ == "__main__":
    main()
