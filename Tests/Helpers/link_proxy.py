#!/usr/bin/env python3
"""A link of known quality between `sideline push` and a server, for the end-to-end tests:
a TCP proxy on 127.0.0.1 that limits the throughput of what the client sends (the uplink) and
cuts connections on command. Standard library only.

    link_proxy.py --target 127.0.0.1:8080 [--rate BITS_PER_SECOND] [--delay SECONDS]

prints `listening <port> control <port>` once it accepts, then takes commands over HTTP on the
control port (GET, answered with the current state as JSON):

    /rate?bps=400000     limit the uplink to 400 kbit/s (0: no limit)
    /cut                 close every connection and refuse new ones (closed as soon as accepted)
    /restore             take connections again
    /state               bytes forwarded, connections, whether cut

The rate is a token bucket shared by all connections (one uplink), at most 64 KiB of burst;
`--delay` delays each direction by that many seconds without limiting throughput (a long link).
"""
import argparse
import asyncio
import json
import time
import urllib.parse


class Link:
    def __init__(self, rate, delay):
        self.rate = rate  # bytes per second, 0: unlimited
        self.delay = delay
        self.tokens = 65536.0
        self.updated = time.monotonic()
        self.cut = False
        self.connections = set()
        self.forwarded = 0
        self.accepted = 0
        self.refused = 0
        self.lock = asyncio.Lock()

    async def take(self, count):
        """Waits until `count` bytes may go up."""
        if self.rate <= 0:
            return
        async with self.lock:
            while True:
                now = time.monotonic()
                self.tokens = min(65536.0, self.tokens + (now - self.updated) * self.rate)
                self.updated = now
                if self.tokens >= count:
                    self.tokens -= count
                    return
                await asyncio.sleep((count - self.tokens) / self.rate)

    def state(self):
        return {"rate_bps": int(self.rate * 8), "cut": self.cut, "connections": len(self.connections),
                "forwarded_bytes": self.forwarded, "accepted": self.accepted, "refused": self.refused}


async def pump(reader, writer, link, upstream):
    """Forwards one direction. The uplink's bytes wait for the token bucket; both directions
    are delayed by `link.delay` without losing throughput (chunks are stamped when read and
    written once their time has come, so many are in flight at once, as on a long wire)."""
    in_flight = asyncio.Queue()

    async def deliver():
        while True:
            due, chunk = await in_flight.get()
            if chunk is None:
                return
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            if link.cut:
                return
            writer.write(chunk)
            await writer.drain()

    delivering = asyncio.ensure_future(deliver())
    try:
        while not delivering.done():
            chunk = await reader.read(16384 if upstream else 65536)
            if not chunk:
                break
            if upstream:
                await link.take(len(chunk))
                link.forwarded += len(chunk)
            if link.cut:
                break
            await in_flight.put((time.monotonic() + link.delay, chunk))
        await in_flight.put((0, None))
        await delivering
    except (ConnectionError, asyncio.CancelledError, OSError):
        pass
    finally:
        delivering.cancel()
        try:
            writer.close()
        except Exception:
            pass


async def serve_client(reader, writer, link, target):
    if link.cut:
        link.refused += 1
        writer.transport.abort()
        return
    link.accepted += 1
    host, port = target
    try:
        up_reader, up_writer = await asyncio.open_connection(host, port)
    except OSError:
        writer.transport.abort()
        return
    tasks = [asyncio.ensure_future(pump(reader, up_writer, link, True)), asyncio.ensure_future(pump(up_reader, writer, link, False))]
    entry = (writer, up_writer, tuple(tasks))
    link.connections.add(entry)
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        for w in (writer, up_writer):
            try:
                w.transport.abort()
            except Exception:
                pass
        link.connections.discard(entry)


async def control(reader, writer, link):
    try:
        request = (await reader.readline()).decode(errors="replace")
        while (await reader.readline()) not in (b"\r\n", b"\n", b""):
            pass
        parts = request.split(" ")
        url = urllib.parse.urlsplit(parts[1] if len(parts) > 1 else "/")
        query = urllib.parse.parse_qs(url.query)
        if url.path == "/rate":
            link.rate = float(query.get("bps", ["0"])[0]) / 8
            link.tokens = min(link.tokens, 65536.0)
        elif url.path == "/cut":
            link.cut = True
            for client, upstream, tasks in list(link.connections):
                for w in (client, upstream):
                    w.transport.abort()
                for task in tasks:
                    task.cancel()
        elif url.path == "/restore":
            link.cut = False
        body = json.dumps(link.state()).encode()
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
        await writer.drain()
    finally:
        writer.close()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", required=True)
    parser.add_argument("--rate", type=float, default=0, help="uplink bits per second, 0: unlimited")
    parser.add_argument("--delay", type=float, default=0, help="one-way delay of each direction, seconds (0.02: a 40 ms round trip)")
    arguments = parser.parse_args()
    host, port = arguments.target.rsplit(":", 1)
    link = Link(arguments.rate / 8, arguments.delay)
    proxy = await asyncio.start_server(lambda r, w: serve_client(r, w, link, (host, int(port))), "127.0.0.1", 0)
    commands = await asyncio.start_server(lambda r, w: control(r, w, link), "127.0.0.1", 0)
    print(f"listening {proxy.sockets[0].getsockname()[1]} control {commands.sockets[0].getsockname()[1]}", flush=True)
    await asyncio.gather(proxy.serve_forever(), commands.serve_forever())


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
