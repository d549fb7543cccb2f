// The page's script: plain ES2017 that Safari 14+, iPadOS and Chromium run as it is, with no
// build step and nothing fetched from the internet. `window.sideline` exposes the page's
// actions (seek, mark, clip) for the headless-browser test (scripts/page_check.py), which
// drives the same functions the buttons call.
"use strict";
const $ = (id) => document.getElementById(id);
const video = $("video");
// mode: "live" plays the EVENT master; "replay" plays the recording so far as VOD (/vod/),
// which every browser can seek in (Chromium gives a live EVENT stream no seekable range).
const state = { streams: [], locked: [], stream: null, info: null, markers: [], samples: {}, loaded: null, mode: "live", scrubbing: false };
const colours = ["#e0a030", "#4ca3dd", "#4cbb6c", "#c070e0", "#e05050", "#50d0c0"];

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

// Viewer tokens of private streams, asked once and kept for this browser session only.
function viewerTokens() { try { return JSON.parse(sessionStorage.getItem("sideline-viewer-tokens") || "[]"); } catch (e) { return []; } }

async function fetchListing(token) {
  const response = await fetch("/api/streams", { cache: "no-store", headers: token ? { "Authorization": "Bearer " + token } : {} });
  return response.json();
}

// The streams this page may play: everything open, and each private stream a kept token
// opens (its URLs then carry a credential, so the video element needs nothing more).
async function refreshStreams() {
  const listings = await Promise.all([fetchListing(null)].concat(viewerTokens().map(fetchListing)));
  const listing = listings[0];
  const byId = new Map();
  for (const l of listings) for (const s of l.streams) byId.set(s.id, s);
  state.streams = [...byId.values()];
  state.locked = (listing.locked || []).map((s) => s.id).filter((id) => !byId.has(id));
  const select = $("stream");
  const names = state.streams.map((s) => s.id).concat(state.locked);
  const labels = state.streams.map((s) => (s.title ? s.title + " (" + s.id + ")" : s.id)).concat(state.locked.map((id) => "🔒 " + id + " (private)"));
  if (select.options.length !== names.length || names.some((n, i) => select.options[i].value !== n || select.options[i].text !== labels[i])) {
    const chosen = select.value;
    select.innerHTML = "";
    names.forEach((name, i) => select.add(new Option(labels[i], name)));
    if (names.includes(chosen)) select.value = chosen;
    const wanted = new URLSearchParams(location.search).get("stream");
    if (!chosen && wanted && names.includes(wanted)) select.value = wanted;
  }
  state.info = state.streams.find((s) => s.id === select.value) || null;
  $("unlock").hidden = !state.locked.includes(select.value);
  if (listing.disk) {
    $("disk").textContent = "Disk: " + formatBytes(listing.disk.recordedBytes) + " recorded, " + formatBytes(listing.disk.freeBytes) + " free of " + formatBytes(listing.disk.totalBytes);
  }
  showStream();
}

// Checks a typed viewer token against the server before keeping it.
async function unlock() {
  const token = $("viewer-token").value.trim(), wanted = $("stream").value;
  if (!token) return;
  const listing = await fetchListing(token);
  if (!listing.streams.some((s) => s.id === wanted)) {
    $("unlock-status").textContent = "That token does not open " + wanted + ".";
    return;
  }
  $("unlock-status").textContent = "";
  $("viewer-token").value = "";
  sessionStorage.setItem("sideline-viewer-tokens", JSON.stringify(viewerTokens().filter((t) => t !== token).concat([token])));
  await refreshStreams();
}

// An API path of the current stream, under its access prefix when it is private.
function streamAPI(suffix) { return state.info.urlPrefix + "/api/streams/" + encodeURIComponent(state.info.id) + suffix; }

