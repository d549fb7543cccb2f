"""Sideline vs nginx on the same bytes; see scripts/bench/run serve."""
import datetime, gzip, os, re, shutil, signal, socket, statistics, subprocess, sys, time, urllib.request

ROUNDS = int(os.environ.get("ROUNDS", "2"))
CELL = int(os.environ.get("SECONDS_PER_CELL", "5"))
ENTRIES = int(os.environ.get("ENTRIES", "5400"))
WORK = os.environ.get("BENCH_DIR", "/tmp/sideline-serve-bench")
# SIDELINE=<binary>: the build measured (default this checkout's release build).
SIDELINE = os.path.abspath(os.environ.get("SIDELINE", ".build/release/sideline"))
# ANCHOR_SIDELINE=/path/to/another/sideline: measure this build against that one (an earlier
# commit's release build) instead of nginx, each serving its own copy of the same recording.
ANCHOR_SIDELINE = os.environ.get("ANCHOR_SIDELINE")
# ACCESS=1 (with ANCHOR_SIDELINE, usually this same build): the measured side's stream is
# private and every request carries a signed credential in its path; the anchor serves the
# same recording with access control off. The ratio is what the gate costs.
ACCESS = os.environ.get("ACCESS") == "1"
ANCHOR = ("open" if ACCESS else "before") if ANCHOR_SIDELINE else "nginx"
ACCESS_CONFIG = """
access:
  signing_key: benchmark-signing-key-0123456789
stream:
  viewer_token: benchmark-viewer-token-0123456789
"""
TICK = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pids):
    total = 0
    for pid in pids:
        try:
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return total / TICK


def machine_busy():
    fields = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields) / TICK, (sum(fields) - idle) / TICK


def get(url, headers=None):
    request = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.read()


def wait_for(url, predicate=lambda body: True, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            body = get(url)
            if predicate(body):
                return body
        except Exception:
            pass
        time.sleep(0.5)
    sys.exit(f"serve-benchmark: {url} did not become ready in {seconds} s")


def make_segment():
    """About 1 MB of real MPEG-TS: 2 s of 720p at 4 Mbit/s."""
    path = f"{WORK}/segment-1MB.ts"
    if not os.path.exists(path):
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30:duration=2",
                        "-vf", "noise=alls=6:allf=t", "-c:v", "libx264", "-preset", "veryfast", "-b:v", "4M", "-minrate", "4M",
                        "-maxrate", "4M", "-bufsize", "1M", "-f", "mpegts", path], check=True)
    return path


CONFIG = """
server:
  request_metrics: %s
  fast_path: %s
  # Every simulated player comes from 127.0.0.1: no per-address cap (a NAT's setting).
  max_connections_per_client: 0
video:
  ladder:
    - name: 360p
      width: 320
      height: 180
      bitrate: 300k
      preset: ultrafast
    - name: 180p
      width: 160
      height: 90
      bitrate: 100k
      preset: ultrafast
"""
VARIANTS = ["360p", "180p"]


def start_sideline(data, port, log, binary=SIDELINE, private=False):
    config = f"{WORK}/sideline{'-private' if private else ''}.yaml"
    open(config, "w").write(CONFIG % ("true" if os.environ.get("REQUEST_METRICS") else "false",
                                      "false" if os.environ.get("FAST_PATH") == "0" else "true") + (ACCESS_CONFIG if private else ""))
    return subprocess.Popen([binary, "serve", "--config", config, "--data-dir", data, "--host", "127.0.0.1", "--port", str(port),
                             "--log-level", "warning"], stdout=log, stderr=log)


def synthesise_recording(data, segment):
    """Records a few seconds for real, then lengthens the history to ENTRIES entries of 2 s
    (hard links to the 1 MB segment), dated so that the last one ends now."""
    shutil.rmtree(data, ignore_errors=True)
    port = free_port()
    log = open(f"{WORK}/sideline-first.log", "w")
    first = start_sideline(data, port, log)
    for name in VARIANTS:
        wait_for(f"http://127.0.0.1:{port}/live/main/{name}/index.m3u8", lambda b: b.count(b".ts\n") >= 2)
    first.send_signal(signal.SIGTERM)  # keeps the recording live: the next start continues it
    first.wait(30)
    for name in VARIANTS:
        lengthen(f"{data}/main/{name}", segment)


