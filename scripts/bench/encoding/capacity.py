#!/usr/bin/env python3
"""Capacity on any box (issue 44, item 5; Docs/benchmarks.md, "Issue 44: a busy box never breaks a
playlist"): how many cameras this machine's calibration says fit (FIT), then `sideline serve`
(release) with FIT cameras and with FIT+1, each under simulated players and one conformance
checker per camera.

1. For N = 1, 2, ... (at most 8): a config of N cameras (Samples/sample.mp4 looped, default
   ladder) and `sideline encode --calibrate --config FILE`. Each N's verdict (the report's last
   line) is printed. FIT is the largest N whose verdict does not say "Even at" (nor "Even one
   rung"): the search stops at the first N that does not fit. Every calibrate measures the table
   again and keeps it in the run's own table (SIDELINE_COST_TABLE, in the work directory), which
   serve then reads.
2. `serve` with FIT cameras for RUN_SECONDS on 127.0.0.1 (a free port, a fresh --data-dir), with
   PLAYERS threads spread round-robin over the cameras (each reads its camera's master, then
   every ~1 s its first variant's media playlist, and GETs every new segment once) and
   `scripts/bench/conformance/check.py --no-fills` on every camera, in parallel. At the end one
   read of /metrics, and the server log's "rung shed" and "rung back" lines.
3. The same with FIT+1 cameras (rungs are expected to be shed, at start or while running).

It prints each run's checker violations by check, fills, frames dropped by slow variants,
stand-in and sibling segments, rungs shed, BANDWIDTH exceeded, player errors and the load.
Exit 0 when the FIT run has no checker violation, no stand-in and no frame dropped by a slow
variant; else 1. FIT+1 is reported, not judged ("stand-ins in FIT+1: N").

    scripts/bench/run capacity                          # search, then 300 s at FIT and FIT+1
    RUN_SECONDS=120 PLAYERS=10 scripts/bench/run capacity
    CAMERAS=3 KEEP=1 scripts/bench/run capacity         # no search: FIT=3; keep the data dirs

Settings (environment): RUN_SECONDS (300), PLAYERS (20), CAMERAS (skip the search), KEEP (1: keep
the data directories), SIDELINE (the binary; default .build/release/sideline), BENCH_DIR (where
the work directory is made; /tmp/sideline-bench), SIDELINE_COST_TABLE (a kept table to use instead).
"""
import json, os, re, shutil, signal, subprocess, sys, tempfile, threading, time
import urllib.error, urllib.parse, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "scripts", "bench", "serving"))
from serve_benchmark import free_port, get, wait_for  # noqa: E402
SIDELINE = os.environ.get("SIDELINE", os.path.join(ROOT, ".build", "release", "sideline"))
SAMPLE = os.path.join(ROOT, "Samples", "sample.mp4")
CHECK = os.path.join(ROOT, "scripts", "bench", "conformance", "check.py")
RUN_SECONDS = int(os.environ.get("RUN_SECONDS") or "300")
PLAYERS = int(os.environ.get("PLAYERS") or "20")
CAMERAS = int(os.environ["CAMERAS"]) if os.environ.get("CAMERAS") else None
KEEP = os.environ.get("KEEP", "") not in ("", "0")
MAX_CAMERAS = 8
METRIC = re.compile(r'^(\w+)\{([^}]*)\} ([0-9.eE+-]+)$')
NAMES = ["sideline_frames_dropped_by_slow_variants_total", "sideline_stand_in_segments_total", "sideline_sibling_segments_total",
         "sideline_rung_shed", "sideline_segment_bandwidth_exceeded_total", "sideline_late_segments_dropped_total",
         "sideline_encoder_effort"]


def load():
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def write_config(path, cameras, port=None):
    # The players and checkers all come from 127.0.0.1: no per-client connection limit.
    with open(path, "w") as f:
        if port:
            f.write(f"server: {{host: 127.0.0.1, port: {port}, max_connections_per_client: 0}}\n")
        f.write("streams:\n")
        for k in range(1, cameras + 1):
            f.write(f"  - {{name: cam{k}, input: {SAMPLE}, loop: true}}\n")


