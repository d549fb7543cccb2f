#!/usr/bin/env python3
"""Drives Sideline's page on an angle set (/?set=NAME) in headless Chromium, as an analyst
would, and prints what a person sees as one JSON object (page_check.py's Browser, over the
DevTools protocol).

    set_view_check.py URL --set NAME --token ANALYST_TOKEN --label LABEL [--seconds 4] [--viewer-token TOKEN]

With --viewer-token, the page is unlocked with it first (a private set), as a viewer types it.

Steps, each reported in the JSON:
  - the picker's chosen entry and its text (picked, pickedLabel);
  - the tiles shown: their count, captions, and whether each is playing (tiles, captions);
  - how much of each tile's video played over `seconds` (advanced: one number per tile,
    forward steps of its clock read every 100 ms), the other steps of its clock (jumps) and
    the page's rejoins meanwhile (rejoins);
  - a click on the second tile makes it the large one, and a second click puts the grid back
    (largeAfterClick, classesAfterClick, largeAfterSecondClick);
  - a marker added through the page's Mark action goes to the set (markStatus, markBody).
Exit status 0 whenever the browser could be driven; the caller judges the figures.
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

TILES = "[...document.querySelectorAll('#angles figure:not([hidden])')]"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--set", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--viewer-token", help="typed into the page's unlock box first, for a private set")
    parser.add_argument("--label", required=True)
    parser.add_argument("--seconds", type=float, default=4)
    parser.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    args = parser.parse_args()

    profile = tempfile.mkdtemp(prefix="sideline-set-page-")
    browser = Browser(args.chromium, profile)
    report = {}
    try:
        evaluate = browser.navigate(f"{args.url}?set={args.set}")

        evaluate("Promise.resolve(sideline.ready).then(() => true)")
        if args.viewer_token:
            report["unlocked"] = evaluate(f"sideline.unlock({json.dumps(args.viewer_token)})")
        select = "document.getElementById('stream')"
        report["picked"] = evaluate(f"{select}.value")
        report["pickedLabel"] = evaluate(f"{select}.selectedOptions[0] && {select}.selectedOptions[0].textContent")
        # Every tile playing: its video past its first frame.
        deadline = time.monotonic() + 45
        while time.monotonic() < deadline and not evaluate(f"{TILES}.length > 1 && {TILES}.every(f => f.querySelector('video').currentTime > 0)"):
            time.sleep(0.5)
        report["tiles"] = evaluate(f"{TILES}.length")
        report["captions"] = evaluate(f"{TILES}.map(f => f.querySelector('figcaption').textContent)")
        # Played time, not the distance between two readings: the page may rejoin its angles
        # (load them all again) when they drift apart on a busy machine, which starts each
        # video's clock again (a CI run on 2026-12-07 read -4.8 and -0.5 s across one). So the
        # clock is read every 100 ms and only forward steps under a second are counted; the
        # other steps (a rejoin's reload, a sync seek) and the page's rejoins are reported.
        rejoins_before = evaluate("sideline.sync().rejoins")
        clock = f"{TILES}.map(f => f.querySelector('video').currentTime)"
        last = evaluate(clock)
        played = [0.0] * len(last)
        jumps = [0] * len(last)
        deadline = time.monotonic() + args.seconds
        while time.monotonic() < deadline:
            time.sleep(0.1)
            now = evaluate(clock)
            for i, (a, b) in enumerate(zip(last, now)):
                if 0 <= b - a < 1:
                    played[i] += b - a
                else:
                    jumps[i] += 1
            last = now
        report["advanced"] = played
        report["jumps"] = jumps
        report["rejoins"] = evaluate("sideline.sync().rejoins") - rejoins_before
        report["videoErrors"] = evaluate(f"{TILES}.map(f => f.querySelector('video').error && f.querySelector('video').error.message)")
        # The page's own account of its angles (what angle_sync.py and page_set_check.py read).
        report["syncAngles"] = evaluate("sideline.sync().angles.map(a => a.stream)")
        # The analyst clicks the second tile: it becomes the large one; again, and the grid is back.
        evaluate(f"{TILES}[1].click()")
        report["largeAfterClick"] = evaluate("sideline.state.grid.large")
        report["classesAfterClick"] = evaluate(f"[document.getElementById('angles').className, {TILES}.map(f => f.className)]")
        evaluate(f"{TILES}[1].click()")
        report["largeAfterSecondClick"] = evaluate("sideline.state.grid.large")
        # A marker through the page's own Mark action: on a set, it marks every angle.
        evaluate(f"document.getElementById('token').value = {json.dumps(args.token)}")
        marked = evaluate(f"sideline.mark({json.dumps(args.label)}, 0)")
        report["markStatus"] = marked["status"]
        report["markBody"] = marked["body"]
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)
    print(json.dumps(report))


if __name__ == "__main__":
    sys.exit(main())