def lengthen(variant, segment):
    text = open(f"{variant}/index.m3u8").read()
    header = text.split("#EXT-X-PROGRAM-DATE-TIME", 1)[0]
    header = "".join(line + "\n" for line in header.splitlines() if not line.startswith("#EXT-X-DISCONTINUITY"))
    start = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(seconds=2 * ENTRIES)
    for name in os.listdir(variant):
        if name.endswith(".ts"):
            os.unlink(f"{variant}/{name}")
    lines = [header.rstrip("\n")]
    for i in range(ENTRIES):
        # A camera's dates: 2 s apart, a millisecond of jitter now and then (scripts/bench/run playlist-gzip).
        jitter = (1 if i % 7 == 0 else 0) + (2 if i % 11 == 0 else 0)
        stamp = (start + datetime.timedelta(seconds=2 * i, milliseconds=jitter)).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        lines += [f"#EXT-X-PROGRAM-DATE-TIME:{stamp}", "#EXTINF:2.000000,", f"{i:06d}.ts"]
        os.link(segment, f"{variant}/{i:06d}.ts")
    open(f"{variant}/index.m3u8", "w").write("\n".join(lines) + "\n")
    if os.path.exists(f"{variant}/iframes.m3u8"):
        os.unlink(f"{variant}/iframes.m3u8")


NGINX_CONF = """
worker_processes 1;
daemon off;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    keepalive_timeout 65;
    gzip_static on;
    types {{ application/vnd.apple.mpegurl m3u8; video/mp2t ts; }}
    client_body_temp_path {work}/nginx-tmp;
    proxy_temp_path {work}/nginx-tmp;
    fastcgi_temp_path {work}/nginx-tmp;
    uwsgi_temp_path {work}/nginx-tmp;
    scgi_temp_path {work}/nginx-tmp;
    server {{
        listen 127.0.0.1:{port};
        root {root};
        location ~ \\.m3u8$ {{ add_header Cache-Control "public, max-age=1"; }}
    }}
}}
"""


def start_nginx(root, port):
    os.makedirs(f"{WORK}/nginx-tmp", exist_ok=True)
    conf = f"{WORK}/nginx.conf"
    open(conf, "w").write(NGINX_CONF.format(work=WORK, port=port, root=root))
    process = subprocess.Popen(["nginx", "-c", conf, "-p", WORK], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for(f"http://127.0.0.1:{port}/live/main/master.m3u8")
    workers = subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True, text=True).stdout.split()
    return process, [process.pid] + [int(w) for w in workers]


def snapshot_for_nginx(sideline, root, segment):
    """nginx serves what Sideline serves, byte for byte, compressed once with gzip -9."""
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(f"{root}/live/main/360p")
    files = {
        "live/main/master.m3u8": "/live/main/master.m3u8",
        "live/main/360p/index.m3u8": "/live/main/360p/index.m3u8",
        "live/main/360p/delta.m3u8": "/live/main/360p/index.m3u8?_HLS_skip=YES",
    }
    for path, url in files.items():
        body = get(sideline + url)
        open(f"{root}/{path}", "wb").write(body)
        with gzip.open(f"{root}/{path}.gz", "wb", compresslevel=9) as out:
            out.write(body)
    os.link(segment, f"{root}/live/main/360p/002700.ts")
    full = open(f"{root}/live/main/360p/index.m3u8", "rb").read()
    last = full.count(b".ts\n") - 1
    return full, last


WRK_LINE = re.compile(r"Requests/sec:\s+([\d.]+)")


def latency(text, percentile):
    match = re.search(rf"^\s+{percentile}%\s+([\d.]+)(us|ms|s)\s*$", text, re.M)
    if not match:
        return float("nan")
    value, unit = float(match.group(1)), match.group(2)
    return value * {"us": 0.001, "ms": 1, "s": 1000}[unit]


# STATUSES=1: wrk counts every answer's status (a Lua callback per response, which costs wrk
# time: for finding out what the non-2xx answers a run counted were, not for the figures) and
# the first body of each status of 400 or more is printed.
STATUSES = os.environ.get("STATUSES") == "1"
STATUS_SCRIPT = """
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) statuses = {}; shown = {} end
function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
  if status >= 400 and not shown[status] then shown[status] = true; io.write("status ", status, ": ", body:sub(1, 200), "\\n") end
end
function done(summary, latency, requests)
  for _, t in ipairs(threads) do for k, v in pairs(t:get("statuses")) do io.write("status count ", k, " ", v, "\\n") end end
end
"""


