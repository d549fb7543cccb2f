#!/usr/bin/env python3
"""Which ways of carrying a viewer's credential reach every request of which real player.

A private stream is only private if the player's playlist and segment requests carry the
credential too, and none of the players Sideline serves sends a header or cookie it was not
configured for. This script serves one short HLS stream (master, media playlist, segments, cut
from Samples/sample.mp4) four ways, runs each player on each, and prints a table: did it play,
and did every request it made carry the credential.

Ways:
  path        /access/SECRET/master.m3u8, relative URIs unchanged (what Sideline does)
  query       /master.m3u8?token=SECRET, relative URIs unchanged (the naive way)
  define      /master.m3u8?token=SECRET with EXT-X-DEFINE:QUERYPARAM="token" and {$token} in
              every URI (draft-pantos-hls-rfc8216bis, version 11)
  rewrite     /master.m3u8?token=SECRET, every URI rewritten per viewer to carry ?token=SECRET

    credential_ways.py [--players ffmpeg,playbin,playbin3,vlc,streamlink,chromium] [--json]

Needs ffmpeg; each player is skipped (and reported so) when it is not installed.
"""
import argparse
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

SECRET = "s3cr3t-viewer-credential"
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
WAYS = ["path", "query", "define", "rewrite"]


def make_stream(directory):
    """Six 2-second segments of the sample, copied (no encode), as one variant `v`."""
    os.makedirs(os.path.join(directory, "v"))
    subprocess.run(["ffmpeg", "-v", "error", "-i", os.path.join(ROOT, "Samples", "sample.mp4"), "-t", "12", "-c", "copy",
                    "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod", "-hls_segment_filename",
                    os.path.join(directory, "v", "seg%d.ts"), os.path.join(directory, "v", "index.m3u8")], check=True)
    codecs = 'CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720'
    with open(os.path.join(directory, "master.m3u8"), "w") as f:
        f.write(f"#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-STREAM-INF:BANDWIDTH=3000000,{codecs}\nv/index.m3u8\n")


class Log:
    def __init__(self):
        self.lock = threading.Lock()
        self.requests = []

    def add(self, path, credentialed, status):
        with self.lock:
            self.requests.append((path, credentialed, status))

    def take(self):
        with self.lock:
            taken, self.requests = self.requests, []
            return taken


def handler_for(directory, log):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_GET(self):
            parsed = urllib.parse.urlsplit(self.path)
            query = urllib.parse.parse_qs(parsed.query)
            path = parsed.path
            if path == "/page.html":
                return self.send(200, "text/html", b"<!doctype html><video id=v muted autoplay></video>")
            way, _, rest = path.lstrip("/").partition("/")
            credentialed = query.get("token") == [SECRET]
            if way == "path":
                prefix = f"access/{SECRET}/"
                credentialed = rest.startswith(prefix)
                rest = rest[len(prefix):] if credentialed else rest
            file = os.path.normpath(os.path.join(directory, rest))
            if not file.startswith(directory) or not os.path.isfile(file):
                log.add(path, credentialed, 404)
                return self.send(404, "text/plain", b"no such file\n")
            if not credentialed:
                log.add(path, False, 401)
                return self.send(401, "text/plain", b"credential missing\n")
            log.add(path, True, 200)
            body = open(file, "rb").read()
            if file.endswith(".m3u8"):
                body = self.shape(body.decode(), way, is_master=file.endswith("master.m3u8")).encode()
                return self.send(200, "application/vnd.apple.mpegurl", body)
            return self.send(200, "video/mp2t", body)

        def shape(self, text, way, is_master):
            uri = re.compile(r"^(?!#)(\S+)$", re.M)
            if way == "define":
                head = '#EXT-X-DEFINE:QUERYPARAM="token"' if is_master else '#EXT-X-DEFINE:QUERYPARAM="token"'
                text = text.replace("#EXT-X-VERSION:3", "#EXT-X-VERSION:11\n" + head)
                if "#EXT-X-VERSION" not in text:
                    text = text.replace("#EXTM3U", "#EXTM3U\n#EXT-X-VERSION:11\n" + head, 1)
                return uri.sub(lambda m: m.group(1) + "?token={$token}", text)
            if way == "rewrite":
                return uri.sub(lambda m: m.group(1) + "?token=" + SECRET, text)
            return text

        def send(self, status, kind, body):
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Access-Control-Allow-Origin", "*")
            self.end_headers()
            self.wfile.write(body)

    return Handler


