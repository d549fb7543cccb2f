#!/usr/bin/env python3
"""Drives Sideline's page (/) in headless Chromium, as an analyst would, and prints what it saw
as one JSON object. Speaks the DevTools protocol over --remote-debugging-pipe (file descriptors
3 and 4, NUL-separated JSON), so it needs nothing beyond Python's standard library.

    page_check.py URL --token TOKEN --label LABEL --downloads DIR [--seconds 6] [--viewer-token T]

Steps, each reported in the JSON:
  - the page loads and says whether the browser plays HLS itself (nativeHLS);
  - the video's currentTime, twice, `seconds` apart (played: how far it advanced);
  - where it plays 4 s after a seek to second 1 of the recording, and in which mode (afterSeek);
  - a marker added through the page's own Mark action (markStatus, the HTTP status);
  - a clip of 2-8 s downloaded through the page's clip link (clipPath).
Exit status 0 whenever the browser could be driven; the caller judges the figures.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self, binary, profile):
        # Chromium reads commands from fd 3 and writes replies and events to fd 4.
        # Every end above 9, so that putting the browser's two ends on 3 and 4 in the child
        # cannot overwrite another end (os.pipe may well return 3 and 4 themselves).
        import fcntl

        def high(fd):
            moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
            os.close(fd)
            return moved

        to_browser_r, self.to_browser = map(high, os.pipe())
        self.from_browser, from_browser_w = map(high, os.pipe())

        # In the child, after fork: the pipe ends become fds 3 and 4 (dup2 leaves them open
        # across exec; every other descriptor of ours is close-on-exec).
        def wire():
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        self.process = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--autoplay-policy=no-user-gesture-required", "--mute-audio", "--no-first-run",
             "--user-data-dir=" + profile, "about:blank"],
            preexec_fn=wire, close_fds=False,
            stdout=subprocess.DEVNULL, stderr=open(os.environ.get("PAGE_CHECK_BROWSER_LOG", os.devnull), "w"))
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None, timeout=30):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            reply = self.read(deadline - time.monotonic())
            if reply is None:
                break
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)
        raise TimeoutError(f"no reply to {method} within {timeout} s")

    def read(self, timeout):
        import select
        while b"\0" not in self.buffer:
            ready, _, _ = select.select([self.from_browser], [], [], max(0, timeout))
            if not ready:
                return None
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError("the browser closed its pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def wait_event(self, method, timeout, predicate=lambda e: True):
        deadline = time.monotonic() + timeout
        while True:
            for event in self.events:
                if event.get("method") == method and predicate(event):
                    self.events.remove(event)
                    return event
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            event = self.read(remaining)
            if event is not None:
                self.events.append(event)

    def open(self, url):
        """A new tab at `url`, once loaded; returns a function that evaluates JavaScript in it
        and gives back the value."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.send("Page.enable", session=session)
        self.send("Page.navigate", {"url": url}, session=session)
        self.wait_event("Page.loadEventFired", 30)

        def evaluate(expression):
            return self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=session)["result"].get("value")
        return evaluate

    def navigate(self, url, downloads=None):
        """A new tab at `url`, once loaded (downloads saved into `downloads`, when given); returns
        evaluate(expression, timeout=30), which awaits a promise's value and raises on a
        JavaScript exception."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        if downloads:
            self.send("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads, "eventsEnabled": True})
        self.send("Page.enable", session=session)
        self.send("Page.navigate", {"url": url}, session=session)
        self.wait_event("Page.loadEventFired", 30)

        def evaluate(expression, timeout=30):
            result = self.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True},
                               session=session, timeout=timeout)
            if "exceptionDetails" in result:
                raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
            return result["result"].get("value")
        return evaluate

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--token", required=True)
    parser.add_argument("--label", required=True)
    parser.add_argument("--downloads", required=True)
    parser.add_argument("--seconds", type=float, default=6)
    parser.add_argument("--viewer-token", help="type this viewer token into the page first (a private stream)")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    args = parser.parse_args()

    profile = tempfile.mkdtemp(prefix="sideline-page-")
    browser = Browser(args.chromium, profile)
    report = {}
    try:
        evaluate = browser.navigate(args.url, downloads=args.downloads)

        # The page's first listing of streams and sets: what it shows locked is known then
        # (read before it settled, a private stream was once not yet listed at all).
        evaluate("Promise.resolve(sideline.ready).then(() => true)")
        report["title"] = evaluate("document.title")
        if args.viewer_token:
            # As a viewer would: the page shows the private stream locked and asks for its token.
            report["lockedBefore"] = evaluate("sideline.state.access.locked")
            report["unlocked"] = evaluate(f"sideline.unlock({json.dumps(args.viewer_token)})")
        report["nativeHLS"] = evaluate("document.querySelector('video').canPlayType('application/vnd.apple.mpegurl')")
        # Playing: wait for the first frame, then measure how far the position moves.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not evaluate("document.querySelector('video').currentTime > 0"):
            time.sleep(0.5)
        first = evaluate("document.querySelector('video').currentTime")
        started = time.monotonic()
        time.sleep(args.seconds)
        second = evaluate("document.querySelector('video').currentTime")
        report["currentTime"] = [first, second]
        report["played"] = second - first
        report["wallSeconds"] = time.monotonic() - started
        report["videoError"] = evaluate("document.querySelector('video').error && document.querySelector('video').error.message")
        # Scrubbing back to second 1 of the recording (the scrub bar calls the same function):
        # in place where the player can seek there, else in replay (the VOD rendition).
        evaluate("sideline.seek(1)")
        time.sleep(4)
        report["afterSeek"] = evaluate("[document.querySelector('video').currentTime, sideline.state.playback.mode]")
        # A marker through the page's own Mark action (the button calls the same function).
        evaluate(f"document.getElementById('token').value = {json.dumps(args.token)}")
        marked = evaluate(f"sideline.mark({json.dumps(args.label)}, 0)")
        report["markStatus"] = marked["status"]
        report["markBody"] = marked["body"]
        # A clip through the page's clip link.
        report["clipURL"] = evaluate("sideline.clipURL(2, 8)")
        evaluate("document.getElementById('clip-link').click()")
        done = browser.wait_event("Browser.downloadProgress", 60, lambda e: e["params"].get("state") in ("completed", "canceled"))
        if done and done["params"]["state"] == "completed":
            names = [n for n in os.listdir(args.downloads) if not n.endswith(".crdownload")]
            report["clipPath"] = os.path.join(args.downloads, names[0]) if names else None
        else:
            report["clipPath"] = None
            report["clipState"] = done and done["params"]["state"]
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)
    print(json.dumps(report))


if __name__ == "__main__":
    sys.exit(main())