def run_wrk(url, headers, pids, baseline_rate):
    command = ["wrk", "-t2", "-c50", f"-d{CELL}s", "--latency", "--timeout", "5s"]
    for header in headers:
        command += ["-H", header]
    if STATUSES:
        script = f"{WORK}/statuses.lua"
        with open(script, "w") as out:
            out.write(STATUS_SCRIPT)
        command += ["-s", script]
    before_cpu = cpu_seconds(pids)
    began = time.time()
    output = subprocess.run(command + [url], capture_output=True, text=True, timeout=CELL + 30).stdout
    elapsed = time.time() - began
    used = cpu_seconds(pids) - before_cpu - baseline_rate * elapsed
    rps = float(WRK_LINE.search(output).group(1)) if WRK_LINE.search(output) else 0.0
    total = re.search(r"(\d+) requests in", output)
    requests = int(total.group(1)) if total else 0
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    if STATUSES:
        counted = {}
        for status, count in re.findall(r"^status count (\d+) (\d+)$", output, re.M):
            counted[int(status)] = counted.get(int(status), 0) + int(count)
        print(f"  {url}: statuses {dict(sorted(counted.items()))}" + "".join(f"\n    {line}" for line in re.findall(r"^status \d+: .*$", output, re.M)))
    return {"rps": rps, "p50": latency(output, 50), "p99": latency(output, 99),
            "cpu_us": 1e6 * max(used, 0) / requests if requests else float("nan"), "bad": int(errors.group(1)) if errors else 0}


