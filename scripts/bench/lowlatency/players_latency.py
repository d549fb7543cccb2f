#!/usr/bin/env python3
"""The players that do not do low latency, with parts on and off (issue 34; Docs/benchmarks.md,
"Issue 34: the players without low latency"). Not a test: it prints figures beside their
anchor, measured in the same run, for the reader to judge.

Issue 34's promise to ffmpeg, GStreamer and Chromium's native HLS is "no further behind than
today". Today is the same server with `part_duration: 0`, so that is the anchor. A release
`sideline serve` on 127.0.0.1 runs the test pattern with the default ladder, once with the
default part duration and once with parts off, the two sides alternating for ROUNDS rounds
(the first side of each round swapped, so neither always runs on a cooler machine). On each,
SERVER_WARMUP seconds after the stream is live, one player after another plays the master for
PLAYER_SECONDS and its lags after its first PLAYER_WARMUP seconds are kept:

  - ffmpeg   the ffmpeg CLI, `-re`, frames as they leave the decoder;
  - playbin3 GStreamer's playbin3 (hlsdemux2), an appsink that syncs to the pipeline clock;
  - playbin  GStreamer's playbin (hlsdemux), the same;
  - chromium Chromium's native HLS: a <video> on the server's origin, its frame drawn to a
             canvas every 100 ms.

A lag is the wall clock when the frame is shown minus the capture time the test pattern
painted into it (the pattern clock, read as in scripts/bench/angles/angle_sync.py): glass to
glass, the encoder and the player's buffer included.

    ROUNDS=2 PLAYER_SECONDS=60 scripts/bench/lowlatency/players_latency.py

Environment: ROUNDS (2), PLAYER_SECONDS (60), PLAYER_WARMUP (20), SERVER_WARMUP (20),
PLAYERS (ffmpeg,playbin3,playbin,chromium), SIDELINE (.build-release/release/sideline).
Needs ffmpeg, chromium and Debian's python3-gi with GStreamer (scripts/ensure-deps.sh --test).
Every wait is bounded; everything started is stopped by its PID.
"""
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts/bench/angles"))
sys.path.insert(0, os.path.join(ROOT, "Tests/Helpers"))
import angle_sync  # noqa: E402
from angle_sync import open_page  # noqa: E402
from ll_latency import free_port, percentile, wait_ok  # noqa: E402

ROUNDS = int(os.environ.get("ROUNDS", "2"))
PLAYER_SECONDS = float(os.environ.get("PLAYER_SECONDS", "60"))
PLAYER_WARMUP = float(os.environ.get("PLAYER_WARMUP", "20"))
SERVER_WARMUP = float(os.environ.get("SERVER_WARMUP", "20"))
PLAYERS = os.environ.get("PLAYERS", "ffmpeg,playbin3,playbin,chromium").split(",")
SIDELINE = os.environ.get("SIDELINE", os.path.join(ROOT, ".build-release/release/sideline"))
# Frames are read at this size: every player scales the 720p rung down to it (the clock's
# blocks are a ninth of the height: plenty at 270 lines).
WIDTH, HEIGHT = 480, 270


def ffmpeg_lags(url, work):
    lags, unread = angle_sync.ffmpeg_lags(url, WIDTH, HEIGHT, PLAYER_SECONDS, os.path.join(work, "ffmpeg.log"), warmup=PLAYER_WARMUP)
    return lags, f"unread {unread}"


def gstreamer_lags(url, element):
    out = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts/bench/angles/angle_sync.py"), "--gstreamer", url,
                          str(PLAYER_SECONDS), str(WIDTH), str(HEIGHT), element, str(PLAYER_WARMUP)],
                         capture_output=True, text=True, timeout=PLAYER_SECONDS + 60)
    try:
        result = json.loads(out.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return [], f"no result: {out.stderr[-400:]}"
    return result.get("lags", []), result.get("error") or f"unread {result.get('unread')}"


def chromium_lags(base, path, work):
    from page_check import Browser
    profile = tempfile.mkdtemp(prefix="players-latency-chromium-", dir=work)
    browser = Browser(shutil.which("chromium") or "chromium", profile)
    try:
        # The server's own origin, so that the canvas may read the video's pixels.
        evaluate = open_page(browser, f"{base}/healthz")
        evaluate(urllib.request.urlopen(f"{base}/pattern-clock.js", timeout=5).read().decode())
        if evaluate("document.createElement('video').canPlayType('application/vnd.apple.mpegurl')") == "":
            return [], "this Chromium has no native HLS"
        evaluate(f"""(() => {{ const v = document.createElement('video'); v.muted = true; v.autoplay = true; v.playsInline = true;
                   v.style = 'position:fixed;left:0;top:0;width:1280px;height:720px'; v.src = '{path}';
                   document.body.appendChild(v); window.benchVideo = v; window.benchCanvas = document.createElement('canvas'); }})()""")
        lags, unread, begin = [], 0, time.monotonic()
        while time.monotonic() < begin + PLAYER_SECONDS:
            time.sleep(0.1)
            browser.events.clear()
            sample = evaluate("({now: Date.now(), clock: SidelinePatternClock.readVideo(benchVideo, benchCanvas), error: benchVideo.error && benchVideo.error.message})")
            if not sample or time.monotonic() - begin < PLAYER_WARMUP:
                continue
            if sample.get("clock") is None:
                unread += 1
            else:
                lags.append(sample["now"] - sample["clock"])
        error = evaluate("benchVideo.error && benchVideo.error.message")
        return lags, f"unread {unread}" + (f", error {error}" if error else "")
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)


