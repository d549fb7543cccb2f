// The page's script: plain ES2017 that Safari 14+, iPadOS and Chromium run as it is, with no
// build step and nothing fetched from the internet. `window.sideline` exposes the page's
// actions (seek, mark, clip) for the headless-browser test (Tests/Helpers/page_check.py), which
// drives the same functions the buttons call. The page shows one stream, or an angle set (a
// match seen by several cameras): up to four angles at once, kept in sync by page-sync.js.
"use strict";
const $ = (id) => document.getElementById(id);
const video = $("video");
// mode: "live" plays the EVENT masters; "replay" plays the recording so far as VOD (/vod/),
// which every browser can seek in (Chromium gives a live EVENT stream no seekable range).
// set: the angle set shown (from /api/sets), or null for one stream. angles: what the page
// plays, one per tile: {stream, title, master, vod, origin (see loadAngle)}.
const state = { streams: [], locked: [], sets: [], lockedSets: [], info: null, set: null, markers: [], samples: {}, loaded: null, mode: "live", scrubbing: false,
  angles: [], large: null, leader: 0, playing: true, sound: false, spreads: [], rejoin: { at: 0, wait: 5000, count: 0 }, liveLoads: 0 };
const colours = ["#e0a030", "#4ca3dd", "#4cbb6c", "#c070e0", "#e05050", "#50d0c0"];
const maxTiles = 4;

function formatSeconds(s) {
  if (!isFinite(s)) return "–";
  const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, sec = Math.floor(s % 60);
  return (h ? h + ":" + String(m).padStart(2, "0") : m) + ":" + String(sec).padStart(2, "0");
}
function formatRate(bps) { return bps >= 1e6 ? (bps / 1e6).toFixed(2) + " Mb/s" : Math.round(bps / 1e3) + " kb/s"; }
function formatBytes(b) { return b >= 1e9 ? (b / 1e9).toFixed(1) + " GB" : (b / 1e6).toFixed(0) + " MB"; }

// The browser's own HLS: Safari, iPadOS and Chromium play it; others get told so.
const nativeHLS = video.canPlayType("application/vnd.apple.mpegurl") !== "";
if (!nativeHLS) {
  $("playback-note").hidden = false;
  $("playback-note").textContent = "This browser cannot play HLS by itself. Open this page in Safari (macOS, iPadOS, iOS) or Chromium; markers and clips still work here.";
}

// Viewer tokens of private streams and sets, asked once and kept for this browser session only.
function viewerTokens() { try { return JSON.parse(sessionStorage.getItem("sideline-viewer-tokens") || "[]"); } catch (e) { return []; } }
function bearer(token) { return token ? { "Authorization": "Bearer " + token } : {}; }

async function fetchListing(token) {
  const response = await fetch("/api/streams", { cache: "no-store", headers: bearer(token) });
  return response.json();
}
// The angle sets (a server without any answers an empty list or 404: no sets).
async function fetchSets(token) {
  const response = await fetch("/api/sets", { cache: "no-store", headers: bearer(token) }).catch(() => null);
  return response && response.ok ? response.json() : { sets: [] };
}
// A private set's angles are "locked" until a token covers the set; its URLs then carry the
// set's credential (/access/...), as a private stream's do.
function setIsOpen(set) { return !set.private || set.angles.every((a) => a.state !== "locked"); }

