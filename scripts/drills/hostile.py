"""The hostile venue drill (issue 26): a real release server over TLS with an open, a private
and a pushed stream, a real nginx edge with the shipped private config, and a mirror of the
private stream, attacked the way the other team on the venue's Wi-Fi would. Each probe
states the answer the docs promise (Docs/status-codes.md); the drill checks that the server
never dies, that the open stream answers 200 throughout, that nothing private is readable
without a credential through origin, edge or mirror, and that the disk and connection counts
stay within their bounds.

    scripts/drills/hostile.sh            (installs what is missing, builds release, runs this)
    python3 scripts/drills/hostile.py    (with .build/release/sideline already built)

Environment: SIDELINE (the binary), CLASSES (space-separated subset of: traps private doors
parts disk connections tls boxes restart; restart stops the server and starts it again over the same data,
so it runs last; boxes runs a second, small server whose `boxes` names a hostile fake box), KEEP=1 keeps the work directory. Prints one line per probe and ends with
'N passed, N failed'; exits 1 when any probe failed. Every loop is bounded in count and time,
every server binds to 127.0.0.0/8, and everything started is stopped by its PID.
"""
import base64, http.client, json, os, re, resource, select, shutil, signal, socket, ssl, struct, subprocess, sys, tempfile, threading, time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("SIDELINE", os.path.join(ROOT, ".build/release/sideline"))
SAMPLE = os.path.join(ROOT, "Samples/sample.mp4")
ADMIN = "hostile-admin-token-3f9c2a7e1b5d8c40"
ANALYST = "hostile-analyst-token-6e1d0b9a4c7f2e58"
SIGNING = "hostile-signing-key-0c5b8e2f7a1d4963"
VIEWER = "home-viewers-7b2e9d4c1a6f8e30"
INGEST = "roof-ingest-token-2d8f6a1c9e4b7053"
PUBLIC_NAME = "127.0.0.1"
MAX_CONNECTIONS = 512
MAX_CLIP = 30
LADDER = """video:
  ladder:
    - {name: 360p, width: 640, height: 360, bitrate: 600k, preset: ultrafast, profile: main}
    - {name: 180p, width: 320, height: 180, bitrate: 200k, preset: ultrafast, profile: baseline}
"""

results = []


def record(group, name, ok, detail=""):
    results.append((group, name, ok, detail))
    print(f"{'ok  ' if ok else 'FAIL'} [{group}] {name}{(': ' + detail) if detail else ''}", flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spawn(args, log, env=None):
    return subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=open(log, "wb"), stderr=subprocess.STDOUT,
                            start_new_session=True, cwd=ROOT, env=env)


def stop(process):
    if process and process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


class Client:
    """One request per connection, sent exactly as written (no normalisation of the path)."""

    def __init__(self, port, tls_context=None, source="127.0.0.1"):
        self.port, self.context, self.source = port, tls_context, source

    def request(self, method, path, headers=None, body=None, timeout=15):
        if self.context:
            conn = http.client.HTTPSConnection("127.0.0.1", self.port, context=self.context, timeout=timeout, source_address=(self.source, 0))
        else:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout, source_address=(self.source, 0))
        try:
            conn.putrequest(method, path, skip_host="Host" in (headers or {}), skip_accept_encoding=True)
            for name, value in (headers or {}).items():
                conn.putheader(name, value)
            if body is not None:
                conn.putheader("Content-Length", str(len(body)))
            conn.endheaders(body)
            response = conn.getresponse()
            data = response.read() if method != "HEAD" else b""
            return response.status, {k.lower(): v for k, v in response.getheaders()}, data
        finally:
            conn.close()

    def status(self, *args, **kwargs):
        try:
            return self.request(*args, **kwargs)[0]
        except Exception as error:
            return f"error: {type(error).__name__}"


class Venue:
    """The server, its pusher, the edge and the mirror, in one work directory."""

    def __init__(self):
        self.work = tempfile.mkdtemp(prefix="sideline-hostile-")
        self.processes = []
        self.tls_port, self.plain_port, self.edge_port, self.mirror_port = free_port(), free_port(), free_port(), free_port()
        self.certs = f"{self.work}/certs"
        subprocess.run(["bash", f"{ROOT}/scripts/venue-certificates.sh", self.certs, "127.0.0.1", "--days", "30"], check=True, capture_output=True)
        self.context = ssl.create_default_context(cafile=f"{self.certs}/ca.pem")
        self.origin = Client(self.tls_port, self.context)
        self.plain = Client(self.plain_port)
        self.edge = Client(self.edge_port)
        self.mirror = Client(self.mirror_port, self.context)
        self.data = f"{self.work}/data"

    def config(self):
        return f"""server:
  tls: {{certificate: {self.certs}/server.pem, key: {self.certs}/server.key}}
  plain_port: {self.plain_port}
  public_name: {PUBLIC_NAME}
  # Half the default, so 20 addresses x 64 downloads (1,280) pass it by far.
  max_connections: {MAX_CONNECTIONS}
  log_headers: [authorization, cookie, user-agent]
clips:
  # Short, so a clip of the few minutes the drill records can pass it.
  max_duration: {MAX_CLIP}
admin: {{token: {ADMIN}}}
analyst: {{token: {ANALYST}}}
access: {{signing_key: {SIGNING}}}
{LADDER}streams:
  - {{name: open, input: {SAMPLE}, loop: true}}
  - {{name: home, input: testpattern, viewer_token: {VIEWER}}}
  - {{name: roof, ingest_token: {INGEST}}}
# A private set (its one angle is private): a listing without its credential shows nothing of it.
angle_sets:
  - {{name: homeset, streams: [home]}}
"""

    def start(self):
        open(f"{self.work}/sideline.yaml", "w").write(self.config())
        self.server = spawn([BIN, "serve", "--config", f"{self.work}/sideline.yaml", "--host", "127.0.0.1", "--port", str(self.tls_port),
                             "--data-dir", self.data, "--log-level", "info"], f"{self.work}/server.log")
        self.processes.append(self.server)
        self.wait_for(lambda: self.origin.status("GET", "/live/open/360p/index.m3u8") == 200, 90, "the open stream")
        open(f"{self.work}/push.yaml", "w").write(LADDER)
        self.pusher = spawn([BIN, "push", "--input", "testpattern", "--to", f"https://127.0.0.1:{self.tls_port}/ingest/roof", "--token", INGEST,
                             "--ca-file", f"{self.certs}/ca.pem", "--config", f"{self.work}/push.yaml", "--queue-dir", f"{self.work}/push-queue",
                             "--log-level", "warning"], f"{self.work}/push.log")
        self.processes.append(self.pusher)
        self.wait_for(lambda: self.origin.status("GET", "/live/roof/360p/index.m3u8") == 200, 90, "the pushed stream")
        self.wait_for(lambda: self.origin.status("GET", "/live/home/360p/index.m3u8", {"Authorization": f"Bearer {VIEWER}"}) == 200, 60, "the private stream")
        self.signed = self.sign("home", "30m")
        self.signed_180 = self.sign("home", "30m", variant="180p")
        self.start_edge()
        self.start_mirror()

    def sign(self, stream, expires, variant=None):
        args = [BIN, "sign", stream, "--config", f"{self.work}/sideline.yaml", "--base", f"https://127.0.0.1:{self.tls_port}", "--expires", expires]
        if variant:
            args += ["--variant", variant]
        out = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=30)
        url = out.stdout.strip().split("\n")[-1]
        if not url.startswith("https://"):
            raise SystemExit(f"sideline sign failed: {out.stdout} {out.stderr}")
        return url.split(f":{self.tls_port}", 1)[1]  # the path, credential included

    def start_edge(self):
        edge = f"{self.work}/edge"
        os.makedirs(f"{edge}/tmp", exist_ok=True)
        for name in os.listdir(f"{ROOT}/Config/nginx"):
            if name.startswith("sideline-edge"):
                # The origin is reached over TLS, verified against the venue CA: the shipped
                # files' one upstream scheme changed, nothing else.
                text = open(f"{ROOT}/Config/nginx/{name}").read().replace("http://sideline_origin", "https://sideline_origin")
                open(f"{edge}/{name}", "w").write(text)
        shipped = open(f"{ROOT}/Config/nginx/nginx.conf").read()
        # The shipped http-block maps, taken from the shipped nginx.conf so the drill tests them.
        maps = "\n".join(line for line in shipped.split("\n") if line.strip().startswith("map "))
        open(f"{edge}/nginx.conf", "w").write(f"""worker_processes 1;
user root;
daemon off;
pid {edge}/nginx.pid;
error_log {edge}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    log_format edge '$request_uri $status $upstream_cache_status';
    access_log {edge}/access.log edge;
    client_body_temp_path {edge}/tmp;
    proxy_temp_path {edge}/tmp;
    fastcgi_temp_path {edge}/tmp;
    uwsgi_temp_path {edge}/tmp;
    scgi_temp_path {edge}/tmp;
    proxy_cache_path {edge}/cache levels=1:2 keys_zone=sideline_edge:8m max_size=256m inactive=1h use_temp_path=off;
    upstream sideline_origin {{ server 127.0.0.1:{self.tls_port}; keepalive 16; }}
    proxy_ssl_trusted_certificate {self.certs}/ca.pem;
    proxy_ssl_verify on;
    proxy_ssl_name 127.0.0.1;
    proxy_ssl_session_reuse on;
{maps}
    server {{
        listen 127.0.0.1:{self.edge_port};
        include {edge}/sideline-edge-private.conf;
    }}
}}
""")
        self.nginx = spawn(["nginx", "-c", f"{edge}/nginx.conf", "-p", edge], f"{edge}/nginx.out")
        self.processes.append(self.nginx)
        self.wait_for(lambda: self.edge.status("GET", "/live/open/360p/index.m3u8") == 200, 30, "the edge")

    def start_mirror(self):
        # The origin's own config (its access section and tokens, its certificate), without the
        # plain port the origin holds.
        open(f"{self.work}/mirror.yaml", "w").write(re.sub(r"\n  plain_port: \d+", "", self.config()))
        self.mirror_process = spawn([BIN, "mirror", f"https://127.0.0.1:{self.tls_port}{self.signed}", "--ca-file", f"{self.certs}/ca.pem",
                                     "--config", f"{self.work}/mirror.yaml", "--data-dir", f"{self.work}/mirror-data",
                                     "--host", "127.0.0.1", "--port", str(self.mirror_port), "--log-level", "info"], f"{self.work}/mirror.log")
        self.processes.append(self.mirror_process)
        self.wait_for(lambda: self.mirror.status("GET", "/live/home/360p/index.m3u8", {"Authorization": f"Bearer {VIEWER}"}) == 200, 60, "the mirror")

    def wait_for(self, predicate, seconds, what):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if predicate():
                return
            for process in self.processes:
                if process.poll() is not None:
                    raise SystemExit(f"{process.args[0]} {process.args[1]} exited ({process.returncode}) while waiting for {what}; logs in {self.work}")
            time.sleep(0.5)
        raise SystemExit(f"gave up waiting for {what} after {seconds} s; logs in {self.work}")

    def alive(self):
        return self.server.poll() is None

    def stop(self):
        for process in reversed(self.processes):
            stop(process)


