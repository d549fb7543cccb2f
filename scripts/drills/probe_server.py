"""What the drill probes share: the sample sent over UDP at real time, a server of it with the
admin drills on, and a GET that never raises (stdlib only)."""
import os, subprocess, urllib.error, urllib.request

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def start(work, port, udp, token, binary=None):
    """Starts the sender and `sideline serve` (two rungs, ultrafast) in `work`: (sender, server)."""
    binary = binary or os.path.join(ROOT, ".build/debug/sideline")
    config = os.path.join(work, "probe.yaml")
    with open(config, "w") as f:
        f.write(f"""admin:
  token: {token}
  drills: true
stream:
  input: udp://127.0.0.1:{udp}
  input_timeout: 8
  loss_timeout: 1
video:
  ladder:
    - {{name: 360p, width: 640, height: 360, bitrate: 600k, preset: ultrafast, profile: main}}
    - {{name: 180p, width: 320, height: 180, bitrate: 250k, preset: ultrafast, profile: main}}
""")
    sender = subprocess.Popen(["ffmpeg", "-v", "error", "-re", "-stream_loop", "-1", "-i", os.path.join(ROOT, "Samples/sample.mp4"),
                               "-c", "copy", "-f", "mpegts", f"udp://127.0.0.1:{udp}?pkt_size=1316"], stdin=subprocess.DEVNULL)
    server = subprocess.Popen([binary, "serve", "--config", config, "--host", "127.0.0.1", "--port", str(port), "--data-dir", os.path.join(work, "data")],
                              stdout=open(os.path.join(work, "server.log"), "w"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    return sender, server


def get(url):
    """(status, body); -1 when nothing answered."""
    try:
        with urllib.request.urlopen(url, timeout=2) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, b""
    except OSError:
        return -1, b""
