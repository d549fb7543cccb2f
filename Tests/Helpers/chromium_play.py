#!/usr/bin/env python3
"""Plays one HLS URL with headless Chromium's own HLS player, as a page's <video> would, and
prints how far it got as JSON: {"currentTime": seconds, "error": message or null}.

    chromium_play.py URL [--page PAGE_URL] [--seconds 12]

The video element is made on PAGE_URL (default: the URL's origin + /healthz), so the media
requests are what a page of that server would make. Nothing but Python's standard library
(page_check.Browser speaks the DevTools protocol over a pipe).
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from page_check import Browser  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--page")
    parser.add_argument("--seconds", type=float, default=12)
    args = parser.parse_args()
    origin = urllib.parse.urlsplit(args.url)
    page = args.page or f"{origin.scheme}://{origin.netloc}/healthz"
    profile = tempfile.mkdtemp(prefix="sideline-play-")
    browser = Browser(shutil.which("chromium") or "chromium", profile)
    report = {"currentTime": 0, "error": None}
    try:
        evaluate = browser.open(page)
        evaluate("window.v = document.createElement('video'); v.muted = true; document.body.appendChild(v); "
                 f"v.src = {json.dumps(args.url)}; v.play().catch(() => {{}}); 0")
        deadline = time.monotonic() + args.seconds
        while time.monotonic() < deadline:
            report["currentTime"] = evaluate("v.currentTime") or 0
            report["error"] = evaluate("v.error && v.error.message")
            if report["currentTime"] > 4 or report["error"]:
                break
            time.sleep(0.5)
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