class OpenWatcher(threading.Thread):
    """Fetches the open stream's media playlist twice a second, from an address of its own,
    for the whole drill: every answer must be 200."""

    def __init__(self, venue):
        super().__init__(daemon=True)
        self.client = Client(venue.tls_port, venue.context, source="127.0.0.254")
        self.statuses, self.running = [], True

    def run(self):
        while self.running:
            started = time.monotonic()
            self.statuses.append((time.monotonic(), self.client.status("GET", "/live/open/360p/index.m3u8", timeout=5)))
            time.sleep(max(0, 0.5 - (time.monotonic() - started)))


# ---------------------------------------------------------------- class 1: nothing traps

def ts_packet(pid, payload, start=False, adaptation=None):
    header = struct.pack(">BHB", 0x47, (0x4000 if start else 0) | pid, 0x30 if adaptation is not None else 0x10)
    body = (adaptation or b"") + payload
    return (header + body + b"\xff" * 188)[:188]


def hostile_segments():
    pat = ts_packet(0, b"\x00\x00\xb0\x0d\x00\x01\xc1\x00\x00\x00\x01\xf0\x00" + b"\x00" * 4, start=True)
    pmt = ts_packet(0x1000, b"\x00\x02\xb0\x12\x00\x01\xc1\x00\x00\xe1\x00\xf0\x00\x1b\xe1\x00\xf0\x00" + b"\x00" * 4, start=True)
    return {
        "adaptation field of 255 bytes": pat + pmt + ts_packet(0x100, b"", start=True, adaptation=b"\xff\x10" + b"\x00" * 10) * 3,
        "PES header length 255": pat + pmt + ts_packet(0x100, b"\x00\x00\x01\xe0\x00\x00\x80\xc0\xff" + b"\x21" * 10, start=True) * 3,
        "truncated packet": pat + pmt[:100],
        "no sync byte": b"\x00" * 188 * 4,
        "empty": b"",
    }


MEDIA = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:{seq}\n{body}"
HOSTILE_PLAYLISTS = {
    "EXT-X-MEDIA-SEQUENCE Int64.max": MEDIA.format(seq="9223372036854775807", body="#EXTINF:2.0,\nh000001.ts\n#EXTINF:2.0,\nh000002.ts\n"),
    "EXT-X-BYTERANGE Int64.max": MEDIA.format(seq="0", body="#EXT-X-BYTERANGE:9223372036854775807@9223372036854775807\n#EXTINF:2.0,\nh000001.ts\n"),
    "EXTINF 1e300": MEDIA.format(seq="0", body="#EXTINF:1e300,\nh000001.ts\n"),
    "EXTINF nan": MEDIA.format(seq="0", body="#EXTINF:nan,\nh000001.ts\n"),
    "EXTINF -0": MEDIA.format(seq="0", body="#EXTINF:-0,\nh000001.ts\n"),
    "a segment listed twice": MEDIA.format(seq="0", body="#EXTINF:2.0,\nh000001.ts\n#EXTINF:2.0,\nh000001.ts\n"),
    "TARGETDURATION Int64.max": "#EXTM3U\n#EXT-X-TARGETDURATION:9223372036854775807\n#EXTINF:2.0,\nh000001.ts\n",
    "PROGRAM-DATE-TIME year 99999": MEDIA.format(seq="0", body="#EXT-X-PROGRAM-DATE-TIME:99999-01-01T00:00:00Z\n#EXTINF:2.0,\nh000001.ts\n"),
}
HOSTILE_MASTERS = {
    "FRAME-RATE=nan": "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,FRAME-RATE=nan\n360p/index.m3u8\n",
    "FRAME-RATE=1e300": "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,FRAME-RATE=1e300\n360p/index.m3u8\n",
    "BANDWIDTH Int64.max, RESOLUTION huge": "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=9223372036854775807,RESOLUTION=9223372036854775807x9223372036854775807\n360p/index.m3u8\n",
}