def calibrate(work, env, cameras):
    """The calibration report's verdict (its last line) for `cameras` cameras; exits when it fails."""
    config = f"{work}/calibrate-{cameras}.yaml"
    write_config(config, cameras)
    try:
        result = subprocess.run([SIDELINE, "encode", "--calibrate", "--config", config], cwd=ROOT, env=env,
                                capture_output=True, text=True, timeout=900)
    except subprocess.TimeoutExpired:
        sys.exit(f"capacity: encode --calibrate with {cameras} cameras took more than 900 s")
    lines = [line.strip() for line in result.stdout.splitlines() if line.strip()]
    if result.returncode != 0 or not lines:
        sys.exit(f"capacity: encode --calibrate with {cameras} cameras failed ({result.returncode}): {result.stderr.strip()[-2000:]}")
    return lines[-1]


def fits(verdict):
    return "Even at" not in verdict and "Even one rung" not in verdict


def stop(process, group=True):
    """SIGTERM (to its process group when it leads one), SIGKILL after 10 s."""
    if process.poll() is not None:
        return
    send = (lambda s: os.killpg(process.pid, s)) if group else process.send_signal
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            send(sig)
            process.wait(10)
            return
        except (subprocess.TimeoutExpired, ProcessLookupError):
            pass
    try:
        process.wait(1)
    except subprocess.TimeoutExpired:
        pass


def fetch(url, timeout=10):
    """(status or None, body)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, b""
    except Exception:
        return None, b""


def player(base, camera, deadline, counts, lock):
    """One simulated player: the master, then every ~1 s its first variant's playlist and each new segment once."""
    mine = {"playlists": 0, "segments": 0, "bytes": 0, "errors": 0, "non200": 0}

    def count(status):
        if status is None:
            mine["errors"] += 1
        elif status != 200:
            mine["non200"] += 1
        return status == 200

    master_url = f"{base}/live/{camera}/master.m3u8"
    media_url = None
    while media_url is None and time.time() < deadline:
        status, body = fetch(master_url)
        if count(status):
            uris = body.decode(errors="replace").splitlines()
            for i, line in enumerate(uris):
                if line.startswith("#EXT-X-STREAM-INF") and i + 1 < len(uris):
                    media_url = urllib.parse.urljoin(master_url, uris[i + 1].strip())
                    break
        if media_url is None:
            time.sleep(1)
    seen = None
    while media_url and time.time() < deadline:
        tick = time.time()
        status, body = fetch(media_url)
        if count(status):
            mine["playlists"] += 1
            listed, gap = [], False
            for line in body.decode(errors="replace").splitlines():
                line = line.strip()
                if line == "#EXT-X-GAP":
                    gap = True
                elif line and not line.startswith("#"):
                    if not gap:
                        listed.append(line)
                    gap = False
            if seen is None:  # start three segments back from the live edge, as players do
                seen = set(listed[:-3])
            for uri in listed:
                if uri in seen or time.time() >= deadline:
                    continue
                seen.add(uri)
                status, segment = fetch(urllib.parse.urljoin(media_url, uri), timeout=15)
                if count(status):
                    mine["segments"] += 1
                    mine["bytes"] += len(segment)
            if len(seen) > 5000:
                seen = set(listed)
        time.sleep(max(0.0, min(tick + 1.0, deadline) - time.time()))
    with lock:
        for key, value in mine.items():
            counts[key] += value


def read_metrics(port):
    """{(name, stream, variant): value} for NAMES (variant '' for per-stream metrics)."""
    values = {}
    for line in get(f"http://127.0.0.1:{port}/metrics").decode().splitlines():
        match = METRIC.match(line)
        if match and match.group(1) in NAMES:
            labels = dict(re.findall(r'(\w+)="([^"]*)"', match.group(2)))
            key = (match.group(1), labels.get("stream", ""), labels.get("variant", ""))
            values[key] = values.get(key, 0) + float(match.group(3))
    return values


