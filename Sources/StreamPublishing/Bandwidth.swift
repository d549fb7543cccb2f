import SidelineCore

/// What BANDWIDTH is computed from for one rung: the rung itself (its VBV rates), the sound
/// every rung carries, and the frame rate (RFC 8216 §4.3.4.2: BANDWIDTH must bound every
/// segment's bit rate).
public struct RungRates: Sendable, Equatable {
    public var rung: Rung
    /// AAC bit rate and sample rate; nil without audio.
    public var audio: AudioRate?
    public var frameRate: Double

    public struct AudioRate: Sendable, Equatable {
        public var bitrate: Int
        public var sampleRate: Int
        public init(bitrate: Int, sampleRate: Int) {
            self.bitrate = bitrate
            self.sampleRate = sampleRate
        }
    }

    public init(rung: Rung, audio: AudioRate?, frameRate: Double) {
        self.rung = rung
        self.audio = audio
        self.frameRate = frameRate
    }

    /// Video bit rates in bits per second: average, VBV max rate and buffer size.
    public var bitrate: Int { rung.bitrate.bitsPerSecond }
    public var maxrate: Int { rung.maxrate.bitsPerSecond }
    public var bufsize: Int { rung.bufsize.bitsPerSecond }
}

public enum Bandwidth {
    /// MPEG-TS costs, on top of the elementary streams: 4 header bytes in every 188-byte
    /// packet, and per access unit a PES header and a last packet that is only partly filled
    /// (bounded here by one whole packet per video frame and per AAC frame), plus PAT and PMT
    /// repeated ten times a second by libavformat. A fixed 10% was too little for low rungs:
    /// a 250 kb/s 180p variant measured 474 kb/s against 443 kb/s advertised.
    public static func transport(payloadBitsPerSecond payload: Int, frameRate: Double, audioFramesPerSecond: Double) -> Int {
        let packetsPerSecond = frameRate + audioFramesPerSecond + 2 * 10
        return Int((Double(payload) * 188 / 184 + packetsPerSecond * 188 * 8).rounded(.up))
    }

    private static func audioFrames(_ rates: RungRates) -> Double {
        rates.audio.map { Double($0.sampleRate) / 1024 } ?? 0
    }

    /// How far one segment's video may run above `maxrate`, as a share of it. x264's VBV bounds
    /// the rate over a segment by maxrate plus what the buffer held at its start (bufsize / the
    /// segment's duration: up to 3 Mbit/s more for the default 720p rung), but with the average
    /// rate below maxrate it spends little of it: with no allowance, 720p segments with a cut
    /// and a large IDR came 0.2% and 2.7% above BANDWIDTH (3.66 and 3.75 against 3.65 Mbit/s,
    /// logged by `sideline serve` with three streams of the sample on two cores, 2026-11-25);
    /// `scripts/bench/run effort-scenarios` counts overruns against this in
    /// four 10-minute scenarios (Docs/benchmarks.md, "Effort under load"). The full VBV bound
    /// would double the 720p rung's BANDWIDTH and send players to lower rungs for nothing.
    public static let vbvBurst = 0.1

    /// The most one segment of the rung carries, per second: BANDWIDTH.
    public static func peak(_ rates: RungRates) -> Int {
        let video = Int((Double(rates.maxrate) * (1 + vbvBurst)).rounded())
        return transport(payloadBitsPerSecond: video + (rates.audio?.bitrate ?? 0), frameRate: rates.frameRate, audioFramesPerSecond: audioFrames(rates))
    }

    public static func average(_ rates: RungRates) -> Int {
        transport(payloadBitsPerSecond: rates.bitrate + (rates.audio?.bitrate ?? 0), frameRate: rates.frameRate, audioFramesPerSecond: audioFrames(rates))
    }

    /// An I-frame entry is one IDR shown for a segment's duration. The VBV model bounds any one
    /// frame by `bufsize`, so bufsize over the shortest interval between IDRs (D minus one
    /// frame) bounds the I-frame playlist's peak. An honest upper bound, well above the
    /// typical IDR rate.
    public static func iFramePeak(_ rates: RungRates, segmentDuration: Double) -> Int {
        let frame = 1 / rates.frameRate
        let shortestInterval = max(segmentDuration - frame, frame)
        return Int((Double(rates.bufsize) / shortestInterval * 188 / 184).rounded(.up)) + 2 * 188 * 8
    }

    /// A segment's bit rate when it exceeds `advertised` (RFC 8216 §4.3.4.2: BANDWIDTH must
    /// bound every segment's bit rate); nil when it does not, or has no duration to measure.
    public static func overrun(bytes: Int, duration: Double, advertised: Int) -> Double? {
        guard duration > 0 else { return nil }
        let rate = Double(bytes * 8) / duration
        return rate > Double(advertised) ? rate : nil
    }
}
