#!/usr/bin/env python3
"""Opens Sideline's page on an angle set in headless Chromium and prints, as one JSON object,
how far apart its angles play, live, after one angle stalls, after a seek back and with one
angle made large: from the players' positions (the page's own `sideline.sync()`: spread from
currentTime, 100 ms samples) and on screen, from the built-in test pattern's clock
(PatternClock: two rows of 32 blocks at the bottom, 1/18 of the height each) read back from
every tile through a canvas every 200 ms. Meant for a set of test-pattern angles; checked by
hand and by the issue 28 benchmark, not run by the test suite.

    page_set_check.py URL_OF_THE_PAGE_ON_THE_SET [--seconds 20] [--token ANALYST_TOKEN]

`URL` such as http://127.0.0.1:8080/?set=match. With --token the page's Mark action marks
the set once (markStatus). Chromium showed off-screen tiles' frames 170-315 ms late, so the
viewport is made 1600x1000 to keep every tile on screen.
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from page_check import Browser  # noqa: E402

# The milliseconds each visible tile's pattern shows (null where the strip does not read).
READ_CLOCKS = r"""
(() => {
  const out = [], c = document.createElement('canvas');
  for (const v of document.querySelectorAll('#angles figure:not([hidden]) video')) {
    const w = v.videoWidth, h = v.videoHeight;
    if (!w || !h) { out.push(null); continue; }
    c.width = w; c.height = h;
    const g = c.getContext('2d', { willReadFrequently: true });
    g.drawImage(v, 0, 0, w, h);
    const px = g.getImageData(0, 0, w, h).data, levels = [];
    for (let i = 0; i < 64; i++) {
      const row = Math.floor(i / 32), col = i % 32;
      const x0 = Math.floor(col * w / 32), x1 = Math.floor((col + 1) * w / 32);
      const y0 = Math.floor((16 + row) * h / 18), y1 = Math.floor((17 + row) * h / 18);
      const ix = Math.floor((x1 - x0) / 4), iy = Math.floor((y1 - y0) / 4);
      let sum = 0, n = 0;
      for (let y = y0 + iy; y < Math.max(y0 + iy + 1, y1 - iy); y++) for (let x = x0 + ix; x < Math.max(x0 + ix + 1, x1 - ix); x++) {
        const k = (y * w + x) * 4; sum += 0.299 * px[k] + 0.587 * px[k + 1] + 0.114 * px[k + 2]; n++;
      }
      levels.push(sum / n);
    }
    if (levels[0] - levels[1] < 48) { out.push(null); continue; }
    const threshold = (levels[0] + levels[1]) / 2;
    let ms = 0;
    for (let i = 2; i < 50; i++) ms = ms * 2 + (levels[i] > threshold ? 1 : 0);
    out.push(ms);
  }
  return out;
})()
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--token")
    args = parser.parse_args()
    profile = tempfile.mkdtemp(prefix="sideline-set-")
    browser = Browser(shutil.which("chromium") or "chromium", profile)
    report = {}
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        browser.send("Emulation.setDeviceMetricsOverride", {"width": 1600, "height": 1000, "deviceScaleFactor": 1, "mobile": False}, session=session)
        browser.send("Page.enable", session=session)
        browser.send("Network.enable", session=session)
        browser.send("Page.navigate", {"url": args.url}, session=session)
        browser.wait_event("Page.loadEventFired", 30)

        def evaluate(expression):
            result = browser.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}, session=session)
            return result["result"].get("value")

        deadline = time.monotonic() + 40
        while time.monotonic() < deadline and not evaluate(
                "sideline.state.grid.angles.length > 1 && [...document.querySelectorAll('#angles figure:not([hidden]) video')].every(v => v.currentTime > 0)"):
            time.sleep(0.5)
        report["angles"] = evaluate("sideline.state.grid.angles.map(a => a.stream)")

        def measure(label, seconds):
            evaluate("sideline.state.sync.spreads.length = 0")
            screen, unread = [], 0
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                clocks = evaluate(READ_CLOCKS)
                if clocks and all(c is not None for c in clocks):
                    screen.append(max(clocks) - min(clocks))
                else:
                    unread += 1
                time.sleep(0.2)
            screen.sort()
            q = lambda p: screen[min(len(screen) - 1, int(p * len(screen)))] if screen else None
            sync = evaluate("sideline.sync()")
            report[label] = {"currentTimeSpreadMs": {k: None if sync[k] is None else round(sync[k] * 1000, 1) for k in ("p50", "p99", "max")},
                             "samples": sync["samples"], "leader": sync["leader"], "rejoins": sync["rejoins"],
                             "screenSpreadMs": {"reads": len(screen), "unread": unread, "p50": q(0.5), "p99": q(0.99), "max": screen[-1] if screen else None},
                             "mode": evaluate("sideline.state.playback.mode")}

        measure("live", args.seconds)
        # One angle stalls: its segments refused for 5 s (Chromium's player fails on it), then let through.
        last = report["angles"][-1]
        browser.send("Network.setBlockedURLs", {"urls": [f"*/{last}/*.ts"]}, session=session)
        time.sleep(5)
        browser.send("Network.setBlockedURLs", {"urls": []}, session=session)
        time.sleep(15)
        measure("afterStall", args.seconds / 2)
        # Back to second 4 of the recording (every angle: in place, or in replay).
        evaluate("sideline.seek(4)")
        time.sleep(3)
        measure("afterSeek", args.seconds / 2)
        evaluate("sideline.enlarge(1)")
        time.sleep(1)
        report["enlarged"] = evaluate("[document.querySelector('#angles').className, [...document.querySelectorAll('#angles figure')].map(f => f.className), "
                                      "[...document.querySelectorAll('#angles video')].map(v => v.muted)]")
        measure("large", args.seconds / 2)
        if args.token:
            evaluate(f"document.getElementById('token').value = {json.dumps(args.token)}")
            marked = evaluate("sideline.mark('Marked on the set from the page', 0)")
            report["markStatus"] = marked["status"]
            report["markersListed"] = evaluate("sideline.state.marks.list.length")
        report["clipURL"] = evaluate("sideline.clipURL(2, 8)")
        report["errors"] = evaluate("[...document.querySelectorAll('#angles video')].map(v => v.error && v.error.message)")
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    sys.exit(main())
