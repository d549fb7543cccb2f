import Foundation
import HLSPlaylist
import SidelineCore
import SidelineTesting
import StreamPublishing

/// A sink that keeps what the core decided, per variant, so tests read the playlists back.
/// `@unchecked Sendable`: each test drives its sink from its own single thread.
final class RecordingSink: PublishingSink, @unchecked Sendable {
    var entries: [String: [PlannedEntry]] = [:]
    var masters: [[String]] = []
    var timelines: [StreamTimeline] = []

    /// Each `listGaps` call's size, per variant (entries are kept in `entries` as `list`'s).
    var gapBatches: [String: [Int]] = [:]
    /// What `numberFrom(slot:)` said.
    var numberedFrom: Int?

    /// Each entry's media sequence number, and the edge each listing was published with.
    var sequences: [String: [Int]] = [:]
    var edges: [String: [LowLatencyEdge?]] = [:]

    func list(_ entry: PlannedEntry, in variant: String, sequence: Int, edge: LowLatencyEdge?) {
        entries[variant, default: []].append(entry)
        sequences[variant, default: []].append(sequence)
        edges[variant, default: []].append(edge)
    }
    func listGaps(_ gaps: [PlannedEntry], in variant: String, firstSequence: Int, edge: LowLatencyEdge?) {
        gapBatches[variant, default: []].append(gaps.count)
        entries[variant, default: []] += gaps
        sequences[variant, default: []] += gaps.indices.map { firstSequence + $0 }
        edges[variant, default: []].append(edge)
    }
    func numberFrom(slot: Int) { numberedFrom = slot }
    func masterChanged(listing variants: [String]) { masters.append(variants) }
    func timelineChanged(_ timeline: StreamTimeline) { timelines.append(timeline) }

    /// One letter per entry: R real, P its published parts, S stand-in, C sibling copy, G gap; '|' before a discontinuity.
    func shape(_ variant: String) -> String {
        (entries[variant] ?? []).map { entry in
            let letter: String
            switch entry.content {
            case .real: letter = "R"
            case .standIn: letter = "S"
            case .sibling: letter = "C"
            case .listedParts: letter = "P"
            case .gap: letter = "G"
            }
            return (entry.discontinuity ? "|" : "") + letter
        }.joined()
    }

    func slots(_ variant: String) -> [Int] { (entries[variant] ?? []).map(\.slot) }
}

/// A core whose effects are taken, after every call, into `sink`: what the server's runner does
/// with them (`StreamEffectRunner`), so a test reads the playlists back from the sink.
protocol TakesEffects {
    mutating func takeEffects() -> [PublishingEffect]
}

extension SlotPublisher: TakesEffects {}
extension LiveStreamCore: TakesEffects {}

@propertyWrapper
struct Carried<Core: TakesEffects> {
    private var core: Core
    let sink: RecordingSink

    init(wrappedValue: Core, into sink: RecordingSink) {
        core = wrappedValue
        self.sink = sink
        sink.carry(core.takeEffects())
    }

    var wrappedValue: Core {
        get { core }
        set {
            core = newValue
            sink.carry(core.takeEffects())
        }
        _modify {
            yield &core
            sink.carry(core.takeEffects())
        }
    }
}

/// Moves `clock` forward by `seconds` the way the server's ticker does: `tick` every 100 ms.
func advance(_ clock: ManualClock, by seconds: Double, tick: (Double) -> Void) {
    let end = clock.now + seconds
    while clock.now + 0.1 <= end + 1e-9 {
        clock.advance(by: 0.1)
        tick(clock.now)
    }
    clock.advance(by: max(0, end - clock.now))
}

/// Drives a core the way the server does: segments arrive D apart, ticks every 100 ms.
struct Drive {
    @Carried var core: SlotPublisher
    let sink: RecordingSink
    let clock: ManualClock
    var now: Double { clock.now }
    let epoch = Date(timeIntervalSince1970: 1_800_000_000)
    let d: Double

    init(variants: [String] = ["720p", "360p", "180p"], d: Double = 2, grace: Double = 1, failure: FailedVariantFill = .sibling, late: LateSegmentFill = .standin,
         restored: SlotPublisher.Restored? = nil, now: Double = 100, wallNow: Date? = nil, lateSegmentsReplaceFills: Bool = false, aligns: Bool = true) {
        let sink = RecordingSink()
        self.sink = sink
        self.d = d
        clock = ManualClock(now)
        let settings = SlotPublisher.Settings(variants: variants, segmentDuration: d, grace: grace, onVariantFailure: failure, onLateSegment: late,
                                              lateSegmentsReplaceFills: lateSegmentsReplaceFills, alignsDiscontinuities: aligns)
        _core = Carried(wrappedValue: SlotPublisher(settings: settings, restored: restored, now: now, wallNow: wallNow ?? Date(timeIntervalSince1970: 1_800_000_000 + now)),
                        into: sink)
    }

    var wallNow: Date { epoch.addingTimeInterval(now) }

    /// Moves time forward in 100 ms ticks.
    mutating func advance(_ seconds: Double) {
        StreamPublishingTests.advance(clock, by: seconds) { core.tick(now: $0) }
        core.tick(now: now)
    }

    /// A pipeline starts now and `variants` deliver slot 0 one segment duration later.
    mutating func startWithFirstSegment(of variants: [String]) {
        _ = core.beginRun(now: now)
        advance(d)
        deliver(0, variants)
    }

    /// Every named variant delivers `slot` now (capture time D before).
    @discardableResult
    mutating func deliver(_ slot: Int, _ variants: [String]) -> [SlotPublisher.Refusal?] {
        variants.map { core.segmentArrived(variant: $0, slot: slot, duration: d, programDateTime: wallNow.addingTimeInterval(-d), now: now) }
    }
}
