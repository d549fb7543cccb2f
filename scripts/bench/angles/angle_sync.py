#!/usr/bin/env python3
"""Angle sync benchmark (issue 28; Docs/benchmarks.md, "Angle sync"). Not a test: it prints
figures, and the reader judges them against the targets it prints beside them.

Three test-pattern angles in one set on a release `sideline serve` bound to 127.0.0.1, one
rung each (RUNG, default 270p: 480x270 veryfast), started STAGGER seconds apart: `wide`
encoded by the server from its built-in test pattern, `tv` and `goal` pushed to it by
`sideline push --input testpattern` (an ingest_token angle, placed by its program date-time)
STAGGER and 2 x STAGGER seconds later. ANGLES=local makes all three the server's own
test patterns instead (started together: the server starts every stream at once).
The page is opened on the set (/?set=match) in headless Chromium for DURATION seconds; then
ffmpeg and GStreamer play the set's URL for PLAYER_SECONDS each. Printed:

 (a) the spread of EXT-X-PROGRAM-DATE-TIME across the angles' media playlists, per slot
     (media sequence number), from the live playlists polled every 5 s;
 (b) the spread of capture times across angles at the same presentation time in the recorded
     segments: every segment of every angle (from /vod/) decoded by ffmpeg to grey frames with
     their PTS (showinfo, -copyts), each frame's clock read by the page's own reader
     (Sources/WatchPage/Resources/pattern-clock.js, under node), frames matched by equal PTS;
     per slot, the largest spread of its frames;
 (c) the spread on screen across the page's grid: at every frame a tile presents
     (requestVideoFrameCallback: its expectedDisplayTime, and its clock read from the strip,
     drawn to a canvas in the callback), max - min over the clocks the tiles show at each moment
     every tile reports (the callback skips some frames while the page is busy), p50/p99 over the page's run after its first WARMUP seconds; and, as before, every
     200 ms every tile's <video> drawn to a canvas at its videoWidth x videoHeight (all tiles
     drawn first, one after another, then read) with /pattern-clock.js as the server serves it;
 (d) glass to glass at the live edge: wall clock at the moment a frame is shown (Chromium:
     read from the tile's canvas; GStreamer: playbin with an appsink that syncs to the clock;
     ffmpeg: `-re`, frames as they leave the decoder) minus the capture time painted in it.

    DURATION=600 scripts/bench/angles/angle_sync.py        # the issue's 10 minutes
    DURATION=120 scripts/bench/angles/angle_sync.py        # a quick run
    scripts/bench/angles/angle_sync.py --frames WORK/vsync-frames.json   # a kept run's live spread, 20 s at a time

After the live part the page goes back REPLAY_FROM (30) seconds into the recording and reads the
tiles the same way for REPLAY_SECONDS (60), with a seek in place 20 s on halfway ((c'): replay
and after a seek, each half counted after REPLAY_SETTLE (5) seconds).

Environment: DURATION (600), STAGGER (3), RUNG_WIDTH/RUNG_HEIGHT/RUNG_BITRATE (480/270/400k),
PLAYER_SECONDS (30), WARMUP (20), ANGLES (push|local), SIDELINE (.build-release/release/sideline),
WORK (a new temporary directory, kept for inspection). Needs ffmpeg, node, chromium and
Debian's python3-gi with GStreamer (the GStreamer part runs under /usr/bin/python3).
Every wait is bounded; everything started is stopped by its PID.
"""
import bisect
import datetime
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
CLOCK_JS = os.path.join(REPO, "Sources/WatchPage/Resources/pattern-clock.js")
SET, ANGLE_NAMES = "match", ["wide", "tv", "goal"]
TOKEN = "bench-angle-sync-token-0123456789"
FRAME_MS = 1000 / 30


def env(name, default):
    return type(default)(os.environ.get(name, default))


# ---------------------------------------------------------------- the pattern clock in Python
# For frames read live from ffmpeg's and GStreamer's pipes (a few a second): the same rule as
# PatternClock.read and pattern-clock.js, rows summed as slices so it keeps up at 30 fps.
def crc8(value):
    crc = 0
    for shift in range(40, -1, -8):
        crc ^= (value >> shift) & 0xFF
        for _ in range(8):
            crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc


def clock_bits(ms):
    bits = [True, False] + [(ms >> s) & 1 == 1 for s in range(47, -1, -1)]
    crc = crc8(ms)
    bits += [(crc >> s) & 1 == 1 for s in range(7, -1, -1)]
    while len(bits) < 64:
        bits.append(len(bits) % 2 == 0)
    return bits


