"""Simulated players against a growing 3 h recording (Docs/benchmarks.md, "Players at load").

Each player keeps one HTTP/1.1 connection, starts three segments from the live edge and
fetches every new segment of its variant, the way real players do. A third reload the full
playlist (gzip) every target duration, a third use delta updates (_HLS_skip=YES) every target
duration, a third use blocking reload with delta updates (_HLS_msn=<next>&_HLS_skip=YES); one
in ten switches variant every 30 s. Bounded: PLAYERS (500) for SECONDS (300), loopback only.
The players are shared among PROCESSES (8) Python processes, each with its own event loop,
so that the client is not what limits the figures; the simulator's own CPU is printed too.
Prints unexpected statuses, playlist latency p50/p99, segment time to first byte p50/p99,
bytes per player per minute, and the server's CPU and RSS over the run.
"""
import asyncio, gzip, multiprocessing, os, random, re, resource, statistics, sys, threading, time

SEGMENT = re.compile(rb"^(\d{6})\.ts$", re.M)


class Connection:
    def __init__(self, host, port):
        self.host, self.port = host, port
        self.reader = self.writer = None

    async def get(self, path, headers=()):
        """Returns (status, body bytes, seconds to first byte, seconds in all, bytes on the wire)."""
        for attempt in range(2):
            try:
                if self.writer is None:
                    self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
                began = time.perf_counter()
                request = f"GET {path} HTTP/1.1\r\nHost: {self.host}\r\n" + "".join(h + "\r\n" for h in headers) + "\r\n"
                self.writer.write(request.encode())
                status_line = await self.reader.readline()
                first = time.perf_counter() - began
                if not status_line:
                    raise ConnectionError("closed")
                status = int(status_line.split()[1])
                length, encoding = 0, ""
                while True:
                    line = await self.reader.readline()
                    if line in (b"\r\n", b""):
                        break
                    name, _, value = line.decode().partition(":")
                    if name.lower() == "content-length":
                        length = int(value)
                    elif name.lower() == "content-encoding":
                        encoding = value.strip()
                body = await self.reader.readexactly(length) if length else b""
                total = time.perf_counter() - began
                wire = length
                if encoding == "gzip":
                    body = gzip.decompress(body)
                return status, body, first, total, wire
            except (ConnectionError, asyncio.IncompleteReadError, OSError):
                self.writer = None
                if attempt:
                    raise
        raise ConnectionError("unreachable")


class Stats:
    def __init__(self):
        self.unexpected = {}
        self.playlist_latency = []
        self.segment_ttfb = []
        self.bytes = 0
        self.errors = 0

    def bad(self, what, status):
        key = f"{what} {status}"
        self.unexpected[key] = self.unexpected.get(key, 0) + 1

    def merge(self, other):
        for key, count in other.unexpected.items():
            self.unexpected[key] = self.unexpected.get(key, 0) + count
        self.playlist_latency += other.playlist_latency
        self.segment_ttfb += other.segment_ttfb
        self.bytes += other.bytes
        self.errors += other.errors


async def player(index, host, port, variants, target, deadline, stats):
    connection = Connection(host, port)
    mode = ("full", "delta", "blocking")[index % 3]
    switches = index % 10 == 0
    variant = variants[index % len(variants)]
    gz = ["Accept-Encoding: gzip"]
    await asyncio.sleep(random.uniform(0, target))  # players arrive spread out
    try:
        status, body, _, total, wire = await connection.get(f"/live/main/{variant}/index.m3u8", gz)
        stats.bytes += wire
        if status != 200:
            stats.bad("playlist", status)
            return
        stats.playlist_latency.append(total)
        numbers = [int(n) for n in SEGMENT.findall(body)]
        last = numbers[-1]
        next_segment = last - 2
        switched_at = time.time()
        while time.time() < deadline:
            # Fetch every segment it has not played yet.
            while next_segment <= last and time.time() < deadline:
                status, body, first, _, wire = await connection.get(f"/live/main/{variant}/{next_segment:06d}.ts")
                stats.bytes += wire
                if status != 200:
                    stats.bad("segment", status)
                else:
                    stats.segment_ttfb.append(first)
                next_segment += 1
            if switches and time.time() - switched_at > 30:
                variant = variants[(variants.index(variant) + 1) % len(variants)]
                switched_at = time.time()
            if mode == "blocking":
                path = f"/live/main/{variant}/index.m3u8?_HLS_msn={last + 1}&_HLS_skip=YES"
            else:
                await asyncio.sleep(target)
                path = f"/live/main/{variant}/index.m3u8" + ("?_HLS_skip=YES" if mode == "delta" else "")
            status, body, _, total, wire = await connection.get(path, gz)
            stats.bytes += wire
            if status != 200:
                stats.bad("playlist", status)
                await asyncio.sleep(target)
                continue
            if mode != "blocking":
                stats.playlist_latency.append(total)  # a held request's time is the wait, not the cost
            skipped = re.search(rb"#EXT-X-SKIP:SKIPPED-SEGMENTS=(\d+)", body)
            numbers = [int(n) for n in SEGMENT.findall(body)]
            if numbers:
                last = max(last, numbers[-1])
            elif skipped:
                last = max(last, int(skipped.group(1)) - 1)
    except Exception as error:  # a dropped connection counts, and the player stops
        stats.errors += 1
        stats.bad("connection", type(error).__name__)


