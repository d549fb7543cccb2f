import HLSPlaylist

/// The stream core's account of where each variant's playlist ends: the media sequence number
/// every entry gets, and the parts (Low-Latency HLS) listed at the live edge (`PartLedger`).
/// One owner for a part's position: its slot, its sequence number and its listing are decided
/// together, under the core's lock, and leave it in the core's effects, which the writer
/// carries out as given (an entry the disk could not hold is the writer's to mark: it lists it
/// as EXT-X-GAP, and its parts as GAP parts, `PartLedger.gapParts`).
///
/// Entry i of a variant (counted from the recording's first, earlier processes' included) is
/// media sequence number `firstSequence + i`, from that variant's own first number: an EVENT
/// playlist never drops an entry, and the recorder aligns its variants' entries at start
/// (`StreamRecorder`), so this is the recorder's number.
public struct EdgeLedger: Sendable, Equatable {
    /// The sequence number of entry 0: 0, the recorded playlist's EXT-X-MEDIA-SEQUENCE, or the
    /// slot a new recording on the universal grid begins at (`numberFrom(slot:)`).
    public private(set) var firstSequence: Int
    /// A restored variant's own first number, where the recording gives one: variants recorded
    /// apart keep theirs, and numbering them all from one would list their parts under
    /// numbers their playlists never reach.
    private var variantFirstSequences: [String: Int]
    /// What parts are listed (nil: the stream lists none).
    public let parts: PartLedger.Settings?
    public private(set) var ledger: PartLedger

    /// `kept`: how many of the newest entries keep their parts listed (`PartLedger.kept`).
    public init(firstSequence: Int = 0, variantFirstSequences: [String: Int] = [:], parts: PartLedger.Settings?, kept: Int = 1) {
        self.firstSequence = firstSequence
        self.variantFirstSequences = variantFirstSequences
        self.parts = parts
        ledger = PartLedger(keep: kept)
    }

    /// A part as the core lists it: the entry its slot's header lines promise, the sequence
    /// number its segment will be listed as, and the edge the playlist renders with it.
    public struct PartListing: Sendable, Equatable {
        public var entry: PlannedEntry
        public var sequence: Int
        /// Nil when the stream lists no parts (the entry is promised all the same).
        public var edge: LowLatencyEdge?
    }

    /// The recording is empty and begins at `slot` of the universal grid.
    mutating func numberFrom(slot: Int) {
        firstSequence = slot
        variantFirstSequences = [:]
    }

    /// Numbered as `restored` was (from 0 for a new recording).
    init(restored: RestoredRecording?, parts: PartLedger.Settings?, kept: Int) {
        self.init(firstSequence: restored?.firstSequence ?? 0, variantFirstSequences: restored?.variantFirstSequences ?? [:], parts: parts, kept: kept)
    }

    /// The sequence number of `variant`'s entry `index` (0 the recording's first).
    func sequence(ofEntry index: Int, in variant: String) -> Int {
        (variantFirstSequences[variant] ?? firstSequence) + index
    }

    /// Entry `entry` of `variant` is listed as entry `index`: its own segment's parts move under
    /// it; a fill's leave the playlist; a GAP entry lists GAP parts. The edge its publication
    /// carries (nil without parts).
    mutating func listed(_ entry: PlannedEntry, asEntry index: Int, in variant: String) -> LowLatencyEdge? {
        guard let parts else { return nil }
        let sequence = sequence(ofEntry: index, in: variant)
        switch entry.content {
        case .gap: ledger.gapListed(variant: variant, slot: entry.slot, sequence: sequence, duration: entry.duration, settings: parts)
        case .real, .listedParts: ledger.entryListed(variant: variant, slot: entry.slot, sequence: sequence, real: true)
        case .sibling, .standIn: ledger.entryListed(variant: variant, slot: entry.slot, sequence: sequence, real: false)
        }
        return ledger.edge(of: variant, nextSequence: sequence + 1, settings: parts)
    }

    /// GAP entries listed together from entry `firstIndex` on: the edge after the last.
    mutating func listedGaps(_ entries: [PlannedEntry], fromEntry firstIndex: Int, in variant: String) -> LowLatencyEdge? {
        guard let parts, !entries.isEmpty else { return nil }
        for (offset, entry) in entries.enumerated() {
            ledger.gapListed(variant: variant, slot: entry.slot, sequence: sequence(ofEntry: firstIndex + offset, in: variant), duration: entry.duration, settings: parts)
        }
        return ledger.edge(of: variant, nextSequence: sequence(ofEntry: firstIndex + entries.count, in: variant), settings: parts)
    }

    /// A part of `variant`'s segment for `entry.slot` (the entry the core promised it under),
    /// the variant having listed `entries` entries: listed unless it is out of order.
    mutating func partArrived(_ part: PartLedger.Part, of variant: String, under entry: PlannedEntry, entries: Int) -> PartListing? {
        let sequence = sequence(ofEntry: entries, in: variant)
        guard let parts else { return PartListing(entry: entry, sequence: sequence, edge: nil) }
        guard ledger.partArrived(variant: variant, slot: entry.slot, part: part, nextSlot: entry.slot, camera: true) else { return nil }
        var edge = ledger.edge(of: variant, nextSequence: sequence, settings: parts)
        // The slot's header lines go before its parts, as they will stand before its EXTINF.
        edge.openProgramDateTime = entry.programDateTime
        edge.openDiscontinuity = entry.discontinuity
        edge.openDateRanges = entry.dateRanges
        return PartListing(entry: entry, sequence: sequence, edge: edge)
    }
}
