#!/usr/bin/env python3
"""A venue's worth of low-latency HLS players, played the way hls.js asks in `lowLatencyMode`,
against one or more base URLs (an origin, an edge): a load generator that measures what each
player gets. Not a test: it prints figures for the reader to judge, each beside its anchor
(the rate the playlist's PART-TARGET allows, the part target itself).

One player (hls.js 1.6 with lowLatencyMode, CMCD in query mode):

  1. GETs the media playlist `<base>/live/<STREAM>/<rung>/index.m3u8` once (the rung RUNG, or
     the lowest BANDWIDTH the master lists), and starts START_PARTS (3: PART-HOLD-BACK) parts
     behind the newest listed.
  2. Then, each time a playlist answer arrives, at once and on separate keep-alive connections:
     a blocking reload for the next part (`?_HLS_msn=M&_HLS_part=P&_HLS_skip=YES`, a delta
     update), the preload-hinted part, and any listed part of the live edge segment it has
     not asked for yet (none, normally). Only the playlist's tail is read: the parts and the
     hint after its last EXT-X-PROGRAM-DATE-TIME.
  3. Every request carries the player's CMCD as a query value (`CMCD=bl%3D...%2Csid%3D"<uuid>"`;
     `CMCD=0` leaves it out), and `Accept-Encoding: gzip` (`GZIP=0` leaves it out).
  4. Players are spread over ADDRESSES (20) source addresses 127.0.0.2, 127.0.0.3, ...
  5. A connection error, a timeout (10 s) or an answer other than 200 is counted by its status;
     after a failed playlist the player waits 200 ms and reads the whole playlist again; a
     failed part is asked for once more if a later playlist still lists it.

For each part a player has received whole: its end time is its segment's
EXT-X-PROGRAM-DATE-TIME plus the DURATIONs of the segment's parts up to and including it, read
from the playlist that listed (or hinted) it (a hinted part lasts PART-TARGET); its lateness is
the wall clock when its last byte arrived minus that end time. Over the window (DURATION
seconds after WARMUP): parts per player per second (mean, and the least of any player),
lateness p50/p99/max, answers by status, requests per second, and the CPU the load's worker
processes used (/proc/<pid>/stat), in cores. Answers of an edge that says whether it hit its
cache (Varnish's X-Varnish, nginx's X-Cache-Status) are counted as hits and misses: misses per
distinct part are the origin's part requests per part, seen from the players.

    scripts/bench/lowlatency/venue_load.py --base http://127.0.0.1:8080 --players 100 --duration 30 --warmup 8 --json out.json

`--base` may be given several times: the players are dealt among the bases in turn, and the
figures are given for all of them and for each. From another script: `venue_load.run(bases,
players, duration, warmup, on_window=...)` returns the figures as a dict (on_window("start")
and on_window("end") are called at the window's edges, to sample other processes there).

Environment (the options win): PLAYERS (100), DURATION (30), WARMUP (8), WORKERS (2),
ADDRESSES (20), STREAM (main), RUNG (the lowest), CMCD (1), GZIP (1), START_PARTS (3),
TIMEOUT (10), BACKOFF (0.2), MAX_PART_CONNECTIONS (3 per player; further parts wait for one),
UVLOOP (1: uvloop, installed with pip when missing, else asyncio). Loopback bases only; the
load is bounded by the window; the workers are stopped by their PIDs.

Straight at an origin, mind its per-client bounds: a player holds two requests (its next
playlist and its next part) and keeps up to 1 + MAX_PART_CONNECTIONS connections, so
PLAYERS / ADDRESSES players per address must stay within `server.max_held_per_client` / 2
(32 / 2) and `server.max_connections_per_client` / 4 (64 / 4): 320 players on the default 20
addresses. Past that the origin answers 429 (too-many-held), as it would a NAT that big.
"""
import argparse
import array
import asyncio
import datetime
import gc
import ipaddress
import json
import multiprocessing
import os
import re
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import uuid
import zlib

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
MAX_PLAYERS = 5000
MAX_SECONDS = 3600


def env_float(name, default):
    return float(os.environ.get(name, default))


class Settings:
    """The knobs a run reads from the environment (the CLI's options override some)."""

    def __init__(self):
        self.workers = int(os.environ.get("WORKERS", "2"))
        self.addresses = int(os.environ.get("ADDRESSES", "20"))
        self.stream = os.environ.get("STREAM", "main")
        self.rung = os.environ.get("RUNG", "")
        self.cmcd = os.environ.get("CMCD", "1") != "0"
        self.gzip = os.environ.get("GZIP", "1") != "0"
        self.start_parts = int(os.environ.get("START_PARTS", "3"))
        self.timeout = env_float("TIMEOUT", "10")
        self.backoff = env_float("BACKOFF", "0.2")
        self.max_part_connections = int(os.environ.get("MAX_PART_CONNECTIONS", "3"))
        self.uvloop = os.environ.get("UVLOOP", "1") != "0"


# --------------------------------------------------------------------------------------------
# Setup, in the parent: the bases, the rung, uvloop.