def read_clock(plane, width, height, stride=None):
    stride = stride or width
    if width < 32 or height < 18 or len(plane) < stride * (height - 1) + width:
        return None
    levels = []
    for index in range(64):
        column, row = index % 32, 16 + index // 32
        x0, x1 = column * width // 32, (column + 1) * width // 32
        y0, y1 = row * height // 18, (row + 1) * height // 18
        ix, iy = (x1 - x0) // 4, (y1 - y0) // 4
        xs, xe, ys, ye = x0 + ix, max(x0 + ix + 1, x1 - ix), y0 + iy, max(y0 + iy + 1, y1 - iy)
        total = sum(sum(plane[y * stride + xs:y * stride + xe]) for y in range(ys, ye))
        levels.append(total // ((xe - xs) * (ye - ys)))
    if levels[0] - levels[1] < 48:
        return None
    threshold = (levels[0] + levels[1]) // 2
    read = [level > threshold for level in levels]
    ms = 0
    for bit in read[2:50]:
        ms = ms * 2 + (1 if bit else 0)
    return ms if read == clock_bits(ms) else None


def quantiles(values):
    if not values:
        return "no samples"
    s = sorted(values)
    q = lambda p: s[min(len(s) - 1, int(p * len(s)))]
    return f"p50 {q(0.5):.0f} ms, p99 {q(0.99):.0f} ms, min {s[0]:.0f}, max {s[-1]:.0f} ({len(s)} samples)"


# ---------------------------------------------------------------- ffmpeg
def ffmpeg_lags(url, width, height, seconds, log, warmup=0.0, started=None):
    """Plays `url` with the ffmpeg CLI (`-re`, the first video stream scaled to width x height,
    grey) for `seconds`; returns the lags of the frames read after `warmup` (wall clock as
    each frame leaves the decoder minus its pattern clock, ms) and how many did not read.
    `started`: a list the process is added to (for the caller's own cleanup)."""
    frame = width * height
    process = subprocess.Popen(["ffmpeg", "-v", "error", "-re", "-i", url, "-map", "0:v:0", "-vf", f"scale={width}:{height}",
                                "-f", "rawvideo", "-pix_fmt", "gray", "-"],
                               stdout=subprocess.PIPE, stderr=open(log, "w"), stdin=subprocess.DEVNULL)
    if started is not None:
        started.append(process)
    lags, unread, begin = [], [0], time.monotonic()

    def consume():
        while True:
            data = process.stdout.read(frame)
            if len(data) < frame:
                return
            now = time.time() * 1000
            if time.monotonic() - begin < warmup:
                continue
            clock = read_clock(data, width, height)
            if clock is None:
                unread[0] += 1
            else:
                lags.append(now - clock)

    reader = threading.Thread(target=consume, daemon=True)
    reader.start()
    reader.join(seconds)
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
    reader.join(10)
    return lags, unread[0]


# ---------------------------------------------------------------- GStreamer (its own process)
def gstreamer_lags(url, seconds, width, height, element="playbin", warmup=0.0):
    """Plays `url` in `element` (playbin or playbin3), video into an appsink that syncs to the
    pipeline clock (frames leave it when a player would show them); prints the lags after the
    first `warmup` seconds as JSON."""
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
    Gst.init(None)
    pipe = Gst.ElementFactory.make(element)
    pipe.set_property("uri", url)
    sink = Gst.parse_bin_from_description(
        f"videoconvert ! videoscale ! video/x-raw,format=GRAY8,width={width},height={height} ! appsink name=sink sync=true max-buffers=4 drop=true", True)
    pipe.set_property("video-sink", sink)
    pipe.set_property("audio-sink", Gst.ElementFactory.make("fakesink"))
    appsink = sink.get_by_name("sink")
    pipe.set_state(Gst.State.PLAYING)
    lags, unread, begin = [], 0, time.monotonic()
    end = begin + seconds
    bus = pipe.get_bus()
    try:
        while time.monotonic() < end:
            sample = appsink.emit("try-pull-sample", 200 * Gst.MSECOND)
            message = bus.pop_filtered(Gst.MessageType.ERROR)
            if message:
                print(json.dumps({"error": str(message.parse_error()[0])}))
                return
            if sample is None or time.monotonic() - begin < warmup:
                continue
            now = time.time() * 1000
            buffer = sample.get_buffer()
            clock = read_clock(buffer.extract_dup(0, buffer.get_size()), width, height, (width + 3) // 4 * 4)
            if clock is None:
                unread += 1
            else:
                lags.append(now - clock)
    finally:
        pipe.set_state(Gst.State.NULL)
    print(json.dumps({"lags": lags, "unread": unread}))


# ---------------------------------------------------------------- the run
class Run:
    def __init__(self):
        self.duration = env("DURATION", 600)
        self.stagger = env("STAGGER", 3.0)
        self.width, self.height = env("RUNG_WIDTH", 480), env("RUNG_HEIGHT", 270)
        self.bitrate = env("RUNG_BITRATE", "400k")
        self.rung = f"{self.height}p"
        self.player_seconds = env("PLAYER_SECONDS", 30)
        self.warmup = env("WARMUP", 20)
        self.replay_seconds = env("REPLAY_SECONDS", 60)
        self.replay_from = env("REPLAY_FROM", 30)
        self.replay_settle = env("REPLAY_SETTLE", 5)
        self.mode = env("ANGLES", "push")
        self.sideline = os.path.abspath(env("SIDELINE", os.path.join(REPO, ".build-release/release/sideline")))
        self.work = os.environ.get("WORK") or tempfile.mkdtemp(prefix="sideline-angle-sync-")
        os.makedirs(self.work, exist_ok=True)
        self.processes = []
        self.pdt = {name: {} for name in ANGLE_NAMES}  # msn -> program date-time (ms)

    def start(self, arguments, log, **kwargs):
        process = subprocess.Popen(arguments, stdout=open(log, "w"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, **kwargs)
        self.processes.append(process)
        return process

    def stop(self, process, sig=signal.SIGINT, timeout=30):
        if process.poll() is None:
            process.send_signal(sig)
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)

    def get(self, path, timeout=5):
        with urllib.request.urlopen(f"{self.base}{path}", timeout=timeout) as response:
            return response.read()

    def ladder_yaml(self, indent):
        pad = " " * indent
        return (f"{pad}frame_rate: 30\n{pad}ladder:\n"
                f"{pad}  - {{name: {self.rung}, width: {self.width}, height: {self.height}, bitrate: {self.bitrate}, preset: veryfast, profile: main}}\n")

    def configure(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        streams = "".join(
            f"  - name: {name}\n" + (f"    input: testpattern\n" if name == "wide" or self.mode == "local" else f"    ingest_token: {TOKEN}\n")
            for name in ANGLE_NAMES)
        server = (f"server:\n  host: 127.0.0.1\n  port: {self.port}\ndata_dir: {self.work}/data\nsegment_duration: 2\n"
                  f"video:\n{self.ladder_yaml(2)}streams:\n{streams}"
                  f"angle_sets:\n  - name: {SET}\n    title: Angle sync benchmark\n    streams: [{', '.join(ANGLE_NAMES)}]\n")
        with open(f"{self.work}/server.yaml", "w") as f:
            f.write(server)
        with open(f"{self.work}/push.yaml", "w") as f:
            f.write(f"data_dir: {self.work}/push-data\nsegment_duration: 2\nvideo:\n{self.ladder_yaml(2)}")

    def start_angles(self):
        self.server = self.start([self.sideline, "serve", "--config", f"{self.work}/server.yaml", "--host", "127.0.0.1", "--port", str(self.port)],
                                 f"{self.work}/server.log", cwd=self.work)
        deadline = time.monotonic() + 60
        while True:
            try:
                self.get("/healthz")
                break
            except OSError:
                if time.monotonic() > deadline or self.server.poll() is not None:
                    raise SystemExit(f"the server did not start: {self.work}/server.log")
                time.sleep(0.2)
        self.started = {"wide": time.time()}
        if self.mode != "local":
            for k, name in enumerate(ANGLE_NAMES[1:], start=1):
                time.sleep(max(0, self.started["wide"] + k * self.stagger - time.time()))
                self.started[name] = time.time()
                self.start([self.sideline, "push", "--input", "testpattern", "--to", f"{self.base}/ingest/{name}", "--token", TOKEN,
                            "--config", f"{self.work}/push.yaml", "--queue-dir", f"{self.work}/queue-{name}", "--log-level", "warning"],
                           f"{self.work}/push-{name}.log")
        # Every angle listed in the set's master and playing segments.
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                master = self.get(f"/live/{SET}/master.m3u8").decode()
                if all(f"../{name}/" in master for name in ANGLE_NAMES) and all(
                        b"#EXTINF" in self.get(f"/live/{name}/{self.rung}/index.m3u8") for name in ANGLE_NAMES):
                    return
            except OSError:
                pass
            time.sleep(1)
        raise SystemExit(f"the set's angles did not all start within 90 s: {self.work}/server.log")

    # (a) ------------------------------------------------------------------------------------
    def poll_playlists(self):
        for name in ANGLE_NAMES:
            try:
                text = self.get(f"/live/{name}/{self.rung}/index.m3u8").decode()
            except OSError:
                continue
            for msn, pdt, _, _ in parse_playlist(text):
                if pdt is not None:
                    self.pdt[name][msn] = pdt

    def pdt_spread(self):
        common = set.intersection(*(set(self.pdt[n]) for n in ANGLE_NAMES))
        spreads = {msn: max(self.pdt[n][msn] for n in ANGLE_NAMES) - min(self.pdt[n][msn] for n in ANGLE_NAMES) for msn in common}
        # Slots where angles list different numbers for the same date, if any.
        by_date = {}
        for n in ANGLE_NAMES:
            for msn, pdt in self.pdt[n].items():
                by_date.setdefault(pdt, set()).add(msn)
        mismatched = sum(1 for msns in by_date.values() if len(msns) > 1)
        return spreads, mismatched

    # (c) and Chromium's part of (d) ----------------------------------------------------------
    def page(self):
        sys.path.insert(0, os.path.join(REPO, "Tests/Helpers"))
        from page_check import Browser
        profile = tempfile.mkdtemp(prefix="angle-sync-chromium-", dir=self.work)
        browser = Browser(shutil.which("chromium") or "chromium", profile)
        self.processes.append(browser.process)
        screen, lags, unread, reads = [], [], 0, 0
        self.tile_offsets, self.tile_unread, self.last_unread = {}, {}, None
        try:
            evaluate = open_set_page(browser, self.base)

            # The reader as the server serves it (evaluated through DevTools: the page's CSP allows
            # only its own scripts, and this one it serves but does not load).
            evaluate(self.get("/pattern-clock.js").decode())
            evaluate("window.benchCanvases = []")
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and not evaluate(
                    "sideline.state.grid.angles.length === 3 && [...document.querySelectorAll('#angles figure:not([hidden]) video')].every(v => v.currentTime > 0)"):
                time.sleep(0.5)
            self.tile_names = evaluate("sideline.state.grid.angles.map(a => a.stream)") or []
            # Every frame each tile presents (requestVideoFrameCallback): when it is on screen
            # (expectedDisplayTime) and its clock, read from the strip alone in the callback.
            evaluate(VSYNC_READER)
            frames = {"live": [], "replay": []}
            read = """(() => {
              const videos = [...document.querySelectorAll('#angles figure:not([hidden]) video')];
              while (benchCanvases.length < videos.length) benchCanvases.push(document.createElement('canvas'));
              // Every tile drawn first (the same instant, as near as a script gets), then read.
              const images = videos.map((v, i) => {
                const w = v.videoWidth, h = v.videoHeight, c = benchCanvases[i];
                if (!w || !h) return null;
                if (c.width !== w) c.width = w; if (c.height !== h) c.height = h;
                const g = c.getContext('2d', { willReadFrequently: true });
                g.drawImage(v, 0, 0, w, h);
                return g;
              });
              const now = Date.now();
              const clocks = images.map((g, i) => g && SidelinePatternClock.readImageData(g.getImageData(0, 0, benchCanvases[i].width, benchCanvases[i].height)));
              return { now, clocks, sizes: videos.map((v) => `${v.videoWidth}x${v.videoHeight} ready ${v.readyState}`) };
            })()"""
            page_start = time.monotonic()

            def measure(seconds, warmup, into_screen, into_lags, offsets, phase):
                """Reads every tile every 200 ms for `seconds`, counting from `warmup` on."""
                unread, reads, start, next_poll, measuring = 0, 0, time.monotonic(), 0, False
                evaluate("benchFrames.length = 0")
                while time.monotonic() < start + seconds:
                    if not measuring and time.monotonic() - start >= warmup:
                        measuring = True
                        evaluate("sideline.state.sync.spreads.length = 0; benchFrames.length = 0")
                    if time.monotonic() >= next_poll:
                        if measuring:
                            frames[phase] += evaluate("benchFrames.splice(0)") or []
                        self.poll_playlists()
                        next_poll = time.monotonic() + 5
                        browser.events.clear()
                    sample = evaluate(read)
                    if measuring and sample:
                        reads += 1
                        clocks = sample["clocks"]
                        if len(clocks) == 3 and all(c is not None for c in clocks):
                            into_screen.append(max(clocks) - min(clocks))
                            for i, c in enumerate(clocks):
                                offsets.setdefault(i, []).append(c - clocks[0])
                        else:
                            unread += 1
                            self.last_unread = sample
                        for i, c in enumerate(clocks):
                            if c is None:
                                self.tile_unread[i] = self.tile_unread.get(i, 0) + 1
                        if into_lags is not None:
                            into_lags += [sample["now"] - c for c in clocks if c is not None]
                    time.sleep(0.2)
                frames[phase] += evaluate("benchFrames.splice(0)") or []
                return unread, reads

            unread, reads = measure(self.duration, self.warmup, screen, lags, self.tile_offsets, "live")
            self.page_sync = evaluate("(() => { const s = sideline.sync(); return { p50: s.p50, p99: s.p99, max: s.max, samples: s.samples, rejoins: s.rejoins }; })()")
            # Replay: back to REPLAY_FROM seconds into the set's recording (the page loads every
            # angle's VOD there), then, halfway, a seek in place 20 s on; each measured after
            # REPLAY_SETTLE s, as the page brings the angles back to one moment.
            self.replay, self.replay_offsets, self.replay_unread, self.replay_sync = [], {}, 0, None
            if self.replay_seconds > 0:
                evaluate(f"sideline.seek({self.replay_from})")
                half = self.replay_seconds / 2
                u1, _ = measure(half, self.replay_settle, self.replay, None, self.replay_offsets, "replay")
                evaluate(f"sideline.seek({self.replay_from + half + 20})")
                u2, _ = measure(half, self.replay_settle, self.replay, None, self.replay_offsets, "replay")
                self.replay_unread = u1 + u2
                self.replay_mode = evaluate("document.getElementById('mode') && document.getElementById('mode').textContent")
                self.replay_sync = evaluate("(() => { const s = sideline.sync(); return { p50: s.p50, p99: s.p99, max: s.max, samples: s.samples }; })()")
            self.vsync = {phase: vsync_spreads(f) for phase, f in frames.items()}
            with open(f"{self.work}/vsync-frames.json", "w") as f:
                json.dump(frames, f)
            # Each tile's last frame as read, for a look at a tile that did not read.
            for i, url in enumerate(evaluate("benchCanvases.map((c) => c.toDataURL('image/png'))") or []):
                with open(f"{self.work}/tile-{i}.png", "wb") as f:
                    f.write(__import__("base64").b64decode(url.split(",", 1)[1]))
            self.page_errors = evaluate("[...document.querySelectorAll('#angles video')].map(v => v.error && v.error.message)")
        finally:
            browser.close()
            shutil.rmtree(profile, ignore_errors=True)
        return screen, lags, unread, reads

    # ffmpeg's and GStreamer's parts of (d) ---------------------------------------------------
    def ffmpeg_lags(self):
        return ffmpeg_lags(f"{self.base}/live/{SET}/master.m3u8", self.width, self.height, self.player_seconds,
                           f"{self.work}/ffmpeg-play.log", started=self.processes)

    def gstreamer_lags(self):
        out = subprocess.run(["/usr/bin/python3", os.path.abspath(__file__), "--gstreamer", f"{self.base}/live/{SET}/master.m3u8",
                              str(self.player_seconds), str(self.width), str(self.height)],
                             capture_output=True, text=True, timeout=self.player_seconds + 60)
        try:
            result = json.loads(out.stdout.strip().splitlines()[-1])
        except (IndexError, ValueError):
            return [], f"no result: {out.stderr[-400:]}"
        return result.get("lags", []), result.get("error") or result.get("unread")

    # (b) ------------------------------------------------------------------------------------
    def recorded(self):
        """Per angle: msn -> [(pts, clock)] from every recorded segment, and the unread frames."""
        node = subprocess.Popen(["node", "-e", NODE_READER, CLOCK_JS], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.processes.append(node)
        frames, unread = {}, {name: 0 for name in ANGLE_NAMES}
        try:
            for name in ANGLE_NAMES:
                frames[name] = {}
                playlist = self.get(f"/vod/{name}/{self.rung}/index.m3u8", timeout=30).decode()
                for msn, _, uri, gap in parse_playlist(playlist):
                    if gap or uri is None:
                        continue
                    path = f"{self.work}/segment.ts"
                    with open(path, "wb") as f:
                        f.write(self.get(urllib.parse.urljoin(f"/vod/{name}/{self.rung}/index.m3u8", uri), timeout=30))
                    decoded = subprocess.run(["ffmpeg", "-v", "info", "-nostats", "-copyts", "-i", path, "-map", "0:v:0", "-vf", "showinfo",
                                              "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "gray", "-y", f"{self.work}/segment.gray"],
                                             capture_output=True, text=True, timeout=60)
                    pts = [int(p) for p in re.findall(r"\bpts:\s*(\d+)", decoded.stderr)]
                    size = re.search(r"\bs:(\d+)x(\d+)", decoded.stderr)
                    if not pts or not size:
                        continue
                    node.stdin.write(f"{self.work}/segment.gray {size.group(1)} {size.group(2)}\n")
                    node.stdin.flush()
                    clocks = json.loads(node.stdout.readline())
                    unread[name] += sum(1 for c in clocks if c is None)
                    frames[name][msn] = [(p, c) for p, c in zip(pts, clocks) if c is not None]
        finally:
            self.stop(node, signal.SIGTERM, 5)
        return frames, unread


# In the page: each tile's presented frames, [tile, expectedDisplayTime (ms), clock or null].
VSYNC_READER = r"""(() => {
  window.benchFrames = [];
  [...document.querySelectorAll('#angles figure:not([hidden]) video')].forEach((v, i) => {
    const c = document.createElement('canvas');
    const onFrame = (now, m) => {
      if (v.videoWidth) benchFrames.push([i, m.expectedDisplayTime, SidelinePatternClock.readVideo(v, c)]);
      if (benchFrames.length > 30000) benchFrames.splice(0, 10000);
      v.requestVideoFrameCallback(onFrame);
    };
    v.requestVideoFrameCallback(onFrame);
  });
})()"""


def open_set_page(browser, base):
    """Opens the set's page in a new tab of `browser` (page_check.Browser) and returns
    evaluate(expression), which runs a script there and gives its value."""
    return open_page(browser, f"{base}/?set={SET}")


def open_page(browser, url):
    """Opens `url` in a new tab of `browser`, on screen, and returns evaluate(expression)."""
    target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    # Chromium paints an off-screen video only a few times a second: every tile on screen.
    browser.send("Emulation.setDeviceMetricsOverride", {"width": 1600, "height": 1000, "deviceScaleFactor": 1, "mobile": False}, session=session)
    browser.send("Page.enable", session=session)
    browser.send("Page.navigate", {"url": url}, session=session)
    browser.wait_event("Page.loadEventFired", 30)

    def evaluate(expression):
        result = browser.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}, session=session)
        return result["result"].get("value")
    return evaluate


def page_figures(sync):
    """The page's own spread (`sideline.sync()`, seconds) in ms, with its sample and rejoin counts."""
    if not isinstance(sync, dict) or sync.get("p50") is None:
        return json.dumps(sync)
    ms = lambda key: f"{1000 * sync[key]:.1f}"
    rejoins = f", rejoins {sync['rejoins']}" if "rejoins" in sync else ""
    return f"p50 {ms('p50')} ms, p99 {ms('p99')} ms, max {ms('max')} ms ({sync.get('samples')} samples){rejoins}"


def moment_spreads(frames, tiles=3):
    """Per moment (expectedDisplayTime, to 0.1 ms), in order: (moment, max - min over the tiles'
    clocks), or "unreported" when a tile did not report that moment, or "unread" when a
    tile's frame did not read. `frames`: [tile, expectedDisplayTime, clock] as recorded."""
    at = {}
    for tile, moment, clock in frames:
        at.setdefault(round(moment, 1), {})[tile] = clock
    for moment, shown in sorted(at.items()):
        if len(shown) < tiles:
            yield moment, "unreported"
        elif None in shown.values():
            yield moment, "unread"
        else:
            yield moment, max(shown.values()) - min(shown.values())


def vsync_spreads(frames, tiles=3):
    """At every moment at which every tile reports the frame it presents: the spread of their
    clocks (`moment_spreads`). requestVideoFrameCallback does not call back for every frame
    presented (about one in five skipped here while the page is busy), and a tile's last
    reported frame is not what it shows then, so moments a tile did not report are counted
    apart, not guessed; so is a moment a tile's frame did not read."""
    outcomes = [spread for _, spread in moment_spreads(frames, tiles)]
    spreads = [x for x in outcomes if not isinstance(x, str)]
    return spreads, outcomes.count("unreported"), outcomes.count("unread")


# One request a line ("<grey file> <width> <height>"), one JSON array of clocks a line back.
NODE_READER = r"""
require(process.argv[1]);
const fs = require('fs'), rl = require('readline').createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const [path, w, h] = line.split(' '), width = +w, height = +h, bytes = fs.readFileSync(path), out = [];
  for (let at = 0; at + width * height <= bytes.length; at += width * height)
    out.push(SidelinePatternClock.read(bytes.subarray(at, at + width * height), width, height, width));
  process.stdout.write(JSON.stringify(out) + '\n');
});
"""


def parse_playlist(text):
    """(msn, program date-time in ms or None, uri or None, gap) per entry of a media playlist."""
    entries, msn, pdt, gap, duration = [], 0, None, False, 0.0
    last_pdt = None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("#EXT-X-MEDIA-SEQUENCE:"):
            msn = int(line.split(":", 1)[1])
        elif line.startswith("#EXT-X-PROGRAM-DATE-TIME:"):
            stamp = line.split(":", 1)[1].replace("Z", "+00:00")
            pdt = datetime.datetime.fromisoformat(stamp).timestamp() * 1000
        elif line.startswith("#EXTINF:"):
            duration = float(line.split(":", 1)[1].split(",")[0])
        elif line.startswith("#EXT-X-GAP"):
            gap = True
        elif line and not line.startswith("#"):
            if pdt is None and last_pdt is not None:
                pdt = last_pdt
            entries.append((msn, round(pdt) if pdt is not None else None, line, gap))
            last_pdt = pdt + duration * 1000 if pdt is not None else None
            msn, pdt, gap = msn + 1, None, False
    return entries


def recorded_spread(frames):
    """Per slot of the default angle: the largest spread of capture times at equal PTS."""
    others = {}
    for name in ANGLE_NAMES[1:]:
        pairs = sorted(p for seg in frames[name].values() for p in seg)
        others[name] = ([p for p, _ in pairs], [c for _, c in pairs])
    per_slot, frame_spreads, unmatched, offsets = {}, [], 0, []
    for msn, pairs in sorted(frames[ANGLE_NAMES[0]].items()):
        worst = None
        for pts, clock in pairs:
            clocks = [clock]
            for name, (ptss, cs) in others.items():
                i = bisect.bisect_left(ptss, pts)
                near = [j for j in (i - 1, i) if 0 <= j < len(ptss)]
                j = min(near, key=lambda j: abs(ptss[j] - pts)) if near else None
                # The frame a player shows at this PTS: the nearest, within half a frame (1500
                # ticks); how far its PTS is from this one is reported beside.
                if j is None or abs(ptss[j] - pts) >= 1500:
                    clocks = None
                    break
                offsets.append(ptss[j] - pts)
                clocks.append(cs[j])
            if clocks is None:
                unmatched += 1
                continue
            spread = max(clocks) - min(clocks)
            frame_spreads.append(spread)
            worst = spread if worst is None else max(worst, spread)
        if worst is not None:
            per_slot[msn] = worst
    return per_slot, frame_spreads, unmatched, offsets


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def spread_over_time(frames, window_ms=20000):
    """The live part's per-frame spreads (as `vsync_spreads` counts them) per `window_ms`:
    (seconds from the first, p50, max, moments over two frames) for each window."""
    windows, first = {}, None
    for moment, spread in moment_spreads(frames):
        first = moment if first is None else first
        if not isinstance(spread, str):
            windows.setdefault(int((moment - first) // window_ms), []).append(spread)
    return [(k * window_ms // 1000, sorted(v)[len(v) // 2], max(v), sum(1 for x in v if x > 2 * FRAME_MS)) for k, v in sorted(windows.items())]


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--frames":
        # A kept run's frames (WORK/vsync-frames.json): the live spread, 20 s at a time.
        with open(sys.argv[2]) as f:
            for start, p50, worst, over in spread_over_time(json.load(f)["live"]):
                print(f"{start:5d} s: p50 {p50} ms, max {worst} ms, moments over two frames ({2 * FRAME_MS:.1f} ms): {over}")
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--gstreamer":
        gstreamer_lags(sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]),
                       *(sys.argv[6:7] or ["playbin"]), *([float(sys.argv[7])] if len(sys.argv) > 7 else []))
        return
    run = Run()
    load_before = load()
    print(f"angle sync: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, DURATION={run.duration} s, "
          f"3 angles at {run.rung} ({run.width}x{run.height} {run.bitrate} veryfast), ANGLES={run.mode}, work {run.work}", flush=True)
    print(f"load average before: {load_before}", flush=True)
    run.configure()
    try:
        run.start_angles()
        starts = ", ".join(f"{n} +{run.started[n] - run.started['wide']:.1f} s" for n in run.started)
        print(f"angles started: {starts} ({'wide by the server, the others pushed' if run.mode != 'local' else 'all by the server'})", flush=True)
        screen, chromium, unread_screen, reads = run.page()
        run.poll_playlists()
        ffmpeg, ffmpeg_unread = run.ffmpeg_lags()
        gstreamer, gstreamer_note = run.gstreamer_lags()
        run.poll_playlists()
        load_after = load()
        frames, unread_recorded = run.recorded()
    finally:
        for process in reversed(run.processes):
            run.stop(process, signal.SIGINT if process is run.processes[0] or "push" in str(process.args) else signal.SIGTERM)

    spreads, mismatched = run.pdt_spread()
    values = sorted(spreads.values())
    print(f"(a) program date-time spread per slot: {len(values)} slots listed by all 3 angles; "
          f"max {values[-1] if values else '-'} ms, slots with any spread: {sum(1 for v in values if v > 0)}; "
          f"dates listed under different sequence numbers: {mismatched}")
    per_slot, frame_spreads, unmatched, offsets = recorded_spread(frames)
    slot_values = list(per_slot.values())
    over = sorted(msn for msn, v in per_slot.items() if v > 33)
    print(f"(b) recorded capture-time spread at equal PTS: {len(frame_spreads)} frames in {len(per_slot)} slots "
          f"(frames of the default angle without a frame within half a frame's PTS in both others: {unmatched}; frames without a readable clock, such as stand-ins before an angle started: {unread_recorded})")
    print(f"    per frame: {quantiles(frame_spreads)}")
    print(f"    per slot (its worst frame): {quantiles(slot_values)}; slots over 33 ms: {len(over)} of {len(per_slot)}"
          + (f" (first: {over[:10]})" if over else "") + "  [target: none]")
    exact = sum(1 for o in offsets if abs(o) <= 2)
    print(f"    PTS of the frames compared: {exact} of {len(offsets)} equal to the default angle's (within 2 ticks); "
          f"the others off by {sorted(set(o for o in offsets if abs(o) > 2))[:6]} ticks of 1/90000 s")
    live_vsync, live_unreported, live_vsync_unread = run.vsync["live"]
    print(f"(c) on-screen spread across the page's grid, after {run.warmup} s, at every moment every tile reports the frame it presents "
          f"(requestVideoFrameCallback: expectedDisplayTime, the strip read in the callback): {quantiles(live_vsync)}; "
          f"moments a tile did not report {live_unreported}, with a tile unread {live_vsync_unread}  [target: p99 <= {2 * FRAME_MS:.0f} ms]")
    print(f"    read every 200 ms (every tile drawn, one after another, then read): {quantiles(screen)}; reads {reads}, "
          f"reads with a tile unread {unread_screen}")
    medians = {(run.tile_names[i] if i < len(run.tile_names) else i): sorted(v)[len(v) // 2] for i, v in sorted(run.tile_offsets.items())}
    print(f"    each tile's median clock minus the first tile's, tiles in the page's order (ms): {medians}")
    if unread_screen:
        print(f"    unread reads per tile: {run.tile_unread}; the last read with a tile unread: {json.dumps(run.last_unread)}")
    print(f"    the page's own sync figures (currentTime): {page_figures(run.page_sync)}; video errors: {run.page_errors}")
    if run.replay_seconds > 0:
        medians = {(run.tile_names[i] if i < len(run.tile_names) else i): sorted(v)[len(v) // 2] for i, v in sorted(run.replay_offsets.items())}
        replay_vsync, replay_unreported, replay_vsync_unread = run.vsync["replay"]
        print(f"(c') replay, on screen: from {run.replay_from} s into the recording, then a seek 20 s on halfway, {run.replay_seconds} s in all, "
              f"each half after {run.replay_settle} s; at every moment every tile reports: {quantiles(replay_vsync)}, moments a tile did not report "
              f"{replay_unreported}, with a tile unread {replay_vsync_unread}  [target: p99 <= {2 * FRAME_MS:.0f} ms]; page mode {run.replay_mode!r}")
        print(f"    read every 200 ms: {quantiles(run.replay)}; reads with a tile unread {run.replay_unread}")
        print(f"    each tile's median clock minus the first tile's (ms): {medians}; the page's own figures (currentTime): {page_figures(run.replay_sync)}")
    print(f"(d) glass to glass (wall clock at display - capture time):")
    print(f"    Chromium (the page's tiles): {quantiles(chromium)}")
    print(f"    ffmpeg -re on the set's URL, {run.player_seconds} s: {quantiles(ffmpeg)}; unread {ffmpeg_unread}")
    print(f"    GStreamer playbin (appsink sync=true), {run.player_seconds} s: {quantiles(gstreamer)}; unread/error {gstreamer_note}")
    print(f"load average after the players: {load_after} (before: {load_before})")


if __name__ == "__main__":
    sys.exit(main())
