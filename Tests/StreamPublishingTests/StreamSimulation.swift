import Foundation
import HLSPlaylist
import SidelineCore
import StreamPublishing

/// A camera and its rungs' encoders as events on a clock that is a number, fed to a stream's
/// core the way the server feeds it: progress a quarter second apart while a rung encodes, its
/// parts, its segment after its last part, a tick every 100 ms. Each rung runs late by its own
/// amount, which moves over time (`lateness`); episodes stall one rung, fail it, or stall the
/// camera. What the core decided is kept (the sink's entries, the parts' headers, refusals) for
/// `PublishingInvariants` to judge.
struct StreamSimulation {
    struct Episode {
        enum Kind { case late(seconds: Double), stall, failure, cameraStall }
        var kind: Kind
        /// The rung it happens to (ignored for `cameraStall`).
        var variant: String
        var start: Double
        var length: Double
        var end: Double { start + length }
    }

    let variants = ["720p", "540p", "360p"]
    let d = 2.0
    let partsPerSegment = 4
    let grace = 1.0
    let slots: Int
    let start = 100.0
    let epoch = Date(timeIntervalSince1970: 1_800_000_000)
    var episodes: [Episode]
    /// Each rung's lateness when nothing happens to it.
    var baseLateness: [String: Double]

    /// What the core decided.
    let sink = RecordingSink()
    /// The header each part went out under, by variant and slot (the first part's).
    var published: [String: [Int: PlannedEntry]] = [:]
    /// How many parts of each slot each variant published.
    var partsPublished: [String: [Int: Int]] = [:]
    /// Every refused segment: variant, slot, when it came.
    var refused: [(variant: String, slot: Int, at: Double, arrival: LiveStreamCore.Arrival)] = []
    /// When each rung's segment for a slot came, for the slots it made.
    var made: [String: [Int: Double]] = [:]

    /// How late `variant`'s output is at media time `t` (seconds after the start): its base
    /// plus every late episode, rising to its peak over half its length and falling back
    /// (never faster than real time, so its output keeps its order).
    func lateness(of variant: String, at t: Double) -> Double {
        var late = baseLateness[variant] ?? 0.1
        for episode in episodes where episode.variant == variant {
            guard case let .late(peak) = episode.kind, t > episode.start, t < episode.end else { continue }
            let half = episode.length / 2
            late += peak * (1 - abs(t - episode.start - half) / half)
        }
        return late
    }

    /// Whether `variant` makes nothing at wall time `t` (a stall of it or of the camera, or its
    /// encoder failed).
    func isGone(_ variant: String, at t: Double) -> Bool {
        episodes.contains { episode in
            switch episode.kind {
            case .late: false
            case .stall, .failure: episode.variant == variant && t >= start + episode.start && t < start + episode.end
            case .cameraStall: t >= start + episode.start && t < start + episode.end
            }
        }
    }

    enum Event {
        case progress(String)
        case part(String, slot: Int, index: Int)
        case segment(String, slot: Int)
        case failed(String)
    }

    /// Every event of the run, in time order (ties keep the order they were made in).
    func events() -> [(at: Double, event: Event)] {
        var events: [(at: Double, event: Event)] = []
        let partLength = d / Double(partsPerSegment)
        for variant in variants {
            // Progress a quarter second apart, at the time each piece of media comes out.
            var media = 0.0
            while media < Double(slots) * d {
                let at = start + media + lateness(of: variant, at: media)
                if !isGone(variant, at: at) { events.append((at, .progress(variant))) }
                media += 0.25
            }
            for slot in 0..<slots {
                var whole = true
                for index in 0..<partsPerSegment {
                    let end = Double(slot) * d + Double(index + 1) * partLength
                    let at = start + end + lateness(of: variant, at: end)
                    // Output made while gone is lost; its segment is never finished.
                    if isGone(variant, at: at) { whole = false; break }
                    events.append((at, .part(variant, slot: slot, index: index)))
                }
                let end = Double(slot + 1) * d
                let at = start + end + lateness(of: variant, at: end) + 0.001
                if whole && !isGone(variant, at: at) { events.append((at, .segment(variant, slot: slot))) }
            }
        }
        for episode in episodes {
            if case .failure = episode.kind { events.append((start + episode.start, .failed(episode.variant))) }
        }
        return events.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
    }

    /// Runs the stream through its events and ticks; `stalledAfter` is the core's setting
    /// (0 gives back the rule before issue 44: every late slot filled at its deadline).
    mutating func run(stalledAfter: Double = EncoderLiveness.defaultStalledAfter) {
        let settings = SlotPublisher.Settings(variants: variants, segmentDuration: d, grace: grace, onVariantFailure: .sibling, onLateSegment: .standin,
                                              standInsMatchTheEncoding: true, stalledAfter: stalledAfter, alignsDiscontinuities: true)
        @Carried(into: sink) var core = LiveStreamCore(slots: SlotPublisher(settings: settings, now: start, wallNow: epoch), onInputLoss: .slate)
        _ = core.beginRun(now: start)
        var nextTick = start + 0.1
        for (at, event) in events() {
            while nextTick <= at {
                core.tick(now: nextTick)
                nextTick += 0.1
            }
            switch event {
            case let .progress(variant):
                core.encoderProgressed(variant: variant, now: at)
            case let .part(variant, slot, index):
                if let entry = core.partArrived(variant: variant, slot: slot, part: .init(index: index, duration: d / 4, independent: index == 0), programDateTime: date(of: slot, variant), now: at)?.entry,
                   published[variant, default: [:]][slot] == nil {
                    published[variant, default: [:]][slot] = entry
                }
                if published[variant]?[slot] != nil { partsPublished[variant, default: [:]][slot, default: 0] += 1 }
            case let .segment(variant, slot):
                made[variant, default: [:]][slot] = at
                let arrival = core.segmentArrived(variant: variant, slot: slot, duration: d, programDateTime: date(of: slot, variant), now: at)
                if case .listed = arrival { continue }
                refused.append((variant, slot, at, arrival))
            case let .failed(variant):
                core.variantFailed(variant)
            }
        }
        // Let the last slots settle.
        for _ in 0..<100 {
            core.tick(now: nextTick)
            nextTick += 0.1
        }
    }

    /// Capture time of a slot's first frame as a rung reports it: a few milliseconds apart from
    /// rung to rung (their encoders' own delays), so one date per slot is the core's doing.
    func date(of slot: Int, _ variant: String) -> Date {
        let skew = Double(variants.firstIndex(of: variant) ?? 0) * 0.003
        return epoch.addingTimeInterval(Double(slot) * d + skew)
    }
}

/// A small, fast generator with a seed, so every failing run can be run again.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