def probe_traps(venue):
    group = "traps"
    bearer = {"Authorization": f"Bearer {INGEST}"}
    for name, body in hostile_segments().items():
        status = venue.origin.status("PUT", "/ingest/roof/360p/h900001.ts", bearer, body)
        record(group, f"ingest segment, {name}: refused, server alive", isinstance(status, int) and 400 <= status < 500 and venue.alive(), f"{status}")
    for name, text in HOSTILE_PLAYLISTS.items():
        for segment in ("h000001.ts", "h000002.ts"):
            venue.origin.status("PUT", f"/ingest/roof/180p/{segment}", bearer, hostile_segments()["no sync byte"])
        status, _, body = venue.origin.request("PUT", "/ingest/roof/180p/index.m3u8", bearer, text.encode())
        # Refused, or (a playlist the parser reads, `EXTINF:-0` is 0) taken with nothing listed:
        # its segments were refused above.
        record(group, f"ingest media playlist, {name}: refused 400 or nothing listed, server alive",
               (status == 400 or (status == 200 and body.startswith(b"listed 0 new segments"))) and venue.alive(), f"{status} {body[:80]!r}")
    for name, text in HOSTILE_MASTERS.items():
        status = venue.origin.status("PUT", "/ingest/roof/master.m3u8", bearer, text.encode())
        after = venue.origin.status("GET", "/live/roof/master.m3u8")
        record(group, f"ingest master, {name}: refused 400, master still renders", status == 400 and after == 200 and venue.alive(), f"{status}, then GET master {after}")
    for name, body in {"metadata of 1 MB of '['": b"[" * 1_000_000, "metadata with a NUL title": b'{"title":"\\u0000"}',
                       "metadata, numbers 1e300": b'{"title":1e300,"keywords":[1e300]}'}.items():
        status = venue.origin.status("PUT", "/ingest/roof/metadata", bearer, body)
        record(group, f"ingest {name}: refused 400, server alive", status == 400 and venue.alive(), f"{status}")
    multipart = {"boundary never closed": ("multipart/form-data; boundary=xyz", b"--xyz\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.ts\"\r\n\r\n" + b"G" * 1000),
                 "no boundary": ("multipart/form-data", b"--\r\n\r\n"),
                 "boundary of 300 bytes": ("multipart/form-data; boundary=" + "b" * 300, b"--" + b"b" * 300 + b"--\r\n")}
    for name, (content_type, body) in multipart.items():
        status = venue.origin.status("POST", "/ingest/roof/360p/h900002.ts", {**bearer, "Content-Type": content_type}, body)
        record(group, f"ingest multipart, {name}: refused, server alive", isinstance(status, int) and 400 <= status < 500 and venue.alive(), f"{status}")
    requests = [
        ("GET", "/live/open/360p/index.m3u8?_HLS_msn=9223372036854775807", {}, {400}),
        ("GET", "/live/open/360p/index.m3u8?_HLS_msn=-1&_HLS_part=9223372036854775807", {}, {400}),
        ("GET", "/live/open/360p/index.m3u8?_HLS_skip=YES&_HLS_msn=1e300", {}, {400}),
        ("GET", "/live/open/360p/000001.ts", {"Range": "bytes=9223372036854775807-9223372036854775807"}, {200, 416}),
        ("GET", "/live/open/360p/000001.ts", {"Range": "bytes=-9223372036854775808"}, {200, 206, 416}),
        ("GET", "/live/%ff%fe/master.m3u8", {}, {400, 404}),
        ("GET", "/live/open/" + "a" * 5000 + "/index.m3u8", {}, {400, 404, 414, 431}),
        ("GET", "/vod/open/master.m3u8?start=1e300&end=-1e300", {}, {400}),
        ("GET", "/vod/open/360p/index.m3u8?start=9999-99-99T99:99:99Z", {}, {400}),
        ("GET", "/api/streams/open/clip.mp4?start=nan&end=inf", {}, {400}),
        ("GET", "/live/open/360p/index.m3u8?CMCD=bl%3D9223372036854775807%2Cbr%3D1e300%2Cmtp%3Dnan%2Csid%3D%22" + "x" * 300 + "%22", {}, {200}),
        ("GET", "/live/open/360p/index.m3u8", {"CMCD-Request": "bl=" + "9" * 400, "CMCD-Session": "sid=\"" + "\\" * 100}, {200}),
        ("GET", "/access/s1~home~99999999999999999999999~~" + "A" * 200 + "/live/home/master.m3u8", {}, {400, 401, 403}),
        ("GET", "/live/home/master.m3u8", {"Authorization": "Bearer " + "\u00ff" * 10}, {400, 401, 403, 429}),
        ("POST", "/api/streams/open/markers", {"Authorization": f"Bearer {ANALYST}", "Content-Type": "application/json"}, {400}),
    ]
    marker_bodies = [b'{"at":1e300,"title":"x"}', b'{"at":"9999-99-99T99:99:99Z"}', b'{"duration":-1e300,"title":"x"}', b"[" * 100_000,
                     b'{"label":"x","id":"m-../../../etc"}', b'{"label":"x","id":"m-' + b"a" * 5000 + b'"}', b'{"label":"x","id":"m-1?x=1"}']
    for method, path, headers, expected in requests:
        status = venue.origin.status(method, path, headers)
        record(group, f"{method} {path[:90]}: {sorted(expected)}", status in expected and venue.alive(), f"{status}")
    for body in marker_bodies:
        status = venue.origin.status("POST", "/api/streams/open/markers", {"Authorization": f"Bearer {ANALYST}", "Content-Type": "application/json"}, body)
        record(group, f"marker body {body[:40]!r}: 400 or 413", status in (400, 413) and venue.alive(), f"{status}")


# ---------------------------------------------------------------- class 2: private is private

SPELLINGS = ["/live/home/{f}", "/%6Cive/home/{f}", "/./live/home/{f}", "/live/./home/{f}", "/live/open/../home/{f}", "//live//home/{f}",
             "/live/home/./{f}", "/live/%68ome/{f}", "/live/home/360p/../{f}", "/LIVE/home/{f}", "/live/home%2F{f}", "/live%2Fhome%2F{f}",
             "/live/home%5C{f}", "/live/open%2F..%2Fhome/{f}", "/api/../live/home/{f}"]
# Spellings no proxy decodes into the file (only a case-folding one would): not footage, and
# the origin must not serve them as the file either.
CASE_ONLY = {"/LIVE/home/{f}"}