def ensure_uvloop():
    """True when uvloop can be imported, installing it with pip once if it is missing."""
    try:
        import uvloop  # noqa: F401
        return True
    except ImportError:
        pass
    try:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--root-user-action=ignore", "uvloop"],
                       timeout=300, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        import importlib
        importlib.invalidate_caches()
        import uvloop  # noqa: F401,F811
        return True
    except Exception:
        return False


def loopback_base(base):
    """(scheme-less host, port, path prefix) of a base URL, refusing anything off 127.0.0.0/8."""
    parsed = urllib.parse.urlsplit(base.rstrip("/"))
    if parsed.scheme != "http":
        raise SystemExit(f"{base}: only http:// bases")
    host = parsed.hostname or ""
    try:
        address = ipaddress.ip_address(socket.gethostbyname(host))
    except (OSError, ValueError):
        raise SystemExit(f"{base}: cannot resolve {host}")
    if address not in ipaddress.ip_network("127.0.0.0/8"):
        raise SystemExit(f"{base}: not a loopback address ({address}); this load only goes to 127.0.0.0/8")
    return str(address), parsed.port or 80, parsed.path


def fetch(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as answer:
        return answer.read().decode()


def choose_rung(base, stream, rung):
    """(media playlist URL, BANDWIDTH) of `rung` in the stream's master, or of its lowest rung."""
    master_url = f"{base.rstrip('/')}/live/{stream}/master.m3u8"
    text = fetch(master_url)
    variants, bandwidth = [], None
    for line in text.splitlines():
        if line.startswith("#EXT-X-STREAM-INF:"):
            found = re.search(r"(?:^|[:,])BANDWIDTH=(\d+)", line)
            bandwidth = int(found.group(1)) if found else 0
        elif line and not line.startswith("#") and bandwidth is not None:
            variants.append((bandwidth, urllib.parse.urljoin(master_url, line.strip())))
            bandwidth = None
    if not variants:
        raise SystemExit(f"{master_url} lists no variant")
    if rung:
        named = [v for v in variants if f"/{rung}/" in urllib.parse.urlsplit(v[1]).path]
        if not named:
            raise SystemExit(f"RUNG={rung}: not in {master_url} ({', '.join(v[1] for v in variants)})")
        return named[0][1], named[0][0]
    low = min(variants)
    return low[1], low[0]


def playlist_facts(url):
    """PART-TARGET and PART-HOLD-BACK of a media playlist (seconds)."""
    text = fetch(url)
    target = re.search(r"#EXT-X-PART-INF:.*PART-TARGET=([\d.]+)", text)
    if not target:
        raise SystemExit(f"{url} lists no parts (#EXT-X-PART-INF): is part_duration 0?")
    hold = re.search(r"PART-HOLD-BACK=([\d.]+)", text)
    return float(target.group(1)), float(hold.group(1)) if hold else 3 * float(target.group(1))


def cmcd_values(sid, bandwidth, part_target, hold_back):
    """The CMCD query values (percent-encoded) of a playlist request and of a part request, as
    hls.js sends them in query mode (keys in alphabetical order)."""
    quote = lambda text: urllib.parse.quote(text, safe="")  # noqa: E731
    manifest = quote(f'ot=m,sf=h,sid="{sid}",st=l')
    part = quote(f'bl={int(round(hold_back * 10)) * 100},br={bandwidth // 1000},d={int(round(part_target * 1000))},'
                 f'ot=av,sf=h,sid="{sid}",st=l')
    return manifest.encode(), part.encode()


# --------------------------------------------------------------------------------------------
# One worker: its players on one event loop.

HEAD, LENGTH, CHUNKED, UNTIL_CLOSE = 0, 1, 2, 3


class Connection(asyncio.Protocol):
    """One HTTP/1.1 keep-alive connection carrying one request at a time. The answer goes to
    `callback(connection, status, body, cache)`: status an int or "conn-error"/"timeout"; body
    the bytes when asked for (gunzipped), else None; cache "hit", "miss" or None."""

    __slots__ = ("worker", "transport", "callback", "want", "mode", "buffer", "remaining", "status", "cache", "close", "gzip",
                 "deadline", "dead", "reason", "player", "playlist", "data", "uses")

    def __init__(self, worker, player, playlist):
        self.worker, self.player, self.playlist = worker, player, playlist
        self.transport = self.callback = None
        self.dead = False
        self.reason = None
        self.uses = 0

    def connection_made(self, transport):
        self.transport = transport

    def send(self, data, callback, want_body):
        self.callback, self.want, self.data = callback, want_body, data
        self.uses += 1
        self.mode, self.buffer, self.remaining, self.cache, self.close, self.gzip = HEAD, b"", 0, None, False, False
        self.deadline = self.worker.now() + self.worker.timeout
        self.worker.inflight.add(self)
        self.transport.write(data)

    def data_received(self, data):
        if self.callback is None:
            return
        mode = self.mode
        if mode == LENGTH and not self.want:
            self.remaining -= len(data)
            if self.remaining <= 0:
                self.finish(None)
            return
        if mode == HEAD:
            buffer = self.buffer + data if self.buffer else data
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                self.buffer = buffer
                return
            self.head(buffer[:end])
            data = buffer[end + 4:]
            self.buffer = bytearray() if self.want or self.mode != LENGTH else b""
            mode = self.mode
            if mode == LENGTH:
                if self.remaining <= 0:
                    self.finish(bytes(self.buffer) if self.want else None)
                    return
                if not self.want:
                    self.remaining -= len(data)
                    if self.remaining <= 0:
                        self.finish(None)
                    return
        self.buffer += data
        if mode == LENGTH:
            if len(self.buffer) >= self.remaining:
                self.finish(bytes(self.buffer[:self.remaining]))
        elif mode == CHUNKED:
            if self.buffer.endswith(b"0\r\n\r\n"):
                body = dechunk(self.buffer)
                if body is not None:
                    self.finish(body if self.want else None)

    def head(self, head):
        try:
            self.status = int(head[9:12])
        except ValueError:
            self.status = "bad-answer"
        low = head.lower()
        at = low.find(b"\ncontent-length:")
        if at >= 0:
            stop = low.find(b"\r", at + 16)
            self.mode, self.remaining = LENGTH, int(low[at + 16:stop if stop > 0 else None])
        elif b"\ntransfer-encoding:" in low and b"chunked" in low:
            self.mode = CHUNKED
        elif self.status in (204, 304) or 100 <= (self.status if isinstance(self.status, int) else 0) < 200:
            self.mode, self.remaining = LENGTH, 0
        else:
            self.mode = UNTIL_CLOSE
        self.close = b"\nconnection: close" in low
        self.gzip = b"\ncontent-encoding: gzip" in low
        at = low.find(b"\nx-varnish:")
        if at >= 0:
            stop = low.find(b"\r", at + 11)
            self.cache = "hit" if len(low[at + 11:stop if stop > 0 else None].split()) > 1 else "miss"
        else:
            at = low.find(b"\nx-cache-status:")
            if at < 0:
                at = low.find(b"\nx-cache:")
            if at >= 0:
                stop = low.find(b"\r", at)
                value = low[at:stop if stop > 0 else None]
                self.cache = "hit" if (b"hit" in value or b"updating" in value or b"stale" in value) else "miss"

    def finish(self, body):
        callback, self.callback = self.callback, None
        self.worker.inflight.discard(self)
        if self.close:
            self.dead = True
            self.transport.close()
        if body is not None and self.gzip:
            try:
                body = zlib.decompress(body, 47)
            except zlib.error:
                body = None
                self.status = "bad-gzip"
        callback(self, self.status, body, self.cache)

    def connection_lost(self, exc):
        self.dead = True
        if self.callback is None:
            return
        if self.mode == UNTIL_CLOSE and self.reason is None:
            self.finish(bytes(self.buffer) if self.want else None)
            return
        callback, self.callback = self.callback, None
        self.worker.inflight.discard(self)
        if self.reason is None and self.uses > 1 and self.mode == HEAD and not self.buffer and not self.player.stopped:
            # A kept-alive connection the server closed as this request left: asked again on
            # a new one, as browsers do, not counted as an error.
            self.worker.retries += 1
            self.player.open(self.data, callback, self.want, self.playlist)
            return
        callback(self, self.reason or "conn-error", None, None)

    def abort(self, reason):
        self.reason = reason
        if self.transport is not None:
            self.transport.abort()


def dechunk(data):
    """The body of a whole chunked message, or None when it is not whole yet."""
    out, at, size_of = [], 0, len(data)
    while True:
        eol = data.find(b"\r\n", at)
        if eol < 0:
            return None
        try:
            size = int(bytes(data[at:eol]).split(b";")[0], 16)
        except ValueError:
            return None
        at = eol + 2
        if size == 0:
            return b"".join(out)
        if at + size + 2 > size_of:
            return None
        out.append(bytes(data[at:at + size]))
        at += size + 2


class Tail:
    """What a player reads from a playlist: the live edge segment's number, its listed parts
    [(uri, end time, gap)], the hint and its end time, and the next (msn, part) to ask for."""

    __slots__ = ("msn", "parts", "hint", "hint_end", "part_target")


def attribute(line, name, quoted):
    at = line.find(name)
    if at < 0:
        return None
    at += len(name)
    if quoted:
        return line[at + 1:line.find(b'"', at + 1)]
    stop = line.find(b",", at)
    return line[at:stop if stop > 0 else None]


class Worker:
    def __init__(self, spec):
        self.spec = spec
        self.timeout = spec["timeout"]
        self.window = (spec["window_start"], spec["window_end"])
        self.inflight = set()
        self.dates = {}
        self.now = time.time
        # Per base: lateness, statuses, requests, edge cache answers, distinct parts.
        self.bases = {}
        self.players = []
        self.connections_opened = 0
        self.not_advanced = 0
        self.retries = 0
        self.errors = []
        self.failures = []

    def failure(self, what):
        if len(self.failures) < 8:
            self.failures.append(time.strftime("%H:%M:%S", time.gmtime()) + f" {what}")

    def stats(self, base):
        found = self.bases.get(base)
        if found is None:
            found = self.bases[base] = {"lateness": array.array("d"), "statuses": {}, "requests": 0, "bytes": 0, "parts": set(),
                                        "cache": {}, "part_requests": 0, "not_advanced": 0}
        return found

    def date(self, text):
        value = self.dates.get(text)
        if value is None:
            if len(self.dates) > 4096:
                self.dates.clear()
            value = self.dates[text] = datetime.datetime.fromisoformat(text.decode().strip()).timestamp()
        return value

    def tail(self, body, fallback_target):
        """The Tail of a playlist's text, or None when it has no date to measure from."""
        at = body.rfind(b"#EXT-X-PROGRAM-DATE-TIME:")
        if at < 0:
            return None
        found = body.find(b"#EXT-X-MEDIA-SEQUENCE:")
        sequence = int(body[found + 22:body.find(b"\n", found)]) if found >= 0 else 0
        found = body.find(b"#EXT-X-SKIP:SKIPPED-SEGMENTS=")
        if found >= 0:
            stop = body.find(b"\n", found)
            sequence += int(body[found + 29:stop].split(b",")[0])
        found = body.find(b"PART-TARGET=")
        target = float(body[found + 12:body.find(b"\n", found)].split(b",")[0]) if found >= 0 else fallback_target
        lines = body[at:].split(b"\n")
        start = self.date(lines[0][25:])
        tail = Tail()
        tail.msn = sequence + body.count(b"#EXTINF:", 0, at)
        tail.part_target = target
        parts, elapsed, hint = [], 0.0, None
        for line in lines:
            if line.startswith(b"#EXT-X-PART:"):
                elapsed += float(attribute(line, b"DURATION=", False))
                parts.append((attribute(line, b"URI=", True), start + elapsed, b"GAP=YES" in line))
            elif line.startswith(b"#EXTINF:"):
                start += float(line[8:line.find(b",")] if b"," in line else line[8:])
                elapsed, parts = 0.0, []
                tail.msn += 1
            elif line.startswith(b"#EXT-X-PRELOAD-HINT:") and b"TYPE=PART" in line:
                hint = attribute(line, b"URI=", True)
        tail.parts, tail.hint, tail.hint_end = parts, hint, start + elapsed + target
        return tail


class Player:
    __slots__ = ("worker", "base", "host", "port", "source", "playlist_path", "directory", "host_headers", "cmcd_playlist", "cmcd_part",
                 "playlist_connection", "idle", "part_connections", "queue", "seen", "failed", "asked", "parts_in_window", "stats",
                 "part_target", "starting", "stopped", "front", "retry")

    def __init__(self, worker, spec):
        self.worker = worker
        self.base = spec["base"]
        self.stats = worker.stats(self.base)
        self.host, self.port, self.source = spec["host"], spec["port"], spec["source"]
        self.playlist_path = spec["playlist_path"].encode()
        self.directory = self.playlist_path[:self.playlist_path.rfind(b"/") + 1]
        self.host_headers = spec["headers"].encode()
        self.cmcd_playlist = b"CMCD=" + spec["cmcd_playlist"] if spec["cmcd_playlist"] else b""
        self.cmcd_part = b"CMCD=" + spec["cmcd_part"] if spec["cmcd_part"] else b""
        self.part_target = spec["part_target"]
        self.playlist_connection = None
        self.idle = []
        self.part_connections = 0
        self.queue = []
        self.seen = set()
        self.failed = {}
        self.retry = set()
        self.front = (-1, -1)
        self.asked = None
        self.parts_in_window = 0
        self.starting = True
        self.stopped = False

    # Requests ---------------------------------------------------------------------------

    def count_sent(self, now):
        if self.worker.window[0] <= now < self.worker.window[1]:
            self.stats["requests"] += 1

    def count_answer(self, now, kind, status, cache):
        if self.worker.window[0] <= now < self.worker.window[1]:
            key = (kind, status)
            statuses = self.stats["statuses"]
            statuses[key] = statuses.get(key, 0) + 1
            if cache is not None:
                key = (kind, cache)
                counts = self.stats["cache"]
                counts[key] = counts.get(key, 0) + 1
            return True
        return False

    def open(self, data, callback, want_body, playlist):
        self.worker.loop.create_task(self.connect(data, callback, want_body, playlist))

    async def connect(self, data, callback, want_body, playlist):
        worker = self.worker
        connection = Connection(worker, self, playlist)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.setblocking(False)
            try:
                sock.setsockopt(socket.IPPROTO_IP, 24, 1)  # IP_BIND_ADDRESS_NO_PORT: the port at connect
            except OSError:
                pass
            sock.bind((self.source, 0))
            await asyncio.wait_for(worker.loop.sock_connect(sock, (self.host, self.port)), worker.timeout)
            await worker.loop.create_connection(lambda: connection, sock=sock)
            worker.connections_opened += 1
        except Exception as error:
            sock.close()
            connection.dead = True  # a part's is let go by release(), which counts it
            if len(worker.errors) < 5:
                worker.errors.append(f"connect from {self.source}: {type(error).__name__}: {error}")
            callback(connection, "timeout" if isinstance(error, asyncio.TimeoutError) else "conn-error", None, None)
            return
        if self.stopped:
            connection.transport.close()
            return
        if playlist:
            self.playlist_connection = connection
        connection.send(data, callback, want_body)

    def playlist(self, data):
        now = self.worker.now()
        self.count_sent(now)
        connection = self.playlist_connection
        if connection is not None and not connection.dead and connection.callback is None:
            connection.send(data, self.on_playlist, True)
        else:
            self.playlist_connection = None
            self.open(data, self.on_playlist, True, True)

    def part(self, uri, end):
        if uri.startswith(b"/"):
            path = uri
        elif uri.startswith(b"http"):
            path = urllib.parse.urlsplit(uri).path or b"/"
        else:
            path = self.directory + uri
        if self.cmcd_part:
            path += (b"&" if b"?" in uri else b"?") + self.cmcd_part
        data = b"GET " + path + self.host_headers
        callback = lambda connection, status, body, cache: self.on_part(connection, status, cache, uri, end)  # noqa: E731
        now = self.worker.now()
        if self.worker.window[0] <= now < self.worker.window[1]:
            self.stats["requests"] += 1
            self.stats["part_requests"] += 1
        while self.idle:
            connection = self.idle.pop()
            if not connection.dead:
                connection.send(data, callback, False)
                return
            self.part_connections -= 1
        if self.part_connections < self.worker.spec["max_part_connections"]:
            self.part_connections += 1
            self.open(data, callback, False, False)
        else:
            self.queue.append((data, callback))

    def release(self, connection):
        if connection.dead:
            if connection.player is self:
                self.part_connections -= 1
            connection = None
        if self.queue and not self.stopped:
            data, callback = self.queue.pop(0)
            if connection is not None:
                connection.send(data, callback, False)
            else:
                self.part_connections += 1
                self.open(data, callback, False, False)
        elif connection is not None:
            self.idle.append(connection)

    # Answers ----------------------------------------------------------------------------

    def on_part(self, connection, status, cache, uri, end):
        if self.stopped:
            return
        now = self.worker.now()
        counted = self.count_answer(now, "part", status, cache)
        if status == 200:
            if counted:
                self.parts_in_window += 1
                self.stats["lateness"].append(now - end)
                self.stats["parts"].add(uri)
        else:
            tries = self.failed.get(uri, 0) + 1
            self.failed[uri] = tries
            if tries < 2:
                self.seen.discard(uri)  # asked for again if a later playlist still lists it
                self.retry.add(uri)
            if counted:
                self.worker.failure(f"part {uri.decode()} {status} {now - end:+.3f} s after its end")
        self.release(connection)

    def on_playlist(self, connection, status, body, cache):
        if self.stopped:
            return
        worker = self.worker
        now = worker.now()
        if self.count_answer(now, "playlist", status, cache) and status != 200:
            self.worker.failure(f"playlist {'(msn, part) %d, %d' % self.asked if self.asked else 'whole'} {status}")
        tail = None
        if status == 200 and body is not None:
            try:
                tail = worker.tail(body, self.part_target)
            except (ValueError, IndexError) as error:
                if len(worker.errors) < 5:
                    worker.errors.append(f"playlist not read: {type(error).__name__}: {error}")
                tail = None
            if tail is None:
                self.count_answer(now, "playlist", "unreadable", None)
        if tail is None:
            worker.loop.call_later(worker.spec["backoff"], self.resync)
            return
        self.take(tail)

    def take(self, tail):
        worker = self.worker
        parts = tail.parts
        seen, fresh, retry = self.seen, set(), self.retry
        # The newest part asked for, (msn, index): a player never goes back to a part older
        # than that (an older answer, from a cache, lists parts it has already had), unless
        # the part failed and is to be asked for once more.
        front, msn = self.front, tail.msn
        skip = len(parts) - worker.spec["start_parts"] if self.starting else 0
        for index, (uri, end, gap) in enumerate(parts):
            fresh.add(uri)
            if uri in seen or gap or index < skip:
                continue
            if (msn, index) <= front and uri not in retry:
                continue
            retry.discard(uri)
            self.part(uri, end)
        if parts and (msn, len(parts) - 1) > front:
            front = (msn, len(parts) - 1)
        if tail.hint is not None:
            fresh.add(tail.hint)
            if tail.hint not in seen and (msn, len(parts)) > front:
                self.part(tail.hint, tail.hint_end)
                front = (msn, len(parts))
        self.seen, self.front = fresh, front
        if len(self.failed) > 64:
            self.failed.clear()
            retry.clear()
        self.starting = False
        asked = (msn, len(parts))
        if self.asked is not None and asked < self.asked:
            asked = self.asked  # an answer older than the last: asked for the same again
        if asked == self.asked:
            # The answer did not list the part asked for: not at once again.
            self.stats["not_advanced"] += 1
            worker.loop.call_later(0.1, self.reload, asked)
        else:
            self.reload(asked)

    def reload(self, asked):
        if self.stopped:
            return
        self.asked = asked
        query = b"?_HLS_msn=%d&_HLS_part=%d&_HLS_skip=YES" % asked
        if self.cmcd_playlist:
            query += b"&" + self.cmcd_playlist
        self.playlist(b"GET " + self.playlist_path + query + self.host_headers)

    def resync(self):
        if self.stopped:
            return
        self.starting, self.asked = True, None
        query = b"?" + self.cmcd_playlist if self.cmcd_playlist else b""
        self.playlist(b"GET " + self.playlist_path + query + self.host_headers)

    def stop(self):
        self.stopped = True
        for connection in [self.playlist_connection] + self.idle:
            if connection is not None and connection.transport is not None:
                connection.transport.close()


async def worker_run(worker, specs):
    loop = asyncio.get_running_loop()
    worker.loop = loop
    spec = worker.spec
    window_start, window_end = worker.window
    # Players arrive spread over `stagger` seconds from the start.
    stagger = spec["stagger"]
    count = max(1, len(specs))
    for index, player_spec in enumerate(specs):
        player = Player(worker, player_spec)
        worker.players.append(player)
        loop.call_at(loop.time() + max(0.0, spec["start"] - time.time()) + stagger * index / count, player.resync)

    async def sweep():
        while True:
            await asyncio.sleep(0.5)
            now = time.time()
            for connection in [c for c in worker.inflight if c.deadline < now]:
                connection.abort("timeout")

    sweeper = loop.create_task(sweep())
    await asyncio.sleep(max(0.0, window_end - time.time()))
    sweeper.cancel()
    for player in worker.players:
        player.stop()
    for connection in list(worker.inflight):
        connection.callback = None
        connection.abort("stopped")
    await asyncio.sleep(0.05)


def worker_main(pipe, spec, specs):
    """A worker process: runs its players until the window ends, sends back its figures."""
    try:
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ValueError, OSError):
        pass
    loop = None
    if spec["uvloop"]:
        try:
            import uvloop
            loop = uvloop.new_event_loop()
        except ImportError:
            loop = None
    if loop is None:
        loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    gc.collect()
    gc.freeze()
    gc.set_threshold(50000, 20, 20)
    worker = Worker(spec)
    try:
        loop.run_until_complete(worker_run(worker, specs))
    except Exception as error:  # reported to the parent, which says so
        worker.errors.append(f"worker failed: {type(error).__name__}: {error}")
    finally:
        loop.close()
    result = {"bases": {}, "parts_per_player": [(p.base, p.parts_in_window) for p in worker.players],
              "connections_opened": worker.connections_opened, "retries": worker.retries, "errors": worker.errors,
              "failures": worker.failures}
    for base, stats in worker.bases.items():
        result["bases"][base] = {"lateness": stats["lateness"].tobytes(), "statuses": stats["statuses"], "requests": stats["requests"],
                                 "parts": sorted(uri.decode() for uri in stats["parts"]), "cache": stats["cache"],
                                 "part_requests": stats["part_requests"], "not_advanced": stats["not_advanced"]}
    pipe.send(result)
    pipe.close()