// The streams and sets this page may play: everything open, and each private one a kept token
// opens (its URLs then carry a credential, so the video elements need nothing more).
async function refreshStreams() {
  const tokens = [null].concat(viewerTokens());
  const [listings, setListings] = await Promise.all([Promise.all(tokens.map(fetchListing)), Promise.all(tokens.map(fetchSets))]);
  const listing = listings[0];
  const byId = new Map();
  for (const l of listings) for (const s of l.streams) byId.set(s.id, s);
  state.streams = [...byId.values()];
  state.locked = (listing.locked || []).map((s) => s.id).filter((id) => !byId.has(id));
  const sets = new Map();
  for (const l of setListings) for (const s of l.sets || []) if (!sets.has(s.name) || setIsOpen(s)) sets.set(s.name, s);
  state.sets = [...sets.values()].filter(setIsOpen);
  state.lockedSets = [...sets.values()].filter((s) => !setIsOpen(s)).map((s) => s.name);
  // A set the address names but no listing shows (a server may leave private sets out): ask for its token.
  const asked = new URLSearchParams(location.search).get("set");
  if (asked && !sets.has(asked)) state.lockedSets.push(asked);
  const select = $("stream");
  // Sets first (a match), then streams; a set's value is "set:<name>".
  const names = state.sets.map((s) => "set:" + s.name).concat(state.lockedSets.map((n) => "set:" + n), state.streams.map((s) => s.id), state.locked);
  const labels = state.sets.map((s) => "▦ " + (s.title || s.name) + " (" + s.angles.length + " angles)").concat(state.lockedSets.map((n) => "🔒 ▦ " + n + " (private)"),
    state.streams.map((s) => (s.title ? s.title + " (" + s.id + ")" : s.id)), state.locked.map((id) => "🔒 " + id + " (private)"));
  if (select.options.length !== names.length || names.some((n, i) => select.options[i].value !== n || select.options[i].text !== labels[i])) {
    const chosen = select.value;
    select.innerHTML = "";
    names.forEach((name, i) => select.add(new Option(labels[i], name)));
    if (names.includes(chosen)) select.value = chosen;
    const query = new URLSearchParams(location.search);
    const wanted = query.get("set") ? "set:" + query.get("set") : query.get("stream");
    if (!chosen && wanted && names.includes(wanted)) select.value = wanted;
  }
  choose();
  if (listing.disk) {
    $("disk").textContent = "Disk: " + formatBytes(listing.disk.recordedBytes) + " recorded, " + formatBytes(listing.disk.freeBytes) + " free of " + formatBytes(listing.disk.totalBytes);
  }
  showStream();
}

// What the picker names: a set (state.set, with its default angle's stream as state.info for
// the variants table and the clock) or a stream.
function choose() {
  const value = $("stream").value;
  const setName = value.startsWith("set:") ? value.slice(4) : null;
  state.set = setName ? state.sets.find((s) => s.name === setName) || null : null;
  const angle = state.set && (state.set.angles.find((a) => a.default) || state.set.angles[0]);
  state.info = state.streams.find((s) => s.id === (angle ? angle.stream : value)) || null;
  $("unlock").hidden = !(setName ? state.lockedSets.includes(setName) : state.locked.includes(value));
}

// Checks a typed viewer token against the server before keeping it.
async function unlock() {
  const token = $("viewer-token").value.trim(), wanted = $("stream").value;
  if (!token) return;
  const opens = wanted.startsWith("set:") ? (await fetchSets(token)).sets.some((s) => "set:" + s.name === wanted && setIsOpen(s))
    : (await fetchListing(token)).streams.some((s) => s.id === wanted);
  if (!opens) {
    $("unlock-status").textContent = "That token does not open " + wanted.replace(/^set:/, "") + ".";
    return;
  }
  $("unlock-status").textContent = "";
  $("viewer-token").value = "";
  sessionStorage.setItem("sideline-viewer-tokens", JSON.stringify(viewerTokens().filter((t) => t !== token).concat([token])));
  await refreshStreams();
}

// An API path of the current stream, under its access prefix when it is private.
function streamAPI(suffix) { return state.info.urlPrefix + "/api/streams/" + encodeURIComponent(state.info.id) + suffix; }
// Where the markers of what is shown are listed and added.
function markersURL() { return state.set ? state.set.markers : streamAPI("/markers"); }
function startOf(stream) { const info = state.streams.find((s) => s.id === stream); return info && info.recordingStart ? Date.parse(info.recordingStart) : NaN; }

// The angles to play: a stream is one; a set's are its first four, or those picked.
function anglesOf(set, picked) {
  if (!set) return [{ stream: state.info.id, title: "", master: state.info.master, vod: state.info.vodMaster, origin: NaN }];
  const names = picked || set.angles.slice(0, maxTiles).map((a) => a.stream);
  return names.map((name) => set.angles.find((a) => a.stream === name)).filter((a) => a)
    .map((a) => ({ stream: a.stream, title: a.title || a.stream, state: a.state, master: a.master, vod: a.vod, origin: NaN }));
}
// The set's timeline starts at the default angle's first entry (the scrub bar's 0); an angle's
// player is `offsetOf` seconds along it at its own position 0 (NaN until known).
function offsetOf(angle) { return (angle.origin - startOf(state.info.id)) / 1000; }
function known(seconds) { return isFinite(seconds) ? seconds : 0; }

