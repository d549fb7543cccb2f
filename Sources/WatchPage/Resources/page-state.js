// The page's decisions as pure functions over plain values, by concern: what the listings
// open (access), which angles the grid shows and how (grid), what the bit-rate chart keeps and
// what the mode says (playback), what a mark and a clip ask the server for (markers). No DOM,
// no fetch, no clock: page.js and page-angles.js read the page, call these and apply what
// they return; PageStateTests runs them row by row in headless Chromium. Plain ES2017.
"use strict";
const SidelinePage = (() => {
  const maxTiles = 4;

  const format = {
    seconds(s) {
      if (!isFinite(s)) return "–";
      const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, sec = Math.floor(s % 60);
      return (h ? h + ":" + String(m).padStart(2, "0") : m) + ":" + String(sec).padStart(2, "0");
    },
    rate(bps) { return bps >= 1e6 ? (bps / 1e6).toFixed(2) + " Mb/s" : Math.round(bps / 1e3) + " kb/s"; },
    bytes(b) { return b >= 1e9 ? (b / 1e9).toFixed(1) + " GB" : (b / 1e6).toFixed(0) + " MB"; },
  };

  const access = {
    // A private set's angles are "locked" until a token covers the set.
    setIsOpen(set) { return !set.private || set.angles.every((a) => a.state !== "locked"); },

    // What the listings (one per token, the first without) open: every stream and set any of
    // them shows, each private one a token opens (its URLs then carry a credential); the rest
    // locked. `asked`: a set the address names that no listing shows (a server may leave
    // private sets out): locked, so the page asks for its token.
    merge(listings, setListings, asked) {
      const byId = new Map();
      for (const l of listings) for (const s of l.streams || []) byId.set(s.id, s);
      const streams = [...byId.values()];
      const locked = ((listings[0] || {}).locked || []).map((s) => s.id).filter((id) => !byId.has(id));
      const sets = new Map();
      for (const l of setListings) for (const s of l.sets || []) if (!sets.has(s.name) || access.setIsOpen(s)) sets.set(s.name, s);
      const open = [...sets.values()].filter(access.setIsOpen);
      const lockedSets = [...sets.values()].filter((s) => !access.setIsOpen(s)).map((s) => s.name);
      if (asked && !sets.has(asked)) lockedSets.push(asked);
      return { streams, locked, sets: open, lockedSets };
    },

    // The picker's entries: sets first (a match), then streams; a set's value is "set:<name>".
    picker(a) {
      const values = a.sets.map((s) => "set:" + s.name).concat(a.lockedSets.map((n) => "set:" + n), a.streams.map((s) => s.id), a.locked);
      const labels = a.sets.map((s) => "▦ " + (s.title || s.name) + " (" + s.angles.length + " angles)").concat(a.lockedSets.map((n) => "🔒 ▦ " + n + " (private)"),
        a.streams.map((s) => (s.title ? s.title + " (" + s.id + ")" : s.id)), a.locked.map((id) => "🔒 " + id + " (private)"));
      return { values, labels };
    },

    // What the picker's value names: a set (with its default angle's stream as `info`, for the
    // variants table and the clock) or a stream; `unlock` when it is one a token must open.
    choose(value, a) {
      const setName = value.startsWith("set:") ? value.slice(4) : null;
      const set = setName ? a.sets.find((s) => s.name === setName) || null : null;
      const angle = set && (set.angles.find((x) => x.default) || set.angles[0]);
      const info = a.streams.find((s) => s.id === (angle ? angle.stream : value)) || null;
      return { set, info, unlock: setName ? a.lockedSets.includes(setName) : a.locked.includes(value) };
    },

    // The address that names what is shown, so it can be bookmarked or sent.
    address(value) { return value.startsWith("set:") ? "?set=" + encodeURIComponent(value.slice(4)) : "?stream=" + encodeURIComponent(value); },
  };

  const grid = {
    maxTiles,
    // The angles to play: a stream is one; a set's are its first four, or those picked.
    anglesOf(set, picked, info) {
      if (!set) return [{ stream: info.id, title: "", master: info.master, vod: info.vodMaster, origin: NaN }];
      const names = picked || set.angles.slice(0, maxTiles).map((a) => a.stream);
      return names.map((name) => set.angles.find((a) => a.stream === name)).filter((a) => a)
        .map((a) => ({ stream: a.stream, title: a.title || a.stream, state: a.state, master: a.master, vod: a.vod, origin: NaN }));
    },
    // A tile clicked: it becomes the large one, or the grid comes back when it already was.
    enlarge(large, index) { return large === index ? null : index; },
    // The tile that is heard and leads: the large one, else the default angle's.
    heard(large, count) { return large != null && large < count ? large : 0; },
    // More than four angles: a picked angle not shown takes the last tile (the others keep their
    // places); null when it is shown already.
    pick(angles, set, stream) {
      if (angles.some((a) => a.stream === stream)) return null;
      const index = angles.length - 1, next = angles.slice();
      next[index] = grid.anglesOf(set, [stream])[0];
      return { angles: next, index };
    },
    // How the tiles look: the grid for more than one angle, the large one, captions with each
    // angle's state when it is not live, one sound at a time (the heard angle's, once turned on).
    layout(g, set) {
      const isGrid = g.angles.length > 1, heard = grid.heard(g.large, g.angles.length);
      return {
        className: "angles" + (isGrid ? " grid" : "") + (isGrid && g.large != null ? " large" : ""),
        controls: !isGrid,
        tiles: g.angles.map((a, i) => ({
          big: isGrid && g.large === i,
          caption: isGrid ? a.title + (a.state && a.state !== "live" ? " · " + a.state : "") : "",
          muted: isGrid ? !(g.sound && i === heard) : null,
        })),
        picker: set && set.angles.length > maxTiles ? set.angles.map((a) => ({ stream: a.stream, label: a.title || a.stream, on: g.angles.some((s) => s.stream === a.stream) })) : null,
      };
    },
    // The angles' states as the set's listing now gives them (an angle it no longer lists keeps its own).
    states(angles, set) { return angles.map((a) => (set.angles.find((b) => b.stream === a.stream) || a).state); },
  };

  const playback = {
    // The mode label: "live" plays the EVENT masters; "replay" the recording so far as VOD.
    mode(mode) { return { text: mode === "live" ? "live" : "replay", className: "state " + (mode === "live" ? "live" : "ended") }; },
    // The chart's samples with one more per variant whose recorded duration moved: the bit rate
    // since the last sample (the average before there is one); at most 90 per variant.
    sample(samples, variants, now) {
      const next = {};
      for (const v of variants) {
        const kept = (samples[v.name] || []).slice(), last = kept[kept.length - 1];
        if (!last || last.duration !== v.durationRecorded) {
          const rate = last && v.durationRecorded > last.duration ? (v.bytesRecorded - last.bytes) * 8 / (v.durationRecorded - last.duration) : v.averageBitRate;
          kept.push({ at: now, duration: v.durationRecorded, bytes: v.bytesRecorded, rate });
          if (kept.length > 90) kept.shift();
        }
        next[v.name] = kept;
      }
      return next;
    },
    // Where an angle's player is on the set's timeline at its own position 0, in seconds (NaN
    // until its origin is known): its origin less the set's start, both ms of program date-time.
    offset(origin, start) { return (origin - start) / 1000; },
  };

  const markers = {
    // What a mark posts: the moment shown less the lead when the player has a date for it,
    // else "now" (the server's clock) with the lead.
    body(label, lead, shown) {
      if (shown) return { label, time: new Date(shown.getTime() - (lead || 0) * 1000).toISOString() };
      return lead ? { label, time: "now", lead } : { label, time: "now" };
    },
    // A clip's query: seconds into a stream's recording with its variant, or for a set
    // program date-times (the same moment in every angle) from the set's start (`origin`, ms).
    clipQuery(start, end, set, origin, variant) {
      const params = new URLSearchParams();
      const when = (s) => set && isFinite(origin) ? new Date(origin + s * 1000).toISOString() : String(s);
      if (isFinite(start)) params.set("start", when(start));
      if (isFinite(end)) params.set("end", when(end));
      if (!set) params.set("variant", variant);
      return params.toString();
    },
  };

  return { format, access, grid, playback, markers };
})();