def main():
    os.makedirs(WORK, exist_ok=True)
    uptime_before = open("/proc/loadavg").read().split()[:3]
    segment = make_segment()
    data = f"{WORK}/data"
    synthesise_recording(data, segment)
    if ANCHOR_SIDELINE:
        # The same recording for the earlier build; hard links are safe, since both write new
        # files and rename them into place, never into an existing one.
        shutil.rmtree(f"{data}-anchor", ignore_errors=True)
        shutil.copytree(data, f"{data}-anchor", copy_function=os.link)
    sport, nport = free_port(), free_port()
    log = open(f"{WORK}/sideline.log", "w")
    sideline = start_sideline(data, sport, log, private=ACCESS)
    base = f"http://127.0.0.1:{sport}"
    if ACCESS:
        # The URL `sideline sign` prints, less its master: every measured request carries it.
        signed = subprocess.run([SIDELINE, "sign", "main", "--config", f"{WORK}/sideline-private.yaml", "--base", base, "--expires", "3h"],
                                check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
        base = signed[: -len("/live/main/master.m3u8")]
    nginx = None
    try:
        wait_for(f"{base}/live/main/360p/index.m3u8", lambda b: b.count(b".ts\n") > ENTRIES, seconds=120)
        full, last = snapshot_for_nginx(base, f"{WORK}/www", segment)
        if ANCHOR_SIDELINE:
            nginx = start_sideline(f"{data}-anchor", nport, open(f"{WORK}/anchor.log", "w"), binary=ANCHOR_SIDELINE)
            nginx_pids = [nginx.pid]
            wait_for(f"http://127.0.0.1:{nport}/live/main/360p/index.m3u8", lambda b: b.count(b".ts\n") > ENTRIES, seconds=120)
        else:
            nginx, nginx_pids = start_nginx(f"{WORK}/www", nport)
        nbase = f"http://127.0.0.1:{nport}"
        gz = ["Accept-Encoding: gzip"]
        cases = [
            ("master playlist", "/live/main/master.m3u8", "/live/main/master.m3u8", []),
            ("3 h playlist, plain", "/live/main/360p/index.m3u8", "/live/main/360p/index.m3u8", []),
            ("3 h playlist, gzip", "/live/main/360p/index.m3u8", "/live/main/360p/index.m3u8", gz),
            ("delta (_HLS_skip), gzip", "/live/main/360p/index.m3u8?_HLS_skip=YES", "/live/main/360p/delta.m3u8", gz),
            (f"blocking (_HLS_msn={last}, listed) + skip", f"/live/main/360p/index.m3u8?_HLS_msn={last}&_HLS_skip=YES",
             f"/live/main/360p/delta.m3u8?_HLS_msn={last}&_HLS_skip=YES", gz),
            ("1 MB segment", "/live/main/360p/002700.ts", "/live/main/360p/002700.ts", []),
            ("Range 188 KB of it", "/live/main/360p/002700.ts", "/live/main/360p/002700.ts", ["Range: bytes=0-187999"]),
        ]
        if os.environ.get("CASES"):
            wanted = os.environ["CASES"].split(",")
            cases = [case for case in cases if any(w in case[0] for w in wanted)]
        sizes = {}
        for name, spath, npath, headers in cases:
            request = urllib.request.Request(base + spath, headers=dict(h.split(": ", 1) for h in headers))
            with urllib.request.urlopen(request) as response:
                sizes[name] = len(response.read())
        # Sideline keeps encoding (two small rungs) while it serves: its CPU rate at rest is
        # measured and subtracted, so CPU per request is the serving alone.
        spids = [sideline.pid]
        c0, a0 = cpu_seconds(spids), cpu_seconds(nginx_pids)
        time.sleep(5)
        baseline = (cpu_seconds(spids) - c0) / 5
        # An anchor Sideline encodes too: its rest is subtracted the same way (nginx's is ~0).
        anchor_baseline = (cpu_seconds(nginx_pids) - a0) / 5 if ANCHOR_SIDELINE else 0.0
        total0, busy0 = machine_busy()
        ours0 = cpu_seconds(spids + nginx_pids)
        results = {name: {"sideline": [], "nginx": []} for name, *_ in cases}
        for round_index in range(ROUNDS):
            for name, spath, npath, headers in cases:
                order = [("sideline", base + spath, spids, baseline), ("nginx", nbase + (spath if ANCHOR_SIDELINE else npath), nginx_pids, anchor_baseline)]
                if round_index % 2:
                    order.reverse()
                for side, url, pids, rate in order:
                    results[name][side].append(run_wrk(url, headers, pids, rate))
        total1, busy1 = machine_busy()
        ours = cpu_seconds(spids + nginx_pids) - ours0
        elapsed = total1 - total0
        print(f"\n3 h recording: {ENTRIES} entries; full playlist {len(full)} bytes; wrk -t2 -c50 -d{CELL}s, {ROUNDS} rounds alternating")
        print(f"Sideline's own CPU at rest (encoding two small rungs): {baseline * 100:.1f}% of a core, subtracted below")
        if ANCHOR_SIDELINE:
            print(f"anchor: {ANCHOR_SIDELINE} ('{ANCHOR}'), at rest {anchor_baseline * 100:.1f}% of a core, subtracted below; n below is the anchor")
        print(f"{'case':44} {'bytes':>8} {'Sideline req/s':>16} {ANCHOR + ' req/s':>14} {'ratio (median)':>20} {'p50 ms S/n':>14} {'p99 ms S/n':>14} {'CPU us/req S/n':>16} {'CPU S/n':>8}")
        for name, *_ in cases:
            s, n = results[name]["sideline"], results[name]["nginx"]
            ratios = [a["rps"] / b["rps"] for a, b in zip(s, n) if b["rps"]]
            med = lambda rows, key: statistics.median(r[key] for r in rows)
            bad_s, bad_n = sum(r["bad"] for r in s), sum(r["bad"] for r in n)
            bad = f"{bad_s}/{bad_n} S/n" if bad_s or bad_n else ""
            print(f"{name:44} {sizes[name]:>8} {min(r['rps'] for r in s):>7.0f}-{max(r['rps'] for r in s):<8.0f} "
                  f"{min(r['rps'] for r in n):>6.0f}-{max(r['rps'] for r in n):<7.0f} "
                  f"{min(ratios):>5.2f}-{max(ratios):<5.2f}x ({statistics.median(ratios):.2f}x) {med(s, 'p50'):>6.2f}/{med(n, 'p50'):<7.2f} {med(s, 'p99'):>6.2f}/{med(n, 'p99'):<7.2f} "
                  f"{med(s, 'cpu_us'):>7.0f}/{med(n, 'cpu_us'):<8.0f} {med(s, 'cpu_us') / med(n, 'cpu_us'):>7.3f}x" + (f"  ({bad} non-2xx!)" if bad else ""))
        # Bytes a player pays per minute reloading every 2 s: full with gzip, or delta.
        full_gz, delta_gz = sizes.get("3 h playlist, gzip", 0), sizes.get("delta (_HLS_skip), gzip", 0)
        print(f"\nper player per minute at hour 3 (30 reloads): full+gzip {full_gz * 30 / 1024:.0f} KB, delta+gzip {delta_gz * 30 / 1024:.1f} KB "
              f"(one reload: {full_gz} and {delta_gz} bytes)")
        print(f"load average before {' '.join(uptime_before)}, after {' '.join(open('/proc/loadavg').read().split()[:3])}; "
              f"machine busy {100 * (busy1 - busy0) / elapsed:.0f}% of all cores over the run, "
              f"Sideline and {ANCHOR} {100 * ours / elapsed:.0f}% (the rest is wrk and other tenants)")
    finally:
        sideline.send_signal(signal.SIGTERM)
        try:
            sideline.wait(30)
        except subprocess.TimeoutExpired:
            sideline.kill()
        if nginx:
            nginx.send_signal(signal.SIGTERM if ANCHOR_SIDELINE else signal.SIGQUIT)
            try:
                nginx.wait(10)
            except subprocess.TimeoutExpired:
                nginx.kill()


if __name__ == "__main__":
    main()
