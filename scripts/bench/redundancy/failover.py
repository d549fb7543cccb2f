#!/usr/bin/env python3
"""Failover in real players (issue 35, items 4 and 6; Docs/benchmarks.md, "Issue 35: failover").
Not a test: it prints, per player, what a kill -9 of the primary box did to it.

Two release `sideline serve` boxes on 127.0.0.1, a redundant pair (`redundancy`: A primary, B
standby), each running the test pattern on its own with one light rung (360p ultrafast, so both
fit on 2 cores) and the default part duration; the shipped nginx edge in front of both (A, and
B as `backup`, as Config/nginx/nginx.conf shows). For each player, KILLS times: A is started
(if it is not running) and left up until B's steering manifest ranks it first; the player
plays A's master (directly, or the edge's) for WARMUP seconds; A is killed with SIGKILL; the
player plays AFTER seconds more; it is stopped, and A started again for the next round.

Each frame the player shows is read: its wall-clock moment and the capture time the test
pattern painted into it (ffmpeg and GStreamer: every decoded frame; hls.js: every frame the
video presents, requestVideoFrameCallback; Chromium's native HLS: a frame every 100 ms). Per
kill, from 1 s before it on:

  continued  a frame shown AFTER/2 seconds after the kill, its moment later than the one shown
             at the kill
  stall      the longest wait between two frames shown, less one frame (seconds)
  lost       frames missing between two shown (their moments more than 1.5 frames apart)
  repeated   frames shown again (the same moment, or an earlier one)

Chromium's native rows sample every 100 ms: their lost/repeated counts are not per frame and
are left out. VLC's rows (vlc, vlc-edge): VLC runs as `nobody` (it refuses root), decoding to
dummy outputs, and its remote-control interface is asked for the playing time (`get_time`,
whole seconds) every 0.25 s: "continued" means the time went on advancing for AFTER - 4 s after
the kill, and the stall is the longest the time stood still, less a second (so at 1 s
resolution); its frames are not read, so lost and repeated are left out.

    KILLS=5 scripts/bench/redundancy/failover.py                     # the issue's five kills
    KILLS=1 PLAYERS=hlsjs-steering,ffmpeg-edge scripts/bench/redundancy/failover.py

Environment: KILLS (1), WARMUP (15), AFTER (20), PLAYERS (hlsjs-steering, hlsjs-classic,
ffmpeg, playbin3, chromium, hlsjs-edge, ffmpeg-edge, playbin3-edge, chromium-edge; hlsjs-* in
low-latency mode but hlsjs-classic), FAULT (kill: kill -9 of the primary; stall: its input
stalls for STALL seconds, 8, by the admin drill, so it serves stand-ins and restarts its
pipeline while staying up), RUNG (the pair's one rung, 360p, ultrafast/main), KEEP (set: the work folder is kept, with each hls.js and playbin3 run's
frames, loads and errors as JSON beside the servers' logs), SIDELINE
(.build-release/release/sideline), HLSJS (.build-hlsjs/hls.mjs). Needs nginx, chromium, ffmpeg
and GStreamer's Python bindings (scripts/ensure-deps.sh --players-bench). Every wait is
bounded; everything started is stopped by its PID.
"""
import json
import os
import re
import shutil
import socket
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts/bench/angles"))
sys.path.insert(0, os.path.join(ROOT, "scripts/bench/lowlatency"))
sys.path.insert(0, os.path.join(ROOT, "Tests/Helpers"))
from angle_sync import open_page, read_clock  # noqa: E402
from ll_latency import free_port, nginx_wrapper, wait_ok  # noqa: E402

