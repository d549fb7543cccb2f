#!/usr/bin/env python3
"""Plays one HLS URL with hls.js 1.6 in headless Chromium, in low-latency mode (it asks for
parts, `_HLS_msn`/`_HLS_part` and the preload hint), and prints what it saw as JSON:

    {"currentTime": s, "latencies": [s, ...], "parts": n, "fragments": n, "stalls": n,
     "fatal": message or null, "errors": [details...], "playlists": [text, ...]}

`latencies`: every half second after `--warmup`, the wall clock minus the program date-time of
the frame on screen (`hls.playingDate`): how far behind the camera the picture is, as the
server dated its capture (server and browser share this machine's clock). `parts` and
`fragments`: media loaded as parts and as whole segments. `playlists`: the last media
playlist text hls.js loaded of each level, for the caller to hold to the draft's rules.

    hlsjs_play.py URL --hlsjs .build-hlsjs/hls.mjs [--seconds 20] [--warmup 6] [--no-low-latency] [--frames]

`--frames` (a test-pattern stream): also "frames", every frame the video presents as [wall
clock ms when shown, the capture time painted in it (ms, or null when it does not read), the
frame's media time (ms), the compositor's count of presented frames], read with the server's
own /pattern-clock.js in a requestVideoFrameCallback: a picture that stops, repeats or jumps
shows there, and the last two say whether the jump is in the stream (media time steady, the
painted time jumps), in playback (the media time jumps: a seek over a hole) or in rendering
(presented frames skip).

hls.mjs is served to the page from a server of this script's own on 127.0.0.1 (a module is
loaded over HTTP with CORS, never from a file). Nothing but Python's standard library
(page_check.Browser speaks the DevTools protocol over a pipe).
"""
import argparse
import http.server
import json
import os
import shutil
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from page_check import Browser  # noqa: E402


def serve_module(path):
    """Serves `path` as /hls.mjs (JavaScript, CORS) on an ephemeral port; returns (server, url)."""
    body = open(path, "rb").read()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/javascript")
            self.send_header("Access-Control-Allow-Origin", "*")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/hls.mjs"


# Every frame the video presents, with the moment painted in it (`--frames`).
FRAMES = """(() => {
  v.style = 'position:fixed;left:0;top:0;width:640px;height:360px';
  window.benchFrames = [];
  const c = document.createElement('canvas');
  const onFrame = (now, m) => {
    if (v.videoWidth) benchFrames.push([Math.round(performance.timeOrigin + m.expectedDisplayTime), SidelinePatternClock.readVideo(v, c),
                                        Math.round(m.mediaTime * 1000), m.presentedFrames]);
    if (benchFrames.length > 40000) benchFrames.splice(0, 10000);
    v.requestVideoFrameCallback(onFrame);
  };
  v.requestVideoFrameCallback(onFrame);
  return 'ok';
})()"""

# The player, set up in the page: counters on window.r, playlists kept per level.
SETUP = """
(async () => {
  const { Hls } = await import(%(module)s);
  window.r = { parts: 0, fragments: 0, stalls: 0, fatal: null, errors: [], playlists: {}, loads: [] };
  const v = document.createElement('video');
  v.muted = true;
  document.body.appendChild(v);
  v.addEventListener('waiting', () => r.stalls++);
  const hls = new Hls({ lowLatencyMode: %(lowLatency)s, debug: false });
  window.hls = hls; window.v = v;
  hls.on(Hls.Events.FRAG_LOADED, (e, d) => {
    if (d.part) r.parts++; else r.fragments++;
    // What was loaded, when and from where (host:port and path), for a failover's account.
    const url = (d.part ? d.part.url : d.frag.url) || '';
    if (r.loads.length < 4000) r.loads.push([Date.now(), d.frag.sn, d.part ? d.part.index : -1, url.replace(/^https?:\/\//, '')]);
  });
  hls.on(Hls.Events.LEVEL_LOADED, (e, d) => {
    const text = d.networkDetails && d.networkDetails.responseText;
    if (text) r.playlists[d.level] = text;
  });
  hls.on(Hls.Events.ERROR, (e, d) => {
    const code = d.response && d.response.code;
    const url = (d.context && d.context.url) || d.url || '';
    if (r.errors.length < 20) r.errors.push(Date.now() + ' ' + d.details + (code ? ' ' + code : '') + (d.fatal ? ' (fatal)' : '') + (url ? ' ' + url.replace(/^https?:\/\/[^/]+/, '') : ''));
    if (d.fatal) r.fatal = d.details + ': ' + (d.reason || (d.error && d.error.message) || '');
  });
  hls.loadSource(%(url)s);
  hls.attachMedia(v);
  v.play().catch(() => {});
  return 'ok';
})()
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--hlsjs", default=".build-hlsjs/hls.mjs")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--warmup", type=float, default=6)
    parser.add_argument("--no-low-latency", action="store_true")
    parser.add_argument("--frames", action="store_true")
    args = parser.parse_args()
    if not os.path.isfile(args.hlsjs):
        print(json.dumps({"fatal": f"{args.hlsjs} is missing: scripts/ensure-deps.sh --hlsjs makes it"}))
        return 2
    module_server, module_url = serve_module(args.hlsjs)
    origin = urllib.parse.urlsplit(args.url)
    profile = tempfile.mkdtemp(prefix="sideline-hlsjs-")
    browser = Browser(shutil.which("chromium") or "chromium", profile)
    report = {"currentTime": 0, "latencies": [], "parts": 0, "fragments": 0, "stalls": 0, "fatal": None, "errors": [], "playlists": [], "loads": []}
    try:
        evaluate = browser.navigate(f"{origin.scheme}://{origin.netloc}/healthz")
        evaluate(SETUP % {"module": json.dumps(module_url), "url": json.dumps(args.url),
                          "lowLatency": "false" if args.no_low_latency else "true"})
        if args.frames:
            with urllib.request.urlopen(f"{origin.scheme}://{origin.netloc}/pattern-clock.js", timeout=10) as answer:
                evaluate(answer.read().decode())
            evaluate(FRAMES)
        started = time.monotonic()
        while time.monotonic() - started < args.seconds:
            time.sleep(0.5)
            seen = evaluate("({t: v.currentTime, d: hls.playingDate ? hls.playingDate.getTime() : null, now: Date.now(), fatal: r.fatal})")
            report["currentTime"] = seen["t"]
            if seen["fatal"]:
                break
            if time.monotonic() - started >= args.warmup and seen["d"]:
                report["latencies"].append(round((seen["now"] - seen["d"]) / 1000, 3))
        final = evaluate("r")
        for key in ("parts", "fragments", "stalls", "fatal", "errors", "loads"):
            report[key] = final[key]
        report["playlists"] = list(final["playlists"].values())
        if args.frames:
            report["frames"] = evaluate("benchFrames")
    finally:
        browser.close()
        module_server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
