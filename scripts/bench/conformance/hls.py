"""Parsing helpers for check.py (stdlib only): master and media playlists, PDTs, and the
avc1/mp4a comparison of a declared CODECS with what ffprobe finds in a segment."""
import datetime, re

ATTR = re.compile(r'([A-Z0-9-]+)=("[^"]*"|[^,]*)')
# Tags about the whole playlist, never part of a segment's lines.
PLAYLIST_TAGS = {"#EXTM3U", "#EXT-X-VERSION", "#EXT-X-TARGETDURATION", "#EXT-X-MEDIA-SEQUENCE",
                 "#EXT-X-DISCONTINUITY-SEQUENCE", "#EXT-X-PLAYLIST-TYPE", "#EXT-X-INDEPENDENT-SEGMENTS",
                 "#EXT-X-START", "#EXT-X-ALLOW-CACHE", "#EXT-X-DEFINE", "#EXT-X-I-FRAMES-ONLY"}
# Lines that may change between versions: not checked (ENDLIST and SKIP are read, though).
VOLATILE = {"#EXT-X-PRELOAD-HINT", "#EXT-X-RENDITION-REPORT", "#EXT-X-SERVER-CONTROL", "#EXT-X-SKIP",
            "#EXT-X-PART-INF", "#EXT-X-ENDLIST"}


def attrs(line):
    """The attribute list of a tag line as a dict, quotes removed."""
    body = line.split(":", 1)[1] if ":" in line else ""
    return {k: v[1:-1] if v.startswith('"') else v for k, v in ATTR.findall(body)}


def parse_master(text):
    """[{uri, bandwidth, codecs, kind}] of a master playlist (variants, then renditions with a URI)."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    if not lines or lines[0] != "#EXTM3U":
        raise ValueError("does not start with #EXTM3U")
    out, pending = [], None
    for line in lines[1:]:
        if line.startswith("#EXT-X-STREAM-INF"):
            pending = attrs(line)
        elif line.startswith("#EXT-X-MEDIA:"):
            a = attrs(line)
            if a.get("URI"):
                out.append({"uri": a["URI"], "bandwidth": None, "codecs": None, "kind": "rendition"})
        elif not line.startswith("#") and pending is not None:
            bw = pending.get("BANDWIDTH", "")
            out.append({"uri": line, "bandwidth": int(bw) if bw.isdigit() else None,
                        "codecs": pending.get("CODECS"), "kind": "variant"})
            pending = None
    if not any(v["kind"] == "variant" for v in out):
        raise ValueError("no EXT-X-STREAM-INF variant (is this a media playlist?)")
    return out


def new_obs():
    return {"pre": [], "full": [], "parts": [], "extinf": None, "uri": None, "final": False}


def parse_media(text):
    """A media playlist as {msn0, dseq0, target, endlist, skipped, segs, open}. Each entry of segs
    (and `open`, the parts after the last EXTINF, or None) is a dict: msn, pre (tag lines before its
    first part), full (all its tag lines but parts), parts, extinf, uri, final, dseq, pdt, gap."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    if not lines or lines[0] != "#EXTM3U":
        raise ValueError("does not start with #EXTM3U")
    pl = {"msn0": 0, "dseq0": 0, "target": None, "endlist": False, "skipped": 0, "segs": [], "open": None}
    cur = new_obs()
    for line in lines[1:]:
        if not line.startswith("#"):
            if cur["extinf"] is None:
                raise ValueError(f"URI without EXTINF: {line}")
            cur["uri"], cur["final"] = line, True
            pl["segs"].append(cur)
            cur = new_obs()
            continue
        if not line.startswith("#EXT"):
            continue  # a comment
        tag, _, value = line.partition(":")
        if tag in PLAYLIST_TAGS:
            key = {"#EXT-X-MEDIA-SEQUENCE": "msn0", "#EXT-X-DISCONTINUITY-SEQUENCE": "dseq0",
                   "#EXT-X-TARGETDURATION": "target"}.get(tag)
            if key:
                pl[key] = int(value)
        elif tag in VOLATILE:
            if tag == "#EXT-X-ENDLIST":
                pl["endlist"] = True
            elif tag == "#EXT-X-SKIP":
                pl["skipped"] = int(attrs(line).get("SKIPPED-SEGMENTS", "0"))
        elif tag == "#EXT-X-PART":
            cur["parts"].append(line)
        elif tag == "#EXTINF":
            cur["extinf"] = line
        else:
            cur["full"].append(line)
            if not cur["parts"]:
                cur["pre"].append(line)
    if cur["extinf"] is not None:
        raise ValueError("EXTINF without URI at the end")
    first = pl["msn0"] + pl["skipped"]
    dseq = None if pl["skipped"] else pl["dseq0"]  # unknown past an EXT-X-SKIP
    for i, seg in enumerate(pl["segs"]):
        seg["msn"] = first + i
        if dseq is not None and "#EXT-X-DISCONTINUITY" in seg["full"]:
            dseq += 1
        seg["dseq"] = dseq
    if cur["full"] or cur["parts"]:
        cur["msn"], cur["dseq"] = first + len(pl["segs"]), None
        pl["open"] = cur
    for seg in pl["segs"] + ([pl["open"]] if pl["open"] else []):
        pdts = [l.split(":", 1)[1] for l in seg["full"] if l.startswith("#EXT-X-PROGRAM-DATE-TIME:")]
        seg["pdt"] = pdts[-1] if pdts else None
        seg["gap"] = "#EXT-X-GAP" in seg["full"]
        seg["dateranges"] = [attrs(l) for l in seg["full"] if l.startswith("#EXT-X-DATERANGE:")]
    return pl