def run(work, env, cameras):
    """One serve of `cameras` cameras for RUN_SECONDS under players and checkers; returns what it saw."""
    name = f"{cameras}cam"
    data = tempfile.mkdtemp(prefix=f"data-{name}-", dir=work)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    config = f"{work}/serve-{name}.yaml"
    write_config(config, cameras, port)
    streams = [f"cam{k}" for k in range(1, cameras + 1)]
    result = {"cameras": cameras, "seconds": RUN_SECONDS, "load_before": load(), "data": data,
              "players": {"playlists": 0, "segments": 0, "bytes": 0, "errors": 0, "non200": 0}}
    log_path = f"{work}/serve-{name}.log"
    log = open(log_path, "w")
    server = subprocess.Popen([SIDELINE, "serve", "--config", config, "--host", "127.0.0.1", "--port", str(port), "--data-dir", data],
                              cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=log, start_new_session=True)
    checkers, threads, outputs = [], [], []
    try:
        wait_for(f"{base}/healthz", seconds=180)
        for stream in streams:
            wait_for(f"{base}/live/{stream}/master.m3u8", seconds=60)
        started = time.time()
        deadline = started + RUN_SECONDS
        for stream in streams:
            out = open(f"{work}/check-{name}-{stream}.txt", "w")
            outputs.append(out)
            checkers.append((stream, f"{work}/check-{name}-{stream}.json", subprocess.Popen(
                [sys.executable, CHECK, "--base", base, "--stream", stream, "--seconds", str(RUN_SECONDS),
                 "--json", f"{work}/check-{name}-{stream}.json", "--no-fills"],
                cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)))
        lock = threading.Lock()
        for i in range(PLAYERS):
            thread = threading.Thread(target=player, args=(base, streams[i % cameras], deadline, result["players"], lock), daemon=True)
            thread.start()
            threads.append(thread)
        while time.time() < deadline and server.poll() is None:
            time.sleep(1)
        result["server_exited"] = server.poll()
        try:  # at the end of the RUN_SECONDS measured, before the checkers' last fetches
            result["metrics"] = read_metrics(port) if server.poll() is None else {}
        except Exception as error:
            print(f"capacity: /metrics could not be read: {error}")
            result["metrics"] = {}
        for thread in threads:
            thread.join(max(1.0, deadline + 30 - time.time()))
        result["players_unfinished"] = sum(thread.is_alive() for thread in threads)
        # A checker takes --seconds plus at most about 20 s to finish fetches and probes.
        for _, _, checker in checkers:
            try:
                checker.wait(max(1.0, deadline + 90 - time.time()))
            except subprocess.TimeoutExpired:
                pass
    except SystemExit:
        print(f"capacity: serve with {cameras} cameras did not become ready; see {log_path}", file=sys.stderr)
        raise
    finally:
        for _, _, checker in checkers:
            stop(checker)
        for out in outputs:
            out.close()
        stop(server)
        log.close()
    result["load_after"] = load()
    result["checks"] = {}
    for stream, path, checker in checkers:
        try:
            with open(path) as f:
                result["checks"][stream] = json.load(f)
        except (OSError, ValueError):
            result["checks"][stream] = {"error": f"no JSON (exit {checker.returncode}); see {work}/check-{name}-{stream}.txt"}
    with open(log_path, errors="replace") as f:
        lines = f.readlines()
    result["shed_lines"] = sum("rung shed" in line for line in lines)
    result["back_lines"] = sum("rung back" in line for line in lines)
    result["capacity_lines"] = [line.split("] ", 1)[-1].strip() for line in lines if "cores at" in line]
    result["log"] = log_path
    if not KEEP:
        shutil.rmtree(data, ignore_errors=True)
    return result


def total(values, metric, stream=None):
    return sum(v for (n, s, _), v in values.items() if n == metric and (stream is None or s == stream))