// The tiles: #video is the first; a set adds up to three more. Each is a <figure> with a caption.
function tiles() { return [...$("angles").querySelectorAll("figure")]; }
function videos() { return state.angles.map((a, i) => tiles()[i].querySelector("video")); }
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
function heard() { return state.large != null && state.large < state.angles.length ? state.large : 0; }

function layout() {
  const grid = state.angles.length > 1;
  $("angles").className = "angles" + (grid ? " grid" : "") + (grid && state.large != null ? " large" : "");
  $("set-controls").hidden = !state.set;
  video.controls = !grid;
  tiles().forEach((figure, i) => {
    const angle = state.angles[i];
    figure.classList.toggle("big", grid && state.large === i);
    figure.querySelector("figcaption").textContent = grid && angle ? angle.title + (angle.state && angle.state !== "live" ? " · " + angle.state : "") : "";
  });
  // One sound at a time: the heard angle's, once the analyst turned it on.
  if (grid) videos().forEach((v, i) => { v.muted = !(state.sound && i === heard()); });
  $("sound").textContent = state.sound ? "Sound off" : "Sound on";
  $("play").textContent = state.playing ? "Pause" : "Play";
  const picker = $("angle-picker");
  picker.hidden = !state.set || state.set.angles.length <= maxTiles;
  if (!picker.hidden) {
    picker.replaceChildren(...state.set.angles.map((a) => {
      const button = document.createElement("button");
      button.textContent = a.title || a.stream;
      button.className = state.angles.some((s) => s.stream === a.stream) ? "on" : "";
      button.addEventListener("click", () => pick(a.stream));
      return button;
    }));
  }
}

// Makes tile `index` large (the others stacked small beside it), or back to the grid.
function enlarge(index) {
  state.large = state.large === index ? null : index;
  layout();
}

// More than four angles: a picked angle not shown takes the last tile, at the same moment.
function pick(stream) {
  if (state.angles.some((a) => a.stream === stream)) return;
  const last = state.angles.length - 1, at = position();
  state.angles[last] = anglesOf(state.set, [stream])[0]; // the others keep their places
  layout();
  loadAngle(last, state.mode, isFinite(at) ? at : null);
}

function showStream() {
  const info = state.info;
  if (!info) return;
  // A pushed stream's title, description and keywords may change while the page is open.
  $("stream-about").textContent = state.set ? (state.set.title || state.set.name) + ": " + state.set.angles.map((a) => a.title || a.stream).join(", ")
    : [info.description, info.keywords ? "Keywords: " + info.keywords : ""].filter((t) => t).join(" · ");
  $("stream-state").textContent = info.state;
  $("stream-state").className = "state " + info.state;
  const key = state.set ? "set:" + state.set.name : info.id;
  if (state.loaded !== key) {
    state.loaded = key;
    state.samples = {};
    state.large = null;
    state.leader = 0;
    state.angles = anglesOf(state.set, null);
    ensureTiles(state.angles.length);
    layout();
    if (nativeHLS) load("live", null);
    const variants = $("clip-variant");
    variants.innerHTML = "";
    for (const v of info.variants) variants.add(new Option(v.name, v.name));
    variants.hidden = !!state.set;
    $("clip-link").textContent = state.set ? "Download ZIP (every angle)" : "Download MP4";
    updateClipLink();
    refreshMarkers();
  } else if (state.set) {
    // The angles' states change while the set plays.
    for (const a of state.angles) a.state = (state.set.angles.find((b) => b.stream === a.stream) || a).state;
    layout();
  }
  const now = performance.now() / 1000;
  const rows = [];
  info.variants.forEach((v, i) => {
    const samples = state.samples[v.name] || (state.samples[v.name] = []);
    const last = samples[samples.length - 1];
    if (!last || last.duration !== v.durationRecorded) {
      const rate = last && v.durationRecorded > last.duration ? (v.bytesRecorded - last.bytes) * 8 / (v.durationRecorded - last.duration) : v.averageBitRate;
      samples.push({ at: now, duration: v.durationRecorded, bytes: v.bytesRecorded, rate });
      if (samples.length > 90) samples.shift();
    }
    const shown = samples[samples.length - 1];
    rows.push("<tr><td style='color:" + colours[i % colours.length] + "'>" + v.name + "</td><td><span class='state " + v.state + "'>" + v.state +
      "</span></td><td>" + formatRate(shown.rate) + "</td><td>" + formatSeconds(v.durationRecorded) + "</td><td>" +
      // The encoder's effort: empty while as configured, else the cheaper step it runs at to keep up.
      (v.effortStep > 0 ? "<span title='" + v.effortStep + " step(s) below the configured preset, to keep every frame'>" + v.effort + "</span>" : "") +
      "</td></tr>");
  });
  $("variants").innerHTML = rows.join("");
  const best = info.variants[0];
  if (best) $("scrub").max = String(best.durationRecorded);
  drawChart();
}