def master_url(port, way):
    if way == "path":
        return f"http://127.0.0.1:{port}/path/access/{SECRET}/master.m3u8"
    return f"http://127.0.0.1:{port}/{way}/master.m3u8?token={SECRET}"


def run(command, seconds):
    """Runs a player for at most `seconds`; True when it exited 0 or was still playing."""
    try:
        process = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=seconds)
        return process.returncode == 0
    except subprocess.TimeoutExpired:
        return True


def chromium_plays(url, port, seconds=10):
    sys.path.insert(0, os.path.join(ROOT, "Tests", "Helpers"))
    from page_check import Browser
    profile = tempfile.mkdtemp(prefix="sideline-ways-")
    browser = Browser(shutil.which("chromium"), profile)
    try:
        evaluate = browser.open(f"http://127.0.0.1:{port}/page.html")
        evaluate(f"const v = document.getElementById('v'); v.src = {json.dumps(url)}; v.play().catch(() => {{}}); 0")
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if (evaluate("document.getElementById('v').currentTime") or 0) > 2:
                return True
            time.sleep(0.5)
        return False
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)


VLC_AS_USER = ["runuser", "-u", "nobody", "--", "env", "HOME=/tmp"] if os.geteuid() == 0 else []

PLAYERS = {
    # Each plays (or tries to) for a bounded time; success: exit 0 or still playing at the end,
    # judged together with the server's log (a player that got 401s did not play the stream).
    "ffmpeg": (["ffmpeg"], lambda url, port: run(["ffmpeg", "-v", "error", "-i", url, "-t", "6", "-f", "null", "-"], 20)),
    "playbin": (["gst-launch-1.0"], lambda url, port: run(["gst-launch-1.0", "-q", "playbin", f"uri={url}", "video-sink=fakesink", "audio-sink=fakesink"], 10)),
    "playbin3": (["gst-launch-1.0"], lambda url, port: run(["gst-launch-1.0", "-q", "playbin3", f"uri={url}", "video-sink=fakesink", "audio-sink=fakesink"], 10)),
    # VLC refuses to run as root; as nobody it needs a HOME it may write.
    "vlc": (["cvlc"], lambda url, port: run(VLC_AS_USER + ["cvlc", "--intf", "dummy", "--vout", "dummy", "--aout", "dummy", "--play-and-exit", "--run-time", "6", url], 15)),
    "streamlink": (["streamlink"], lambda url, port: run(["streamlink", "--hls-duration", "6", "-f", "-o", "/dev/null", "hls://" + url, "best"], 20)),
    "chromium": (["chromium"], lambda url, port: chromium_plays(url, port)),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", default=",".join(PLAYERS))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    directory = tempfile.mkdtemp(prefix="sideline-ways-")
    make_stream(directory)
    log = Log()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler_for(directory, log))
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    results = {}
    for player in args.players.split(","):
        needs, play = PLAYERS[player]
        if not all(shutil.which(n) for n in needs):
            results[player] = {way: "not installed" for way in WAYS}
            continue
        results[player] = {}
        for way in WAYS:
            log.take()
            played = play(master_url(port, way), port)
            requests = log.take()
            segments = [r for r in requests if r[0].endswith(".ts")]
            refused = [r for r in requests if r[2] == 401]
            ok = played and segments and not refused
            results[player][way] = {"works": bool(ok), "requests": len(requests), "segments": len(segments), "refused": len(refused),
                                    "exitedWell": played}
    server.shutdown()
    shutil.rmtree(directory, ignore_errors=True)
    if args.json:
        print(json.dumps(results, indent=1))
        return
    print(f"{'player':<11}" + "".join(f"{w:<24}" for w in WAYS))
    for player, row in results.items():
        cells = []
        for way in WAYS:
            r = row[way]
            cells.append(r if isinstance(r, str) else f"{'yes' if r['works'] else 'NO'} ({r['segments']} seg, {r['refused']} 401)")
        print(f"{player:<11}" + "".join(f"{c:<24}" for c in cells))


if __name__ == "__main__":
    main()