def report(label, r):
    """Prints one run; returns (violations, stand-ins, frames dropped by slow variants, whether /metrics was read)."""
    values = r.get("metrics", {})
    print(f"\n== {label}: {r['cameras']} camera(s), {r['seconds']} s, {PLAYERS} players; load average {r['load_before']} before,"
          f" {r['load_after']} after; nproc {len(os.sched_getaffinity(0))}")
    if r.get("server_exited") is not None:
        print(f"   serve exited early ({r['server_exited']}); see {r['log']}")
    for line in r["capacity_lines"][:1]:
        print(f"   start: {line}")
    violations = 0
    for stream, check in r["checks"].items():
        if "error" in check:
            violations += 1
            print(f"   checker {stream}: {check['error']}")
            continue
        counts = check.get("checks", {})
        violations += len(check.get("violations", []))
        variants = check.get("variants", {}).values()
        fills = sum(len(v.get("fill_segments", [])) for v in variants)
        ranges = sum(len(v.get("fill_dateranges", [])) for v in variants)
        probed = sum(v.get("probed", 0) for v in variants)
        print(f"   checker {stream}: " + ", ".join(f"{k} {c}" for k, c in counts.items())
              + f"; codecs covered {check.get('codecs_covered') or 0}; fills seen {fills} segments, {ranges} dateranges; probed {probed}")
    dropped = total(values, NAMES[0])
    stand_ins = total(values, NAMES[1])
    print(f"   frames dropped by slow variants {dropped:.0f}; stand-in segments {stand_ins:.0f}; sibling segments {total(values, NAMES[2]):.0f};"
          f" late segments dropped {total(values, NAMES[5]):.0f}; BANDWIDTH exceeded {total(values, NAMES[4]):.0f};"
          f" rungs shed at the end {total(values, NAMES[3]):.0f}; log lines 'rung shed' {r['shed_lines']}, 'rung back' {r['back_lines']}")
    for stream in sorted({s for (_, s, _) in values}):
        shed = sorted(v for (n, s, v), x in values.items() if n == NAMES[3] and s == stream and x > 0)
        effort = " ".join(f"{v}:{x:.0f}" for (n, s, v), x in sorted(values.items()) if n == NAMES[6] and s == stream)
        print(f"   {stream}: slow-variant drops {total(values, NAMES[0], stream):.0f}, stand-ins {total(values, NAMES[1], stream):.0f},"
              f" siblings {total(values, NAMES[2], stream):.0f}, BANDWIDTH exceeded {total(values, NAMES[4], stream):.0f},"
              f" shed {','.join(shed) or '-'}, effort step {effort or '-'}")
    p = r["players"]
    print(f"   players: {p['playlists']} playlists, {p['segments']} segments ({p['bytes'] / 1e6:.0f} MB), errors {p['errors']}, non-200 {p['non200']}"
          + (f", {r['players_unfinished']} not finished" if r.get("players_unfinished") else ""))
    if not values:
        print("   /metrics not read (serve had exited)")
    return violations, stand_ins, dropped, bool(values)


def main():
    base = os.environ.get("BENCH_DIR", "/tmp/sideline-bench")
    os.makedirs(base, exist_ok=True)
    work = tempfile.mkdtemp(prefix="capacity-", dir=base)
    env = dict(os.environ)
    env.setdefault("SIDELINE_COST_TABLE", f"{work}/encoding-costs.json")
    print(f"{os.cpu_count()} cores, nproc {len(os.sched_getaffinity(0))}; load average {load()} at start; work {work}; "
          f"cost table {env['SIDELINE_COST_TABLE']}", flush=True)
    if CAMERAS is not None:
        fit = CAMERAS
        print(f"CAMERAS={fit}: no search")
    else:
        fit = 0
        for cameras in range(1, MAX_CAMERAS + 1):
            verdict = calibrate(work, env, cameras)
            print(f"calibrate {cameras} camera(s): {verdict}", flush=True)
            if not fits(verdict):
                break
            fit = cameras
        print(f"FIT = {fit}" + (f" (the search stops at {MAX_CAMERAS}; more may fit)" if fit == MAX_CAMERAS else ""), flush=True)
    runs = [("FIT", fit)] if fit > 0 else []
    runs.append(("FIT+1", fit + 1))
    results = {}
    for label, cameras in runs:
        print(f"serve: {label}, {cameras} camera(s), {RUN_SECONDS} s ...", flush=True)
        results[label] = run(work, env, cameras)
    failures = [] if fit > 0 else ["not even one camera fits"]
    for label, _ in runs:
        violations, stand_ins, dropped, read = report(label, results[label])
        if label == "FIT":
            failures += [f"{what} {count:.0f}" for what, count in (("checker violations", violations), ("stand-ins", stand_ins),
                                                                  ("frames dropped by slow variants", dropped)) if count]
            failures += [] if read else ["/metrics not read"]
        else:
            print(f"stand-ins in FIT+1: {stand_ins:.0f}")
    ok = not failures
    print(f"\n{'PASS' if ok else 'FAIL'}: FIT {fit} camera(s): " + ("no checker violation, no stand-in, no frame dropped by a slow variant"
          if ok else "; ".join(failures)) + f". Logs and checker JSON in {work}" + ("" if KEEP else " (data dirs removed; KEEP=1 keeps them)"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