// Plays every angle's live master, or its VOD rendition from `offset` seconds into the set's
// recording (each angle at the same moment: its own position is `offset` less its own offset).
function load(mode, offset) {
  state.mode = mode;
  $("mode").textContent = mode === "live" ? "live" : "replay";
  $("mode").className = "state " + (mode === "live" ? "live" : "ended");
  const together = mode === "live" && SidelineSync.startsTogether(state.liveLoads);
  if (mode === "live") state.liveLoads += 1;
  state.angles.forEach((a, i) => loadAngle(i, mode, offset, together));
}

// Where an angle's player has its position 0 (`origin`, ms of program date-time): in replay the
// recording's first entry; live, Chromium joins near the live edge and counts from the first
// segment it plays (measured: within 10 ms), found by `findOrigin`. Live angles of the page's
// first live load are loaded paused (`starting`) and played together once all can play
// (`startTogether`); later loads play each as soon as it can (`SidelineSync.startsTogether`).
function loadAngle(index, mode, offset, together = false) {
  const angle = state.angles[index], v = videos()[index];
  Object.assign(angle, { origin: mode === "live" ? NaN : startOf(angle.stream), confirmed: mode !== "live", latest: null, guessed: NaN, reading: null, measured: null,
    loadedAt: performance.now(), segments: [], starting: together && state.playing,
    directory: new URL(mode === "live" ? angle.master : angle.vod, location.href).pathname.replace(/[^/]*$/, "") });
  v.preload = "auto";
  v.src = mode === "live" ? angle.master : angle.vod;
  v.addEventListener("loadedmetadata", () => {
    if (offset != null && isFinite(offsetOf(angle))) v.currentTime = Math.max(0, offset - offsetOf(angle));
    // A live stream opens at its live edge (some browsers start an EVENT playlist at its beginning).
    else if (mode === "live" && state.info.state !== "ended" && v.seekable.length) v.currentTime = Math.max(0, v.seekable.end(v.seekable.length - 1) - 1);
    if (state.playing && !angle.starting) v.play().catch(() => {});
  }, { once: true });
  if (angle.starting) v.addEventListener("canplay", startTogether, { once: true });
  else if (state.playing) v.play().catch(() => {});
}

// Plays the live angles loaded paused in one go, as soon as every one can play (or after 8 s,
// those that can): three angles started so were 12 ms apart, each started on its own 22 ms
// (Chromium 156, measured). Waiting longer is worse: Chromium then jumps a paused live video
// to its live point on play, and that jump sometimes stops its demuxer. True while some wait.
function startTogether() {
  const vs = videos(), waiting = state.angles.filter((a) => a.starting);
  if (!waiting.length) return false;
  const late = performance.now() - Math.min(...waiting.map((a) => a.loadedAt)) > 8000;
  if (!late && !waiting.every((a) => vs[state.angles.indexOf(a)].readyState >= 3)) return true;
  for (const a of waiting) {
    a.starting = false;
    vs[state.angles.indexOf(a)].play().catch(() => {});
  }
  return false;
}

