#!/usr/bin/env python3
"""A venue's low-latency players straight from the origin and through the Varnish edge, side by
side (scripts/bench/lowlatency/venue_load.py plays them). Not a test: it prints figures for the
reader to judge, the edge's beside the origin's measured in the same run, and a lone player's
beside both.

A `sideline serve` on 127.0.0.1 runs INPUT (the test pattern) with the default ladder and the
default part duration, its data in a temporary folder, with `server.trusted_proxies:
[127.0.0.1]` (retried without, and said so, if this binary does not know the key). In front
of it, Varnish (`varnishd -F`, malloc 256 MB) runs EDGE_VCL (Config/varnish/sideline-edge.vcl),
copied beside a `sideline-backends.vcl` that names the origin (`backends_vcl`); with NGINX=1,
the shipped nginx edge (Config/nginx/sideline-edge.conf) runs on a port of its own too.
SERVER_WARMUP seconds after the stream is live, the load plays, one target after another:

  - ANCHOR_PLAYERS (1) player straight from the origin (the lateness of a lone player);
  - then ROUNDS times: PLAYERS_DIRECT (200) players straight from the origin, PLAYERS_EDGE (500)
    through Varnish (and PLAYERS_EDGE through nginx with NGINX=1).

Each row: parts per player per second (mean and the least of any player; a player in step
with the encoder gets 1 / PART-TARGET), the parts' lateness (the wall clock when a part was
received whole minus its end in the stream, by the playlist's dates) p50/p99/max, the answers
by status, the origin's requests per distinct part the players received (all kinds: parts and
playlists; direct, the players' own requests; through Varnish, its backend requests,
`varnishstat` MAIN.backend_req; with REQUEST_METRICS=1, every row from the origin's
`hb_requests` in /metrics, which costs the origin CPU and turns its fast path off), the edge's
misses per part as its answers' X-Varnish / X-Cache-Status told the players (the origin's part
requests per part), and the CPU of the origin, of the edge (every process of varnishd's, or
nginx's), and of the load's workers, in cores, over the window; and the load average.

    scripts/bench/lowlatency/venue.py                                    # release build
    SIDELINE=.build/debug/sideline PLAYERS_DIRECT=30 PLAYERS_EDGE=50 DURATION=15 scripts/bench/lowlatency/venue.py --json /tmp/venue.json

Environment: DURATION (30), WARMUP (8), ROUNDS (1), PLAYERS_DIRECT (200), PLAYERS_EDGE (500),
ANCHOR_PLAYERS (1; 0 leaves the row out), SERVER_WARMUP (20), INPUT (testpattern), NGINX (0),
REQUEST_METRICS (0), PAUSE (3 s between runs), HLSJS_CROWD (200: hls.js alone and among that many players
through each edge; 0: neither), KEEP (set: the work folder is kept, with the
logs), SIDELINE (.build-release/release/sideline, else .build/release/sideline), EDGE_VCL
(Config/varnish/sideline-edge.vcl), and venue_load.py's own (WORKERS, ADDRESSES, RUNG, CMCD...).
Every wait is bounded; everything started is stopped by its PID.
"""
import argparse
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)
import venue_load  # noqa: E402
from ll_latency import free_port, nginx_config, wait_ok  # noqa: E402

