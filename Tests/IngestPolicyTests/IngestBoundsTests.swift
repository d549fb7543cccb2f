import IngestPolicy
import OriginPolicy
import Testing

/// Each bound of `ingest` as rows: what is in use, what is asked, the answer.
@Suite struct IngestBoundsTests {
    let bounds = IngestBounds(maxUploadsInFlight: 2, maxBufferedBytes: 1000, maxPendingSegments: 3, maxUnplacedSegments: 1)

    @Test(arguments: [(0, nil), (1, nil), (2, 503), (99, 503)] as [(Int, Int?)])
    func uploadsInFlight(inFlight: Int, status: Int?) {
        let refusal = bounds.refusal(uploadsInFlight: inFlight)
        #expect(refusal?.status == status)
        if let refusal { #expect(refusal.retryAfter == IngestBounds.retryAfter && refusal.reason.contains("ingest.max_uploads_in_flight")) }
    }

    @Test(arguments: [(0, 1000, nil), (600, 400, nil), (600, 401, 503), (0, 1001, 503), (.max, 1, 503), (10, -5, nil)] as [(Int, Int, Int?)])
    func bytesBuffered(buffered: Int, more: Int, status: Int?) {
        #expect(bounds.refusal(buffering: more, buffered: buffered)?.status == status)
    }

    @Test(arguments: [(0, false, nil), (2, false, nil), (3, false, 503), (3, true, nil), (50, true, nil)] as [(Int, Bool, Int?)])
    func pendingSegments(pending: Int, replacing: Bool, status: Int?) {
        #expect(bounds.refusal(pendingSegments: pending, replacing: replacing)?.status == status)
    }

    @Test func unplacedSegmentsAreKeptUpToTheBound() {
        #expect(bounds.keepsUnplaced(alreadyKept: 0))
        #expect(!bounds.keepsUnplaced(alreadyKept: 1))
        #expect(!IngestBounds(maxUnplacedSegments: 0).keepsUnplaced(alreadyKept: 0))
    }

    /// Each pushed stream's share of the bounds: equal, at least two uploads and one largest
    /// upload's bytes, never more than the whole.
    @Test(arguments: [
        (16, 256 << 20, 1, 16, 256 << 20), (16, 256 << 20, 2, 8, 128 << 20), (16, 256 << 20, 8, 2, 64 << 20),
        (16, 256 << 20, 100, 2, 64 << 20), (1, 1000, 4, 1, 1000), (4, 1 << 30, 0, 4, 1 << 30),
    ] as [(Int, Int, Int, Int, Int)])
    func shares(uploads: Int, bytes: Int, streams: Int, shareUploads: Int, shareBytes: Int) {
        let share = IngestBounds(maxUploadsInFlight: uploads, maxBufferedBytes: bytes).share(among: streams)
        #expect(share.maxUploadsInFlight == shareUploads)
        #expect(share.maxBufferedBytes == shareBytes)
    }

    /// A share's refusal says it is this stream's part of the configured bound.
    @Test func aSharesRefusalNamesItsShare() throws {
        let share = IngestBounds(maxUploadsInFlight: 16).share(among: 8)
        let refusal = try #require(share.refusal(uploadsInFlight: 2))
        #expect(refusal.reason.contains("of this stream") && refusal.reason.contains("shared equally among 8 pushed streams"), "\(refusal.reason)")
        #expect(IngestBounds(maxUploadsInFlight: 16).refusal(uploadsInFlight: 16)?.reason.contains("shared") == false)
    }
}