// Angles live with no seekable range that drifted apart (after a stall, a failed player loaded
// again, joins at different segments) are loaded again, all at once: Chromium then joins each at the same
// segment of one timeline and starts them together (Docs/operations.md, "The page"). At most
// every 5 s for three tries, then doubling up to 40 s while it does not bring them within a frame (SidelineSync.rejoinWait).
function rejoin() {
  const now = performance.now();
  if (now - state.rejoin.at < state.rejoin.wait) return;
  const tries = (state.rejoin.tries || 0) + 1;
  state.rejoin = { at: now, wait: SidelineSync.rejoinWait(tries), tries, count: state.rejoin.count + 1 };
  load(state.mode, state.mode === "live" ? null : position());
}

// The video whose position is the page's: the one that leads.
function primary() { return videos()[state.leader] || video; }
// The position on the set's timeline (a stream's: its player's position).
function position() { const a = state.angles[state.leader]; return primary().currentTime + (a ? known(offsetOf(a)) : 0); }

function canSeekTo(offset) {
  return state.angles.every((a, i) => SidelineSync.canSeek(SidelineSync.sample(videos()[i], offsetOf(a)), Math.max(0, offset - offsetOf(a))));
}

// The segment requests of the page's players, as Resource Timing reports them (Chromium lists
// those of its own HLS player): the first few of each angle since it was loaded live.
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const path = new URL(entry.name).pathname;
    if (!/\.(ts|m4s|mp4)$/.test(path)) continue;
    for (const a of state.angles) {
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
    const a = state.angles[i];
    if (!v.error || performance.now() - (a.failedAt || 0) < 5000) return;
    a.failedAt = performance.now();
    loadAngle(i, state.mode, state.mode === "live" ? null : position());
  });
}

// Every 100 ms: each angle's origin until known, then, while a set plays more than one angle,
// the sync rule of page-sync.js.
function syncAngles() {
  const vs = videos();
  state.angles.forEach(findOrigin);
  state.angles.forEach((a, i) => confirmOrigin(a, vs[i]));
  reloadFailed();
  if (startTogether() || state.angles.length < 2) return;
  const samples = state.angles.map((a, i) => SidelineSync.sample(vs[i], a.confirmed ? offsetOf(a) : NaN));
  state.leader = SidelineSync.chooseLeader(samples, heard(), state.leader);
  // Rejoining interrupts every angle: only for a gap that lasts 2 s (20 ticks), not a flicker.
  const apart = SidelineSync.apply(vs, SidelineSync.decide(samples, state.leader, state.playing), state.playing);
  state.rejoin.ticks = apart ? (state.rejoin.ticks || 0) + 1 : 0;
  if (state.rejoin.ticks >= 20) rejoin();
  if (state.playing && SidelineSync.healthy(samples[state.leader])) {
    const spread = SidelineSync.spread(samples, state.leader);
    if (spread <= SidelineSync.defaults.frame && performance.now() - state.rejoin.at > 10000) Object.assign(state.rejoin, { wait: 5000, tries: 0 });
    state.spreads.push(spread);
    if (state.spreads.length > 3000) state.spreads.shift();
  }
}

function drawChart() {
  const canvas = $("chart"), g = canvas.getContext("2d");
  g.clearRect(0, 0, canvas.width, canvas.height);
  const all = Object.values(state.samples).flat();
  if (all.length < 2) return;
  const max = Math.max(...all.map((s) => s.rate)) * 1.1 || 1;
  const t0 = Math.min(...all.map((s) => s.at)), t1 = Math.max(...all.map((s) => s.at));
  g.fillStyle = "#8c96a0"; g.font = "20px system-ui"; g.fillText(formatRate(max), 4, 20);
  Object.values(state.samples).forEach((samples, i) => {
    g.strokeStyle = colours[i % colours.length]; g.lineWidth = 3; g.beginPath();
    samples.forEach((s, j) => {
      const x = t1 > t0 ? (s.at - t0) / (t1 - t0) * canvas.width : 0, y = canvas.height - s.rate / max * canvas.height;
      j ? g.lineTo(x, y) : g.moveTo(x, y);
    });
    g.stroke();
  });
}