# --------------------------------------------------------------------------------------------
# The parent: deal the players, sample the workers' CPU over the window, merge.


def process_cpu(pid):
    """User + system CPU seconds of a process, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    except (OSError, IndexError, ValueError):
        return None


def load_average():
    with open("/proc/loadavg") as f:
        return [float(value) for value in f.read().split()[:3]]


def quantile(ordered, fraction):
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


def run(bases, players, duration, warmup, workers=None, settings=None, on_window=None, quiet=False):
    """Runs `players` players dealt among `bases` for `warmup` + `duration` seconds; returns the
    figures (a dict). `on_window(edge)` is called with "start" and "end" at the window's edges."""
    settings = settings or Settings()
    workers = max(1, min(workers or settings.workers, players))
    if not 1 <= players <= MAX_PLAYERS or not 0 < duration <= MAX_SECONDS or not 0 <= warmup <= MAX_SECONDS:
        raise SystemExit(f"players 1-{MAX_PLAYERS}, duration and warmup up to {MAX_SECONDS} s")
    uvloop_on = settings.uvloop and ensure_uvloop()
    targets = []
    for base in bases:
        host, port, _ = loopback_base(base)
        playlist_url, bandwidth = choose_rung(base, settings.stream, settings.rung)
        part_target, hold_back = playlist_facts(playlist_url)
        split = urllib.parse.urlsplit(playlist_url)
        path = split.path + (("?" + split.query) if split.query else "")
        headers = f" HTTP/1.1\r\nHost: {split.netloc}\r\nUser-Agent: venue_load\r\n" + ("Accept-Encoding: gzip\r\n" if settings.gzip else "") + "\r\n"
        targets.append({"base": base, "host": host, "port": port, "path": path, "headers": headers, "bandwidth": bandwidth,
                        "part_target": part_target, "hold_back": hold_back, "playlist": playlist_url})
    start = time.time() + 1.0  # the workers' setup
    window_start = start + warmup
    window_end = window_start + duration
    spec = {"timeout": settings.timeout, "backoff": settings.backoff, "start_parts": settings.start_parts, "uvloop": uvloop_on,
            "max_part_connections": max(1, settings.max_part_connections), "start": start, "stagger": min(2.0, warmup / 2),
            "window_start": window_start, "window_end": window_end}
    shares = [[] for _ in range(workers)]
    for index in range(players):
        target = targets[index % len(targets)]
        sid = str(uuid.uuid4())
        cmcd_playlist, cmcd_part = cmcd_values(sid, target["bandwidth"], target["part_target"], target["hold_back"]) if settings.cmcd else (b"", b"")
        n = index % max(1, settings.addresses)
        shares[index % workers].append({"base": target["base"], "host": target["host"], "port": target["port"],
                                        "source": f"127.0.{n // 254}.{2 + n % 254}", "playlist_path": target["path"],
                                        "headers": target["headers"], "cmcd_playlist": cmcd_playlist, "cmcd_part": cmcd_part,
                                        "part_target": target["part_target"]})
    context = multiprocessing.get_context("fork")
    processes, pipes = [], []
    load_before = load_average()
    for share in shares:
        receive, send = context.Pipe(duplex=False)
        process = context.Process(target=worker_main, args=(send, spec, share), daemon=True)
        process.start()
        send.close()
        processes.append(process)
        pipes.append(receive)
    results = []
    try:
        time.sleep(max(0.0, window_start - time.time()))
        cpu_start = [process_cpu(p.pid) for p in processes]
        wall_start = time.time()
        if on_window:
            on_window("start")
        time.sleep(max(0.0, window_end - time.time()))
        cpu_end = [process_cpu(p.pid) for p in processes]
        wall_end = time.time()
        if on_window:
            on_window("end")
        for pipe in pipes:
            if pipe.poll(30):
                try:
                    results.append(pipe.recv())
                except EOFError:
                    results.append(None)
            else:
                results.append(None)
    finally:
        for process in processes:
            process.join(10)
            if process.is_alive():
                os.kill(process.pid, 9)
                process.join(5)
    load_after = load_average()
    cpu = sum((b or 0) - (a or 0) for a, b in zip(cpu_start, cpu_end))
    figures = merge(results, targets, players, duration, warmup)
    figures.update({"workers": workers, "uvloop": uvloop_on, "addresses": settings.addresses, "cmcd": settings.cmcd, "gzip": settings.gzip,
                    "load_cpu_s": cpu, "load_cores": cpu / max(1e-9, wall_end - wall_start),
                    "load_cores_per_100_players": cpu / max(1e-9, wall_end - wall_start) / players * 100,
                    "loadavg_before": load_before, "loadavg_after": load_after})
    if not quiet:
        print_summary(figures)
    return figures