function showStream() {
  const info = state.info;
  if (!info) return;
  // A pushed stream's title, description and keywords may change while the page is open.
  $("stream-about").textContent = [info.description, info.keywords ? "Keywords: " + info.keywords : ""].filter((t) => t).join(" · ");
  $("stream-state").textContent = info.state;
  $("stream-state").className = "state " + info.state;
  if (state.loaded !== info.id) {
    state.loaded = info.id;
    state.samples = {};
    if (nativeHLS) load("live", null);
    const variants = $("clip-variant");
    variants.innerHTML = "";
    for (const v of info.variants) variants.add(new Option(v.name, v.name));
    refreshMarkers();
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

// Plays the live master, or the VOD rendition from `offset` seconds into the recording.
function load(mode, offset) {
  state.mode = mode;
  $("mode").textContent = mode === "live" ? "live" : "replay";
  $("mode").className = "state " + (mode === "live" ? "live" : "ended");
  video.src = mode === "live" ? state.info.master : state.info.vodMaster;
  video.addEventListener("loadedmetadata", () => {
    if (offset != null) video.currentTime = offset;
    // A live stream opens at its live edge (some browsers start an EVENT playlist at its beginning).
    else if (mode === "live" && state.info.state !== "ended" && video.seekable.length) video.currentTime = Math.max(0, video.seekable.end(video.seekable.length - 1) - 1);
    video.play().catch(() => {});
  }, { once: true });
  video.play().catch(() => {});
}

function canSeekTo(offset) {
  for (let i = 0; i < video.seekable.length; i++) if (offset >= video.seekable.start(i) && offset <= video.seekable.end(i)) return true;
  return false;
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
  const response = await fetch(streamAPI("/markers"), { cache: "no-store" });
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
  if (isNaN(start) || !isFinite(video.currentTime)) return null;
  return new Date(start + video.currentTime * 1000);
}

function updateClipLink() {
  if (!state.info) return;
  const start = parseFloat($("clip-start").value), end = parseFloat($("clip-end").value);
  const params = new URLSearchParams();
  if (isFinite(start)) params.set("start", String(start));
  if (isFinite(end)) params.set("end", String(end));
  params.set("variant", $("clip-variant").value);
  $("clip-link").href = streamAPI("/clip.mp4?" + params.toString());
}

const sideline = window.sideline = {
  // Any moment of the recording: in place when the player can seek there, else in replay.
  seek(offset) {
    if (offset == null || !isFinite(offset)) return;
    if (canSeekTo(offset)) { video.currentTime = offset; video.play().catch(() => {}); }
    else load("replay", offset);
  },
  jumpToLive() {
    if (state.mode !== "live") return load("live", null);
    if (video.seekable.length) video.currentTime = Math.max(0, video.seekable.end(video.seekable.length - 1) - 1);
    video.play().catch(() => {});
  },
  async mark(label, lead) {
    const token = $("token").value || localStorage.getItem("sideline-token") || "";
    if (token) localStorage.setItem("sideline-token", token);
    const date = currentDate();
    const body = { label: label };
    if (date && video.currentTime > 0) body.time = new Date(date.getTime() - (lead || 0) * 1000).toISOString();
    else { body.time = "now"; if (lead) body.lead = lead; }
    const response = await fetch(streamAPI("/markers"), {
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
  async unlock(token) { $("viewer-token").value = token; await unlock(); return state.streams.map((s) => s.id); },
  state,
};

$("stream").addEventListener("change", () => {
  state.info = state.streams.find((s) => s.id === $("stream").value) || null;
  $("unlock").hidden = !state.locked.includes($("stream").value);
  showStream();
});
$("unlock-button").addEventListener("click", unlock);
$("viewer-token").addEventListener("keydown", (e) => { if (e.key === "Enter") unlock(); });
$("live").addEventListener("click", () => sideline.jumpToLive());
$("mark").addEventListener("click", () => sideline.mark($("label").value.trim() || "Mark", parseFloat($("lead").value) || 0));
$("clip-from-here").addEventListener("click", () => { $("clip-start").value = video.currentTime.toFixed(1); updateClipLink(); });
$("clip-to-here").addEventListener("click", () => { $("clip-end").value = video.currentTime.toFixed(1); updateClipLink(); });
for (const id of ["clip-start", "clip-end", "clip-variant"]) $(id).addEventListener("change", updateClipLink);
$("token").value = localStorage.getItem("sideline-token") || "";
$("scrub").addEventListener("input", () => { state.scrubbing = true; $("position").textContent = formatSeconds(parseFloat($("scrub").value)); });
$("scrub").addEventListener("change", () => { state.scrubbing = false; sideline.seek(parseFloat($("scrub").value)); });
video.addEventListener("timeupdate", () => {
  if (!state.scrubbing) $("scrub").value = String(video.currentTime);
  const date = currentDate();
  $("position").textContent = formatSeconds(video.currentTime) + (date ? " · " + date.toLocaleTimeString() : "");
});

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

refreshStreams().then(updateClipLink);
setInterval(refreshPlayers, 5000);
setInterval(refreshStreams, 2000);
setInterval(refreshMarkers, 5000);