DURATION = float(os.environ.get("DURATION", "30"))
WARMUP = float(os.environ.get("WARMUP", "8"))
ROUNDS = int(os.environ.get("ROUNDS", "1"))
PLAYERS_DIRECT = int(os.environ.get("PLAYERS_DIRECT", "200"))
PLAYERS_EDGE = int(os.environ.get("PLAYERS_EDGE", "500"))
ANCHOR_PLAYERS = int(os.environ.get("ANCHOR_PLAYERS", "1"))
SERVER_WARMUP = float(os.environ.get("SERVER_WARMUP", "20"))
INPUT = os.environ.get("INPUT", "testpattern")
NGINX = os.environ.get("NGINX", "0") == "1"
REQUEST_METRICS = os.environ.get("REQUEST_METRICS", "0") == "1"
PAUSE = float(os.environ.get("PAUSE", "3"))
# hls.js in the crowd (issue 43, item 5): after the rounds, one more row per edge with this
# many players and hls.js 1.6 (headless Chromium, low-latency mode) among them, and a row of
# hls.js alone through the edge; 0 leaves both out.
HLSJS_CROWD = int(os.environ.get("HLSJS_CROWD", "200"))
HLSJS = os.path.join(ROOT, ".build-hlsjs", "hls.mjs")
EDGE_VCL = os.environ.get("EDGE_VCL", os.path.join(ROOT, "Config/varnish/sideline-edge.vcl"))
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def default_sideline():
    for candidate in (".build-release/release/sideline", ".build/release/sideline"):
        if os.path.isfile(os.path.join(ROOT, candidate)):
            return os.path.join(ROOT, candidate)
    return os.path.join(ROOT, ".build-release/release/sideline")


SIDELINE = os.environ.get("SIDELINE") or default_sideline()


def backends_vcl(origin_port):
    """The `sideline-backends.vcl` the edge VCL includes: the origin, and the route to it (what
    scripts/edge writes for one origin: the backend with its timeouts, sideline_route, and an
    empty sideline_other_box, there being no other box)."""
    return f"""# Written by scripts/bench/lowlatency/venue.py: one origin.
backend sideline_origin {{
    .host = "127.0.0.1";
    .port = "{origin_port}";
    .connect_timeout = 1s;
    .first_byte_timeout = 15s;
    .between_bytes_timeout = 10s;
}}
sub sideline_route {{
    set req.backend_hint = sideline_origin;
    set req.http.X-Sideline-Box = "origin";
    unset req.http.X-Sideline-Pair;
}}
sub sideline_other_box {{
}}
"""


# --------------------------------------------------------------------------------------------
# Processes: CPU, starting and stopping.