def duration(extinf):
    return float(extinf.split(":", 1)[1].split(",", 1)[0])


def part_key(line):
    a = attrs(line)
    return tuple(a.get(k) for k in ("URI", "DURATION", "INDEPENDENT", "GAP", "BYTERANGE"))


def pdt_seconds(text):
    """Seconds since the epoch of an ISO 8601 date-time (any number of fraction digits)."""
    m = re.fullmatch(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:?\d\d)?", text.strip())
    if not m:
        raise ValueError(f"bad date-time {text!r}")
    zone = (m.group(3) or "Z").replace("Z", "+00:00")
    if len(zone) == 5:
        zone = zone[:3] + ":" + zone[3:]
    base = datetime.datetime.fromisoformat(m.group(1) + zone).timestamp()
    return base + float(m.group(2) or 0)


PROFILES = {"Baseline": 66, "Constrained Baseline": 66, "Main": 77, "Extended": 88, "High": 100,
            "High 10": 110, "High 4:2:2": 122, "High 4:4:4 Predictive": 244}
AAC = {"LC": "40.2", "HE-AAC": "40.5", "HE-AACv2": "40.29"}


def declared_avc(codecs):
    """(profile_idc, constraint byte, level_idc) of the avc1/avc3 entry of CODECS, or None."""
    for c in (codecs or "").split(","):
        parts = c.strip().split(".")
        if parts[0] in ("avc1", "avc3") and len(parts) == 2 and len(parts[1]) == 6:
            h = parts[1]
            return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)
        if parts[0] in ("avc1", "avc3") and len(parts) == 3:  # the old decimal form avc1.77.30
            return int(parts[1]), 0, int(parts[2])
    return None


def codec_problems(codecs, streams):
    """[(kind, description)] of what a declared CODECS says against ffprobe's streams."""
    out = []
    video = next((s for s in streams if s.get("codec_name") == "h264"), None)
    audio = [s for s in streams if s.get("codec_type") == "audio"]
    declared = declared_avc(codecs)
    if video is not None:
        name, level = video.get("profile", "?"), int(video.get("level", -1))
        pidc = PROFILES.get(name)
        carried = "avc1.%02xxx%02x" % (pidc or 0, max(level, 0))
        if declared is None:
            out.append(("codecs-mismatch", f"H.264 ({name}, level {level}) carried, no avc1 declared"))
        elif pidc is None:
            out.append(("codecs-mismatch", f"unknown H.264 profile {name!r}"))
        else:
            dp, dc, dl = declared
            said = "avc1.%02x%02x%02x" % declared
            what = f"declared {said}, carried {name} level {level} ({carried})"
            if dp < pidc or dl < level or (pidc == 66 and name == "Baseline" and dc & 0x40):
                out.append(("codecs-not-covered", what))
            elif dp != pidc or dl != level or (name == "Constrained Baseline" and not dc & 0x40):
                # Covered (a decoder of the declared profile and level plays it), not equal.
                out.append(("codecs-covered", what))
    elif declared is not None:
        out.append(("codecs-mismatch", f"avc1 declared, no H.264 stream carried"))
    mp4a = [c.strip() for c in (codecs or "").split(",") if c.strip().startswith("mp4a")]
    if mp4a and not audio:
        out.append(("codecs-audio", f"{mp4a[0]} declared, no audio stream carried"))
    elif audio and not mp4a:
        out.append(("codecs-audio", f"audio ({audio[0].get('codec_name')}) carried, no mp4a declared"))
    elif audio and audio[0].get("codec_name") == "aac":
        want = AAC.get(audio[0].get("profile"))
        if want and mp4a[0] != "mp4a." + want:
            out.append(("codecs-audio", f"declared {mp4a[0]}, carried AAC {audio[0].get('profile')} (mp4a.{want})"))
    return out
