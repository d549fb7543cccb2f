// The set grid and its sync, the page's controllers for what plays: the tiles (one <video>
// each), loading each angle live or in replay, finding where each angle's player has its 0 on
// the set's timeline, and the sync loop of page-sync.js every 100 ms. What they decide is
// SidelinePage.grid's (page-state.js); the state they keep is `grid` and `sync` (page.js, which
// loads after this file and starts the page). Plain ES2017.
"use strict";

// The set's timeline starts at the default angle's first entry (the scrub bar's 0); an angle's
// player is `offsetOf` seconds along it at its own position 0 (NaN until known).
function offsetOf(angle) { return SidelinePage.playback.offset(angle.origin, startOf(access.info.id)); }
function known(seconds) { return isFinite(seconds) ? seconds : 0; }

// The tiles: #video is the first; a set adds up to three more. Each is a <figure> with a caption.
function tiles() { return [...$("angles").querySelectorAll("figure")]; }
function videos() { return grid.angles.map((a, i) => tiles()[i].querySelector("video")); }
function ensureTiles(count) {
  while (tiles().length < count) {
    const figure = document.createElement("figure");
    figure.className = "angle";
    const v = document.createElement("video");
    v.muted = true; v.playsInline = true;
    v.addEventListener("timeupdate", showPosition);
    figure.append(v, document.createElement("figcaption"));
    figure.addEventListener("click", () => enlarge(tiles().indexOf(figure)));
    $("angles").append(figure);
  }
  tiles().forEach((figure, i) => {
    figure.hidden = i >= count;
    const v = figure.querySelector("video");
    if (i >= count && v.getAttribute("src")) { v.removeAttribute("src"); v.load(); }
  });
}

// The tile that is heard and leads: the large one, else the default angle's.
function heard() { return SidelinePage.grid.heard(grid.large, grid.angles.length); }

// The tiles as SidelinePage.grid.layout says, the picker of a set with more than four angles.
function layout() {
  const look = SidelinePage.grid.layout(grid, access.set);
  $("angles").className = look.className;
  $("set-controls").hidden = !access.set;
  video.controls = look.controls;
  tiles().forEach((figure, i) => {
    const tile = look.tiles[i];
    figure.classList.toggle("big", !!(tile && tile.big));
    figure.querySelector("figcaption").textContent = tile ? tile.caption : "";
    if (tile && tile.muted !== null) figure.querySelector("video").muted = tile.muted;
  });
  $("sound").textContent = grid.sound ? "Sound off" : "Sound on";
  $("play").textContent = playback.playing ? "Pause" : "Play";
  const picker = $("angle-picker");
  picker.hidden = !look.picker;
  if (look.picker) {
    picker.replaceChildren(...look.picker.map((a) => {
      const button = document.createElement("button");
      button.textContent = a.label;
      button.className = a.on ? "on" : "";
      button.addEventListener("click", () => pick(a.stream));
      return button;
    }));
  }
}

// Makes tile `index` large (the others stacked small beside it), or back to the grid.
function enlarge(index) {
  grid.large = SidelinePage.grid.enlarge(grid.large, index);
  layout();
}

// More than four angles: a picked angle not shown takes the last tile, at the same moment.
function pick(stream) {
  const picked = SidelinePage.grid.pick(grid.angles, access.set, stream);
  if (!picked) return;
  const at = position();
  grid.angles = picked.angles;
  layout();
  loadAngle(picked.index, playback.mode, isFinite(at) ? at : null);
}

// Plays every angle's live master, or its VOD rendition from `offset` seconds into the set's
// recording (each angle at the same moment: its own position is `offset` less its own offset).
function load(mode, offset) {
  playback.mode = mode;
  const label = SidelinePage.playback.mode(mode);
  $("mode").textContent = label.text;
  $("mode").className = label.className;
  const together = mode === "live" && SidelineSync.startsTogether(playback.liveLoads);
  if (mode === "live") playback.liveLoads += 1;
  grid.angles.forEach((a, i) => loadAngle(i, mode, offset, together));
}

