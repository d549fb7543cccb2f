#!/usr/bin/env python3
"""Conformance checker for a live Low-Latency HLS stream (RFC 8216bis), stdlib only.

    check.py --base http://127.0.0.1:PORT --stream NAME [--seconds 24] [--interval 0.5]
             [--no-probe] [--no-fetch] [--no-fills] [--initial 3] [--wait 15] [--json OUT.json]
             [--header 'Name: value' ...]

Reads {base}/live/{stream}/master.m3u8 at start (retrying a 503 for --wait s) and every ~5 s, and every media playlist it
lists (variants and renditions with a URI; not I-frame playlists) every --interval seconds with
plain GETs (no _HLS_ parameters), for --seconds. Segments that appear after the start (and the
newest --initial ones at start) are fetched once each, off the polling loop in two threads, for
the BANDWIDTH, CMSD-Static and (unless --no-probe) ffprobe CODECS checks; --no-fetch fetches none.

Checks (a violation names its variant, MSN, what happened and the old and new lines):
  append-only     a segment (its tag lines, EXTINF, URI) and its parts never change once listed;
                  the open segment's tags before its first part stay those of the segment; no
                  MSN or tail goes back; parts of a segment are listed all as before or not at all
  discontinuity   discontinuity sequence of every MSN equal across variants (per MSN, variant)
  pdt             PROGRAM-DATE-TIME of every MSN equal within 1 ms across variants
  codecs          declared avc1/mp4a against ffprobe (mismatch, not covered, audio)
  bandwidth       segment bytes*8/EXTINF above the variant's BANDWIDTH
  fills           CMSD-Static stand-in/sibling segments, stand-in/sibling-fill DATERANGEs
                  (reported; violations only with --no-fills)
  http            non-200 answers, timeouts, unparsable playlists
A reference variant for the cross-variant checks is the value most variants agree on (ties: the
first in the master). Exit: 0 no violation, 1 some, 2 the master could not be read at start.
Runs at most --seconds plus ~20 s to finish fetches and probes already started.
"""
import argparse, collections, concurrent.futures as cf, json, os, shutil, subprocess, sys, threading, time
import urllib.error, urllib.parse, urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hls  # noqa: E402

CHECKS = [("append-only", ("append-only", "parts", "open-segment", "targetduration")),
          ("discontinuity", ("discontinuity",)), ("pdt", ("pdt",)),
          ("codecs", ("codecs-mismatch", "codecs-not-covered", "codecs-audio")),
          ("bandwidth", ("bandwidth",)), ("fills", ("fill",)), ("http", ("http", "parse"))]


class Fatal(Exception):
    """Nothing could be read: exit 2."""