def merge(results, targets, players, duration, warmup):
    figures = {"players": players, "duration": duration, "warmup": warmup, "per_base": {}, "errors": [], "failures": [],
               "workers_lost": sum(1 for r in results if r is None)}
    every = {"lateness": array.array("d"), "statuses": {}, "requests": 0, "parts": set(), "cache": {}, "part_requests": 0,
             "not_advanced": 0, "per_player": []}
    per_base = {t["base"]: {"lateness": array.array("d"), "statuses": {}, "requests": 0, "parts": set(), "cache": {}, "part_requests": 0,
                            "not_advanced": 0, "per_player": []} for t in targets}
    connections = retries = 0
    for result in results:
        if result is None:
            continue
        connections += result["connections_opened"]
        retries += result["retries"]
        figures["errors"] += result["errors"]
        figures["failures"] += result["failures"]
        for base, count in result["parts_per_player"]:
            per_base[base]["per_player"].append(count)
            every["per_player"].append(count)
        for base, stats in result["bases"].items():
            for into in (per_base[base], every):
                lateness = array.array("d")
                lateness.frombytes(stats["lateness"])
                into["lateness"] += lateness
                for key, count in stats["statuses"].items():
                    into["statuses"][key] = into["statuses"].get(key, 0) + count
                for key, count in stats["cache"].items():
                    into["cache"][key] = into["cache"].get(key, 0) + count
                into["requests"] += stats["requests"]
                into["part_requests"] += stats["part_requests"]
                into["not_advanced"] += stats["not_advanced"]
                into["parts"].update(f"{base} {uri}" for uri in stats["parts"])
    figures.update(summarise(every, duration))
    figures["connections_opened"] = connections
    figures["stale_connection_retries"] = retries
    if len(targets) > 1:
        for base, stats in per_base.items():
            figures["per_base"][base] = summarise(stats, duration)
    target = targets[0]
    figures.update({"bases": [t["base"] for t in targets], "playlists": [t["playlist"] for t in targets],
                    "part_target": target["part_target"], "part_hold_back": target["hold_back"],
                    "anchor_parts_per_player_per_s": 1 / target["part_target"]})
    return figures


