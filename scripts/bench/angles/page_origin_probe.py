#!/usr/bin/env python3
"""Where the page's live players really are (Docs/benchmarks.md, "Angle sync"): a probe, not a
test. It serves the angle sync benchmark's set (scripts/bench/angles/angle_sync.py: three test-pattern
angles, `wide` by the server and `tv`, `goal` pushed, or ANGLES=local), opens the page on it in
headless Chromium and loads it LOADS times, INTERVAL seconds apart (the page's own `load("live")`,
as a rejoin does). Once every player of a load plays, it reads for 2 s every frame each tile presents
(requestVideoFrameCallback: the frame's `mediaTime` and its capture clock, read from the
pattern), and prints per load:

 - how far apart the players started: max - min over the tiles of (truth + currentTime) at
   0.5 s, the moment each player's currentTime stands for;
 - per tile: where its position 0 really lies (`truth`: the median of clock - mediaTime, so
   tiles whose truths agree show the same moment at equal mediaTime), how far the page's
   guess from its requests (`guessed`) and the origin it uses (`origin`, `confirmed`) are from
   it once the page has confirmed every origin (or SETTLE seconds after the load), and how far
   after its video the audio of the segment it joined starts (ticks of 1/90000 s, ffprobe of
   the recorded segment). A pushed angle has no truth at the page's opening: it still shows
   its stand-in, which carries no clock;
 - per tile, its media events from the load on (`play`, `waiting`, `playing`, `error` with
   its message), each with the time since the load and the player's currentTime then.

    LOADS=4 INTERVAL=25 python3 scripts/bench/angles/page_origin_probe.py
    SIDELINE=/path/to/an/older/sideline python3 scripts/bench/angles/page_origin_probe.py

Environment: LOADS (4), INTERVAL (25), SETTLE (15), PAGE_STATE (JSON by concern, each assigned
to the page's state of that name before the forced loads, e.g. {"sync": {...}}: a setting of
the page to try), and angle_sync.py's (ANGLES,
STAGGER, RUNG_*, SIDELINE, WORK). Needs ffmpeg and chromium. Everything started is stopped by
its PID.
"""
import importlib.util
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("angle_sync", os.path.join(HERE, "angle_sync.py"))
angle_sync = importlib.util.module_from_spec(spec)
spec.loader.exec_module(angle_sync)
sys.path.insert(0, os.path.join(angle_sync.REPO, "Tests/Helpers"))
from page_check import Browser  # noqa: E402

TILES = "[...document.querySelectorAll('#angles figure:not([hidden]) video')]"
RECORDER = f"""(() => {{
  window.probeFrames = [];
  {TILES}.forEach((v, i) => {{
    const c = document.createElement('canvas');
    // A reader that throws is recorded, and the chain goes on: the callback asks for the next
    // frame whatever happened to this one.
    const onFrame = (now, m) => {{
      try {{
        if (v.videoWidth && probeFrames.length < 20000) probeFrames.push([i, m.mediaTime, SidelinePatternClock.readVideo(v, c)]);
      }} catch (e) {{ probeFrames.push([i, m.mediaTime, null, String(e)]); }}
      v.requestVideoFrameCallback(onFrame);
    }};
    v.requestVideoFrameCallback(onFrame);
  }});
}})()"""
# Each player's media events with the time (performance.now()) and its currentTime then: how a
# load starts them (whether they start at different moments or from different positions).
EVENTS = f"""(() => {{
  window.probeEvents = [];
  {TILES}.forEach((v, i) => ['emptied', 'canplay', 'canplaythrough', 'play', 'playing', 'waiting', 'seeking', 'seeked', 'pause', 'error'].forEach((e) =>
    v.addEventListener(e, () => probeEvents.push([i, e === 'error' && v.error ? `error ${{v.error.code}} ${{v.error.message}}` : e, performance.now(), v.currentTime, v.readyState]))));
}})()"""
SNAPSHOT = f"""(() => {{
  const c = document.createElement('canvas');
  return {TILES}.map((v, i) => {{ const a = sideline.state.grid.angles[i];
    return {{ stream: a.stream, ct: v.currentTime, clock: SidelinePatternClock.readVideo(v, c), origin: a.origin, guessed: a.guessed, confirmed: !!a.confirmed }}; }});
}})()"""


def audio_offset(run, stream, date_ms):
    """Ticks from the first video packet to the first audio packet of `stream`'s segment dated
    `date_ms`, or None."""
    playlist = run.get(f"/live/{stream}/{run.rung}/index.m3u8").decode()
    for _, pdt, uri, _ in angle_sync.parse_playlist(playlist):
        if pdt is not None and abs(pdt - date_ms) < 50 and uri:
            path = f"{run.work}/data/{stream}/{run.rung}/{uri.split('?')[0]}"
            out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "packet=stream_index,pts", "-of", "csv=p=0", path],
                                 capture_output=True, text=True, timeout=30).stdout
            first = {}
            for line in out.splitlines():
                fields = line.split(",")
                if len(fields) > 1 and fields[1].strip().isdigit():
                    first.setdefault(fields[0], int(fields[1]))
            return first["1"] - first["0"] if "0" in first and "1" in first else None
    return None


