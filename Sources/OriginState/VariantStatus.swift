extension OriginState {
    /// What `/api/streams` and the console say about a variant beside its playlists: what it
    /// recorded, when it last published, and what is wrong with it. Kept with the variant and
    /// changed only by `OriginState.apply`, so a publish counts a segment where it lists it.
    public struct VariantStatus: Sendable, Equatable {
        public var recorded = Recorded()
        /// Why the variant's encoder stopped, while it is failed; nil while healthy.
        public var failure: String?
        /// When this process last published an entry of this variant (registry clock).
        public var lastPublished: Double?
        /// The last write to the data directory that failed, while writes fail; nil when fine.
        public var writeError: String?
        /// How many effort steps below its configured preset the variant's encoder runs, and
        /// that step's name (`EncoderEffort`); 0 and nil while it runs as configured.
        public var effortStep = 0
        public var effortName: String?

        /// The status of a variant read back from disk: what its files add up to, nothing wrong yet.
        init(restoring segments: [String: SegmentFile]) {
            for file in segments.values { recorded.add(bytes: file.size, duration: file.duration) }
        }

        public init() {}
    }

    /// What a variant has recorded, for `/api/streams` and the logs.
    public struct Recorded: Sendable, Equatable {
        public var segments = 0
        public var duration = 0.0
        public var bytes = 0
        /// The highest bit rate of any one segment (bytes x 8 / duration).
        public var peakBitRate = 0.0

        mutating func add(bytes size: Int, duration: Double) {
            segments += 1
            self.duration += duration
            bytes += size
            if duration > 0 { peakBitRate = max(peakBitRate, Double(size * 8) / duration) }
        }

        public var averageBitRate: Double { duration > 0 ? Double(bytes * 8) / duration : 0 }
    }
}
