// The built-in test pattern's clock read back from pixels, as PatternClock
// (Sources/PipelineCore/PatternClock.swift) paints and reads it: two rows of 32 black and
// white blocks across the bottom of the frame (each 1/32 of the width and 1/18 of the height),
// carrying 2 start blocks (white, black), the capture time in UTC milliseconds (48 bits, most
// significant first), a CRC-8 (polynomial 0x07) of its 6 bytes and 6 alternating end blocks.
// The same integer arithmetic as the Swift reader, so both give the same answer on the same
// bytes (Tests/MediaPipelineTests/PatternClockScriptTests.swift). The page does not use it;
// benchmarks and tests load it (/pattern-clock.js) to tell from a <video> element, through a
// canvas, which moment it shows (scripts/bench/angles/angle_sync.py).
"use strict";
const SidelinePatternClock = {
  columns: 32,
  rows: 2,
  heightDivisions: 18,
  millisecondBits: 48,

  // CRC-8 (polynomial 0x07) of the 6 bytes of a 48-bit value, most significant first.
  crc8(ms) {
    let crc = 0;
    for (let shift = 40; shift >= 0; shift -= 8) {
      crc ^= Math.floor(ms / 2 ** shift) % 256;
      for (let i = 0; i < 8; i++) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff;
    }
    return crc;
  },

  // The 64 blocks (true: white) that carry `ms` (0 <= ms < 2^48, exact in a double).
  bits(ms) {
    const bits = [true, false];
    for (let shift = this.millisecondBits - 1; shift >= 0; shift--) bits.push(Math.floor(ms / 2 ** shift) % 2 === 1);
    const crc = this.crc8(ms);
    for (let shift = 7; shift >= 0; shift--) bits.push(((crc >> shift) & 1) === 1);
    while (bits.length < this.columns * this.rows) bits.push(bits.length % 2 === 0);
    return bits;
  },

  // Block `index`'s pixel bounds [x0, x1) x [y0, y1).
  rectangle(index, width, height) {
    const column = index % this.columns, row = this.heightDivisions - this.rows + Math.floor(index / this.columns);
    return [Math.floor(column * width / this.columns), Math.floor((column + 1) * width / this.columns),
      Math.floor(row * height / this.heightDivisions), Math.floor((row + 1) * height / this.heightDivisions)];
  },

  // The milliseconds from the block levels `luma(x, y)` gives (integers 0-255), or null when
  // the strip is missing, too flat, or fails its start, end or CRC check.
  decode(luma, width, height) {
    if (!(width >= this.columns && height >= this.heightDivisions)) return null;
    const levels = [];
    for (let index = 0; index < this.columns * this.rows; index++) {
      const [x0, x1, y0, y1] = this.rectangle(index, width, height);
      // The centre half of the block, away from edges the scaler and encoder blur.
      const insetX = Math.floor((x1 - x0) / 4), insetY = Math.floor((y1 - y0) / 4);
      let sum = 0, count = 0;
      for (let y = y0 + insetY; y < Math.max(y0 + insetY + 1, y1 - insetY); y++) {
        for (let x = x0 + insetX; x < Math.max(x0 + insetX + 1, x1 - insetX); x++) { sum += luma(x, y); count++; }
      }
      levels.push(Math.floor(sum / count));
    }
    // The start blocks give the threshold: white must clearly stand above black.
    if (levels[0] - levels[1] < 48) return null;
    const threshold = Math.floor((levels[0] + levels[1]) / 2);
    const read = levels.map((level) => level > threshold);
    let ms = 0;
    for (let i = 2; i < 2 + this.millisecondBits; i++) ms = ms * 2 + (read[i] ? 1 : 0);
    const expected = this.bits(ms);
    return read.every((bit, i) => bit === expected[i]) ? ms : null;
  },

  // From a grey plane (one byte a pixel, `stride` bytes a row): ffmpeg's `-pix_fmt gray`.
  read(plane, width, height, stride) {
    if (stride === undefined) stride = width;
    if (!(stride >= width) || plane.length < stride * (height - 1) + width) return null;
    return this.decode((x, y) => plane[y * stride + x], width, height);
  },

  // From a canvas's ImageData (RGBA): the luma of each pixel (BT.601 weights, rounded). The
  // image may hold only rows `top` and below of a frame `frameHeight` high (the strip is in
  // the bottom ninth: reading only that keeps a read at every frame cheap).
  readImageData(image, frameHeight, top) {
    const d = image.data, w = image.width, y0 = top || 0;
    return this.decode((x, y) => {
      const k = ((y - y0) * w + x) * 4;
      return k >= 0 ? Math.round(0.299 * d[k] + 0.587 * d[k + 1] + 0.114 * d[k + 2]) : 0;
    }, image.width, frameHeight || image.height);
  },

  // The first pixel row of the clock's strip in a frame `height` high: what `readImageData` needs
  // of a frame is from there down.
  stripTop(height) {
    return Math.floor((this.heightDivisions - this.rows) * height / this.heightDivisions);
  },

  // The moment a <video> shows now: its clock's strip (the bottom two of 18 block rows) drawn
  // to `canvas` at its decoded size (so every block is as wide as the encoder made it) and
  // read alone, cheap enough for every frame; null before its first frame or when it does
  // not read.
  readVideo(video, canvas) {
    const w = video.videoWidth, h = video.videoHeight;
    if (!w || !h) return null;
    const top = this.stripTop(h);
    if (canvas.width !== w) canvas.width = w;
    if (canvas.height !== h - top) canvas.height = h - top;
    const g = canvas.getContext("2d", { willReadFrequently: true });
    g.drawImage(video, 0, top, w, h - top, 0, 0, w, h - top);
    return this.readImageData(g.getImageData(0, 0, w, h - top), h, top);
  },
};
globalThis.SidelinePatternClock = SidelinePatternClock;