def cpu_seconds(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    except (OSError, IndexError, ValueError):
        return 0.0


def descendants(root):
    """`root` and every process below it (by the parent PIDs in /proc)."""
    parents = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    parents[int(name)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    found, frontier = {root}, [root]
    while frontier:
        pid = frontier.pop()
        for child, parent in parents.items():
            if parent == pid and child not in found:
                found.add(child)
                frontier.append(child)
    return found


def tree_cpu(root):
    return sum(cpu_seconds(pid) for pid in descendants(root))


def stop(process, sig=signal.SIGINT, seconds=20):
    if process is None or process.poll() is not None:
        return
    process.send_signal(sig)
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def log_tail(path, n=1500):
    try:
        with open(path, errors="replace") as f:
            return f.read()[-n:]
    except OSError:
        return ""



def serves_master(base, process, seconds):
    """True once `base` answers the master 200; false after `seconds` or when `process` exits."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with urllib.request.urlopen(f"{base}/live/main/master.m3u8", timeout=2) as answer:
                if answer.status == 200:
                    return True
        except Exception:
            pass
        time.sleep(0.3)
    return False

class Origin:
    """`sideline serve` on 127.0.0.1 with the test pattern, the default ladder and parts."""

    def __init__(self, work):
        self.work = work
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process = None
        self.notes = []

    def config(self, trusted):
        server = []
        if trusted:
            server.append("trusted_proxies: [127.0.0.1]")
        if REQUEST_METRICS:
            server.append("request_metrics: true")
        return (f"server: {{{', '.join(server)}}}\n" if server else "") + "stream: {name: main, input: " + json.dumps(INPUT) + "}\n"

    def start(self):
        for trusted in (True, False):
            path = os.path.join(self.work, "sideline.yaml")
            with open(path, "w") as f:
                f.write(self.config(trusted))
            log = os.path.join(self.work, "sideline.log")
            self.process = subprocess.Popen([SIDELINE, "serve", "--config", path, "--host", "127.0.0.1", "--port", str(self.port),
                                             "--data-dir", os.path.join(self.work, "data"), "--input", INPUT],
                                            stdout=subprocess.DEVNULL, stderr=open(log, "w"))
            if serves_master(self.base, self.process, 90):
                return
            if self.process.poll() is None:
                stop(self.process)
                raise SystemExit(f"sideline serve did not answer within 90 s: {log_tail(log)}")
            text = log_tail(log)
            if trusted and "trusted_proxies" in text:
                said = [line for line in text.splitlines() if "trusted_proxies" in line]
                self.notes.append(f"this sideline rejected server.trusted_proxies (exit {self.process.returncode}: "
                                  f"{' '.join(said[-1].split())[:300]}); started without it")
                print(f"NOTE: {self.notes[-1]}", flush=True)
                continue
            raise SystemExit(f"sideline serve exited {self.process.returncode}: {text}")

    def metrics(self):
        try:
            with urllib.request.urlopen(f"{self.base}/metrics", timeout=5) as answer:
                text = answer.read().decode(errors="replace")
        except Exception:
            return {}
        figures = {"live_requests": 0, "player_sessions": 0}
        for line in text.splitlines():
            if line.startswith("hb_requests{") and "/live" in line:
                figures["live_requests"] += float(line.rsplit(" ", 1)[1])
            elif line.startswith("sideline_player_sessions{"):
                figures["player_sessions"] += float(line.rsplit(" ", 1)[1])
            elif line.startswith("sideline_cmcd_malformed_total"):
                figures["cmcd_malformed"] = float(line.rsplit(" ", 1)[1])
        return figures

    def stop(self):
        stop(self.process)


class Varnish:
    """varnishd in the foreground on its own port, EDGE_VCL copied beside sideline-backends.vcl."""

    def __init__(self, work, origin_port):
        self.work = os.path.join(work, "varnish-vcl")
        self.name = os.path.join(work, "varnish")
        os.makedirs(self.work, exist_ok=True)
        os.chmod(self.work, 0o755)
        # The VCL and the files beside it it may include (sideline-edge-common.vcl), all but
        # the backends, which are written here.
        source = os.path.dirname(os.path.abspath(EDGE_VCL))
        for name in os.listdir(source):
            if name.endswith(".vcl") and not name.startswith("sideline-backends"):
                shutil.copyfile(os.path.join(source, name), os.path.join(self.work, name))
        self.vcl = os.path.join(self.work, os.path.basename(EDGE_VCL))
        shutil.copyfile(EDGE_VCL, self.vcl)
        with open(os.path.join(self.work, "sideline-backends.vcl"), "w") as f:
            f.write(backends_vcl(origin_port))
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process = None

    def start(self):
        log = os.path.join(self.work, "varnishd.log")
        self.process = subprocess.Popen(["varnishd", "-F", "-n", self.name, "-a", f"127.0.0.1:{self.port}", "-f", self.vcl, "-s", "malloc,256m",
                                         "-p", f"vcl_path={self.work}:/etc/varnish:/usr/share/varnish/vcl"],
                                        stdout=open(log, "w"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        if serves_master(self.base, self.process, 30):
            return
        stop(self.process, signal.SIGTERM)
        raise RuntimeError(f"varnishd did not serve the master within 30 s (exit {self.process.returncode}): {log_tail(log)}")

    def counters(self):
        try:
            run = subprocess.run(["varnishstat", "-n", self.name, "-1", "-j"], capture_output=True, text=True, timeout=10)
            data = json.loads(run.stdout)
        except (subprocess.SubprocessError, ValueError, OSError):
            return {}
        counters = data.get("counters", data)
        return {name: value.get("value", 0) for name, value in counters.items() if isinstance(value, dict) and name.startswith("MAIN.")}

    def stop(self):
        stop(self.process, signal.SIGTERM)


class Nginx:
    def __init__(self, work, origin_port):
        self.work = os.path.join(work, "nginx")
        os.makedirs(self.work, exist_ok=True)
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        with open(os.path.join(self.work, "nginx.conf"), "w") as f:
            f.write(nginx_config(self.work, self.port, origin_port))
        self.process = None

    def start(self):
        self.process = subprocess.Popen(["nginx", "-c", os.path.join(self.work, "nginx.conf"), "-p", self.work],
                                        stderr=open(os.path.join(self.work, "nginx.stderr"), "w"))
        wait_ok(f"{self.base}/live/main/master.m3u8", 30)

    def stop(self):
        stop(self.process, signal.SIGQUIT)


# --------------------------------------------------------------------------------------------
# One row: the load against one target, with the origin's and the edge's CPU over its window.

VARNISH_COUNTERS = ("MAIN.client_req", "MAIN.cache_hit", "MAIN.cache_miss", "MAIN.cache_hitpass", "MAIN.cache_hitmiss", "MAIN.backend_req",
                    "MAIN.backend_conn", "MAIN.backend_reuse", "MAIN.backend_fail", "MAIN.fetch_failed", "MAIN.busy_sleep", "MAIN.busy_wakeup",
                    "MAIN.sess_conn", "MAIN.sess_drop", "MAIN.s_pass", "MAIN.s_pipe", "MAIN.n_expired", "MAIN.n_lru_nuked")


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def hlsjs_beside(base, seconds, into):
    """hls.js in low-latency mode on `base`'s master for `seconds` (after WARMUP), its report
    (Tests/Helpers/hlsjs_play.py) into `into`."""
    command = ["python3", os.path.join(ROOT, "Tests/Helpers/hlsjs_play.py"), f"{base}/live/main/master.m3u8", "--hlsjs", HLSJS,
               "--seconds", f"{seconds:g}", "--warmup", f"{WARMUP:g}"]
    try:
        run = subprocess.run(command, capture_output=True, text=True, timeout=seconds + WARMUP + 90)
        into.update(json.loads(run.stdout))
    except Exception as error:  # the row says so; the load's figures stand
        into.update({"fatal": f"hlsjs_play.py: {error}", "latencies": []})


def measure(name, base, players, origin, edge_process, varnish, hlsjs=False):
    samples = {}
    report, watcher = {}, None
    if hlsjs:
        watcher = threading.Thread(target=hlsjs_beside, args=(base, DURATION, report), daemon=True)
        watcher.start()

    def on_window(edge):
        samples[edge] = {"time": time.time(), "origin_cpu": cpu_seconds(origin.process.pid),
                         "edge_cpu": tree_cpu(edge_process.pid) if edge_process else 0.0,
                         "metrics": origin.metrics() if REQUEST_METRICS or edge == "end" else {},
                         "varnish": varnish.counters() if varnish else {}}

    if players > 0:
        figures = venue_load.run([base], players, DURATION, WARMUP, on_window=on_window, quiet=True)
    else:
        figures = None
    if watcher:
        watcher.join()
    if figures is None:
        latencies = report.get("latencies", [])
        return {"target": name, "base": base, "players": 0, "hlsjs": {"p50": percentile(latencies, 0.5), "p99": percentile(latencies, 0.99),
                "samples": len(latencies), "parts": report.get("parts"), "stalls": report.get("stalls"), "fatal": report.get("fatal")},
                "loadavg": venue_load.load_average()}
    start, end = samples["start"], samples["end"]
    wall = max(1e-9, end["time"] - start["time"])
    row = {"target": name, "base": base, "players": players, "load": figures,
           "origin_cores": (end["origin_cpu"] - start["origin_cpu"]) / wall,
           "edge_cores": (end["edge_cpu"] - start["edge_cpu"]) / wall if edge_process else None,
           "load_cores": figures["load_cores"], "loadavg": venue_load.load_average(),
           "player_sessions_at_end": end["metrics"].get("player_sessions")}
    distinct = figures["distinct_parts"]
    if REQUEST_METRICS and "live_requests" in start["metrics"]:
        origin_requests, source = end["metrics"]["live_requests"] - start["metrics"]["live_requests"], "origin hb_requests"
    elif varnish:
        origin_requests, source = end["varnish"].get("MAIN.backend_req", 0) - start["varnish"].get("MAIN.backend_req", 0), "varnish backend_req"
    elif edge_process is None:
        origin_requests, source = figures["requests"], "the players' requests"
    else:
        origin_requests, source = None, None
    row["origin_requests"], row["origin_requests_source"] = origin_requests, source
    row["origin_requests_per_part"] = origin_requests / distinct if origin_requests is not None and distinct else None
    row["edge_misses_per_part"] = figures["edge_part_misses_per_part"]
    if varnish:
        row["varnish"] = {key: end["varnish"].get(key, 0) - start["varnish"].get(key, 0) for key in VARNISH_COUNTERS if key in end["varnish"]}
    if hlsjs:
        latencies = report.get("latencies", [])
        row["hlsjs"] = {"p50": percentile(latencies, 0.5), "p99": percentile(latencies, 0.99), "samples": len(latencies),
                        "parts": report.get("parts"), "stalls": report.get("stalls"), "fatal": report.get("fatal")}
    return row


def number(value, form):
    return format(value, form) if isinstance(value, (int, float)) else "-"


HEADER = (f"{'target':<16} {'players':>7} {'parts/pl/s':>11} {'min':>5} {'late p50':>8} {'p99':>6} {'max':>6} {'req/part':>8} {'miss/part':>9} "
          f"{'origin':>6} {'edge':>5} {'load':>5} {'load avg':>8}  answers")


def print_row(row):
    if row.get("hlsjs"):
        h = row["hlsjs"]
        print(f"  hls.js through {row['target']} beside {row['players']} players: behind the camera p50 {h['p50']:.3f} s, p99 {h['p99']:.3f} s "
              f"({h['samples']} samples, {h['parts']} parts, {h['stalls']} stalls, fatal {h['fatal']})", flush=True)
    if row["players"] == 0:
        return
    load = row["load"]
    late = load["lateness_s"]
    print(f"{row['target']:<16} {row['players']:>7} {load['parts_per_player_per_s']['mean']:>11.2f} {load['parts_per_player_per_s']['min']:>5.2f} "
          f"{late['p50']:>8.3f} {late['p99']:>6.3f} {late['max']:>6.3f} {number(row['origin_requests_per_part'], '8.1f'):>8} "
          f"{number(row['edge_misses_per_part'], '9.2f'):>9} {row['origin_cores']:>6.2f} {number(row['edge_cores'], '5.2f'):>5} "
          f"{row['load_cores']:>5.2f} {row['loadavg'][0]:>8.2f}  {load['statuses_by_kind']}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", help="write the rows and settings to this file")
    arguments = parser.parse_args()
    if not os.path.isfile(SIDELINE):
        raise SystemExit(f"{SIDELINE} is missing: swift build -c release --product sideline --scratch-path .build-release")
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the origin and the edge inherit it
    except (ValueError, OSError):
        pass
    work = tempfile.mkdtemp(prefix="sideline-venue-")
    os.chmod(work, 0o755)
    origin = varnish = nginx = None
    rows, notes = [], []
    try:
        print(f"venue: {os.path.relpath(SIDELINE, ROOT)}, input {INPUT}, DURATION={DURATION:g} s after WARMUP={WARMUP:g} s, ROUNDS={ROUNDS}, "
              f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, load average before {' '.join(open('/proc/loadavg').read().split()[:3])}; "
              f"work {work}", flush=True)
        origin = Origin(work)
        origin.start()
        notes += origin.notes
        targets = []
        if os.path.isfile(EDGE_VCL):
            try:
                varnish = Varnish(work, origin.port)
                varnish.start()
                targets.append(("varnish", varnish))
            except RuntimeError as error:
                notes.append(f"no Varnish row: {error}")
                print(f"NOTE: {notes[-1]}", flush=True)
                varnish = None
        else:
            notes.append(f"no Varnish row: {EDGE_VCL} is missing")
            print(f"NOTE: {notes[-1]}", flush=True)
        if NGINX:
            nginx = Nginx(work, origin.port)
            nginx.start()
            targets.append(("nginx", nginx))
        time.sleep(SERVER_WARMUP)
        print(HEADER, flush=True)
        runs = []
        if ANCHOR_PLAYERS > 0:
            runs.append(("direct (anchor)", origin.base, ANCHOR_PLAYERS, None, None))
        for _ in range(ROUNDS):
            runs.append(("direct", origin.base, PLAYERS_DIRECT, None, None))
            for name, edge in targets:
                runs.append((name, edge.base, PLAYERS_EDGE, edge.process, edge if name == "varnish" else None))
        if HLSJS_CROWD > 0 and os.path.isfile(HLSJS):
            for name, edge in targets:
                runs.append((f"{name} + hls.js", edge.base, 0, edge.process, None))
                runs.append((f"{name} + hls.js", edge.base, HLSJS_CROWD, edge.process, edge if name == "varnish" else None))
        elif HLSJS_CROWD > 0:
            notes.append(f"no hls.js rows: {HLSJS} is missing (scripts/ensure-deps.sh --hlsjs)")
        for index, (name, base, players, edge_process, counters) in enumerate(runs):
            if index:
                time.sleep(PAUSE)
            if origin.process.poll() is not None:
                notes.append(f"the origin exited ({origin.process.returncode}) before the {name} run: {log_tail(os.path.join(work, 'sideline.log'))}")
                print(f"NOTE: {notes[-1]}", flush=True)
                break
            row = measure(name, base, players, origin, edge_process, counters, hlsjs=name.endswith("hls.js"))
            rows.append(row)
            print_row(row)
        print("req/part: the origin's requests (all kinds) per distinct part received; miss/part: part answers the edge marked as a miss, "
              "per distinct part; origin, edge, load: CPU in cores over the window")
        for row in rows:
            if row["players"] == 0:
                continue
            load = row["load"]
            details = [f"{row['target']}: {load['requests_per_s']:.0f} requests/s sent, {load['distinct_parts']} distinct parts, "
                       f"origin requests from {row['origin_requests_source']}, player sessions at the origin {number(row['player_sessions_at_end'], '.0f')}, "
                       f"not advanced {load['not_advanced']}, connections opened {load['connections_opened']}, "
                       f"load {load['load_cores_per_100_players']:.3f} cores per 100 players"]
            if load["edge_cache"]:
                details.append(f"edge answers {load['edge_cache']}")
            if row.get("varnish"):
                details.append(f"varnishstat {row['varnish']}")
            if load["errors"]:
                details.append(f"e.g. {load['errors'][0]}")
            if load["failures"]:
                details.append(f"failed: {'; '.join(sorted(load['failures'])[:4])}")
            print("  " + "; ".join(details))
        for note in notes:
            print(f"NOTE: {note}")
        print(f"load average after {' '.join(open('/proc/loadavg').read().split()[:3])}", flush=True)
        if arguments.json:
            with open(arguments.json, "w") as f:
                json.dump({"sideline": SIDELINE, "input": INPUT, "duration": DURATION, "warmup": WARMUP, "rounds": ROUNDS,
                           "edge_vcl": EDGE_VCL if varnish else None, "notes": notes, "rows": rows}, f, indent=1, sort_keys=True)
    finally:
        for process in (nginx, varnish, origin):
            if process is not None:
                process.stop()
        if os.environ.get("KEEP"):
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
