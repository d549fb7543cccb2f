// The page's script: plain ES2017 that Safari 14+, iPadOS and Chromium run as it is, with no
// build step and nothing fetched from the internet. The page shows one stream, or an angle set
// (a match seen by several cameras): up to four angles at once, kept in sync by page-sync.js.
// Its state is split by concern (below); what it decides is page-state.js's (SidelinePage,
// row-tested in PageStateTests); the set grid and its sync are page-angles.js's. This file holds
// the access, playback, markers and clips controllers and starts the page. `window.sideline`
// exposes the page's actions (seek, mark, clip) and its state for the headless-browser checks
// (Tests/Helpers/page_check.py), which drive the same functions the buttons call.
"use strict";
const $ = (id) => document.getElementById(id);
const video = $("video");
// access: what the listings open (streams, sets, the locked ones) and what the picker shows:
// `set`, the angle set (from /api/sets) or null for one stream, and `info`, the stream (a set's
// default angle).
const access = { streams: [], locked: [], sets: [], lockedSets: [], set: null, info: null };
// playback: `mode` "live" plays the EVENT masters, "replay" the recording so far as VOD (/vod/),
// which every browser can seek in (Chromium gives a live EVENT stream no seekable range);
// `loaded`, what the players were loaded for; `samples`, the bit-rate chart's.
const playback = { mode: "live", playing: true, scrubbing: false, loaded: null, samples: {}, liveLoads: 0 };
// grid: the angles the page plays, one per tile ({stream, title, master, vod, origin: see
// loadAngle}), the large tile and whether sound is on. sync: the leading angle, the spreads
// measured, the rejoins (page-angles.js).
const grid = { angles: [], large: null, sound: false };
const sync = { leader: 0, spreads: [], rejoin: { at: 0, wait: 5000, count: 0 } };
// marks: the markers of what is shown, as the server lists them.
const marks = { list: [] };
const colours = ["#e0a030", "#4ca3dd", "#4cbb6c", "#c070e0", "#e05050", "#50d0c0"];
const { seconds: formatSeconds, rate: formatRate, bytes: formatBytes } = SidelinePage.format;

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
// The streams and sets this page may play: everything open, and each private one a kept token
// opens (its URLs then carry a credential, so the video elements need nothing more).
async function refreshStreams() {
  const tokens = [null].concat(viewerTokens());
  const [listings, setListings] = await Promise.all([Promise.all(tokens.map(fetchListing)), Promise.all(tokens.map(fetchSets))]);
  const listing = listings[0];
  Object.assign(access, SidelinePage.access.merge(listings, setListings, new URLSearchParams(location.search).get("set")));
  const select = $("stream");
  const { values: names, labels } = SidelinePage.access.picker(access);
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

// What the picker names (SidelinePage.access.choose): a set or a stream, and whether it asks for a token.
function choose() {
  const chosen = SidelinePage.access.choose($("stream").value, access);
  access.set = chosen.set;
  access.info = chosen.info;
  $("unlock").hidden = !chosen.unlock;
}

// Checks a typed viewer token against the server before keeping it.
async function unlock() {
  const token = $("viewer-token").value.trim(), wanted = $("stream").value;
  if (!token) return;
  const opens = wanted.startsWith("set:") ? (await fetchSets(token)).sets.some((s) => "set:" + s.name === wanted && SidelinePage.access.setIsOpen(s))
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
function streamAPI(suffix) { return access.info.urlPrefix + "/api/streams/" + encodeURIComponent(access.info.id) + suffix; }
// Where the markers of what is shown are listed and added.
function markersURL() { return access.set ? access.set.markers : streamAPI("/markers"); }
function startOf(stream) { const info = access.streams.find((s) => s.id === stream); return info && info.recordingStart ? Date.parse(info.recordingStart) : NaN; }

function showStream() {
  const info = access.info;
  if (!info) return;
  // A pushed stream's title, description and keywords may change while the page is open.
  $("stream-about").textContent = access.set ? (access.set.title || access.set.name) + ": " + access.set.angles.map((a) => a.title || a.stream).join(", ")
    : [info.description, info.keywords ? "Keywords: " + info.keywords : ""].filter((t) => t).join(" · ");
  $("stream-state").textContent = info.state;
  $("stream-state").className = "state " + info.state;
  const key = access.set ? "set:" + access.set.name : info.id;
  if (playback.loaded !== key) {
    playback.loaded = key;
    playback.samples = {};
    grid.large = null;
    sync.leader = 0;
    grid.angles = SidelinePage.grid.anglesOf(access.set, null, info);
    ensureTiles(grid.angles.length);
    layout();
    if (nativeHLS) load("live", null);
    const variants = $("clip-variant");
    variants.innerHTML = "";
    for (const v of info.variants) variants.add(new Option(v.name, v.name));
    variants.hidden = !!access.set;
    $("clip-link").textContent = access.set ? "Download ZIP (every angle)" : "Download MP4";
    updateClipLink();
    refreshMarkers();
  } else if (access.set) {
    // The angles' states change while the set plays.
    // In place: a load's findings (page-angles.js) land on these same objects.
    SidelinePage.grid.states(grid.angles, access.set).forEach((state, i) => { grid.angles[i].state = state; });
    layout();
  }
  playback.samples = SidelinePage.playback.sample(playback.samples, info.variants, performance.now() / 1000);
  const rows = info.variants.map((v, i) => {
    const samples = playback.samples[v.name], shown = samples[samples.length - 1];
    return "<tr><td style='color:" + colours[i % colours.length] + "'>" + v.name + "</td><td><span class='state " + v.state + "'>" + v.state +
      "</span></td><td>" + formatRate(shown.rate) + "</td><td>" + formatSeconds(v.durationRecorded) + "</td><td>" +
      // The encoder's effort: empty while as configured, else the cheaper step it runs at to keep up.
      (v.effortStep > 0 ? "<span title='" + v.effortStep + " step(s) below the configured preset, to keep every frame'>" + v.effort + "</span>" : "") +
      "</td></tr>";
  });
  $("variants").innerHTML = rows.join("");
  const best = info.variants[0];
  if (best) $("scrub").max = String(best.durationRecorded);
  drawChart();
}

function drawChart() {
  const canvas = $("chart"), g = canvas.getContext("2d");
  g.clearRect(0, 0, canvas.width, canvas.height);
  const all = Object.values(playback.samples).flat();
  if (all.length < 2) return;
  const max = Math.max(...all.map((s) => s.rate)) * 1.1 || 1;
  const t0 = Math.min(...all.map((s) => s.at)), t1 = Math.max(...all.map((s) => s.at));
  g.fillStyle = "#8c96a0"; g.font = "20px system-ui"; g.fillText(formatRate(max), 4, 20);
  Object.values(playback.samples).forEach((samples, i) => {
    g.strokeStyle = colours[i % colours.length]; g.lineWidth = 3; g.beginPath();
    samples.forEach((s, j) => {
      const x = t1 > t0 ? (s.at - t0) / (t1 - t0) * canvas.width : 0, y = canvas.height - s.rate / max * canvas.height;
      j ? g.lineTo(x, y) : g.moveTo(x, y);
    });
    g.stroke();
  });
}

async function refreshMarkers() {
  if (!access.info) return;
  const response = await fetch(markersURL(), { cache: "no-store" });
  if (!response.ok) return;
  marks.list = (await response.json()).markers;
  const list = $("markers");
  list.innerHTML = "";
  $("markers-empty").hidden = marks.list.length > 0;
  for (const m of marks.list) {
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
  const start = access.info && access.info.recordingStart ? Date.parse(access.info.recordingStart) : NaN;
  const at = position();
  if (isNaN(start) || !isFinite(at)) return null;
  return new Date(start + at * 1000);
}

// The clip link (SidelinePage.markers.clipQuery): a set's names the moments as program
// date-times, the same moment in every angle.
function updateClipLink() {
  if (!access.info) return;
  const query = SidelinePage.markers.clipQuery(parseFloat($("clip-start").value), parseFloat($("clip-end").value), access.set,
    access.set ? startOf(access.info.id) : NaN, $("clip-variant").value);
  $("clip-link").href = access.set ? access.set.clip + "?" + query : streamAPI("/clip.mp4?" + query);
}

const sideline = window.sideline = {
  // Any moment of the recording: in place when every player can seek there, else in replay.
  seek(offset) {
    if (offset == null || !isFinite(offset)) return;
    if (canSeekTo(offset)) {
      videos().forEach((v, i) => { v.currentTime = Math.max(0, offset - offsetOf(grid.angles[i])); if (playback.playing) v.play().catch(() => {}); });
    } else load("replay", offset);
  },
  jumpToLive() {
    if (playback.mode !== "live") return load("live", null);
    for (const v of videos()) {
      if (v.seekable.length) v.currentTime = Math.max(0, v.seekable.end(v.seekable.length - 1) - 1);
      if (playback.playing) v.play().catch(() => {});
    }
  },
  async mark(label, lead) {
    const token = $("token").value || localStorage.getItem("sideline-token") || "";
    if (token) localStorage.setItem("sideline-token", token);
    const date = currentDate();
    const body = SidelinePage.markers.body(label, lead, date && primary().currentTime > 0 ? date : null);
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
  async unlock(token) { $("viewer-token").value = token; await unlock(); return access.streams.map((s) => s.id).concat(access.sets.map((s) => "set:" + s.name)); },
  enlarge,
  pick,
  play(playing) { playback.playing = playing; grid.angles.forEach((a) => { a.starting = false; }); videos().forEach((v) => { if (playing) v.play().catch(() => {}); else v.pause(); }); layout(); },
  // How far apart the angles play now (seconds, set timeline) and over the last few minutes.
  sync() {
    const sorted = sync.spreads.slice().sort((a, b) => a - b);
    const q = (p) => sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : null;
    return { leader: sync.leader, angles: grid.angles.map((a, i) => ({ stream: a.stream, at: videos()[i].currentTime + offsetOf(a), rate: videos()[i].playbackRate })), rejoins: sync.rejoin.count,
      samples: sorted.length, p50: q(0.5), p99: q(0.99), max: sorted.length ? sorted[sorted.length - 1] : null };
  },
  // The page's state by concern, for the checks that read it (`sideline.sync()` above is the
  // angles' spread; `sideline.state.sync` the sync loop's state).
  state: { access, playback, grid, sync, marks },
};

$("stream").addEventListener("change", () => {
  choose();
  // The address names what is shown, so it can be bookmarked or sent: /?set=match, /?stream=wide.
  history.replaceState(null, "", SidelinePage.access.address($("stream").value));
  showStream();
});
$("unlock-button").addEventListener("click", unlock);
$("viewer-token").addEventListener("keydown", (e) => { if (e.key === "Enter") unlock(); });
$("live").addEventListener("click", () => sideline.jumpToLive());
$("play").addEventListener("click", () => sideline.play(!playback.playing));
$("sound").addEventListener("click", () => { grid.sound = !grid.sound; layout(); });
$("mark").addEventListener("click", () => sideline.mark($("label").value.trim() || "Mark", parseFloat($("lead").value) || 0));
$("clip-from-here").addEventListener("click", () => { $("clip-start").value = position().toFixed(1); updateClipLink(); });
$("clip-to-here").addEventListener("click", () => { $("clip-end").value = position().toFixed(1); updateClipLink(); });
for (const id of ["clip-start", "clip-end", "clip-variant"]) $(id).addEventListener("change", updateClipLink);
$("token").value = localStorage.getItem("sideline-token") || "";
$("scrub").addEventListener("input", () => { playback.scrubbing = true; $("position").textContent = formatSeconds(parseFloat($("scrub").value)); });
$("scrub").addEventListener("change", () => { playback.scrubbing = false; sideline.seek(parseFloat($("scrub").value)); });
function showPosition() {
  const at = position();
  if (!playback.scrubbing) $("scrub").value = String(at);
  const date = currentDate();
  $("position").textContent = formatSeconds(at) + (date ? " · " + date.toLocaleTimeString() : "");
}
video.addEventListener("timeupdate", showPosition);
$("angles").querySelector("figure").addEventListener("click", () => { if (grid.angles.length > 1) enlarge(0); });

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
