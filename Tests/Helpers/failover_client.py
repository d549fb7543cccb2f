#!/usr/bin/env python3
"""A minimal HLS client that does what RFC 8216 §6.3.3 (redundant variant streams) and Apple's
players do, for the failover test: no player on Debian does it (measured: GStreamer 1.22
playbin and playbin3 stop with "Could not update playlist"; Chromium 156 plays out its buffer
and pauses).

    failover_client.py MASTER_URL --seconds 60 [--pace 2] [--save DIR]

It reads the master, takes the first variant and every later EXT-X-STREAM-INF with exactly
the same attributes as its backups, and fetches every segment in order from the first entry.
When a playlist or segment request fails (no connection, or a status other than 200), it moves
to the next of those URIs and carries on from the next media sequence number. Like a player, it
takes segments as it plays them: entry k no sooner than its media time (the durations before
it) divided by `pace` after the first, so it is still playing old entries when a server goes.
It stops at EXT-X-ENDLIST once it has every entry, or after `seconds`. Prints one JSON object: each
segment's sequence number, the host it came from and its SHA-1, and each switch; with
--save, each segment is also written to DIR/<sequence>.ts.
Standard library only.
"""
import argparse
import hashlib
import json
import sys
import time
import urllib.error
import urllib.parse
import urllib.request


def get(url, timeout=3):
    with urllib.request.urlopen(url, timeout=timeout) as answer:
        if answer.status != 200:
            raise urllib.error.HTTPError(url, answer.status, "not 200", answer.headers, None)
        return answer.read()


def redundant_uris(master_url, text):
    """The first variant's URI and those of the variants with the same EXT-X-STREAM-INF."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    variants = [(lines[i], lines[i + 1]) for i in range(len(lines) - 1) if lines[i].startswith("#EXT-X-STREAM-INF:")]
    first_attributes = variants[0][0]
    return [urllib.parse.urljoin(master_url, uri) for attributes, uri in variants if attributes == first_attributes]


def entries(text):
    """(media sequence number of the first entry, [(uri, duration)...], ended)."""
    sequence, listed, ended, duration = 0, [], False, 0.0
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("#EXT-X-MEDIA-SEQUENCE:"):
            sequence = int(line.split(":", 1)[1])
        elif line.startswith("#EXTINF:"):
            duration = float(line.split(":", 1)[1].split(",")[0])
        elif line == "#EXT-X-ENDLIST":
            ended = True
        elif line and not line.startswith("#"):
            listed.append((line, duration))
    return sequence, listed, ended


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("master")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--pace", type=float, default=2)
    parser.add_argument("--save")
    args = parser.parse_args()
    deadline = time.monotonic() + args.seconds
    candidates = redundant_uris(args.master, get(args.master).decode())
    current, next_sequence = 0, None
    fetched, switches, ended = [], [], False
    started, played = time.monotonic(), 0.0

    def switch(reason):
        nonlocal current
        current = (current + 1) % len(candidates)
        switches.append({"to": candidates[current], "next": next_sequence, "reason": reason, "at": time.time()})

    while time.monotonic() < deadline:
        playlist_url = candidates[current]
        try:
            first, listed, ended = entries(get(playlist_url).decode())
        except Exception as error:  # no connection, a refusal: the redundant stream's job
            switch(f"playlist: {error}")
            time.sleep(0.5)
            continue
        if next_sequence is None:
            next_sequence = first
        failed = False
        for offset, (uri, duration) in enumerate(listed):
            sequence = first + offset
            if sequence < next_sequence:
                continue
            # Played so far at `pace`: the segment is wanted once the ones before it are played.
            wait = started + played / args.pace - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            segment_url = urllib.parse.urljoin(playlist_url, uri)
            try:
                body = get(segment_url)
            except Exception as error:
                switch(f"segment {sequence}: {error}")
                failed = True
                break
            if args.save:
                with open(f"{args.save}/{sequence}.ts", "wb") as file:
                    file.write(body)
            fetched.append({"sequence": sequence, "host": urllib.parse.urlsplit(segment_url).netloc, "uri": uri,
                            "sha1": hashlib.sha1(body).hexdigest()})
            next_sequence = sequence + 1
            played += duration
        if failed:
            continue
        if ended and next_sequence >= first + len(listed):
            break
        time.sleep(1)
    print(json.dumps({"candidates": candidates, "segments": fetched, "switches": switches, "ended": ended}))


if __name__ == "__main__":
    sys.exit(main())