def sample(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    rss = int(open(f"/proc/{pid}/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    return cpu, rss


def players_in_process(host, port, variants, indices, deadline, target):
    """One simulator process: its share of the players on one asyncio event loop."""
    stats = Stats()

    async def all_players():
        await asyncio.gather(*(player(i, host, port, variants, target, deadline, stats) for i in indices))

    asyncio.run(all_players())
    return stats


def run(host, port, pid, variants, players, seconds, target=2, processes=None):
    processes = processes or int(os.environ.get("PROCESSES", "8"))
    deadline = time.time() + seconds
    samples = []

    def monitor():
        while time.time() < deadline:
            samples.append((time.time(), *sample(pid)))
            time.sleep(5)
        samples.append((time.time(), *sample(pid)))

    load_before = open("/proc/loadavg").read().split()[:3]
    sampler = threading.Thread(target=monitor)
    sampler.start()
    client_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    shares = [list(range(players))[n::processes] for n in range(processes)]
    with multiprocessing.get_context("fork").Pool(processes) as pool:
        results = pool.starmap(players_in_process, [(host, port, variants, share, deadline, target) for share in shares])
    client_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    sampler.join()
    stats = Stats()
    for result in results:
        stats.merge(result)
    q = lambda values, p: statistics.quantiles(values, n=100)[p - 1] * 1000 if len(values) > 100 else float("nan")
    cpu = (samples[-1][1] - samples[0][1]) / (samples[-1][0] - samples[0][0])
    client_cpu = (client_after.ru_utime + client_after.ru_stime - client_before.ru_utime - client_before.ru_stime) / seconds
    rss = [s[2] / 2**20 for s in samples]
    third = max(1, len(rss) // 3)
    print(f"{players} players in {processes} processes, {seconds} s, variants {variants}")
    print(f"unexpected statuses: {stats.unexpected or 'none'}")
    print(f"playlist latency p50 {q(stats.playlist_latency, 50):.1f} ms, p99 {q(stats.playlist_latency, 99):.1f} ms ({len(stats.playlist_latency)} requests)")
    print(f"segment time to first byte p50 {q(stats.segment_ttfb, 50):.1f} ms, p99 {q(stats.segment_ttfb, 99):.1f} ms ({len(stats.segment_ttfb)} segments)")
    print(f"bytes per player per minute: {stats.bytes / players / (seconds / 60) / 1024:.0f} KB (segments and playlists, on the wire)")
    print(f"server CPU {100 * cpu:.0f}% of a core; RSS first third {statistics.mean(rss[:third]):.0f} MB, last third {statistics.mean(rss[-third:]):.0f} MB, max {max(rss):.0f} MB")
    print(f"simulator CPU {100 * client_cpu:.0f}% of a core (all its processes)")
    print(f"load average before {' '.join(load_before)}, after {' '.join(open('/proc/loadavg').read().split()[:3])}")
    return stats


if __name__ == "__main__":
    host, port, pid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    variants = sys.argv[4].split(",")
    run(host, port, pid, variants, int(os.environ.get("PLAYERS", "500")), int(os.environ.get("SECONDS", "300")))
