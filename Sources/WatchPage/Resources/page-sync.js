// Keeping a set's angles in sync: which video leads, and what each other video does to stay
// within a frame of it. The decisions are pure functions of plain samples (no DOM), so a test
// runs them with made-up numbers (Tests/WatchPageTests/PageSyncTests.swift, in headless
// Chromium); `sample` and `apply` are the only parts that touch <video> elements.
//
// Every angle of a set is on one timeline: the same moment is the same program date-time in
// each. A video's position on the set's timeline is its currentTime plus `offset` (where its
// position 0 lies on the set's timeline), so angles that started or joined at different
// segments line up too. An offset not known yet is NaN: that angle waits.
//
// Two ways to move a video, chosen by what it allows (measured in Chromium 156):
// - seekable (replay, and a live stream where the browser gives it a range, as Safari does):
//   small gaps are closed with playbackRate (1 ± up to 0.5), large ones with a seek;
// - no seekable range (a live EVENT stream in Chromium): seeks are ignored, and a
//   playbackRate change, and often a pause and play, stops its HLS demuxer for good
//   (DEMUXER_ERROR_COULD_NOT_PARSE). Such videos are only ever loaded again, all at once
//   ("rejoin"): Chromium joins each at the same segment of one timeline and plays them from
//   its start (measured: three angles loaded together within 10 ms).
"use strict";
const SidelineSync = {
  defaults: {
    frame: 1 / 30,       // one frame at the set's rate: the promise is "within one frame"
    deadband: 1 / 120,   // closer than a quarter of a frame: left at rate 1
    gain: 1,             // rate change per second of gap: the gap shrinks ~10% every 100 ms
    maxNudge: 0.5,       // playbackRate stays within 1 ± this while nudging
    seekAbove: 1,        // further apart than this (seconds): seek instead of nudging
    seekAhead: 0.15,     // a playing video lands this far past the target: the seek takes time
  },

  // What the decisions read from a <video>; a test gives the same shape by hand.
  sample(video, offset) {
    const seekable = [];
    for (let i = 0; i < video.seekable.length; i++) seekable.push([video.seekable.start(i), video.seekable.end(i)]);
    return {
      time: video.currentTime, offset: offset === undefined ? 0 : offset, rate: video.playbackRate, paused: video.paused,
      seeking: video.seeking, ended: video.ended, ready: video.readyState >= 3, seekable,
    };
  },

  // The sample's position on the set's timeline.
  at(s) { return s.time + s.offset; },

  // A video that can lead: has data ahead of it, is not seeking or ended, and its place is known.
  healthy(s) { return !!s && s.ready && !s.seeking && !s.ended && isFinite(s.offset); },

  // Where `time` (seconds on a video's own timeline) lies in its seekable ranges.
  canSeek(s, time) { return s.seekable.some((r) => time >= r[0] && time <= r[1]); },

  // The leader: the preferred angle (the one heard: the large one, else the default) unless it
  // stalls. While it stalls the current leader (or the first healthy angle) leads, and the
  // preferred angle takes the lead back once it is healthy and within a frame again, so a
  // stall of the default angle does not pull every other angle back with it.
  chooseLeader(samples, preferred, current, options) {
    const o = Object.assign({}, SidelineSync.defaults, options);
    const ok = (i) => i != null && SidelineSync.healthy(samples[i]);
    const near = (i, j) => Math.abs(SidelineSync.at(samples[i]) - SidelineSync.at(samples[j])) <= o.frame;
    const healthy = samples.map((s, i) => i).filter(ok);
    if (ok(preferred) && (current === preferred || !ok(current) || near(preferred, current))) return preferred;
    if (ok(current)) return current;
    return healthy.length ? healthy[0] : preferred;
  },

  // One action per sample, to bring each to the leader's moment:
  //   {kind: "lead"}            the leader: rate 1, left alone
  //   {kind: "rate", rate}      play at this rate (1 when within a quarter of a frame)
  //   {kind: "seek", to}        jump (its own timeline, seconds)
  //   {kind: "hold"}            pause: the set is paused, or the leader is before its recording
  //   {kind: "wait"}            seeking, buffering, ended or not placed yet: leave it be
  //   {kind: "rejoin"}          no seekable range and more than a frame off: load every angle again
  // `playing` false (the set paused): followers are only seeked to the leader's frame.
  decide(samples, leader, playing, options) {
    const o = Object.assign({}, SidelineSync.defaults, options);
    const moment = SidelineSync.at(samples[leader]);
    return samples.map((s, i) => {
      if (i === leader) return { kind: "lead" };
      if (!s || s.seeking || !isFinite(s.time) || !isFinite(s.offset) || !isFinite(moment)) return { kind: "wait" };
      const target = moment - s.offset;
      const gap = s.time - target; // > 0: ahead of the leader
      if (!s.seekable.length) {
        // Never paused, rated or seeked (see above): in step, left; else every angle rejoins.
        if (!playing || s.ended || !s.ready) return { kind: "wait" };
        return Math.abs(gap) > o.frame ? { kind: "rejoin" } : { kind: "wait" };
      }
      // Before this angle's first entry: nothing to show yet.
      if (target < 0) return SidelineSync.canSeek(s, 0) && s.time > o.frame ? { kind: "seek", to: 0 } : { kind: "hold" };
      if (!playing) return Math.abs(gap) > o.deadband && SidelineSync.canSeek(s, target) ? { kind: "seek", to: target } : { kind: "hold" };
      if (s.ended || (!s.ready && gap < 0)) return { kind: "wait" };
      if (Math.abs(gap) <= o.deadband) return { kind: "rate", rate: 1 };
      if (Math.abs(gap) <= o.seekAbove || !SidelineSync.canSeek(s, target + o.seekAhead)) {
        const nudge = Math.max(-o.maxNudge, Math.min(o.maxNudge, gap * o.gain));
        return { kind: "rate", rate: 1 - nudge };
      }
      return { kind: "seek", to: target + o.seekAhead };
    });
  },

  // The entries of a media playlist's text: {name (the URI's last path part, without its
  // query), start (ms of program date-time, NaN before any date), duration (seconds)}.
  listedSegments(text) {
    const entries = [];
    let at = NaN, duration = 0;
    for (const line of text.split("\n").map((l) => l.trim())) {
      if (line.startsWith("#EXT-X-PROGRAM-DATE-TIME:")) at = Date.parse(line.slice(25));
      else if (line.startsWith("#EXTINF:")) duration = parseFloat(line.slice(8));
      else if (line && !line.startsWith("#")) {
        entries.push({ name: line.split("?")[0].split("/").pop(), start: at, duration });
        at += duration * 1000;
      }
    }
    return entries;
  },

  // Where a live player's position 0 lies (ms of program date-time), from what it holds: once a
  // segment it fetched has been appended, the end of its buffered range is that segment's end,
  // so position 0 is the segment's end date (`segmentEnd`, ms) less `bufferedEnd` (seconds on
  // the player's own timeline). Chromium's range ends a few frames short of the listed end (its
  // last frames held back), and position 0 is always the start of a segment
  // it joined at, so the estimate is snapped to the nearest of the listed segments' starts
  // (`starts`, ms); null when none is within a quarter of `segment` (seconds).
  originFrom(segmentEnd, bufferedEnd, starts, segment) {
    if (!isFinite(segmentEnd) || !(bufferedEnd > 0) || !(segment > 0)) return null;
    const estimate = segmentEnd - bufferedEnd * 1000;
    let best = null;
    for (const start of starts) if (isFinite(start) && (best === null || Math.abs(start - estimate) < Math.abs(best - estimate))) best = start;
    return best !== null && Math.abs(best - estimate) <= segment * 250 ? best : null;
  },

  // An origin is taken once two different segments give the same one: a single reading may
  // pair a segment with a range that does not end with it yet (or with the first segment,
  // which Chromium reads only to learn the codecs). `previous`: the last reading,
  // {segment, origin} or null; returns the reading to keep and the origin when confirmed.
  confirmOrigin(previous, reading) {
    if (!reading || reading.origin === null) return { reading: previous, origin: NaN };
    if (previous && previous.segment !== reading.segment && previous.origin === reading.origin) return { reading, origin: reading.origin };
    return { reading, origin: NaN };
  },

  // How long (ms) to wait before the next rejoin, after `tries` rejoins since the angles were
  // last in step: a load starts the players within a frame only now and then (2 of 12 forced
  // loads, the others up to 244 ms apart: Docs/operations.md, "The page"), so the
  // first three come 5 s apart; after that the wait doubles to 40 s, so angles a rejoin cannot
  // help (one keeps stalling) are not reloaded without end. (Doubling from the first left a set
  // 150-200 ms apart for two minutes in a 10-minute benchmark run, 2026-11-27.)
  // Whether a live load starts its players paused and plays them in one go, or lets each play
  // as soon as it can; `liveLoads`: the page's live loads before this one. Together only for
  // the first. On a later load Chromium holds segments in its cache, and a live player played
  // after it buffered them fails (`DEMUXER_ERROR_COULD_NOT_PARSE`) 10-90 ms into playing: one or
  // two players did in 5 of 6 such loads, each loaded again and started 80-150 ms (or a segment)
  // behind. Each playing as soon as it can, no player failed in 12 such loads, which started
  // them 31-244 ms apart, median 49 ms (Docs/operations.md, "The page", has the runs).
  startsTogether(liveLoads) {
    return liveLoads === 0;
  },

  rejoinWait(tries) {
    return tries < 3 ? 5000 : Math.min(5000 * 2 ** (tries - 2), 40000);
  },

  // The largest distance (seconds) between the leader and any angle that plays.
  spread(samples, leader) {
    const moment = SidelineSync.at(samples[leader]);
    return samples.reduce((worst, s, i) => (i === leader || !SidelineSync.healthy(s) || s.paused) ? worst
      : Math.max(worst, Math.abs(SidelineSync.at(s) - moment)), 0);
  },

  // Carries out `actions` on the videos; true when the angles are to rejoin (the page loads
  // them all again). A video with no seekable range is never given a rate.
  apply(videos, actions, playing) {
    let rejoin = false;
    actions.forEach((a, i) => {
      const v = videos[i];
      if (a.kind === "seek") v.currentTime = a.to;
      else if (a.kind === "hold") { if (!v.paused) v.pause(); }
      else if (a.kind === "rejoin") rejoin = true;
      if (a.kind === "lead" || a.kind === "rate") {
        const rate = a.kind === "lead" ? 1 : a.rate;
        if (Math.abs(v.playbackRate - rate) > 0.005 && v.seekable.length) v.playbackRate = rate;
        if (playing && v.paused && !v.ended) v.play().catch(() => {});
      }
    });
    return rejoin;
  },
};
window.SidelineSync = SidelineSync;