KILLS = int(os.environ.get("KILLS", "1"))
WARMUP = float(os.environ.get("WARMUP", "15"))
AFTER = float(os.environ.get("AFTER", "20"))
# kill: the primary is killed (-9). stall: its input stalls for STALL seconds (the admin drill):
# it stays up and fills the slots with stand-ins, then its watchdog restarts the pipeline.
FAULT = os.environ.get("FAULT", "kill")
STALL = float(os.environ.get("STALL", "8"))
ADMIN_TOKEN = "failover-admin-0123456789"
# The pair's one rung (a YAML flow mapping, name 360p): ultrafast has no B-frames with parts or
# without; a veryfast/high rung has them without parts.
RUNG = os.environ.get("RUNG", "{name: 360p, width: 640, height: 360, bitrate: 600k, preset: ultrafast, profile: main}")
PLAYERS = os.environ.get("PLAYERS", "hlsjs-steering,hlsjs-classic,ffmpeg,playbin3,chromium,vlc,hlsjs-edge,ffmpeg-edge,playbin3-edge,chromium-edge,vlc-edge").split(",")
SIDELINE = os.environ.get("SIDELINE", os.path.join(ROOT, ".build-release/release/sideline"))
HLSJS = os.environ.get("HLSJS", os.path.join(ROOT, ".build-hlsjs/hls.mjs"))
FRAME_MS = 1000 / 30
WIDTH, HEIGHT = 320, 180


def write_pair_configs(work, ports, rung, stream):
    """`work`/a and `work`/b: a redundant pair on 127.0.0.1 (A primary, B standby) at `ports`,
    one `rung` at 30 fps, and `stream(name)` for each box's stream line."""
    for name, role in (("a", "primary"), ("b", "standby")):
        peer = ports["b" if name == "a" else "a"]
        os.makedirs(f"{work}/{name}", exist_ok=True)
        with open(f"{work}/{name}/sideline.yaml", "w") as f:
            f.write(f"server: {{host: 127.0.0.1, port: {ports[name]}}}\n"
                    f"redundancy: {{peer: 'http://127.0.0.1:{peer}', role: {role}}}\n"
                    f"admin: {{token: {ADMIN_TOKEN}, drills: true}}\n"
                    f"video:\n  frame_rate: 30\n  ladder:\n    - {rung}\n"
                    f"{stream(name)}\n")


def longest_standstill(samples):
    """The longest wall time (ms) the second value of (wall ms, value) samples stood still."""
    still, longest = samples[0], 0
    for wall, value in samples[1:]:
        if value != still[1]:
            longest = max(longest, wall - still[0])
            still = (wall, value)
    return longest


class Pair:
    def __init__(self, work):
        self.work = work
        self.ports = {"a": free_port(), "b": free_port()}
        self.edge_port = free_port()
        self.processes = {}
        write_pair_configs(work, self.ports, RUNG,
                           lambda name: "stream: {name: main, input: testpattern}")
        for file in ("sideline-edge.conf", "sideline-edge-cache.conf"):
            shutil.copyfile(os.path.join(ROOT, "Config/nginx", file), os.path.join(work, file))
        with open(f"{work}/nginx.conf", "w") as f:
            f.write(nginx_wrapper(work, f"""    proxy_cache_path {work}/cache levels=1:2 keys_zone=sideline_edge:8m max_size=256m inactive=1h use_temp_path=off;
    upstream sideline_origin {{
        server 127.0.0.1:{self.ports['a']} max_fails=1 fail_timeout=3s;
        server 127.0.0.1:{self.ports['b']} backup;
        keepalive 16;
    }}
    map $http_accept_encoding $sideline_encoding {{ ~*gzip gzip; default ""; }}
    server {{
        listen 127.0.0.1:{self.edge_port};
        include {work}/sideline-edge.conf;
    }}"""))

    def base(self, name):
        return f"http://127.0.0.1:{self.ports[name]}"

    def start(self, name):
        process = self.processes.get(name)
        if process and process.poll() is None:
            return
        self.processes[name] = subprocess.Popen([SIDELINE, "serve", "--config", f"{self.work}/{name}/sideline.yaml", "--data-dir", f"{self.work}/{name}/data"],
                                                stdout=subprocess.DEVNULL, stderr=open(f"{self.work}/{name}/log", "a"))
        wait_ok(f"{self.base(name)}/live/main/360p/index.m3u8", 60)

    def kill(self, name):
        if FAULT == "stall":
            request = urllib.request.Request(f"{self.base(name)}/admin/streams/main/stall?seconds={STALL:g}", method="POST",
                                             headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
            urllib.request.urlopen(request, timeout=5).read()
            return
        process = self.processes.get(name)
        if process and process.poll() is None:
            process.kill()
            process.wait(timeout=10)

    def steering(self, name):
        with urllib.request.urlopen(f"{self.base(name)}/live/main/steering.json", timeout=2) as answer:
            return json.load(answer)["PATHWAY-PRIORITY"]

    def start_nginx(self):
        self.nginx = subprocess.Popen(["nginx", "-c", f"{self.work}/nginx.conf", "-p", self.work], stderr=subprocess.DEVNULL)
        wait_ok(f"http://127.0.0.1:{self.edge_port}/live/main/360p/index.m3u8", 30)

    def stop(self):
        for process in self.processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGINT)
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
        if getattr(self, "nginx", None):
            self.nginx.send_signal(signal.SIGQUIT)
            self.nginx.wait(timeout=20)


