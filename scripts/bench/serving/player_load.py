"""Simulated players at load (Docs/benchmarks.md, "Players at load"): PLAYERS (500) players for
SECONDS (300) against a 3-hour recording that Sideline keeps growing, on loopback. See
player_simulator.py for how they behave and what is printed.

    scripts/bench/run player-load
"""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import player_simulator as simulator  # noqa: E402
import serve_benchmark as bench  # noqa: E402


def main():
    os.makedirs(bench.WORK, exist_ok=True)
    segment = bench.make_segment()
    data = f"{bench.WORK}/data"
    bench.synthesise_recording(data, segment)
    port = bench.free_port()
    server = bench.start_sideline(data, port, open(f"{bench.WORK}/sideline-load.log", "w"))
    try:
        for name in bench.VARIANTS:
            bench.wait_for(f"http://127.0.0.1:{port}/live/main/{name}/index.m3u8", lambda b: b.count(b".ts\n") > bench.ENTRIES, seconds=120)
        simulator.run("127.0.0.1", port, server.pid, bench.VARIANTS, int(os.environ.get("PLAYERS", "500")), int(os.environ.get("SECONDS", "300")))
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(30)


if __name__ == "__main__":
    main()
