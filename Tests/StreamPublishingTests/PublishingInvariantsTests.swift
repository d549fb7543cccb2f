import Foundation
import HLSPlaylist
import SidelineCore
import StreamPublishing
import Testing

/// Issue 44's invariants as properties of a stream's core, over many simulated runs in which
/// rungs run late on purpose (past the grace, by up to four seconds), stall, fail and come back,
/// and the camera stalls (`StreamSimulation`): milliseconds each, every run from a seed.
@Suite struct PublishingInvariantsTests {
    /// What went wrong in one run, one line each.
    static func violations(of run: StreamSimulation) -> [String] {
        var found: [String] = []
        let entries = run.sink.entries
        // 1. A published line never changes: the parts' header is the entry's, and the entry is
        //    the parts (the rung's own segment, or those parts if it stopped inside it).
        for (variant, headers) in run.published {
            for (slot, header) in headers {
                guard let entry = entries[variant]?.first(where: { $0.slot == slot }) else { continue }
                if entry.content != .real && entry.content != .listedParts { found.append("\(variant) slot \(slot): parts published, then listed as \(entry.content)") }
                if entry.discontinuity != header.discontinuity || entry.dateRanges != header.dateRanges || entry.programDateTime != header.programDateTime {
                    found.append("\(variant) slot \(slot): header changed after its parts (\(header.discontinuity) -> \(entry.discontinuity), \(header.dateRanges.count) -> \(entry.dateRanges.count) date ranges)")
                }
            }
        }
        // 2, 5. Every variant lists the same slots in the same order, with the same tag and date.
        let count = run.variants.map { entries[$0]?.count ?? 0 }.min() ?? 0
        for index in 0..<count {
            let row = run.variants.map { entries[$0]![index] }
            if Set(row.map(\.slot)).count != 1 { found.append("entry \(index): slots \(row.map(\.slot))") }
            if Set(row.map(\.discontinuity)).count != 1 { found.append("slot \(row[0].slot): discontinuity \(row.map(\.discontinuity)) across \(run.variants)") }
            if Set(row.map(\.programDateTime)).count != 1 { found.append("slot \(row[0].slot): dates differ across variants") }
        }
        // 4. A rung whose encoder kept making pictures is never filled: each segment it made
        //    takes its slot, unless it was gone (stalled, failed, the camera stalled) within a
        //    segment and a second before the segment came.
        for refusal in run.refused {
            let from = refusal.at - 3 * run.d - 2
            let wasGone = stride(from: from, through: refusal.at, by: 0.05).contains { run.isGone(refusal.variant, at: $0) }
            if !wasGone { found.append("\(refusal.variant) slot \(refusal.slot): made while on air, refused (\(refusal.arrival))") }
        }
        for variant in run.variants {
            for entry in entries[variant] ?? [] where entry.content.fillName != nil || entry.content == .gap {
                let due = run.start + Double(entry.slot + 1) * run.d
                let goneNear = stride(from: due - 3 * run.d - 2, through: due + 6, by: 0.05).contains { run.isGone(variant, at: $0) }
                if !goneNear, run.made[variant]?[entry.slot] != nil { found.append("\(variant) slot \(entry.slot): \(entry.content) while its encoder made it") }
            }
        }
        return found
    }

    /// Entries after a hole in a rung's timestamps that carry no tag: what follows a segment
    /// cut at its published parts (its encoder stopped inside it) must carry
    /// EXT-X-DISCONTINUITY by its first entry with pictures. Untagged, GStreamer's hlsdemux2
    /// re-syncs in a loop and gives up.
    static func untaggedHoles(in run: StreamSimulation) -> [String] {
        var found: [String] = []
        let entries = run.sink.entries
        for variant in run.variants {
            let listed = entries[variant] ?? []
            for (index, entry) in listed.enumerated() where entry.content == .listedParts && (run.partsPublished[variant]?[entry.slot] ?? 0) < run.partsPerSegment {
                let after = listed[(index + 1)...].prefix { $0.content == .gap }.count + index + 1
                guard after < listed.count else { continue }
                if !listed[(index + 1)...after].contains(where: \.discontinuity) {
                    found.append("\(variant) slot \(listed[after].slot): untagged after the hole of slot \(entry.slot)'s cut segment")
                }
            }
        }
        return found
    }

