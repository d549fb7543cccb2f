import OriginPolicy

/// What remote encoders may make the server hold (`ingest` in the config): uploads in flight
/// and the bytes of their bodies in memory (all pushed streams together), segments a pushed
/// stream keeps received and not yet listed, and segments kept aside with no slot. Pure: the
/// callers pass what is in use now.
///
/// Why: any holder of an ingest token (or anyone who reads it off plain-HTTP ingest) could
/// make the server buffer any number of 64 MiB uploads at once and keep any number of
/// segments no playlist ever lists.
public struct IngestBounds: Sendable, Equatable {
    public var maxUploadsInFlight: Int
    public var maxBufferedBytes: Int
    /// Segments received and not yet listed, per pushed stream (every variant together).
    public var maxPendingSegments: Int
    /// Segments kept under `unplaced/`, per pushed stream and variant.
    public var maxUnplacedSegments: Int
    /// How many pushed streams share the first two bounds (`share(among:)`); 1 for the whole server's.
    public var sharedAmong = 1

    /// The defaults of `Config/sideline.yaml`.
    public init(maxUploadsInFlight: Int = 16, maxBufferedBytes: Int = 256 << 20, maxPendingSegments: Int = 64, maxUnplacedSegments: Int = 256) {
        self.maxUploadsInFlight = maxUploadsInFlight
        self.maxBufferedBytes = maxBufferedBytes
        self.maxPendingSegments = maxPendingSegments
        self.maxUnplacedSegments = maxUnplacedSegments
    }

    /// Seconds an encoder is told to wait: about a segment's duration, the time in which
    /// uploads in flight finish.
    public static let retryAfter = 2

    /// The largest upload taken: a segment of a few seconds at a venue's highest bit rates is
    /// a few megabytes; this leaves ten times that.
    public static let largestUpload = 64 << 20

    /// What one of `streams` pushed streams may hold of the uploads in flight and their bytes:
    /// an equal share, and never less than two uploads (a segment and its playlist) and one
    /// largest upload (or the whole bound when it is smaller). So a stream whose uploads stall
    /// or pile up refuses its own (503), never another stream's (issue 33: one stream could
    /// hold every place in flight). The whole server's bounds hold besides.
    public func share(among streams: Int) -> IngestBounds {
        let streams = max(1, streams)
        var share = self
        share.maxUploadsInFlight = min(maxUploadsInFlight, max(2, maxUploadsInFlight / streams))
        share.maxBufferedBytes = min(maxBufferedBytes, max(Self.largestUpload, maxBufferedBytes / streams))
        share.sharedAmong = streams
        return share
    }

    /// 503 when one more upload would pass `maxUploadsInFlight`, given `inFlight` now.
    public func refusal(uploadsInFlight inFlight: Int) -> Refusal? {
        guard inFlight >= maxUploadsInFlight else { return nil }
        return Refusal(.overloaded, "\(inFlight) uploads \(sharedAmong > 1 ? "of this stream " : "")are being received, the most at once (ingest.max_uploads_in_flight\(shareText)); try again shortly",
                       retryAfter: Self.retryAfter, audience: .operators)
    }

    /// 503 when `more` bytes of an upload's body would pass `maxBufferedBytes`, given the bytes
    /// `buffered` by every upload now (this one's so far included).
    public func refusal(buffering more: Int, buffered: Int) -> Refusal? {
        let (total, overflow) = buffered.addingReportingOverflow(max(0, more))
        guard overflow || total > maxBufferedBytes else { return nil }
        return Refusal(.overloaded, "uploads \(sharedAmong > 1 ? "of this stream " : "")in flight hold \(maxBufferedBytes >> 20) MiB, the most at once (ingest.max_buffered_mb\(shareText)); try again shortly",
                       retryAfter: Self.retryAfter, audience: .operators)
    }

    /// 503 when a stream already keeps `pending` segments received and not listed: its encoder
    /// must send a playlist that lists them before more segments are taken. `replacing`: the
    /// upload has the name of one of them (it takes no more room).
    public func refusal(pendingSegments pending: Int, replacing: Bool) -> Refusal? {
        guard !replacing, pending >= maxPendingSegments else { return nil }
        return Refusal(.overloaded, "\(pending) segments are received and not yet listed by a playlist, the most kept (ingest.max_pending_segments): upload the playlist that lists them",
                       retryAfter: Self.retryAfter, audience: .operators)
    }

    /// How a share's refusal names its bound: one stream's part of the configured one.
    private var shareText: String { sharedAmong > 1 ? ", shared equally among \(sharedAmong) pushed streams" : "" }

    /// Whether one more segment with no slot may be kept aside, given `kept` of them already.
    public func keepsUnplaced(alreadyKept kept: Int) -> Bool { kept < maxUnplacedSegments }
}