def run_side(parts_on, work):
    """One server with parts on or off; every player in turn. Returns {player: (lags, note)}."""
    side = os.path.join(work, "on" if parts_on else "off")
    os.makedirs(side, exist_ok=True)
    with open(os.path.join(side, "sideline.yaml"), "w") as f:
        f.write("stream: {name: main, input: testpattern}\n" + ("" if parts_on else "part_duration: 0\n"))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([SIDELINE, "serve", "--config", os.path.join(side, "sideline.yaml"), "--host", "127.0.0.1", "--port", str(port),
                               "--data-dir", os.path.join(side, "data")], stdout=subprocess.DEVNULL, stderr=open(os.path.join(side, "sideline.log"), "w"))
    results = {}
    try:
        wait_ok(f"{base}/live/main/master.m3u8", 60)
        time.sleep(SERVER_WARMUP)
        playlist = urllib.request.urlopen(f"{base}/live/main/720p/index.m3u8", timeout=5).read().decode()
        if ("#EXT-X-PART-INF" in playlist) != parts_on:
            raise SystemExit(f"the {'parts-on' if parts_on else 'parts-off'} server's playlist says otherwise: {playlist[:400]}")
        url = f"{base}/live/main/master.m3u8"
        for player in PLAYERS:
            if player == "ffmpeg":
                results[player] = ffmpeg_lags(url, side)
            elif player in ("playbin3", "playbin"):
                results[player] = gstreamer_lags(url, player)
            elif player == "chromium":
                results[player] = chromium_lags(base, "/live/main/master.m3u8", side)
            else:
                raise SystemExit(f"PLAYERS: unknown player {player!r} (ffmpeg, playbin3, playbin, chromium)")
            lags, note = results[player]
            print(f"  parts {'on ' if parts_on else 'off'} {player:<9} p50 {percentile(lags, 0.5) / 1000:6.3f} s  p99 {percentile(lags, 0.99) / 1000:6.3f} s  "
                  f"({len(lags)} frames, {note})", flush=True)
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)
    return results


def main():
    if not os.path.isfile(SIDELINE):
        raise SystemExit(f"{SIDELINE} is missing: swift build -c release --product sideline --scratch-path .build-release")
    work = tempfile.mkdtemp(prefix="sideline-players-latency-")
    print(f"players_latency: ROUNDS={ROUNDS}, PLAYER_SECONDS={PLAYER_SECONDS:g}, PLAYER_WARMUP={PLAYER_WARMUP:g}, SERVER_WARMUP={SERVER_WARMUP:g}; "
          f"{time.strftime('%H:%M', time.gmtime())} UTC, load average before {' '.join(open('/proc/loadavg').read().split()[:3])}", flush=True)
    p50s = {(player, on): [] for player in PLAYERS for on in (True, False)}
    p99s = {(player, on): [] for player in PLAYERS for on in (True, False)}
    try:
        for round_ in range(ROUNDS):
            print(f"round {round_ + 1}", flush=True)
            for on in ((True, False) if round_ % 2 == 0 else (False, True)):
                for player, (lags, _) in run_side(on, work).items():
                    if lags:
                        p50s[(player, on)].append(percentile(lags, 0.5))
                        p99s[(player, on)].append(percentile(lags, 0.99))
    finally:
        print(f"load average after {' '.join(open('/proc/loadavg').read().split()[:3])}", flush=True)
    print("median over rounds of each side's p50 and p99, seconds behind the camera; the anchor is parts off (today)")
    print(f"{'player':<10} {'p50 on':>8} {'p50 off':>8} {'ratio':>6}   {'p99 on':>8} {'p99 off':>8} {'ratio':>6}")
    for player in PLAYERS:
        def med(values):
            return statistics.median(values) / 1000 if values else float("nan")
        on50, off50, on99, off99 = med(p50s[(player, True)]), med(p50s[(player, False)]), med(p99s[(player, True)]), med(p99s[(player, False)])
        print(f"{player:<10} {on50:8.3f} {off50:8.3f} {on50 / off50 if off50 else float('nan'):6.2f}   "
              f"{on99:8.3f} {off99:8.3f} {on99 / off99 if off99 else float('nan'):6.2f}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
