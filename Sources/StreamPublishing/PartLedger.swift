import HLSPlaylist

/// Which parts (Low-Latency HLS) each variant's live playlist lists, decided beside the slots
/// (`SlotPublisher`): a part belongs to the segment being made only while that segment's slot
/// is the one the variant lists next and the camera, not the slate, fills it; when the slot's
/// entry is listed its parts move under the entry's media sequence number, and when a fill
/// takes the slot first (a stand-in, a sibling's segment, a GAP entry) its parts leave the
/// playlist. Only the newest entries keep their parts listed (`keep`), as the draft lets a
/// server drop them past three target durations.
///
/// Pure: plain values in, plain values out; the owner serialises calls (the stream's lock).
public struct PartLedger: Sendable, Equatable {
    /// One part as a playlist lists it.
    public struct Part: Sendable, Equatable {
        public var index: Int
        public var duration: Double
        public var independent: Bool
        /// A part of a GAP entry: listed with GAP=YES, never a file.
        public var gap: Bool

        public init(index: Int, duration: Double, independent: Bool, gap: Bool = false) {
            self.index = index
            self.duration = duration
            self.independent = independent
            self.gap = gap
        }
    }

    /// One variant's edge.
    public struct Edge: Sendable, Equatable {
        /// The segment being made: its slot and the parts made of it so far, in order.
        public internal(set) var open: OpenSegment?
        /// The parts of the newest listed entries, oldest first, by media sequence number.
        public internal(set) var listed: [ListedEntry] = []

        public struct OpenSegment: Sendable, Equatable {
            public var slot: Int
            public var parts: [Part]
        }

        public struct ListedEntry: Sendable, Equatable {
            public var sequence: Int
            public var parts: [Part]
        }

        /// The index of the next part of the segment being made (the preload hint's), or 0
        /// (the next segment's first) when nothing of it is listed yet.
        public var nextPartIndex: Int { open?.parts.count ?? 0 }
    }

    /// How many of the newest listed entries keep their parts in the playlist.
    public let keep: Int
    public private(set) var edges: [String: Edge] = [:]

    /// `keep`: at least one; three target durations' worth of segments is what the draft allows.
    public init(keep: Int) {
        self.keep = max(1, keep)
    }

    /// The entries whose parts stay listed for segments of `segmentDuration` and a target
    /// duration of `targetDuration`: those within three target durations of the live edge.
    public static func kept(targetDuration: Int, segmentDuration: Double) -> Int {
        guard segmentDuration > 0, segmentDuration.isFinite else { return 1 }
        return max(1, Int((Double(3 * max(targetDuration, 1)) / segmentDuration).rounded(.up)))
    }

    /// What to do with a part of `variant`'s segment for `slot`: true when it is listed (a new
    /// playlist version), false when it is not part of the segment being made.
    /// - `nextSlot`: the slot the variant lists next (`SlotPublisher.nextSlot(of:)`);
    /// - `camera`: the slot shows the camera (not the slate, not withheld during an outage).
    /// A part out of order (not the next index of its segment) is not listed: a part never
    /// stands where another should be.
    public mutating func partArrived(variant: String, slot: Int, part: Part, nextSlot: Int?, camera: Bool) -> Bool {
        guard camera, slot == nextSlot else { return false }
        var edge = edges[variant] ?? Edge()
        if edge.open?.slot != slot { edge.open = Edge.OpenSegment(slot: slot, parts: []) }
        guard part.index == edge.open?.parts.count else {
            edges[variant] = edge
            return false
        }
        edge.open?.parts.append(part)
        edges[variant] = edge
        return true
    }