def frames_from_pipe(arguments, seconds, kill_at, on_kill, log):
    """Runs a player that writes grey WIDTHxHEIGHT frames to stdout; returns [(wall ms, clock)]."""
    frame = WIDTH * HEIGHT
    process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=open(log, "w"), stdin=subprocess.DEVNULL)
    frames = []

    def consume():
        while True:
            data = process.stdout.read(frame)
            if len(data) < frame:
                return
            frames.append((time.time() * 1000, read_clock(data, WIDTH, HEIGHT)))

    reader = threading.Thread(target=consume, daemon=True)
    reader.start()
    reader.join(kill_at)
    on_kill()
    reader.join(seconds - kill_at)
    process.kill()
    process.wait(timeout=10)
    reader.join(5)
    return frames


GSTREAMER = r"""
import sys, time, json
import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst
Gst.init(None)
pipe = Gst.ElementFactory.make("playbin3")
pipe.set_property("uri", sys.argv[1])
sink = Gst.parse_bin_from_description("videoconvert ! videoscale ! video/x-raw,format=GRAY8,width=%d,height=%d ! identity name=stamp signal-handoffs=true ! fdsink fd=1 sync=true", True)
pipe.set_property("video-sink", sink)
# Each frame's presentation timestamp, in the order the frames are written (argv[3]): the
# media time beside the painted clock, to tell a jump in the stream from the two boxes' phase.
stamps = open(sys.argv[3], "w", buffering=1)
sink.get_by_name("stamp").connect("handoff", lambda element, buffer: stamps.write("%%d\n" %% (buffer.pts if buffer.pts != Gst.CLOCK_TIME_NONE else -1)))
pipe.set_property("audio-sink", Gst.ElementFactory.make("fakesink"))
pipe.set_state(Gst.State.PLAYING)
end = time.monotonic() + float(sys.argv[2])
bus = pipe.get_bus()
while time.monotonic() < end:
    message = bus.timed_pop_filtered(200 * Gst.MSECOND, Gst.MessageType.ERROR | Gst.MessageType.EOS)
    if message:
        sys.stderr.write(str(message.type) + "\n")
        break
pipe.set_state(Gst.State.NULL)
""" % (WIDTH, HEIGHT)