def main():
    loads, interval = angle_sync.env("LOADS", 4), angle_sync.env("INTERVAL", 25.0)
    settle = angle_sync.env("SETTLE", 15.0)
    run = angle_sync.Run()
    run.configure()
    print(f"page origin probe: ANGLES={run.mode}, {loads} loads {interval} s apart, sideline {run.sideline}, work {run.work}", flush=True)
    browser = None
    try:
        run.start_angles()
        browser = Browser(shutil.which("chromium") or "chromium", tempfile.mkdtemp(prefix="probe-chromium-", dir=run.work))
        run.processes.append(browser.process)
        # The reader as the server serves it is evaluated through DevTools: the page's CSP allows
        # only its own scripts, and this one it serves but does not load.
        evaluate = angle_sync.open_set_page(browser, run.base)
        evaluate(run.get("/pattern-clock.js").decode())
        evaluate(RECORDER)
        evaluate(EVENTS)
        # PAGE_STATE: settings of the page's state to try (JSON), assigned before the forced loads.
        evaluate(f"for (const [concern, values] of Object.entries({os.environ.get('PAGE_STATE', '{}')})) Object.assign(sideline.state[concern], values)")
        for load in range(loads + 1):
            started = time.monotonic()
            since = evaluate("performance.now()") if load else 0
            evaluate("probeEvents.length = 0")
            if load:
                evaluate('load("live", null)')
            # The start: once every player of this load plays, currentTime at 0.5 s and the
            # true origins from the frames of 0-2 s.
            playing = f"{TILES}.every((v, i) => sideline.state.grid.angles[i].loadedAt >= {since} && !v.paused && v.currentTime > 0.3)"
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and not evaluate(playing):
                time.sleep(0.1)
            rejoins = evaluate("sideline.state.sync.rejoin.count")
            evaluate("probeFrames.length = 0")
            time.sleep(0.5)
            start = evaluate(SNAPSHOT)
            time.sleep(1.5)
            frames = evaluate("probeFrames.splice(0)") or []
            failed = {f[0]: f[3] for f in frames if len(f) > 3}
            if failed:
                print(f"    the reader threw: {failed}")
            frames = [f[:3] for f in frames]
            truths = {}
            for i in range(len(start)):
                values = [clock - media * 1000 for tile, media, clock in frames if tile == i and clock is not None]
                truths[i] = statistics.median(values) if values else None
            standing = [truths[i] + t["ct"] * 1000 for i, t in enumerate(start) if truths[i] is not None]
            spread = round(max(standing) - min(standing)) if len(standing) == len(start) else None
            # The page's origins, once it has confirmed them (or SETTLE s after the load).
            deadline = started + settle
            while time.monotonic() < deadline and not evaluate("sideline.state.grid.angles.every((a) => a.confirmed)"):
                time.sleep(0.2)
            later = evaluate(SNAPSHOT)
            rejoined = evaluate("sideline.state.sync.rejoin.count") != rejoins
            print(f"load {load} ({'the page opening' if load == 0 else 'forced'}): players started {spread} ms apart by currentTime"
                  + (" (the page rejoined them before its origins were read: those are of a later load)" if rejoined else ""))
            events = evaluate("probeEvents.splice(0)") or []
            for i in range(len(start)):
                mine = [f"{name} {round(at - since)} ms (ct {ct:.3f}, ready {ready})" for tile, name, at, ct, ready in events
                        if tile == i and (name in ("canplay", "play", "playing", "waiting", "seeking", "pause") or name.startswith("error"))][:10]
                print(f"    events of tile {i}: {'; '.join(mine) or 'none'}")
            base = truths.get(0)
            for i, tile in enumerate(later):
                truth = truths.get(i)

                def off(value):
                    return "-" if truth is None or not isinstance(value, (int, float)) else f"{round(value - truth):+d} ms"
                print(f"    {tile['stream']}: truth {'-' if truth is None else round(truth)}"
                      f" ({'-' if truth is None or base is None else f'{round(truth - base):+d} ms'} from the first tile); once the page confirmed (or at {settle:.0f} s): guessed {off(tile.get('guessed'))}, "
                      f"origin {off(tile['origin'])} (confirmed {tile['confirmed']}); joined segment's audio starts "
                      f"{audio_offset(run, tile['stream'], round(truth / 2000) * 2000) if truth is not None else '-'} ticks after its video", flush=True)
            time.sleep(max(0, interval - (time.monotonic() - started)))
    finally:
        if browser:
            browser.close()
        for process in reversed(run.processes):
            run.stop(process, signal.SIGINT if process is run.processes[0] or "push" in str(process.args) else signal.SIGTERM, 20)


if __name__ == "__main__":
    sys.exit(main())
