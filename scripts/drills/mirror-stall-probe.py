#!/usr/bin/env python3
"""Does a mirror ever turn VOD (EXT-X-ENDLIST) while its upstream's camera stalls?

    scripts/drills/mirror-stall-probe.py [PORT] [ROUNDS] [BINARY]   (default 18441, 5 rounds,
                                                                     .build/debug/sideline)

Serves the sample over UDP on 127.0.0.1:PORT with admin drills on (as stale-probe.py does),
runs `sideline mirror` of it on PORT+1, and stalls the upstream's input thread for 12 s ROUNDS
times. The upstream fills the stalled slots with stand-ins (one segment plus the late grace
after its last entry), so the mirror should follow throughout. Through each stall and 8 s after,
it reloads the mirror's media playlist every 50 ms and prints every answer that carries
EXT-X-ENDLIST or is not 200, then per round the counts. Stops what it started.
"""
import os, signal, subprocess, sys, tempfile, time, urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from probe_server import ROOT, start, get  # noqa: E402

port = int(sys.argv[1]) if len(sys.argv) > 1 else 18441
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
binary = sys.argv[3] if len(sys.argv) > 3 else os.path.join(ROOT, ".build/debug/sideline")
token = "mirror-probe-0123456789"
work = tempfile.mkdtemp(prefix="mirror-stall-probe-")
started = list(start(work, port, 34577, token, binary))
upstream = f"http://127.0.0.1:{port}/live/main/"
mirror_base = f"http://127.0.0.1:{port + 1}/live/main/"


try:
    begun = time.time()
    while time.time() - begun < 60:
        status, body = get(upstream + "180p/index.m3u8")
        if status == 200 and body.count(b"#EXTINF") >= 3:
            break
        time.sleep(0.3)
    mirror = subprocess.Popen([binary, "mirror", upstream + "master.m3u8", "--port", str(port + 1), "--data-dir", os.path.join(work, "mirror")],
                              stdout=open(os.path.join(work, "mirror.log"), "w"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    started.append(mirror)
    begun = time.time()
    while time.time() - begun < 60:
        status, body = get(mirror_base + "180p/index.m3u8")
        if status == 200 and body.count(b"#EXTINF") >= 4 and b"#EXT-X-ENDLIST" not in body:
            break
        time.sleep(0.3)
    total_vod = 0
    for round in range(rounds):
        stall = urllib.request.Request(f"http://127.0.0.1:{port}/admin/streams/main/stall?seconds=12", method="POST",
                                       headers={"Authorization": f"Bearer {token}"})
        urllib.request.urlopen(stall).close()
        start = time.time()
        vod, refused, reloads = 0, 0, 0
        while time.time() - start < 20:
            status, body = get(mirror_base + "180p/index.m3u8")
            reloads += 1
            if status != 200:
                refused += 1
                print(f"  {time.time() - start:6.2f} s after the stall: the mirror answered {status}", flush=True)
            elif b"#EXT-X-ENDLIST" in body:
                vod += 1
                print(f"  {time.time() - start:6.2f} s after the stall: the mirror's playlist carries EXT-X-ENDLIST", flush=True)
            time.sleep(0.05)
        total_vod += vod
        print(f"round {round}: {vod} of {reloads} reloads with EXT-X-ENDLIST, {refused} not 200", flush=True)
        time.sleep(6)
    print(f"all rounds: {total_vod} reloads with EXT-X-ENDLIST", flush=True)
finally:
    for process in reversed(started):
        process.send_signal(signal.SIGTERM)
    for process in reversed(started):
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