def play(player, url, pair, work):
    """Plays `url` with `player`, kills the primary after WARMUP; returns (frames, kill wall ms, sampled)."""
    seconds = WARMUP + AFTER
    killed = {}

    def kill():
        killed["at"] = time.time() * 1000
        pair.kill("a")

    if player.startswith("ffmpeg"):
        frames = frames_from_pipe(["ffmpeg", "-v", "error", "-re", "-i", url, "-map", "0:v:0", "-vf", f"scale={WIDTH}:{HEIGHT}", "-f", "rawvideo",
                                   "-pix_fmt", "gray", "-"], seconds, WARMUP, kill, f"{work}/{player}.log")
        return frames, killed.get("at"), False
    if player.startswith("playbin3"):
        script = f"{work}/gst_play.py"
        with open(script, "w") as f:
            f.write(GSTREAMER)
        stamps = f"{work}/{player}-{int(time.time())}.pts"
        frames = frames_from_pipe(["/usr/bin/python3", script, url, str(seconds + 5), stamps], seconds, WARMUP, kill, f"{work}/{player}.log")
        if os.environ.get("KEEP"):
            # Every frame with its presentation timestamp (ns), as hls.js's are kept with their media time.
            with open(stamps) as f:
                pts = [int(line) for line in f if line.strip()]
            with open(stamps[:-4] + ".json", "w") as f:
                json.dump({"killed": killed.get("at"), "frames": [[wall, clock, pts[i] / 1e6 if i < len(pts) else None] for i, (wall, clock) in enumerate(frames)]}, f)
        return frames, killed.get("at"), False
    if player.startswith("hlsjs"):
        timer = threading.Timer(WARMUP, kill)
        timer.start()
        command = ["python3", os.path.join(ROOT, "Tests/Helpers/hlsjs_play.py"), url, "--hlsjs", HLSJS, "--seconds", str(seconds), "--warmup", "0", "--frames"]
        if player == "hlsjs-classic":
            command.append("--no-low-latency")
        run = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 120)
        timer.join()
        try:
            report = json.loads(run.stdout)
        except ValueError:
            return [], killed.get("at"), False
        frames = report.get("frames", [])
        if os.environ.get("KEEP"):
            # Every frame with its media time and presented count, to tell a jump in the
            # stream from one in playback or rendering (hlsjs_play.py --frames).
            with open(f"{work}/{player}-{int(time.time())}.json", "w") as f:
                json.dump({"killed": killed.get("at"), "frames": frames, "loads": report.get("loads", []), "errors": report.get("errors", [])}, f)
        return [(frame[0], frame[1]) for frame in frames], killed.get("at"), False
    if player.startswith("vlc"):
        # VLC refuses to run as root: as nobody, with a home of its own.
        home = tempfile.mkdtemp(prefix="failover-vlc-", dir=work)
        os.chmod(work, 0o755)
        os.chmod(home, 0o777)
        port = free_port()
        prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "env", f"HOME={home}"] if os.geteuid() == 0 else []
        process = subprocess.Popen(prefix + ["cvlc", "--no-video-title-show", "--vout", "dummy", "--aout", "dummy", "--extraintf", "rc",
                                             "--rc-host", f"127.0.0.1:{port}", url],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(f"{work}/{player}-{int(time.time())}.log", "w"))
        samples = []
        begin = time.monotonic()
        try:
            while time.monotonic() < begin + seconds:
                if "at" not in killed and time.monotonic() - begin >= WARMUP:
                    kill()
                time.sleep(0.25)
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                        s.sendall(b"get_time\n")
                        time.sleep(0.05)
                        numbers = re.findall(rb"^\s*>?\s*(\d+)\s*$", s.recv(4096), re.M)
                    if numbers:
                        samples.append((time.time() * 1000, float(numbers[-1])))
                except OSError:
                    pass
        finally:
            process.kill()
            process.wait(timeout=10)
        return samples, killed.get("at"), "vlc"
    if player.startswith("chromium"):
        from page_check import Browser
        profile = tempfile.mkdtemp(prefix="failover-chromium-", dir=work)
        browser = Browser(shutil.which("chromium") or "chromium", profile)
        frames = []
        try:
            evaluate = open_page(browser, f"{pair.base('a')}/healthz")
            with urllib.request.urlopen(f"{pair.base('a')}/pattern-clock.js", timeout=5) as answer:
                evaluate(answer.read().decode())
            # crossOrigin: the master names the other box (another origin), which leaves the
            # video's pixels unreadable to a canvas unless fetched with CORS (the boxes allow it).
            evaluate(f"""(() => {{ const v = document.createElement('video'); v.crossOrigin = 'anonymous'; v.muted = true; v.autoplay = true;
                       v.style = 'position:fixed;left:0;top:0;width:640px;height:360px'; v.src = '{url}';
                       document.body.appendChild(v); window.benchVideo = v; window.benchCanvas = document.createElement('canvas'); }})()""")
            begin = time.monotonic()
            while time.monotonic() < begin + seconds:
                if "at" not in killed and time.monotonic() - begin >= WARMUP:
                    kill()
                time.sleep(0.1)
                browser.events.clear()
                sample = evaluate("({now: Date.now(), clock: SidelinePatternClock.readVideo(benchVideo, benchCanvas)})")
                if sample:
                    frames.append((sample["now"], sample["clock"]))
        finally:
            browser.close()
            shutil.rmtree(profile, ignore_errors=True)
        return frames, killed.get("at"), True
    raise SystemExit(f"PLAYERS: unknown player {player!r}")