async function refreshMarkers() {
  if (!state.info) return;
  const response = await fetch(markersURL(), { cache: "no-store" });
  if (!response.ok) return;
  state.markers = (await response.json()).markers;
  const list = $("markers");
  list.innerHTML = "";
  $("markers-empty").hidden = state.markers.length > 0;
  for (const m of state.markers) {
    const item = document.createElement("li");
    item.style.borderLeftColor = m.colour || "";
    const text = document.createElement("span");
    text.textContent = m.label + (m.author ? " · " + m.author : "");
    const when = document.createElement("span");
    when.className = "dim";
    when.textContent = m.offset != null ? formatSeconds(m.offset) : "";
    item.append(text, when);
    item.title = "Play from here; " + new Date(m.time).toLocaleTimeString();
    item.addEventListener("click", () => sideline.seek(m.offset));
    list.append(item);
  }
}

// The program date-time of the player's position: the recording's start plus its position.
function currentDate() {
  const start = state.info && state.info.recordingStart ? Date.parse(state.info.recordingStart) : NaN;
  const at = position();
  if (isNaN(start) || !isFinite(at)) return null;
  return new Date(start + at * 1000);
}

function updateClipLink() {
  if (!state.info) return;
  const start = parseFloat($("clip-start").value), end = parseFloat($("clip-end").value);
  const params = new URLSearchParams();
  // A set's clip names the moments as program date-times: the same moment in every angle.
  const origin = state.set ? startOf(state.info.id) : NaN;
  const when = (s) => isFinite(origin) ? new Date(origin + s * 1000).toISOString() : String(s);
  if (isFinite(start)) params.set("start", when(start));
  if (isFinite(end)) params.set("end", when(end));
  if (!state.set) params.set("variant", $("clip-variant").value);
  $("clip-link").href = state.set ? state.set.clip + "?" + params.toString() : streamAPI("/clip.mp4?" + params.toString());
}

const sideline = window.sideline = {
  // Any moment of the recording: in place when every player can seek there, else in replay.
  seek(offset) {
    if (offset == null || !isFinite(offset)) return;
    if (canSeekTo(offset)) {
      videos().forEach((v, i) => { v.currentTime = Math.max(0, offset - offsetOf(state.angles[i])); if (state.playing) v.play().catch(() => {}); });
    } else load("replay", offset);
  },
  jumpToLive() {
    if (state.mode !== "live") return load("live", null);
    for (const v of videos()) {
      if (v.seekable.length) v.currentTime = Math.max(0, v.seekable.end(v.seekable.length - 1) - 1);
      if (state.playing) v.play().catch(() => {});
    }
  },
  async mark(label, lead) {
    const token = $("token").value || localStorage.getItem("sideline-token") || "";
    if (token) localStorage.setItem("sideline-token", token);
    const date = currentDate();
    const body = { label: label };
    if (date && primary().currentTime > 0) body.time = new Date(date.getTime() - (lead || 0) * 1000).toISOString();
    else { body.time = "now"; if (lead) body.lead = lead; }
    const response = await fetch(markersURL(), {
      method: "POST", headers: { "Content-Type": "application/json", "Authorization": "Bearer " + token }, body: JSON.stringify(body),
    });
    const text = await response.text();
    $("mark-status").className = response.ok ? "dim" : "error";
    $("mark-status").textContent = response.ok ? "Marked." : text.trim();
    if (response.ok) await refreshMarkers();
    return { status: response.status, body: text };
  },
  clipURL(start, end, variant) {
    $("clip-start").value = start; $("clip-end").value = end;
    if (variant) $("clip-variant").value = variant;
    updateClipLink();
    return $("clip-link").href;
  },
  async unlock(token) { $("viewer-token").value = token; await unlock(); return state.streams.map((s) => s.id).concat(state.sets.map((s) => "set:" + s.name)); },
  enlarge,
  pick,
  play(playing) { state.playing = playing; state.angles.forEach((a) => { a.starting = false; }); videos().forEach((v) => { if (playing) v.play().catch(() => {}); else v.pause(); }); layout(); },
  // How far apart the angles play now (seconds, set timeline) and over the last few minutes.
  sync() {
    const sorted = state.spreads.slice().sort((a, b) => a - b);
    const q = (p) => sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : null;
    return { leader: state.leader, angles: state.angles.map((a, i) => ({ stream: a.stream, at: videos()[i].currentTime + offsetOf(a), rate: videos()[i].playbackRate })), rejoins: state.rejoin.count,
      samples: sorted.length, p50: q(0.5), p99: q(0.99), max: sorted.length ? sorted[sorted.length - 1] : null };
  },
  state,
};