def probe_private(venue):
    group = "private"
    files = ["master.m3u8", "360p/index.m3u8"]
    for f in files:
        for spelling in SPELLINGS:
            path = spelling.format(f=f)
            status, headers, body = venue.origin.request("GET", path)
            leaked = status == 200 or b"#EXTINF" in body or b"#EXT-X-STREAM-INF" in body
            record(group, f"origin without credential, {path}", not leaked, f"{status}")
            # Every spelling a proxy may decode into the file (an encoded slash or backslash
            # included) is the file: served with a credential, refused by /api/access without
            # one (issue 33). A case-only spelling names nothing, and is not served as the file.
            served = venue.origin.request("GET", path, {"Authorization": f"Bearer {VIEWER}"})[0]
            access = venue.origin.request("GET", "/api/access", {"X-Original-URI": path})[0]
            if spelling in CASE_ONLY:
                record(group, f"{path}: not the file (the origin does not serve it)", served != 200, f"served {served}")
            else:
                record(group, f"/api/access without credential, {path}: 401, and the file with one", access == 401 and served == 200,
                       f"access {access}, served {served}")
            status, headers, body = venue.edge.request("GET", path)
            leaked = status == 200 or b"#EXTINF" in body or b"#EXT-X-STREAM-INF" in body
            record(group, f"edge without credential, {path}", not leaked, f"{status}")
    # The edge's one checked copy: a viewer fills it, then other spellings try to read or poison it.
    credential = venue.signed.split("/live/")[0]
    status = venue.edge.status("GET", f"{credential}/live/home/360p/index.m3u8")
    record(group, "edge with the signed URL: 200", status == 200, f"{status}")
    segment = re.findall(rb"^(\S+\.ts)$", venue.origin.request("GET", "/live/home/360p/index.m3u8", {"Authorization": f"Bearer {VIEWER}"})[2], re.M)[0].decode()
    for spelling in SPELLINGS + ["/access/garbage/live/home/{f}", "/access/s1~open~0~~x/live/home/{f}"]:
        path = spelling.format(f=f"360p/{segment}")
        status, headers, body = venue.edge.request("GET", path)
        record(group, f"edge segment without credential, {path}: not served", status != 200 and body[:1] != b"G", f"{status}")
    poison = venue.edge.status("GET", "/live/open/../home/360p/999999.ts")
    after = venue.edge.status("GET", f"{credential}/live/home/360p/{segment}")
    record(group, "edge: a miss on another spelling does not poison the real key", after == 200, f"poison {poison}, then the signed URL {after}")
    # Shared caches that are not ours: private answers are not for them.
    for path in ["/live/home/master.m3u8", "/live/home/360p/index.m3u8", f"/live/home/360p/{segment}", "/vod/home/master.m3u8"]:
        status, headers, _ = venue.origin.request("GET", path, {"Authorization": f"Bearer {VIEWER}"})
        control = headers.get("cache-control", "")
        record(group, f"Cache-Control of private {path}: not public", status == 200 and "public" not in control and "private" in control, f"{status} {control!r} vary={headers.get('vary')!r}")
    # Internal headers from a client are dropped.
    status, _, body = venue.origin.request("GET", "/live/open/master.m3u8", {"X-Sideline-Variant-Limit": "180p"})
    record(group, "X-Sideline-Variant-Limit from a client is ignored (open master lists every variant)", status == 200 and body.count(b"#EXT-X-STREAM-INF") == 2, f"{status}, {body.count(b'#EXT-X-STREAM-INF')} variants")
    status, headers, body = venue.plain.request("GET", "/live/open/master.m3u8", {"X-Sideline-Variant-Limit": "180p", "Host": PUBLIC_NAME})
    record(group, "the plain port: redirected to TLS, never a master limited by a client's header", status == 308 and b"#EXT-X-STREAM-INF" not in body,
           f"{status} {headers.get('location', '')}")
    # Clips honour the credential and its variant limit.
    limited = venue.signed_180.split("/live/")[0]
    status = venue.origin.status("GET", "/api/streams/home/clip.mp4?start=0&end=2&variant=360p", {}, timeout=60)
    record(group, "clip of a private stream without credential: 401", status == 401, f"{status}")
    status = venue.origin.status("GET", f"{limited}/api/streams/home/clip.mp4?start=0&end=2&variant=360p", timeout=60)
    record(group, "clip above a credential's variant limit: 403", status == 403, f"{status}")
    # The mirror of the private stream.
    for path in ["/live/home/master.m3u8", "/live/home/360p/index.m3u8", "/vod/home/master.m3u8", "/vod/home/360p/index.m3u8"]:
        status = venue.mirror.status("GET", path)
        record(group, f"mirror without credential, {path}: 401", status == 401, f"{status}")
        status = venue.mirror.status("GET", path, {"Authorization": f"Bearer {VIEWER}"})
        record(group, f"mirror with the viewer token, {path}: 200", status == 200, f"{status}")
    status = venue.mirror.status("GET", f"{credential}/live/home/360p/index.m3u8")
    record(group, "mirror with the origin's signed credential (a player failing over): 200", status == 200, f"{status}")
    secret_bits = [credential.split("/access/")[-1], VIEWER, SIGNING]
    logs = open(f"{venue.work}/mirror.log", errors="replace").read()
    record(group, "mirror output and log carry no credential", not any(s in logs for s in secret_bits), "")
    kept = [f for suffix in (".m3u8", ".json", ".jsonl") for f in files_under(f"{venue.work}/mirror-data", suffix)]
    holding = [f for f in kept if any(s in open(f, errors="replace").read() for s in secret_bits)]
    record(group, "the mirror's files carry no credential", kept and not holding, f"{len(kept)} playlists and state files read, {len(holding)} with a credential")


# ---------------------------------------------------------------- class 2b: the doors of issue 33

def probe_doors(venue):
    group = "doors"
    bearer = {"Authorization": f"Bearer {INGEST}"}

    def master(rungs):
        return "#EXTM3U\n" + "".join(f"#EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION={size},CODECS=\"{codecs}\"{rate}\n{name}/index.m3u8\n"
                                      for name, size, codecs, rate in rungs)
    # A declared rung named as a file or folder the stream keeps.
    for name in ["master.m3u8", "ingest", "Unplaced", "timeline.json"]:
        status, _, body = venue.origin.request("PUT", "/ingest/roof/master.m3u8", bearer, master([(name, "640x360", "avc1.64001e,mp4a.40.2", "")]).encode())
        record(group, f"a pushed master declaring a rung named {name}: 400", status == 400 and b"none of the names the server keeps" in body, f"{status} {body[:120]!r}")
    # A ladder that asks for more than one 2160p60 rung's pixels a second.
    status, _, body = venue.origin.request("PUT", "/ingest/roof/master.m3u8", bearer,
                                           master([(f"r{n}", "7680x4320", "avc1.640033", ",FRAME-RATE=120") for n in range(8)]).encode())
    record(group, "a pushed master declaring eight 4320p120 rungs: 400", status == 400 and b"million pixels a second" in body, f"{status} {body[:120]!r}")
    # Declared codecs the segments cannot carry: HEVC declared for roof's 180p, whose segments
    # are H.264 with AAC. The master is taken (an encoder that starts again may change codecs);
    # an H.264 segment after it is refused; the codecs the pusher declared put back.
    served = venue.origin.request("GET", "/live/roof/master.m3u8")[2].decode(errors="replace")
    pushed = re.search(r'CODECS="([^"]+)",RESOLUTION=320x180', served)
    status = venue.origin.status("PUT", "/ingest/roof/master.m3u8", bearer, master([("180p", "320x180", "hvc1.1.6.L93.B0,mp4a.40.2", "")]).encode())
    index = venue.origin.request("GET", "/live/open/180p/index.m3u8")[2]
    real = venue.origin.request("GET", "/live/open/180p/" + re.findall(rb"^(\S+\.ts)$", index, re.M)[-1].decode())[2]
    refused, _, body = venue.origin.request("PUT", "/ingest/roof/180p/codecs0.ts", bearer, real)
    restored = venue.origin.status("PUT", "/ingest/roof/master.m3u8", bearer, master([("180p", "320x180", pushed.group(1) if pushed else "avc1.42c00d,mp4a.40.2", "")]).encode())
    record(group, "HEVC declared for H.264 segments: the next segment is refused 400 naming both", status == 200 and refused == 400 and b"CODECS declares" in body and restored == 200,
           f"master {status}, segment {refused} {body[:120]!r}, master with the pushed codecs {restored}")
    record(group, "the pushed stream's master still renders", venue.origin.status("GET", "/live/roof/master.m3u8") == 200, "")
    # The first playlist of a session is held to the bounds of later ones: two real segments,
    # 1,000 GAP entries between them, would put the second half an hour ahead.
    index = venue.origin.request("GET", "/live/open/180p/index.m3u8")[2]
    real = venue.origin.request("GET", "/live/open/180p/" + re.findall(rb"^(\S+\.ts)$", index, re.M)[-1].decode())[2]
    taken = [venue.origin.status("PUT", f"/ingest/roof/180p/{name}", bearer, real) for name in ("door0.ts", "door1.ts")]
    extinf = re.findall(rb"#EXTINF:([0-9.]+),", index)[-1].decode()
    playlist = MEDIA.format(seq="0", body=f"#EXTINF:{extinf},\ndoor0.ts\n" + "#EXT-X-GAP\n#EXTINF:2.0,\ngap.ts\n" * 1000 + f"#EXTINF:{extinf},\ndoor1.ts\n")
    status, _, body = venue.origin.request("PUT", "/ingest/roof/180p/index.m3u8", bearer, playlist.encode())
    record(group, "a playlist that starts again with a segment 1,000 slots ahead: 400", taken == [201, 201] and status == 400 and (b"ahead" in body or b"past" in body),
           f"segments {taken}, playlist {status} {body[:160]!r}")
    # No query text reaches a playlist line.
    status, _, body = venue.origin.request("GET", '/vod/open/master.m3u8?start=0&start=x",AUTOSELECT=YES,X="')
    record(group, "a second start= with a quote in a VOD master's query: no line carries it", status == 200 and b"AUTOSELECT" not in body and b"start=x" not in body,
           f"{status}")
    # A private set shows nothing of itself without its credential.
    for headers, who in [({}, "no token"), ({"Authorization": "Bearer wrong-token-for-sets"}, "a wrong token")]:
        status, _, body = venue.origin.request("GET", "/api/sets", headers)
        record(group, f"/api/sets with {who}: the private set is not listed", status == 200 and b"homeset" not in body and b'"home"' not in body, f"{status} {body[:100]!r}")
        status, _, body = venue.origin.request("GET", "/api/sets/homeset", headers)
        record(group, f"/api/sets/homeset with {who}: 404 as for no set", status == 404 and b'"home"' not in body and b"angles" not in body, f"{status} {body[:100]!r}")
    status, _, body = venue.origin.request("GET", "/api/sets", {"Authorization": f"Bearer {VIEWER}"})
    record(group, "/api/sets with the set's viewer token lists it", status == 200 and b'"homeset"' in body, f"{status}")