def judge(frames, killed, sampled):
    """(continued, stall s, lost, repeated) from the frames shown from 1 s before the kill on."""
    if killed is None:
        return False, float("nan"), None, None
    if sampled == "vlc":
        # (wall ms, playing time s): on for AFTER - 4 s past the kill; the longest standstill.
        after = [(wall, played) for wall, played in frames if wall >= killed - 1000]
        if len(after) < 2:
            return False, float("nan"), None, None
        at_kill = max((played for wall, played in after if wall <= killed), default=after[0][1])
        continued = max(played for _, played in after) - at_kill >= AFTER - 4
        return continued, max(0, longest_standstill(after) / 1000 - 1), None, None
    shown = [(wall, clock) for wall, clock in frames if wall >= killed - 1000 and clock is not None]
    if len(shown) < 2:
        return False, float("nan"), None, None
    # The picture went on past where it was at the kill, half of AFTER later.
    at_kill = max((clock for wall, clock in shown if wall <= killed), default=shown[0][1])
    continued = any(wall >= killed + AFTER * 500 and clock > at_kill for wall, clock in shown)
    stall = max((b[0] - a[0] for a, b in zip(shown, shown[1:])), default=0) / 1000 - FRAME_MS / 1000
    if sampled:
        # Sampled every 100 ms: a stall is the longest the moment shown stood still.
        return continued, max(0, longest_standstill(shown) / 1000 - 0.1), None, None
    lost = sum(max(0, round((b[1] - a[1]) / FRAME_MS) - 1) for a, b in zip(shown, shown[1:]) if b[1] - a[1] > 1.5 * FRAME_MS)
    repeated = sum(1 for a, b in zip(shown, shown[1:]) if b[1] - a[1] < 0.5 * FRAME_MS)
    return continued, max(0, stall), lost, repeated


def main():
    if not os.path.isfile(SIDELINE):
        raise SystemExit(f"{SIDELINE} is missing: swift build -c release --product sideline --scratch-path .build-release")
    work = tempfile.mkdtemp(prefix="sideline-failover-")
    pair = Pair(work)
    print(f"failover: FAULT={FAULT}{f' ({STALL:g} s)' if FAULT == 'stall' else ''}, KILLS={KILLS}, WARMUP={WARMUP:g} s, AFTER={AFTER:g} s; {time.strftime('%H:%M', time.gmtime())} UTC, "
          f"load average before {' '.join(open('/proc/loadavg').read().split()[:3])}; work {work}", flush=True)
    results = {}
    try:
        pair.start("b")
        pair.start("a")
        pair.start_nginx()
        for player in PLAYERS:
            for kill in range(KILLS):
                pair.start("a")
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline and pair.steering("b")[0] != "primary":
                    time.sleep(0.5)
                # The edge's fail_timeout (3 s) passed since the last kill, and a few segments.
                time.sleep(6)
                url = (f"http://127.0.0.1:{pair.edge_port}" if player.endswith("-edge") else pair.base("a")) + "/live/main/master.m3u8"
                frames, killed, sampled = play(player, url, pair, work)
                verdict = judge(frames, killed, sampled)
                results.setdefault(player, []).append(verdict)
                continued, stall, lost, repeated = verdict
                print(f"  {player:<15} kill {kill + 1}: {'continued' if continued else 'STOPPED  '}  stall {stall:6.2f} s  lost {lost}  repeated {repeated}  "
                      f"({len(frames)} frames read)", flush=True)
    finally:
        pair.stop()
        print(f"load average after {' '.join(open('/proc/loadavg').read().split()[:3])}", flush=True)
    print(f"{'player':<15} {'continued':>9} {'stall p50':>9} {'stall max':>9} {'lost':>6} {'repeated':>9}")
    for player, rows in results.items():
        stalls = [row[1] for row in rows if row[0]]
        lost = [row[2] for row in rows if row[2] is not None]
        repeated = [row[3] for row in rows if row[3] is not None]
        print(f"{player:<15} {sum(1 for row in rows if row[0]):>5}/{len(rows):<3} "
              f"{statistics.median(stalls) if stalls else float('nan'):>9.2f} {max(stalls) if stalls else float('nan'):>9.2f} "
              f"{sum(lost) if lost else '-':>6} {sum(repeated) if repeated else '-':>9}")
    if not os.environ.get("KEEP"):
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