$("stream").addEventListener("change", () => {
  choose();
  // The address names what is shown, so it can be bookmarked or sent: /?set=match, /?stream=wide.
  const value = $("stream").value;
  history.replaceState(null, "", value.startsWith("set:") ? "?set=" + encodeURIComponent(value.slice(4)) : "?stream=" + encodeURIComponent(value));
  showStream();
});
$("unlock-button").addEventListener("click", unlock);
$("viewer-token").addEventListener("keydown", (e) => { if (e.key === "Enter") unlock(); });
$("live").addEventListener("click", () => sideline.jumpToLive());
$("play").addEventListener("click", () => sideline.play(!state.playing));
$("sound").addEventListener("click", () => { state.sound = !state.sound; layout(); });
$("mark").addEventListener("click", () => sideline.mark($("label").value.trim() || "Mark", parseFloat($("lead").value) || 0));
$("clip-from-here").addEventListener("click", () => { $("clip-start").value = position().toFixed(1); updateClipLink(); });
$("clip-to-here").addEventListener("click", () => { $("clip-end").value = position().toFixed(1); updateClipLink(); });
for (const id of ["clip-start", "clip-end", "clip-variant"]) $(id).addEventListener("change", updateClipLink);
$("token").value = localStorage.getItem("sideline-token") || "";
$("scrub").addEventListener("input", () => { state.scrubbing = true; $("position").textContent = formatSeconds(parseFloat($("scrub").value)); });
$("scrub").addEventListener("change", () => { state.scrubbing = false; sideline.seek(parseFloat($("scrub").value)); });
function showPosition() {
  const at = position();
  if (!state.scrubbing) $("scrub").value = String(at);
  const date = currentDate();
  $("position").textContent = formatSeconds(at) + (date ? " · " + date.toLocaleTimeString() : "");
}
video.addEventListener("timeupdate", showPosition);
$("angles").querySelector("figure").addEventListener("click", () => { if (state.angles.length > 1) enlarge(0); });

// The players the server hears CMCD from (GET /api/sessions): only with the admin token.
async function refreshPlayers() {
  const token = $("token").value || localStorage.getItem("sideline-token") || "";
  if (!token) { $("players-section").hidden = true; return; }
  const response = await fetch("/api/sessions", { cache: "no-store", headers: { "Authorization": "Bearer " + token } });
  if (!response.ok) { $("players-section").hidden = true; return; }
  const listing = await response.json();
  $("players-section").hidden = false;
  const cell = (text) => { const td = document.createElement("td"); td.textContent = text; return td; };
  const rows = listing.sessions.map((s) => {
    const row = document.createElement("tr");
    const state = cell(s.state + (s.stallingSince ? " since " + new Date(s.stallingSince).toLocaleTimeString() : ""));
    state.className = s.state === "stalling" ? "error" : "";
    row.append(cell((s.userAgent || s.sid).slice(0, 40)), state, cell((s.stream || "") + " " + (s.variant || "")),
      cell(s.bufferLengthMs != null ? (s.bufferLengthMs / 1000).toFixed(1) + " s" : "–"),
      cell(s.measuredThroughputKbps != null ? formatRate(s.measuredThroughputKbps * 1000) : "–"));
    return row;
  });
  $("players").replaceChildren(...rows);
}

// The first listing, for scripts that drive the page (Tests/Helpers/page_check.py): what the
// page shows locked or open is known once it has settled.
sideline.ready = refreshStreams().then(updateClipLink);
setInterval(refreshPlayers, 5000);
setInterval(refreshStreams, 2000);
setInterval(refreshMarkers, 5000);
setInterval(syncAngles, 100);