def threads_of(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("Threads:"):
            return int(line.split()[1])
    return 0


def probe_parts(venue):
    """Low-Latency HLS (issue 34): hostile blocking directives and part names are refused with
    400 or 404, never crash the server; two hundred players held on the hinted part cost no
    thread each and all get its bytes; a private stream's parts need the credential."""
    group = "parts"
    playlist = "/live/open/180p/index.m3u8"
    status, _, body = venue.origin.request("GET", playlist)
    text = body.decode(errors="replace")
    hint = re.search(r'#EXT-X-PRELOAD-HINT:TYPE=PART,URI="(parts/(\d+)\.(\d+)\.ts)"', text)
    record(group, "the open stream's playlist lists parts and a hint", status == 200 and "#EXT-X-PART-INF" in text and hint is not None, f"{status}")
    if not hint:
        return
    last = int(re.findall(r"^(\d+)\.ts$", text, re.M)[-1])
    for query, why in [(f"_HLS_msn={last + 1}&_HLS_part=99999999999999999999999", "a part index past Int"),
                       (f"_HLS_msn={last + 1}&_HLS_part=-1", "a negative part"),
                       ("_HLS_part=3", "a part without _HLS_msn"),
                       (f"_HLS_msn={last + 1}&_HLS_part=500", "a part far past the Advance Part Limit"),
                       (f"_HLS_msn={last + 40}&_HLS_part=0", "a segment far ahead")]:
        status = venue.origin.status("GET", f"{playlist}?{query}")
        record(group, f"{why}: 400 at once", status == 400, f"{status}")
    for path, why in [("parts/000001.1000.ts", "a part index over 999"), ("parts/..%2F..%2Fmaster.m3u8.0.ts", "an encoded climb"),
                      ("parts/%00.0.ts", "an encoded NUL"), ("parts/999999999999999999999.0.ts", "a segment number past Int"),
                      ("parts/000001.ts", "no part index"), ("parts/000001.0.ts/x", "a path under a part")]:
        status = venue.origin.status("GET", f"/live/open/180p/{path}")
        record(group, f"{why}: refused (400 or 404)", status in (400, 404), f"{status}")
    # Two hundred players from ten addresses held on the hinted part at once.
    hinted = "/live/open/180p/" + hint.group(1)
    before = threads_of(venue.server.pid)
    answers, most = [], [before]
    lock = threading.Lock()

    def held(source):
        client = Client(venue.tls_port, venue.context, source=source)
        try:
            answer = client.request("GET", hinted, timeout=20)
        except Exception as error:
            answer = (f"error: {type(error).__name__}", {}, b"")
        with lock:
            answers.append(answer)
    workers = [threading.Thread(target=held, args=(f"127.0.0.{10 + n % 10}",)) for n in range(200)]
    for worker in workers:
        worker.start()
    deadline = time.time() + 25
    while any(w.is_alive() for w in workers) and time.time() < deadline:
        most.append(threads_of(venue.server.pid))
        time.sleep(0.05)
    for worker in workers:
        worker.join(timeout=1)
    statuses = sorted({a[0] for a in answers}, key=str)
    bodies = {a[2] for a in answers if a[0] == 200}
    record(group, "200 players held on the hinted part all get it, the same bytes", len(answers) == 200 and statuses == [200] and len(bodies) == 1,
           f"{len(answers)} answers, statuses {statuses}, {len(bodies)} distinct bodies")
    record(group, "holding them costs no thread each", max(most) <= before + 16, f"threads {before} before, at most {max(most)} while held")
    # A private stream's parts: nothing without the credential.
    status, _, body = venue.origin.request("GET", "/live/home/360p/parts/000001.0.ts")
    record(group, "a private stream's part without a credential: 401", status == 401, f"{status}")


def probe_restart(venue):
    """After every upload and request of the drill, the server starts again on the same data
    directory with every stream and set (issue 33: a pushed rung named as a file the stream
    keeps left a server that would not start)."""
    group = "restart"
    stop(venue.server)
    venue.processes.remove(venue.server)
    venue.server = spawn([BIN, "serve", "--config", f"{venue.work}/sideline.yaml", "--host", "127.0.0.1", "--port", str(venue.tls_port),
                          "--data-dir", venue.data, "--log-level", "info"], f"{venue.work}/server-restarted.log")
    venue.processes.append(venue.server)
    viewer = {"Authorization": f"Bearer {VIEWER}"}
    for path, headers in [("/live/open/360p/index.m3u8", {}), ("/live/home/360p/index.m3u8", viewer), ("/live/roof/180p/index.m3u8", {}),
                          ("/live/homeset/master.m3u8", viewer)]:
        deadline, status = time.monotonic() + 90, None
        while time.monotonic() < deadline and venue.alive():
            status = venue.origin.status("GET", path, headers)
            if status == 200:
                break
            time.sleep(0.5)
        record(group, f"started again over the same data: {path} 200", status == 200 and venue.alive(), f"{status}")


# ---------------------------------------------------------------- class 3: bounded disk

def files_under(directory, suffix):
    found = []
    for root, _, names in os.walk(directory):
        found += [os.path.join(root, n) for n in names if n.endswith(suffix)]
    return found


def probe_disk(venue):
    group = "disk"
    before = set(files_under(venue.data, ".mp4"))
    statuses = [venue.origin.status("HEAD", "/api/streams/open/clip.mp4?start=0&end=4", timeout=60) for _ in range(20)]
    time.sleep(1)
    left = set(files_under(venue.data, ".mp4")) - before
    record(group, "20 HEAD of a clip leave no file", not left, f"statuses {sorted(set(statuses))}, {len(left)} files left")
    # What a clip may be is judged on the recording the window covers (a day's window is cut
    # to what exists): wait until the open stream has recorded more than the bound.
    venue.wait_for(lambda: venue.origin.request("GET", "/vod/open/360p/index.m3u8")[2].count(b"#EXTINF") * 2 > MAX_CLIP + 4, 120, "a recording longer than clips.max_duration")
    status = venue.origin.status("GET", "/api/streams/open/clip.mp4?start=0&end=86400", timeout=60)
    record(group, f"a clip longer than clips.max_duration ({MAX_CLIP} s) of what is recorded: 400", status == 400, f"{status}")
    # Clips in progress: six clients ask for a clip and read none of it, so each answer stays
    # in progress (a clip of 30 s, about 3 MB, is larger than the buffers between them); then one more.
    held = []
    for n in range(6):
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
        sock.bind((f"127.0.3.{n + 1}", 0))
        sock.connect(("127.0.0.1", venue.tls_port))
        tls = venue.context.wrap_socket(sock, server_hostname="127.0.0.1")
        tls.sendall(f"GET /api/streams/open/clip.mp4?start=0&end={MAX_CLIP}&variant=360p HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        held.append(tls)
    time.sleep(3)
    status, headers, _ = venue.origin.request("GET", f"/api/streams/open/clip.mp4?start=0&end={MAX_CLIP}&variant=360p", timeout=60)
    # What the held clients were answered (the first line only: they still read no further).
    answered = []
    for tls in held:
        tls.settimeout(2)
        try:
            answered.append(tls.recv(64).split(b"\r\n", 1)[0].decode(errors="replace"))
        except (OSError, ssl.SSLError) as error:
            answered.append(type(error).__name__)
    record(group, "six clips held unread, then one more: 503 with Retry-After (clips.max_in_progress 4)", status == 503 and "retry-after" in headers,
           f"{status} Retry-After={headers.get('retry-after')}; the six held were answered {answered}")
    for tls in held:
        tls.close()
    time.sleep(2)
    status, _, body = venue.origin.request("GET", f"/api/streams/open/clip.mp4?start=0&end={MAX_CLIP}&variant=360p", timeout=60)
    record(group, "once those clients are gone, a clip is made again", status == 200, f"{status}, {len(body)} bytes")
    time.sleep(2)
    left = set(files_under(venue.data, ".mp4")) - before
    record(group, "no clip file left once the answers are sent", not left, f"{len(left)} left")
    # Uploads: many unplaced segments, many in flight.
    bearer = {"Authorization": f"Bearer {INGEST}"}
    segment = venue.origin.request("GET", "/live/open/180p/" + re.findall(rb"^(\S+\.ts)$", venue.origin.request("GET", "/live/open/180p/index.m3u8")[2], re.M)[0].decode())[2]
    statuses = []
    for n in range(400):
        statuses.append(venue.origin.status("PUT", f"/ingest/roof/180p/x{n:06d}.ts", bearer, segment))
    refused = [s for s in statuses if isinstance(s, int) and s >= 400]
    kept = len([f for f in files_under(f"{venue.data}/roof", ".ts") if os.path.basename(f).startswith("x")])
    record(group, "400 segments never listed: refused past the bound, the rest kept within it", refused and all(s in (201, 204, 200, 429, 503, 507) for s in statuses) and kept < 400,
           f"{len(refused)} refused ({sorted(set(refused), key=str)}), {kept} on disk")
    slow, failed = [], 0
    for n in range(40):
        try:
            sock = socket.create_connection(("127.0.0.1", venue.tls_port), timeout=2)
            tls = venue.context.wrap_socket(sock, server_hostname="127.0.0.1")
            slow.append(tls)
            tls.sendall(f"PUT /ingest/roof/360p/s{n:06d}.ts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {INGEST}\r\nContent-Length: 60000000\r\n\r\n".encode() + b"G" * 1_000_000)
        except Exception:
            # A refused upload is answered 503 and read no further: its send times out.
            failed += 1
    time.sleep(2)
    rss = int(re.search(r"VmRSS:\s+(\d+)", open(f"/proc/{venue.server.pid}/status").read()).group(1)) // 1024
    record(group, "40 slow 60 MB uploads tried at once: the server holds a bounded amount", len(slow) >= 30 and venue.alive() and rss < 1500,
           f"{len(slow)} connected, {failed} sends refused or stalled, RSS {rss} MiB")
    for s in slow:
        s.close()


# ---------------------------------------------------------------- class 4: connections

# The server's side: its sockets (a connection it closed is gone from its descriptors even
# while the kernel still holds the unread bytes the client never took).
def sockets_of(pid):
    count = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            count += os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:")
        except OSError:
            pass
    return count


def rss_kilobytes(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def probe_unread_pipeline(venue, group, requests=400_000):
    """Requests pipelined and no answer read (the fast path's review, 2026-11-29): the server
    must stop reading once its answers wait, not answer every request into memory (about
    180 MB of answers here). The client's send then stops once the kernel's buffers are full
    (a few MB), so fewer than all are sent; the bound on memory leaves room for the venue's
    own growth over the same seconds (up to 18 MB seen)."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.bind(("127.0.3.1", 0))
    sock.settimeout(5)
    sock.connect(("127.0.0.1", venue.tls_port))
    tls = venue.context.wrap_socket(sock, server_hostname="127.0.0.1")
    before = rss_kilobytes(venue.server.pid)
    payload = b"HEAD /live/open/master.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n" * requests
    sent = 0
    deadline = time.monotonic() + 20
    try:
        while sent < len(payload) and time.monotonic() < deadline:
            sent += tls.send(payload[sent:sent + 65536])
    except (socket.timeout, ssl.SSLError, OSError):
        pass
    time.sleep(2)
    grown = rss_kilobytes(venue.server.pid) - before
    fresh = Client(venue.tls_port, venue.context, source="127.0.3.2").status("GET", "/live/open/master.m3u8", timeout=10)
    record(group, f"a client pipelining {requests:,} requests and reading none: the server grows by under 64 MB and a fresh player is served",
           grown < 65536 and fresh == 200, f"{sent // 49:,} requests sent, resident memory {grown / 1024:+.1f} MB, fresh player {fresh}")
    tls.close()


def probe_connections(venue, addresses=20, per_address=64):
    group = "connections"
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 65536), hard))
    probe_unread_pipeline(venue, group)
    index = venue.origin.request("GET", "/live/open/360p/index.m3u8")[2]
    segment = re.findall(rb"^(\S+\.ts)$", index, re.M)[0].decode()
    request = (f"GET /live/open/360p/{segment} HTTP/1.1\r\nHost: x\r\n\r\n" * 30).encode()
    held, opened = [], 0
    deadline = time.monotonic() + 120
    for a in range(addresses):
        for _ in range(per_address):
            if time.monotonic() > deadline:
                break
            try:
                sock = socket.socket()
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
                sock.bind((f"127.0.1.{a + 1}", 0))
                sock.settimeout(3)
                sock.connect(("127.0.0.1", venue.tls_port))
                tls = venue.context.wrap_socket(sock, server_hostname="127.0.0.1")
                tls.sendall(request)  # thirty segments asked for, none read
                held.append(tls)
                opened += 1
            except Exception:
                pass
    started = time.monotonic()
    fresh = Client(venue.tls_port, venue.context, source="127.0.2.1")
    status = fresh.status("GET", "/live/open/master.m3u8", timeout=10)
    took = time.monotonic() - started
    record(group, f"{addresses} addresses x {per_address} non-reading downloads, then a fresh player is served within 2 s", status == 200 and took <= 2, f"{opened} held open, answered {status} in {took:.2f} s")
    # Connections closed to make room leave the server's table at once; their sockets follow
    # when TLS's close has been given up on (TLSIdentity.shutdownTimeout, 1 s, for the
    # close_notify sent to a client that reads nothing; NIOSSL's default of 5 s kept 692
    # sockets 3 s after the flood).
    time.sleep(3)
    soon = sockets_of(venue.server.pid)
    time.sleep(4)
    during = sockets_of(venue.server.pid)
    record(group, f"the server's sockets stay within the connection cap ({MAX_CONNECTIONS}) while 1,280 are tried", soon <= MAX_CONNECTIONS + 32 and during <= MAX_CONNECTIONS + 32,
           f"{soon} sockets 3 s after the flood, {during} 7 s after (listeners, the edge's and the mirror's included)")
    time.sleep(float(os.environ.get("WRITE_TIMEOUT_WAIT", "40")))
    after = sockets_of(venue.server.pid)
    record(group, "non-reading connections closed after the write timeout", after < 100, f"server sockets: {during} while held, {after} after the wait, {len(held)} held by the client")
    for tls in held:
        try:
            tls.close()
        except Exception:
            pass


# ---------------------------------------------------------------- class 5: TLS and secrets

def handshake(port, *options):
    out = subprocess.run(["openssl", "s_client", "-connect", f"127.0.0.1:{port}", "-servername", "127.0.0.1", *options],
                         input=b"", capture_output=True, timeout=20)
    text = out.stdout.decode(errors="replace")
    cipher = re.search(r"Cipher is (\S+)", text)
    return cipher.group(1) if cipher and cipher.group(1) != "(NONE)" else None


def probe_tls(venue):
    group = "tls"
    for version in ["-tls1", "-tls1_1"]:
        cipher = handshake(venue.tls_port, version, "-cipher", "DEFAULT@SECLEVEL=0")
        record(group, f"{version} refused", cipher is None, f"{cipher}")
    cipher = handshake(venue.tls_port, "-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-SHA:ECDHE-ECDSA-AES256-SHA:ECDHE-RSA-AES256-SHA@SECLEVEL=0")
    record(group, "a CBC-SHA1 suite refused", cipher is None, f"{cipher}")
    for version in ["-tls1_2", "-tls1_3"]:
        cipher = handshake(venue.tls_port, version)
        record(group, f"{version}: a forward-secret AEAD suite", cipher is not None and ("GCM" in cipher or "CHACHA20" in cipher), f"{cipher}")
    status, headers, _ = venue.plain.request("GET", "/live/open/master.m3u8", {"Host": "evil.example"})
    location = headers.get("location", "")
    record(group, "plain port redirects to the configured name, not the Host header", status == 308 and location.startswith(f"https://{PUBLIC_NAME}") and "evil" not in location, f"{status} {location}")
    # A stream that does not exist: the server's own 404 shows the command reached it over TLS.
    out = subprocess.run([BIN, "admin", "end", "no-such-camera", "--server", f"https://127.0.0.1:{venue.tls_port}", "--token", ADMIN, "--ca-file", f"{venue.certs}/ca.pem"],
                         capture_output=True, text=True, timeout=30, cwd=ROOT)
    said = (out.stderr + out.stdout).strip()
    record(group, "sideline admin over https with --ca-file reaches the server", "404" in said or "no stream" in said.lower(), said[-200:])
    statuses = [venue.origin.status("GET", "/live/home/master.m3u8", {"Authorization": f"Bearer wrong-{n}"}) for n in range(40)]
    record(group, "wrong credentials from one address: 429 after a burst", 429 in statuses and statuses[0] == 401, f"{statuses[:3]} ... {statuses[-3:]}")
    status, headers, _ = venue.origin.request("GET", "/live/home/master.m3u8", {"Authorization": "Bearer wrong-again"})
    record(group, "the slowed address is still 429, which says when to come back", status == 429 and headers.get("retry-after", "").isdigit(), f"{status} Retry-After={headers.get('retry-after')}")
    status = venue.origin.status("GET", "/live/open/360p/index.m3u8")
    record(group, "the open stream still answers the slowed address", status == 200, f"{status}")
    metrics = venue.origin.request("GET", "/metrics")[2].decode(errors="replace")
    counted = {name: float(value) for name, value in re.findall(r"^(sideline_access_(?:throttled|failed_credentials)_total)\S*\s+(\S+)$", metrics, re.M)}
    record(group, "slowed and refused credentials counted in /metrics (above zero)", counted.get("sideline_access_throttled_total", 0) > 0 and counted.get("sideline_access_failed_credentials_total", 0) > 0, f"{counted}")
    log = open(f"{venue.work}/server.log", errors="replace").read()
    leaked = [s for s in (VIEWER, SIGNING, ADMIN, INGEST, venue.signed.split("/live/")[0].split("/access/")[-1]) if s in log]
    record(group, "the request log redacts credentials (log_headers on)", not leaked, f"{len(leaked)} secrets found in the log")
    modes = [os.stat(p).st_mode & 0o077 for p in files_under(f"{venue.work}/push-queue", "")]
    record(group, "push's queue is readable by its owner only", modes and not any(modes), f"{len(modes)} files, group/other bits {set(modes)}")
    bad = f"{venue.work}/weak.yaml"
    open(bad, "w").write(venue.config().replace(VIEWER, "secret12"))
    out = subprocess.run([BIN, "serve", "--config", bad, "--port", "0", "--data-dir", f"{venue.work}/weak-data"], capture_output=True, text=True, timeout=60, cwd=ROOT)
    record(group, "a weak token stops the start, and the error does not echo it", out.returncode != 0 and "secret12" not in out.stdout + out.stderr, f"exit {out.returncode}")
    unit = open(f"{ROOT}/Config/systemd/sideline.service").read()
    record(group, "the systemd unit reloads with SIGHUP", "ExecReload=" in unit, "")
    os.kill(venue.server.pid, signal.SIGHUP)
    time.sleep(1)
    record(group, "SIGHUP reloads, the server lives", venue.alive(), "")


# ---------------------------------------------------------------- class: a hostile other box

class HostileBox:
    """A fake 'other box' of the venue (issue 35, `boxes`) on 127.0.0.1, answering as the other
    team would if it took the box's address: a listing with a 5,000-character title full of
    control characters, a master whose rung names and attributes carry quotes and new lines,
    markers taken only after a trickle far past any timeout, a clip answered by a redirect to
    the origin itself, or by more bytes than asked for. Counts what it was asked."""

    # Parses, but carries what must not reach a viewer: a made-up VIDEO-RANGE, rung names with a
    # quote, a path and a dot, an absolute URI, a codec with a space, a bandwidth past any bound.
    HOSTILE = ('#EXTM3U\n#EXT-X-SESSION-DATA:DATA-ID="com.evil",VALUE="EVIL"\n'
               '#EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS="avc1.64001f",VIDEO-RANGE=EVIL\n360p/index.m3u8\n'
               '#EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS="avc1.64001f"\nx"EVIL/index.m3u8\n'
               '#EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS="avc1.64001f"\n../EVIL/index.m3u8\n'
               '#EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS="avc1.64001f"\nhttp://evil/EVIL/index.m3u8\n'
               '#EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS="avc1 EVIL"\nq1/index.m3u8\n'
               '#EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS="a,b,c,d,e"\nq2/index.m3u8\n')
    # A carriage return inside a URI line, to start a line of its own in a master that copies it.
    INJECTED = ('#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS="avc1.64001f"\n'
                'x",URI="http://evil/\r#EXT-X-EVIL/index.m3u8\n')

    def __init__(self, port, origin_port):
        self.port, self.origin_port, self.asked = port, origin_port, []
        self.clip_mode = "redirect"
        self.master = self.HOSTILE
        self.stop_event = threading.Event()
        self.socket = socket.socket()
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind(("127.0.0.1", port))
        self.socket.listen(64)
        self.socket.settimeout(0.5)
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while not self.stop_event.is_set():
            try:
                conn, _ = self.socket.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            threading.Thread(target=self.answer, args=(conn,), daemon=True).start()

    def answer(self, conn):
        try:
            conn.settimeout(5)
            head = b""
            while b"\r\n\r\n" not in head and len(head) < 65536:
                chunk = conn.recv(4096)
                if not chunk:
                    return
                head += chunk
            line = head.split(b"\r\n", 1)[0].decode("latin-1")
            method, path = line.split(" ")[0], line.split(" ")[1]
            self.asked.append(f"{method} {path}")
            if path == "/api/streams":
                title = "x" * 5000 + "\u001b[2J\u0007"
                self.send(conn, 200, "application/json", json.dumps({"streams": [{"id": "away", "title": title, "state": "live"}]}).encode())
            elif path == "/live/away/master.m3u8":
                self.send(conn, 200, "application/vnd.apple.mpegurl", self.master.encode())
            elif method == "POST" and path.endswith("/markers"):
                # Headers at once, then a byte every 2 s: the origin must not wait on it.
                conn.sendall(b"HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
                for _ in range(30):
                    if self.stop_event.wait(2):
                        return
                    conn.sendall(b" ")
            elif "clip.mp4" in path:
                if self.clip_mode == "redirect":
                    conn.sendall(f"HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:{self.origin_port}/api/sets\r\nContent-Length: 0\r\n\r\n".encode())
                else:
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: video/mp4\r\n\r\n")
                    for _ in range(64):
                        conn.sendall(b"\0" * (1 << 20))
            else:
                self.send(conn, 404, "text/plain", b"no")
        except OSError:
            pass
        finally:
            conn.close()

    @staticmethod
    def send(conn, status, kind, body):
        conn.sendall(f"HTTP/1.1 {status} X\r\nContent-Type: {kind}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)

    def close(self):
        self.stop_event.set()
        self.socket.close()


def probe_boxes(venue):
    """A second, small server (the test pattern as `wide`, a set of `wide` and `away`) whose
    `boxes` names a hostile fake box for `away`: the set's master never carries what the box
    injects, a marker or clip it will not finish is refused in bounded time with 502 and leaves
    nothing behind, and the server stays up."""
    group = "boxes"
    work = f"{venue.work}/boxes"
    os.makedirs(work, exist_ok=True)
    port, box_port = free_port(), free_port()
    box = HostileBox(box_port, port)
    with open(f"{work}/sideline.yaml", "w") as f:
        f.write(f"server: {{host: 127.0.0.1, port: {port}}}\nanalyst: {{token: {ANALYST}}}\npart_duration: 0\n{LADDER}"
                f"streams:\n  - {{name: wide, input: testpattern}}\nboxes:\n  - {{url: 'http://127.0.0.1:{box_port}', streams: [away]}}\n"
                "angle_sets:\n  - {name: match, streams: [wide, away]}\n")
    server = spawn([BIN, "serve", "--config", f"{work}/sideline.yaml", "--data-dir", f"{work}/data", "--log-level", "info"], f"{work}/server.log")
    client = Client(port)
    try:
        venue.wait_for(lambda: client.status("GET", "/live/wide/360p/index.m3u8") == 200, 60, "the boxes server's stream")
        alive = lambda: server.poll() is None and client.status("GET", "/healthz") == 200
        deadline = time.time() + 20
        master = b""
        while time.time() < deadline and b"../away/" not in master:
            status, _, master = client.request("GET", "/live/match/master.m3u8")
            time.sleep(0.5)
        text = master.decode("utf-8", "replace")
        record(group, "the set's master lists the other box's angle, by its one well-formed rung only",
               "../away/360p/index.m3u8" in text and "../away/q1/" not in text and "../away/q2/" not in text, "")
        record(group, "nothing the other box's master carries beyond that reaches the set's master", all(bad not in text for bad in ("EVIL", "evil", "\r", 'URI="http')), "")
        box.master = box.INJECTED
        time.sleep(5)
        again = client.request("GET", "/live/match/master.m3u8")[2].decode("utf-8", "replace")
        record(group, "a master with a line break in a URI is not taken: the one held stays", again == text, "")
        _, _, listing = client.request("GET", "/api/sets/match")
        angle = next((a for a in json.loads(listing).get("angles", []) if a.get("stream") == "away"), {})
        record(group, "its title is cut to 200 characters with no control character", len(angle.get("title", "")) <= 200 and not re.search(r"[\x00-\x1f\x7f]", angle.get("title", "")),
               f"{len(angle.get('title', ''))} characters")
        record(group, "the angle's own URLs answer 404 here", client.status("GET", "/live/away/360p/index.m3u8") == 404, "")
        auth = {"Authorization": f"Bearer {ANALYST}", "Content-Type": "application/json"}
        began = time.time()
        status, _, body = client.request("POST", "/api/sets/match/markers", auth, b'{"label": "Trickled", "time": "now", "lead": 2}', timeout=60)
        took = time.time() - began
        record(group, "a marker the other box trickles is refused with 502 within 15 s", status == 502 and took < 15, f"{status} in {took:.1f} s")
        _, _, markers = client.request("GET", "/api/sets/match/markers")
        record(group, "and this box's angle does not keep it", b"Trickled" not in markers, "")
        before = set(os.listdir(f"{work}/data/.clips")) if os.path.isdir(f"{work}/data/.clips") else set()
        for mode in ("redirect", "flood"):
            box.clip_mode = mode
            began = time.time()
            try:
                status, _, body = client.request("GET", "/api/sets/match/clip.zip?start=0&end=4", timeout=90)
            except Exception as error:
                status, body = f"error: {type(error).__name__}", b""
            took = time.time() - began
            record(group, f"a clip the other box answers with a {mode} is refused with 502 in bounded time", status == 502 and took < 40,
                   f"{status} in {took:.1f} s: {body[:200]!r}")
        after = set(os.listdir(f"{work}/data/.clips")) if os.path.isdir(f"{work}/data/.clips") else set()
        record(group, "no scratch file is left", after <= before, f"{sorted(after - before)}")
        record(group, "the server is alive and its stream plays", alive() and client.status("GET", "/live/wide/360p/index.m3u8") == 200, "")
    finally:
        stop(server)
        box.close()


def stop_watcher(watcher):
    if not watcher:
        return
    watcher.running = False
    watcher.join(10)
    bad = [(round(t - watcher.statuses[0][0], 1), s) for t, s in watcher.statuses if s != 200]
    record("open", f"the open stream answered 200 throughout ({len(watcher.statuses)} fetches)", not bad, f"not 200: {bad[:10]}")


def main():
    classes = os.environ.get("CLASSES", "traps private doors parts disk connections tls boxes restart").split()
    load = open("/proc/loadavg").read().split()[:3]
    print(f"# hostile venue drill, {time.strftime('%Y-%m-%d %H:%M:%S')}, load average {' '.join(load)}, binary {BIN}", flush=True)
    venue = Venue()
    watcher = None
    try:
        venue.start()
        pid = venue.server.pid
        watcher = OpenWatcher(venue)
        watcher.start()
        for name in [c for c in classes if c != "restart"]:
            {"traps": probe_traps, "private": probe_private, "doors": probe_doors, "parts": probe_parts, "disk": probe_disk, "connections": probe_connections,
             "tls": probe_tls, "boxes": probe_boxes}[name](venue)
            record(name, "the server is alive after this class (same process)", venue.alive() and venue.server.pid == pid, "")
        # The restart comes last, once the open stream's watch has ended (it stops the server).
        stop_watcher(watcher)
        watcher = None
        if "restart" in classes:
            probe_restart(venue)
    finally:
        stop_watcher(watcher)
        venue.stop()
        if os.environ.get("KEEP"):
            print(f"# work directory kept: {venue.work}")
        else:
            shutil.rmtree(venue.work, ignore_errors=True)
    passed = sum(1 for r in results if r[2])
    failed = len(results) - passed
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