    /// `variant`'s entry for `slot` was listed as media sequence number `sequence`: `real` when
    /// it is the variant's own segment (its parts move under the entry), false for a fill (the
    /// parts made for the slot leave the playlist).
    public mutating func entryListed(variant: String, slot: Int, sequence: Int, real: Bool) {
        var edge = edges[variant] ?? Edge()
        if let open = edge.open, open.slot <= slot {
            if open.slot == slot, real, !open.parts.isEmpty { edge.listed.append(Edge.ListedEntry(sequence: sequence, parts: open.parts)) }
            edge.open = nil
        }
        // Only the newest entries keep their parts; an entry listed without parts (a fill, a
        // segment made before parts) still pushes the oldest out of the window.
        edge.listed.removeAll { $0.sequence <= sequence - keep }
        edges[variant] = edge
    }

    /// `variant`'s entry for `slot` was listed as an EXT-X-GAP entry of `duration` seconds: as
    /// the draft asks, its parts are listed with GAP=YES (a player in low-latency mode skips
    /// them as it skips the entry), `settings.partsPerSegment` of them, each at most PART-TARGET.
    /// The parts made for the slot, if any, leave the playlist as for any fill.
    public mutating func gapListed(variant: String, slot: Int, sequence: Int, duration: Double, settings: Settings) {
        entryListed(variant: variant, slot: slot, sequence: sequence, real: false)
        let parts = Self.gapParts(duration: duration, settings: settings)
        guard !parts.isEmpty else { return }
        edges[variant, default: Edge()].listed.append(Edge.ListedEntry(sequence: sequence, parts: parts))
    }

    /// The parts of a GAP entry of `duration` seconds: `settings.partsPerSegment` of them, each
    /// at most PART-TARGET (none for a duration that is not a positive number).
    public static func gapParts(duration: Double, settings: Settings) -> [Part] {
        let count = settings.partsPerSegment
        let each = min(max(duration, 0) / Double(count), settings.partTarget)
        guard each > 0, each.isFinite else { return [] }
        return (0..<count).map { Part(index: $0, duration: each, independent: $0 == 0, gap: true) }
    }
}

extension PartLedger {
    /// What parts are listed at all: their target, and how many a segment is cut into.
    public struct Settings: Sendable, Equatable {
        /// `EXT-X-PART-INF:PART-TARGET` (`PartClock.partTarget`).
        public var partTarget: Double
        public var partsPerSegment: Int

        public init(partTarget: Double, partsPerSegment: Int) {
            self.partTarget = partTarget
            self.partsPerSegment = max(1, partsPerSegment)
        }
    }

    /// `variant`'s edge as a playlist renders it (without rendition reports, which the origin
    /// reads from the siblings): the listed entries' parts under their sequence numbers, the
    /// parts of the segment being made, which will be entry `nextSequence`, and the hint at
    /// the part after the last one (the next segment's first once the segment being made has
    /// all its parts). Parts are named by their segment (`PartialSegment.recordedURI`).
    public func edge(of variant: String, nextSequence: Int, settings: Settings) -> LowLatencyEdge {
        let held = edges[variant] ?? Edge()
        var byEntry: [Int: [PartialSegment]] = [:]
        for entry in held.listed { byEntry[entry.sequence] = Self.rendered(entry.parts, of: entry.sequence) }
        let open = held.open.map { Self.rendered($0.parts, of: nextSequence) } ?? []
        let hinted = open.count < settings.partsPerSegment ? (nextSequence, open.count) : (nextSequence + 1, 0)
        let hint = PreloadHint(uri: PartialSegment.recordedURI(segment: MediaSegment.recordedName(sequence: hinted.0), index: hinted.1))
        return LowLatencyEdge(partTarget: settings.partTarget, partsPerSegment: settings.partsPerSegment, listedParts: byEntry, openParts: open, hint: hint)
    }

    /// `parts` of entry `sequence` as a playlist lists them, named by their segment
    /// (`PartialSegment.recordedURI`).
    public static func rendered(_ parts: [Part], of sequence: Int) -> [PartialSegment] {
        let segment = MediaSegment.recordedName(sequence: sequence)
        return parts.map { PartialSegment(uri: PartialSegment.recordedURI(segment: segment, index: $0.index), duration: $0.duration, independent: $0.independent, gap: $0.gap) }
    }
}