def fetch(url, headers, timeout=5.0):
    """(status or None, body bytes, headers dict, error text)."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=timeout) as r:
            return r.status, r.read(), {k.lower(): v for k, v in r.headers.items()}, ""
    except urllib.error.HTTPError as e:
        return e.code, b"", {}, f"HTTP {e.code}"
    except Exception as e:  # timeouts, refused connections, resets: all counted, none fatal
        return None, b"", {}, f"{type(e).__name__}: {e}"


def short(lines, limit=400):
    text = " / ".join(lines) if isinstance(lines, list) else (lines or "")
    return text if len(text) <= limit else text[:limit] + "..."


def is_subsequence(small, big):
    it = iter(big)
    return all(x in it for x in small)


class Variant:
    def __init__(self, info, url):
        self.__dict__.update(info)
        self.url, self.name = url, info["uri"].rsplit("/index.m3u8", 1)[0] if info["uri"].endswith("/index.m3u8") else info["uri"]
        self.playlists = self.non200 = self.fetched = self.probed = self.fetch_skipped = 0
        self.ref, self.parts, self.final_parts = {}, {}, {}  # msn -> observation / {i: line} / count
        self.dseq, self.pdt = {}, {}  # msn -> latest value
        self.seen, self.queued = set(), set()
        self.first_fetch, self.endlist = None, False
        self.target = self.msn0 = self.high = None
        self.fills, self.fill_ranges, self.bw_worst = [], set(), None


class Checker:
    def __init__(self, args):
        self.a, self.headers = args, dict(h.split(":", 1) for h in args.header)
        self.headers = {k.strip(): v.strip() for k, v in self.headers.items()}
        self.master_url = f"{args.base.rstrip('/')}/live/{args.stream}/master.m3u8"
        self.variants, self.violations, self.notes, self.dedupe = {}, [], [], set()
        # Segments whose profile or level is below the declared one (covered, not a violation).
        self.covered = {}
        self.counts = collections.Counter()
        self.lock = threading.Lock()
        self.pool = cf.ThreadPoolExecutor(max_workers=2)
        self.futures, self.probe_cache = [], {}
        self.probe = not args.no_probe and not args.no_fetch and shutil.which("ffprobe") is not None
        if not args.no_probe and not args.no_fetch and not self.probe:
            self.notes.append("ffprobe not found on PATH: CODECS not checked")

    def violate(self, kind, v, msn, desc, old=None, new=None):
        key = (kind, v, msn, desc, short(old), short(new))
        with self.lock:
            if key in self.dedupe:
                return
            self.dedupe.add(key)
            self.counts[kind] += 1
            self.violations.append({"kind": kind, "variant": v, "msn": msn, "description": desc,
                                    "old": old, "new": new, "t": round(time.time() - self.t0, 2)})

    def poll_master(self, first=False):
        status, body, _, err = fetch(self.master_url, self.headers)
        while first and status == 503 and time.time() < self.t0 + self.a.wait:  # a server still starting
            time.sleep(0.5)
            status, body, _, err = fetch(self.master_url, self.headers)
        if status != 200:
            if first:
                raise Fatal(f"could not fetch the master playlist {self.master_url}: {err or status}.\n"
                            "Is the server running and are --base and --stream right? `sideline serve` prints "
                            "the master URL it serves at start (stream 'main' by default).")
            self.violate("http", "master", None, f"master playlist answered {err or status}")
            return
        try:
            found = hls.parse_master(body.decode("utf-8", "replace"))
        except ValueError as e:
            if first:
                raise Fatal(f"{self.master_url} is not a master playlist: {e}")
            self.violate("parse", "master", None, f"master playlist unreadable: {e}")
            return
        for info in found:
            url = urllib.parse.urljoin(self.master_url, info["uri"])
            old = self.variants.get(url)
            if old is None:
                self.variants[url] = Variant(info, url)
                if not first:
                    self.notes.append(f"master: {info['uri']} appeared at {time.time() - self.t0:.1f} s")
            elif (old.bandwidth, old.codecs) != (info["bandwidth"], info["codecs"]):
                self.notes.append(f"master: {old.name} changed BANDWIDTH/CODECS from {old.bandwidth} {old.codecs} "
                                  f"to {info['bandwidth']} {info['codecs']} at {time.time() - self.t0:.1f} s")
                old.bandwidth, old.codecs = info["bandwidth"], info["codecs"]

    def poll_media(self, v):
        status, body, _, err = fetch(v.url, self.headers)
        v.playlists += 1
        if status != 200:
            v.non200 += 1
            self.violate("http", v.name, None, f"playlist answered {err or status}")
            return
        try:
            pl = hls.parse_media(body.decode("utf-8", "replace"))
        except ValueError as e:
            self.violate("parse", v.name, None, f"playlist unreadable: {e}")
            return
        if v.target is not None and pl["target"] != v.target:
            self.violate("targetduration", v.name, None, "EXT-X-TARGETDURATION changed",
                         f"#EXT-X-TARGETDURATION:{v.target}", f"#EXT-X-TARGETDURATION:{pl['target']}")
        if v.msn0 is not None and pl["msn0"] < v.msn0:
            self.violate("append-only", v.name, pl["msn0"], f"EXT-X-MEDIA-SEQUENCE went back from {v.msn0}")
        listed = pl["segs"] + ([pl["open"]] if pl["open"] else [])
        high = pl["segs"][-1]["msn"] if pl["segs"] else None
        if v.high is not None and (high is None or high < v.high) and not pl["skipped"]:
            self.violate("append-only", v.name, high, f"the last listed segment went back from MSN {v.high}")
        v.target, v.msn0 = pl["target"], pl["msn0"]
        if pl["endlist"] and not v.endlist:
            v.endlist = True
            self.notes.append(f"{v.name}: EXT-X-ENDLIST appeared at {time.time() - self.t0:.1f} s")
        for obs in listed:
            self.compare(v, obs)
        for seg in pl["segs"]:
            m = seg["msn"]
            v.seen.add(m)
            if seg["dseq"] is not None:
                v.dseq[m] = seg["dseq"]
            for dr in seg["dateranges"]:
                if any(s in dr.get("CLASS", "") for s in ("stand-in", "sibling-fill")) and dr.get("ID") not in v.fill_ranges:
                    v.fill_ranges.add(dr.get("ID"))
                    if self.a.no_fills:
                        self.violate("fill", v.name, m, f"fill DATERANGE {dr.get('ID')} ({dr.get('CLASS')})")
        for obs in listed:
            if obs["pdt"] is not None:
                try:
                    v.pdt[obs["msn"]] = (hls.pdt_seconds(obs["pdt"]), obs["pdt"])
                except ValueError as e:
                    self.violate("parse", v.name, obs["msn"], str(e))
        if high is not None:
            v.high = max(high, v.high or high)
            if v.first_fetch is None:
                v.first_fetch = high - self.a.initial + 1
            if not self.a.no_fetch:
                for seg in pl["segs"]:
                    if seg["msn"] >= v.first_fetch and seg["msn"] not in v.queued and not seg["gap"]:
                        v.queued.add(seg["msn"])
                        self.queue(v, seg)

    def compare(self, v, new):
        """Append-only: `new` (an observation of one MSN) against the last one seen."""
        m, old = new["msn"], v.ref.get(new["msn"])
        if old is not None:
            if old["final"] and new["final"]:
                if old["full"] != new["full"]:
                    how = ("lines inserted" if is_subsequence(old["full"], new["full"]) else
                           "lines removed" if is_subsequence(new["full"], old["full"]) else "lines changed")
                    self.violate("append-only", v.name, m, f"segment tag lines changed ({how})", old["full"], new["full"])
                for f in ("extinf", "uri"):
                    if old[f] != new[f]:
                        self.violate("append-only", v.name, m, f"segment {f.upper()} changed", old[f], new[f])
            elif old["final"]:
                self.violate("append-only", v.name, m, "a listed segment became the open one again")
            elif old["parts"] and new["parts"]:
                if old["pre"] != new["pre"]:
                    self.violate("open-segment", v.name, m, "tag lines before the first part "
                                 + ("had lines inserted" if is_subsequence(old["pre"], new["pre"]) else "changed")
                                 + (" (completed)" if new["final"] else " (still open)"), old["pre"], new["pre"])
            elif old["pre"] != (new["pre"] if new["parts"] else new["full"])[:len(old["pre"])]:
                self.violate("open-segment", v.name, m, "open segment's published tag lines "
                             + ("had lines inserted before them" if is_subsequence(old["pre"], new["full"]) else "changed")
                             + (" (completed)" if new["final"] else " (still open)"), old["pre"], new["full"])
        v.ref[m] = new
        known = v.parts.setdefault(m, {})
        if not new["parts"]:
            return  # all parts dropped (or none yet): allowed
        for i, line in enumerate(new["parts"]):
            if i in known and hls.part_key(known[i]) != hls.part_key(line):
                self.violate("parts", v.name, m, f"part {i} changed", known[i], line)
            known[i] = line
        if len(new["parts"]) < len(known):
            self.violate("parts", v.name, m, f"some parts dropped: {len(new['parts'])} listed of {len(known)} seen",
                         known[len(new["parts"])], None)
        if new["final"]:
            count = v.final_parts.setdefault(m, len(new["parts"]))
            if count != len(new["parts"]):
                self.violate("parts", v.name, m, f"completed segment listed {len(new['parts'])} parts, earlier {count}")

    def queue(self, v, seg):
        with self.lock:
            self.futures = [f for f in self.futures if not f.done()]
            if len(self.futures) >= 40:
                v.fetch_skipped += 1
                return
            self.futures.append(self.pool.submit(self.fetch_segment, v, seg))

    def fetch_segment(self, v, seg):
        url = urllib.parse.urljoin(v.url, seg["uri"])
        status, body, headers, err = fetch(url, self.headers)
        if status != 200:
            self.violate("http", v.name, seg["msn"], f"segment {seg['uri']} answered {err or status}")
            return
        with self.lock:
            v.fetched += 1
        cmsd = headers.get("cmsd-static", "")
        if "stand-in" in cmsd or "sibling" in cmsd:
            v.fills.append(seg["msn"])
            if self.a.no_fills:
                self.violate("fill", v.name, seg["msn"], f"segment is a fill: CMSD-Static {cmsd}")
        dur = hls.duration(seg["extinf"])
        if v.bandwidth and dur > 0:
            ratio = len(body) * 8 / dur / v.bandwidth
            if v.bw_worst is None or ratio > v.bw_worst[0]:
                v.bw_worst = (round(ratio, 3), seg["msn"])
            if ratio > 1:
                self.violate("bandwidth", v.name, seg["msn"], f"{len(body) * 8 / dur / 1000:.0f} kbit/s over {dur:.3f} s "
                             f"is {ratio:.2f}x BANDWIDTH={v.bandwidth}")
        if not self.probe or v.kind != "variant":
            return
        if url not in self.probe_cache:
            try:
                r = subprocess.run(["ffprobe", "-v", "error", "-show_streams", "-of", "json", "-"], input=body,
                                   capture_output=True, timeout=20)
                if r.returncode != 0:
                    raise ValueError(r.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or r.returncode)
                self.probe_cache[url] = json.loads(r.stdout or b"{}").get("streams", [])
            except (subprocess.TimeoutExpired, ValueError) as e:
                self.violate("parse", v.name, seg["msn"], f"ffprobe failed on {seg['uri']}: {type(e).__name__} {e}")
                return
        with self.lock:
            v.probed += 1
        for kind, desc in hls.codec_problems(v.codecs, self.probe_cache[url]):
            if kind == "codecs-covered" and not self.a.exact_codecs:
                # RFC 8216 asks CODECS to cover every segment; a higher profile or level does.
                with self.lock:
                    self.covered[v.name] = self.covered.get(v.name, 0) + 1
                continue
            self.violate("codecs-mismatch" if kind == "codecs-covered" else kind, v.name, seg["msn"], f"{seg['uri']}: {desc}")

    def cross_variant(self):
        """Discontinuity sequences and PDTs of each MSN across the variants."""
        order = list(self.variants.values())
        for kind, table, same in (("discontinuity", "dseq", lambda a, b: a == b),
                                  ("pdt", "pdt", lambda a, b: abs(a[0] - b[0]) <= 0.001)):
            for m in sorted(set().union(*(getattr(v, table).keys() for v in order)) if order else []):
                have = [(v, getattr(v, table)[m]) for v in order if m in getattr(v, table)]
                if len(have) < 2:
                    continue
                ref = max(have, key=lambda h: sum(same(h[1], o[1]) for o in have))  # first of the largest group
                for v, value in have:
                    if not same(value, ref[1]):
                        show = (lambda x: x[1]) if kind == "pdt" else str
                        what = "PROGRAM-DATE-TIME" if kind == "pdt" else "discontinuity sequence"
                        self.violate(kind, v.name, m, f"{what} {show(value)} where {ref[0].name} has {show(ref[1])}")

    def run(self):
        self.t0 = time.time()
        self.poll_master(first=True)
        self.t0 = time.time()
        deadline, next_master = self.t0 + self.a.seconds, self.t0 + 5
        try:
            while time.time() < deadline:
                tick = time.time()
                if tick >= next_master:
                    self.poll_master()
                    next_master = tick + 5
                for v in list(self.variants.values()):
                    if time.time() < deadline:
                        self.poll_media(v)
                time.sleep(max(0, min(tick + self.a.interval, deadline) - time.time()))
        except KeyboardInterrupt:
            self.notes.append("interrupted: the report covers what was read")
        cf.wait(self.futures, timeout=20)
        unfinished = sum(not f.done() for f in self.futures)
        if unfinished:
            self.notes.append(f"{unfinished} segment fetches/probes not finished in 20 s: dropped")
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.cross_variant()
        return self.report()

    def report(self):
        with self.lock:
            vs = list(self.variants.values())
            out = {"master": self.master_url, "seconds": round(time.time() - self.t0, 1), "probe": self.probe,
                   "checks": {name: sum(self.counts[k] for k in kinds) for name, kinds in CHECKS},
                   "violations": list(self.violations), "notes": self.notes, "codecs_covered": dict(self.covered), "variants": {}}
            for v in vs:
                out["variants"][v.name] = {
                    "url": v.url, "kind": v.kind, "bandwidth": v.bandwidth, "codecs": v.codecs,
                    "playlists": v.playlists, "non200": v.non200, "segments_seen": len(v.seen), "highest_msn": v.high,
                    "fetched": v.fetched, "probed": v.probed, "fetch_skipped": v.fetch_skipped,
                    "worst_bandwidth_ratio": v.bw_worst, "fill_segments": sorted(v.fills),
                    "fill_dateranges": sorted(v.fill_ranges)}
        self.rc = 1 if out["violations"] else 0
        if self.a.json:  # written first, so a summary piped into `head` loses nothing
            with open(self.a.json, "w") as f:
                json.dump(out, f, indent=1)
        per = lambda kinds: ", ".join(f"{n}: {c}" for n, c in collections.Counter(
            x["variant"] for x in out["violations"] if x["kind"] in kinds).items())
        print(f"checked {self.master_url} for {out['seconds']} s ({len(vs)} playlists, probe {'on' if self.probe else 'off'})")
        for name, kinds in CHECKS:
            extra = ""
            if name == "codecs":
                extra = " [" + ", ".join(f"{k[7:]} {self.counts[k]}" for k in kinds) + f"; probed {sum(v.probed for v in vs)}" \
                    + f"; covered below the declared profile/level: {dict(self.covered) or 0}]"
            elif name == "bandwidth":
                extra = " [worst " + ", ".join(f"{v.name} {v.bw_worst[0]}x@{v.bw_worst[1]}" for v in vs if v.bw_worst) + "]"
            elif name == "fills":
                extra = " [" + "; ".join(f"{v.name}: {len(v.fills)} segments, dateranges {sorted(v.fill_ranges) or '-'}"
                                         for v in vs) + ("" if self.a.no_fills else "; violations only with --no-fills") + "]"
            print(f"  {name:14s} {out['checks'][name]:4d} violations ({per(kinds) or '-'}){extra}")
        for n, d in out["variants"].items():
            print(f"  {n}: playlists {d['playlists']}, non-200 {d['non200']}, segments seen {d['segments_seen']}, "
                  f"highest MSN {d['highest_msn']}, fetched {d['fetched']}, probed {d['probed']}"
                  + (f", not fetched (backlog) {d['fetch_skipped']}" if d["fetch_skipped"] else ""))
        for note in self.notes:
            print(f"  note: {note}")
        queues = [[x for x in out["violations"] if x["kind"] in kinds] for _, kinds in CHECKS]
        shown = []  # up to 20, taken in turn from each check so one noisy check does not hide the rest
        while len(shown) < 20 and any(queues):
            shown += [q.pop(0) for q in queues if q][:20 - len(shown)]
        for x in shown:
            print(f"  [{x['kind']}] {x['variant']} msn={x['msn']} t={x['t']}s: {x['description']}"
                  + (f"\n      old: {short(x['old'], 300)}\n      new: {short(x['new'], 300)}" if x["old"] or x["new"] else ""))
        if len(out["violations"]) > 20:
            print(f"  ... {len(out['violations']) - 20} more" + (" (see --json)" if not self.a.json else f" in {self.a.json}"))
        return self.rc


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 2)[2])
    p.add_argument("--base", required=True, help="server base URL, e.g. http://127.0.0.1:8080")
    p.add_argument("--stream", required=True, help="stream name: the master is {base}/live/{stream}/master.m3u8")
    p.add_argument("--seconds", type=float, default=24, help="how long to watch (default 24)")
    p.add_argument("--interval", type=float, default=0.5, help="seconds between media playlist polls (default 0.5)")
    p.add_argument("--no-probe", action="store_true", help="do not run ffprobe (segments are still fetched)")
    p.add_argument("--no-fetch", action="store_true", help="fetch no segments (no codecs, bandwidth or CMSD checks)")
    p.add_argument("--no-fills", action="store_true", help="count stand-in/sibling fills as violations")
    p.add_argument("--exact-codecs", action="store_true",
                   help="count a segment whose profile or level is below the declared CODECS (covered) as a violation")
    p.add_argument("--initial", type=int, default=3, help="segments already listed at start to fetch per variant (default 3)")
    p.add_argument("--wait", type=float, default=15, help="seconds to retry a master answered 503 at start (default 15)")
    p.add_argument("--json", help="write the full result here")
    p.add_argument("--header", action="append", default=[], help="'Name: value' sent with every request (repeatable)")
    a = p.parse_args()
    if any(":" not in h for h in a.header) or a.seconds <= 0 or a.interval <= 0:
        p.error("--header takes 'Name: value'; --seconds and --interval must be positive")
    try:
        checker = Checker(a)
        sys.exit(checker.run())
    except BrokenPipeError:  # the summary's reader went away (e.g. `| head`): the verdict stands
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(checker.rc)
    except Fatal as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