def summarise(stats, duration):
    lateness = sorted(stats["lateness"])
    rates = [count / duration for count in stats["per_player"]]
    statuses, by_kind = {}, {}
    for (kind, status), count in stats["statuses"].items():
        statuses[str(status)] = statuses.get(str(status), 0) + count
        by_kind.setdefault(kind, {})[str(status)] = count
    cache = {f"{kind} {state}": count for (kind, state), count in stats["cache"].items()}
    distinct = len(stats["parts"])
    part_misses = sum(count for (kind, state), count in stats["cache"].items() if kind == "part" and state == "miss")
    received = sum(count for (kind, status), count in stats["statuses"].items() if kind == "part" and status == 200)
    return {
        "parts_per_player_per_s": {"mean": sum(rates) / len(rates) if rates else float("nan"), "min": min(rates, default=float("nan"))},
        "lateness_s": {"p50": quantile(lateness, 0.5), "p99": quantile(lateness, 0.99), "max": lateness[-1] if lateness else float("nan"),
                       "count": len(lateness)},
        "statuses": dict(sorted(statuses.items())), "statuses_by_kind": by_kind,
        "requests": stats["requests"], "requests_per_s": stats["requests"] / duration,
        "part_requests": stats["part_requests"], "parts_received": received, "distinct_parts": distinct,
        "part_requests_per_part": received / distinct if distinct else float("nan"),
        "edge_cache": cache, "edge_part_misses_per_part": part_misses / distinct if distinct and cache else None,
        "not_advanced": stats["not_advanced"],
    }


