#!/usr/bin/env python3
"""What one small atomic write costs on the data directory's filesystem: write, fsync and
rename of a 70-byte file (AtomicFile's steps), 500 times; median and p99. The ingest writes one
such file (ingest/session.json) per playlist upload (Docs/benchmarks.md, "Ingest uploads").

    python3 scripts/bench/serving/small_write_cost.py [DIRECTORY]     # default: /tmp
"""
import os
import statistics
import sys
import tempfile
import time

directory = tempfile.mkdtemp(dir=sys.argv[1] if len(sys.argv) > 1 else "/tmp")
body = b'{"session":{"number":1,"firstSlot":40},"highestListed":{"720p":1234,"360p":1234}}'
times = []
for i in range(500):
    started = time.perf_counter()
    temporary = f"{directory}/.tmp-session.json.{i}"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    os.write(fd, body)
    os.fsync(fd)
    os.close(fd)
    os.rename(temporary, f"{directory}/session.json")
    times.append(time.perf_counter() - started)
times.sort()
print(f"write+fsync+rename of a {len(body)}-byte file, {len(times)} times in {directory}: "
      f"median {statistics.median(times) * 1000:.2f} ms, p99 {times[int(len(times) * 0.99) - 1] * 1000:.2f} ms")