    /// A run of 90 slots (three minutes) with episodes drawn from `seed`.
    static func run(seed: UInt64, stalledAfter: Double = EncoderLiveness.defaultStalledAfter) -> StreamSimulation {
        var random = SplitMix64(state: seed)
        let variants = ["720p", "540p", "360p"]
        var episodes: [StreamSimulation.Episode] = []
        var at = 6.0
        while at < 170 {
            let variant = variants.randomElement(using: &random)!
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<6:
                // A rung falls behind past its slot's deadline: 1.2 to 4 s at the worst.
                // One at a time per rung: two would add up to a slope past real time, which no
                // encoder has (its output would come out of order).
                let peak = Double.random(in: 1.2...4, using: &random)
                let episode = StreamSimulation.Episode(kind: .late(seconds: peak), variant: variant, start: at,
                                                       length: max(2.5 * peak, Double.random(in: 8...20, using: &random)))
                let overlaps = episodes.contains { if case .late = $0.kind { $0.variant == variant && $0.end > at } else { false } }
                if !overlaps { episodes.append(episode) }
            case 6..<8:
                episodes.append(.init(kind: .stall, variant: variant, start: at, length: Double.random(in: 2.5...7, using: &random)))
            case 8:
                episodes.append(.init(kind: .failure, variant: variant, start: at, length: Double.random(in: 3...9, using: &random)))
            default:
                episodes.append(.init(kind: .cameraStall, variant: variant, start: at, length: Double.random(in: 2.5...8, using: &random)))
            }
            at += Double.random(in: 4...16, using: &random)
        }
        var simulation = StreamSimulation(slots: 90, episodes: episodes, baseLateness: [
            "720p": Double.random(in: 0.2...0.6, using: &random), "540p": Double.random(in: 0.1...0.4, using: &random), "360p": Double.random(in: 0.05...0.2, using: &random),
        ])
        simulation.run(stalledAfter: stalledAfter)
        return simulation
    }

    @Test(arguments: 1...40)
    func invariantsHoldUnderAnyLoad(seed: UInt64) {
        let run = Self.run(seed: seed)
        let found = Self.violations(of: run)
        #expect(found.isEmpty, "seed \(seed): \(found.prefix(8).joined(separator: "; "))")
        // The runs are not empty: every rung listed most of its slots as its own segments.
        for variant in run.variants {
            let real = run.sink.entries[variant]?.filter { $0.content == .real }.count ?? 0
            #expect(real > 45, "seed \(seed): \(variant) listed \(real) own segments of 90")
        }
    }

    /// A failed rung's hole is tagged in every run (the seam is declared as it fails); a rung
    /// that falls silent inside a slot, cut at the slot's deadline when its siblings have opened
    /// the next slot, still leaves one untagged entry after its hole (issue 44, not mended: it
    /// needs the cut entry timed to its whole slot). Cutting a silent rung at its slot's end
    /// instead was tried and taken back: an input lost for `loss_timeout` (1 s) is silent that
    /// long before its slate frames finish the same segment, which the cut then shortened
    /// (InputLossEndToEndTests, the clean-clone CI of 7bafc4f).
    @Test(arguments: 1...40)
    func aHoleInARungIsTagged(seed: UInt64) {
        let run = Self.run(seed: seed)
        // The slot each failure fell in: its hole is tagged, always.
        let failedSlots = run.episodes.compactMap { episode -> String? in
            guard case .failure = episode.kind else { return nil }
            return "\(episode.variant) slot \(Int(episode.start / run.d) + 1):"
        }
        let failedHoles = Self.untaggedHoles(in: run).filter { line in failedSlots.contains { line.hasPrefix($0) } }
        #expect(failedHoles.isEmpty, "seed \(seed): \(failedHoles)")
        withKnownIssue("a rung silent near its slot's end leaves one untagged entry after its hole", isIntermittent: true) {
            #expect(Self.untaggedHoles(in: run).isEmpty, "seed \(seed): \(Self.untaggedHoles(in: run).prefix(4))")
        }
    }

    /// The properties catch what main did before issue 44: with every late slot filled at its
    /// deadline (an encoder that is only late counted as gone), late rungs show stand-ins, their
    /// published parts change, and their own segments are dropped.
    @Test func invariantsCatchFillingLateRungs() {
        let failing = (1...40).map { UInt64($0) }.filter { !Self.violations(of: Self.run(seed: $0, stalledAfter: 0)).isEmpty }
        #expect(failing.count > 30, "only \(failing.count) of 40 runs broke a property with fills at the deadline")
    }

    /// A rung made late on purpose, by hand: 3 s behind, past its 1 s grace, with its parts out.
    /// Its slot waits for it; the siblings carry on; nothing is filled.
    @Test func lateRungIsLateNotReplaced() {
        var simulation = StreamSimulation(slots: 12, episodes: [.init(kind: .late(seconds: 3), variant: "720p", start: 8, length: 12)],
                                          baseLateness: ["720p": 0.3, "540p": 0.2, "360p": 0.1])
        simulation.run()
        #expect(simulation.sink.shape("720p").hasPrefix(String(repeating: "R", count: 12)), "then stand-ins: the camera is gone after slot 11")
        #expect(simulation.refused.isEmpty)
        #expect(Self.violations(of: simulation).isEmpty)
        var old = StreamSimulation(slots: 12, episodes: simulation.episodes, baseLateness: simulation.baseLateness)
        old.run(stalledAfter: 0)
        // Filled at its deadline (the rule before issue 44): cut to its parts, then GAP entries.
        #expect(old.sink.shape("720p").prefix(12).contains { $0 != "R" && $0 != "|" }, "\(old.sink.shape("720p"))")
        #expect(old.refused.count > 0, "its own segments dropped")
    }

    /// A rung whose encoder stops inside a segment whose parts are out: the entry is those parts.
    @Test func encoderStoppingInsideASegmentListsItsParts() {
        // 720p stops 9.6 s in (slot 4, after its part 2), for 5 s.
        var simulation = StreamSimulation(slots: 10, episodes: [.init(kind: .stall, variant: "720p", start: 9.1, length: 5)],
                                          baseLateness: ["720p": 0.3, "540p": 0.2, "360p": 0.1])
        simulation.run()
        let entry = simulation.sink.entries["720p"]!.first { $0.slot == 4 }
        #expect(entry?.content == .listedParts, "\(simulation.sink.shape("720p"))")
        #expect(Self.violations(of: simulation).isEmpty, "\(Self.violations(of: simulation))")
    }
}