def print_summary(figures):
    late = figures["lateness_s"]
    rate = figures["parts_per_player_per_s"]
    print(f"venue_load: {figures['players']} players on {', '.join(figures['bases'])} ({figures['playlists'][0].rsplit('/', 2)[-2]}), "
          f"{figures['workers']} workers ({'uvloop' if figures['uvloop'] else 'asyncio'}), {figures['addresses']} source addresses, "
          f"CMCD {'on' if figures['cmcd'] else 'off'}; window {figures['duration']:g} s after {figures['warmup']:g} s")
    print(f"  parts per player per second: mean {rate['mean']:.2f}, min {rate['min']:.2f}  "
          f"(anchor: 1 / PART-TARGET = {figures['anchor_parts_per_player_per_s']:.2f})")
    print(f"  lateness: p50 {late['p50']:.3f} s, p99 {late['p99']:.3f} s, max {late['max']:.3f} s over {late['count']} parts  "
          f"(anchor: PART-TARGET {figures['part_target']:g} s, PART-HOLD-BACK {figures['part_hold_back']:g} s)")
    print(f"  answers: {figures['statuses']}  by kind: {figures['statuses_by_kind']}")
    print(f"  requests: {figures['requests_per_s']:.0f}/s sent; {figures['distinct_parts']} distinct parts, "
          f"{figures['part_requests_per_part']:.1f} part answers each; not advanced {figures['not_advanced']}; "
          f"connections opened {figures['connections_opened']} (requests asked again after a kept-alive connection closed: "
          f"{figures['stale_connection_retries']})")
    if figures["edge_cache"]:
        print(f"  edge cache answers: {figures['edge_cache']}; misses per distinct part {figures['edge_part_misses_per_part']:.2f}")
    for base, stats in figures["per_base"].items():
        print(f"  {base}: parts/player/s {stats['parts_per_player_per_s']['mean']:.2f} (min {stats['parts_per_player_per_s']['min']:.2f}), "
              f"lateness p50 {stats['lateness_s']['p50']:.3f} p99 {stats['lateness_s']['p99']:.3f} max {stats['lateness_s']['max']:.3f}, "
              f"answers {stats['statuses']}")
    print(f"  load generator CPU: {figures['load_cpu_s']:.1f} s = {figures['load_cores']:.2f} cores, "
          f"{figures['load_cores_per_100_players']:.3f} cores per 100 players")
    print(f"  load average before {figures['loadavg_before']}, after {figures['loadavg_after']}")
    if figures["workers_lost"]:
        print(f"  WORKERS LOST: {figures['workers_lost']} sent no figures")
    for error in figures["errors"][:5]:
        print(f"  e.g. {error}")
    for failure in sorted(figures["failures"])[:8]:
        print(f"  failed in the window: {failure}")
    sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", action="append", help="base URL (repeatable), e.g. http://127.0.0.1:8080")
    parser.add_argument("--players", type=int, default=int(os.environ.get("PLAYERS", "100")))
    parser.add_argument("--duration", type=float, default=env_float("DURATION", "30"))
    parser.add_argument("--warmup", type=float, default=env_float("WARMUP", "8"))
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--json", help="write the figures to this file")
    arguments = parser.parse_args()
    if not arguments.base:
        parser.error("--base is required")
    figures = run(arguments.base, arguments.players, arguments.duration, arguments.warmup, arguments.workers)
    if arguments.json:
        with open(arguments.json, "w") as f:
            json.dump(figures, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