// Where an angle's player has its position 0 (`origin`, ms of program date-time): in replay the
// recording's first entry; live, Chromium joins near the live edge and counts from the first
// segment it plays (measured: within 10 ms), found by `findOrigin`. Live angles of the page's
// first live load are loaded paused (`starting`) and played together once all can play
// (`startTogether`); later loads play each as soon as it can (`SidelineSync.startsTogether`).
function loadAngle(index, mode, offset, together = false) {
  const angle = grid.angles[index], v = videos()[index];
  Object.assign(angle, { origin: mode === "live" ? NaN : startOf(angle.stream), confirmed: mode !== "live", latest: null, guessed: NaN, reading: null, measured: null,
    loadedAt: performance.now(), segments: [], starting: together && playback.playing,
    directory: new URL(mode === "live" ? angle.master : angle.vod, location.href).pathname.replace(/[^/]*$/, "") });
  v.preload = "auto";
  v.src = mode === "live" ? angle.master : angle.vod;
  v.addEventListener("loadedmetadata", () => {
    if (offset != null && isFinite(offsetOf(angle))) v.currentTime = Math.max(0, offset - offsetOf(angle));
    // A live stream opens at its live edge (some browsers start an EVENT playlist at its beginning).
    else if (mode === "live" && access.info.state !== "ended" && v.seekable.length) v.currentTime = Math.max(0, v.seekable.end(v.seekable.length - 1) - 1);
    if (playback.playing && !angle.starting) v.play().catch(() => {});
  }, { once: true });
  if (angle.starting) v.addEventListener("canplay", startTogether, { once: true });
  else if (playback.playing) v.play().catch(() => {});
}

// Plays the live angles loaded paused in one go, as soon as every one can play (or after 8 s,
// those that can): three angles started so were 12 ms apart, each started on its own 22 ms
// (Chromium 156, measured). Waiting longer is worse: Chromium then jumps a paused live video
// to its live point on play, and that jump sometimes stops its demuxer. True while some wait.
function startTogether() {
  const vs = videos(), waiting = grid.angles.filter((a) => a.starting);
  if (!waiting.length) return false;
  const late = performance.now() - Math.min(...waiting.map((a) => a.loadedAt)) > 8000;
  if (!late && !waiting.every((a) => vs[grid.angles.indexOf(a)].readyState >= 3)) return true;
  for (const a of waiting) {
    a.starting = false;
    vs[grid.angles.indexOf(a)].play().catch(() => {});
  }
  return false;
}

// Angles live with no seekable range that drifted apart (after a stall, a failed player loaded
// again, joins at different segments) are loaded again, all at once: Chromium then joins each at the same
// segment of one timeline and starts them together (Docs/operations.md, "The page"). At most
// every 5 s for three tries, then doubling up to 40 s while it does not bring them within a frame (SidelineSync.rejoinWait).
function rejoin() {
  const now = performance.now();
  if (now - sync.rejoin.at < sync.rejoin.wait) return;
  const tries = (sync.rejoin.tries || 0) + 1;
  sync.rejoin = { at: now, wait: SidelineSync.rejoinWait(tries), tries, count: sync.rejoin.count + 1 };
  load(playback.mode, playback.mode === "live" ? null : position());
}

// The video whose position is the page's: the one that leads.
function primary() { return videos()[sync.leader] || video; }
// The position on the set's timeline (a stream's: its player's position).
function position() { const a = grid.angles[sync.leader]; return primary().currentTime + (a ? known(offsetOf(a)) : 0); }

function canSeekTo(offset) {
  return grid.angles.every((a, i) => SidelineSync.canSeek(SidelineSync.sample(videos()[i], offsetOf(a)), Math.max(0, offset - offsetOf(a))));
}

// The segment requests of the page's players, as Resource Timing reports them (Chromium lists
// those of its own HLS player): the first few of each angle since it was loaded live.
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const path = new URL(entry.name).pathname;
    if (!/\.(ts|m4s|mp4)$/.test(path)) continue;
    for (const a of grid.angles) {
      if (!a.segments || entry.startTime < a.loadedAt || !path.startsWith(a.directory)) continue;
      if (!isFinite(a.origin) && a.segments.length < 4) a.segments.push(entry.name);
      if (!a.confirmed && !(a.latest && a.latest.at >= entry.responseEnd)) a.latest = { name: entry.name, at: entry.responseEnd };
    }
  }
}).observe({ type: "resource" });

