import HLSPlaylist

/// Where a request for a part (Low-Latency HLS) finds its bytes, over plain values: the parts
/// of the segment being made are in memory (the registry keeps them), and once their segment
/// is listed each is a byte range of the segment's file, which is exactly its parts one after
/// another. Kept for the newest `keptEntries` parted entries: far longer than a playlist lists
/// their parts (three target durations), as the draft asks of a server.
public struct PartIndex: Sendable, Equatable {
    /// The segment being made: its name (`000123.ts`) and its parts' sizes so far, in order.
    public struct Open: Sendable, Equatable {
        public let sequence: Int
        public let segment: String
        public internal(set) var sizes: [Int]
    }

    public private(set) var open: Open?
    /// Each parted entry's parts as ranges of its file, by segment name; `order` oldest first.
    public private(set) var ranges: [String: [Range<Int>]] = [:]
    private var order: [String] = []

    /// How many of the newest parted entries keep their parts downloadable: 16 segments (32 s
    /// at 2 s), where a playlist lists parts for three target durations at most.
    public static let keptEntries = 16

    public init() {}

    /// Where one part is.
    public enum Location: Sendable, Equatable {
        /// In memory, with the segment being made (`OriginChange.part` brought its bytes).
        case open(sequence: Int)
        /// Bytes `range` of the listed segment's file.
        case file(segment: String, range: Range<Int>)
    }

    /// Part `index` of the segment named `segment`, if it was published.
    public func locate(segment: String, index: Int) -> Location? {
        if let open, open.segment == segment { return index < open.sizes.count ? .open(sequence: open.sequence) : nil }
        guard let parts = ranges[segment], index >= 0, index < parts.count else { return nil }
        return .file(segment: segment, range: parts[index])
    }

    /// Part `index` of segment `sequence` was published. False (nothing changes) when it is
    /// not the next part of the segment being made: a part never stands where another should.
    mutating func opened(_ sequence: Int, index: Int, size: Int) -> Bool {
        if open?.sequence != sequence {
            guard index == 0 else { return false }
            open = Open(sequence: sequence, segment: MediaSegment.recordedName(sequence: sequence), sizes: [])
        }
        guard index == open?.sizes.count, size >= 0 else { return false }
        open?.sizes.append(size)
        return true
    }

    /// A version listing entries up to `last` was published with `edge`: the segment being
    /// made, once listed, keeps its parts as ranges of its file when the edge lists them under
    /// it (its own segment; a fill's entry drops them), and the oldest beyond `keptEntries` go.
    mutating func listed(through last: Int, edge: LowLatencyEdge?) {
        guard let made = open, made.sequence <= last else { return }
        open = nil
        // Its own segment only: a fill lists none of these parts, a GAP entry lists GAP parts.
        guard made.sequence == last, let listed = edge?.listedParts[made.sequence], listed.count == made.sizes.count, !listed.contains(where: \.gap) else { return }
        var offset = 0
        var parts: [Range<Int>] = []
        for size in made.sizes {
            // Sizes are what this process's muxer cut: bounded by a segment's bytes.
            parts.append(offset..<(offset + size))
            offset += size
        }
        ranges[made.segment] = parts
        order.append(made.segment)
        while order.count > Self.keptEntries { ranges.removeValue(forKey: order.removeFirst()) }
    }
}
