/// Which timeline slot each playlist entry is: a run of entries takes consecutive slots, and a
/// new run begins where slots were skipped (the server was down, or nothing filled a stalled
/// stream's slots). Kept with the recording (`timeline.json`), so a restarted process knows
/// the media time of what it recorded and continues the timeline from there.
public struct StreamTimeline: Sendable, Equatable, Codable {
    public struct Run: Sendable, Equatable, Codable {
        public var firstEntry: Int
        public var firstSlot: Int
        public init(firstEntry: Int, firstSlot: Int) {
            self.firstEntry = firstEntry
            self.firstSlot = firstSlot
        }
    }

    /// Oldest first; the first run starts at entry 0.
    public private(set) var runs: [Run]

    public init(runs: [Run] = [Run(firstEntry: 0, firstSlot: 0)]) {
        self.runs = runs.isEmpty ? [Run(firstEntry: 0, firstSlot: 0)] : runs
    }

    public func slot(ofEntry entry: Int) -> Int {
        let run = runs.last { $0.firstEntry <= entry } ?? runs[0]
        return run.firstSlot + (entry - run.firstEntry)
    }

    /// The entry that slot `slot` is (or will be), given `entries` listed so far.
    public func entry(ofSlot slot: Int) -> Int? {
        guard let run = runs.last(where: { $0.firstSlot <= slot }) else { return nil }
        return run.firstEntry + (slot - run.firstSlot)
    }

    /// Entry `entry` (the next one to be listed) takes slot `slot`, after a skip.
    public mutating func skip(toSlot slot: Int, atEntry entry: Int) {
        precondition(slot >= self.slot(ofEntry: entry), "the timeline never goes back")
        if let last = runs.last, last.firstEntry == entry {
            runs[runs.count - 1].firstSlot = slot
        } else {
            runs.append(Run(firstEntry: entry, firstSlot: slot))
        }
    }
}