// A live angle's origin at first: the date of the segment its player joined at, from that segment's
// media playlist, until `confirmOrigin` has it from what the player holds (a segment Chromium
// had already fetched, in an earlier load, is played from its cache and never listed, so the
// guess was 2-6 s off for some angle in 3 of 6 loads: scripts/bench/angles/page_origin_probe.py). Chromium plays on from the segment it joins at, after reading the
// recording's first segment (number 0) when it joins later: the join is the lowest segment
// number requested, other than a 0 not followed by 1 (requests are listed as they end, not in
// order). A browser whose requests are not listed (Safari) counts from the first entry, as in replay.
async function findOrigin(a) {
  if (isFinite(a.origin) || a.finding || !a.segments) return;
  const number = (url) => parseInt(url.split("/").pop(), 10), waited = performance.now() - a.loadedAt;
  const s = a.segments.filter((u, i) => a.segments.findIndex((v) => number(v) === number(u)) === i).sort((x, y) => number(x) - number(y));
  const join = s.length >= 2 ? (number(s[0]) === 0 && number(s[1]) > 1 ? s[1] : s[0]) : s.length === 1 && waited > 6000 ? s[0] : null;
  if (!join) { if (waited > 10000) Object.assign(a, { origin: startOf(a.stream), confirmed: !a.latest }); return; }
  a.finding = true;
  const load = a.loadedAt; // a load since (a rejoin) makes this answer stale
  try {
    const name = new URL(join).pathname.split("/").pop();
    const entry = SidelineSync.listedSegments(await (await fetch(playlistOf(join), { cache: "no-store" })).text()).find((e) => e.name === name);
    // `guessed` stays for a look at how far the guess was (scripts/bench/angles/page_origin_probe.py).
    if (entry && a.loadedAt === load && !isFinite(a.origin)) Object.assign(a, { origin: entry.start, guessed: entry.start });
  } catch (e) { /* asked again on the next tick */ } finally { a.finding = false; }
}

// The media playlist that lists a segment URL: the same directory and query.
function playlistOf(segment) { return segment.replace(/[^/?]*(\?.*)?$/, "index.m3u8"); }

// A live angle's origin as the player holds it (SidelineSync.originFrom): once the newest
// segment it fetched has been in for half a second, its buffered range ends where that segment
// does; taken when two segments agree. Until then the sync rule leaves the angle be.
async function confirmOrigin(a, v) {
  const latest = a.latest;
  if (a.confirmed || a.measuring || !latest) return;
  if (performance.now() - latest.at < 500 || latest.name === a.measured || !v.buffered.length) return;
  const bufferedEnd = v.buffered.end(v.buffered.length - 1), load = a.loadedAt;
  a.measuring = true;
  a.measured = latest.name;
  try {
    const name = new URL(latest.name).pathname.split("/").pop();
    const entries = SidelineSync.listedSegments(await (await fetch(playlistOf(latest.name), { cache: "no-store" })).text());
    const entry = entries.find((e) => e.name === name);
    const origin = entry ? SidelineSync.originFrom(entry.start + entry.duration * 1000, bufferedEnd, entries.map((e) => e.start), entry.duration) : null;
    if (a.loadedAt !== load) return;
    const r = SidelineSync.confirmOrigin(a.reading, origin === null ? null : { segment: name, origin });
    a.reading = r.reading;
    if (isFinite(r.origin)) Object.assign(a, { origin: r.origin, confirmed: true });
  } catch (e) { a.measured = null; /* asked again on the next tick */ } finally { a.measuring = false; }
}

// A failed player (Chromium's stops for good on a segment it could not fetch) is loaded again
// on its own, every 5 s while it fails, so the others play on meanwhile; once it plays, the
// sync rule brings it to them (in replay) or has every angle rejoin (live).
function reloadFailed() {
  videos().forEach((v, i) => {
    const a = grid.angles[i];
    if (!v.error || performance.now() - (a.failedAt || 0) < 5000) return;
    a.failedAt = performance.now();
    loadAngle(i, playback.mode, playback.mode === "live" ? null : position());
  });
}

// Every 100 ms: each angle's origin until known, then, while a set plays more than one angle,
// the sync rule of page-sync.js.
function syncAngles() {
  const vs = videos();
  grid.angles.forEach(findOrigin);
  grid.angles.forEach((a, i) => confirmOrigin(a, vs[i]));
  reloadFailed();
  if (startTogether() || grid.angles.length < 2) return;
  const samples = grid.angles.map((a, i) => SidelineSync.sample(vs[i], a.confirmed ? offsetOf(a) : NaN));
  sync.leader = SidelineSync.chooseLeader(samples, heard(), sync.leader);
  // Rejoining interrupts every angle: only for a gap that lasts 2 s (20 ticks), not a flicker.
  const apart = SidelineSync.apply(vs, SidelineSync.decide(samples, sync.leader, playback.playing), playback.playing);
  sync.rejoin.ticks = apart ? (sync.rejoin.ticks || 0) + 1 : 0;
  if (sync.rejoin.ticks >= 20) rejoin();
  if (playback.playing && SidelineSync.healthy(samples[sync.leader])) {
    const spread = SidelineSync.spread(samples, sync.leader);
    if (spread <= SidelineSync.defaults.frame && performance.now() - sync.rejoin.at > 10000) Object.assign(sync.rejoin, { wait: 5000, tries: 0 });
    sync.spreads.push(spread);
    if (sync.spreads.length > 3000) sync.spreads.shift();
  }
}
