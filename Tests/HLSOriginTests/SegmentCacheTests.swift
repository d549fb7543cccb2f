@testable import HLSOrigin
import NIOCore
import Testing

@Suite struct SegmentCacheTests {
    static func buffer(_ size: Int) -> ByteBuffer { ByteBuffer(repeating: 0x47, count: size) }

    @Test func theLeastRecentlyUsedGoFirstAndTheBudgetHolds() {
        let cache = SegmentCache(budget: 8000) // one entry at most 1000 bytes
        for i in 0..<8 { cache.insert(Self.buffer(1000), for: "s\(i)") }
        #expect(cache.statistics.bytes == 8000)
        #expect(cache.bytes(of: "s0") != nil) // s0 is now the most recent
        cache.insert(Self.buffer(1000), for: "s8")
        #expect(cache.bytes(of: "s1") == nil, "s1 was the least recently used")
        #expect(cache.bytes(of: "s0") != nil && cache.bytes(of: "s8") != nil)
        #expect(cache.statistics.bytes <= 8000 && cache.statistics.entries == 8)
        // Replacing an entry does not count it twice.
        cache.insert(Self.buffer(1000), for: "s8")
        #expect(cache.statistics.bytes == 8000)
    }

    @Test func largeOrEmptyEntriesAndAZeroBudgetAreNotKept() {
        let cache = SegmentCache(budget: 8000)
        cache.insert(Self.buffer(1001), for: "big")
        cache.insert(Self.buffer(0), for: "empty")
        #expect(cache.statistics.entries == 0)
        let off = SegmentCache(budget: 0)
        off.insert(Self.buffer(10), for: "x")
        #expect(off.bytes(of: "x") == nil)
    }

    @Test func theCachedBufferIsSharedNotCopied() {
        let cache = SegmentCache(budget: 8000)
        let original = Self.buffer(500)
        cache.insert(original, for: "s")
        let a = cache.bytes(of: "s")!, b = cache.bytes(of: "s")!
        a.withUnsafeReadableBytes { pa in
            b.withUnsafeReadableBytes { pb in #expect(pa.baseAddress == pb.baseAddress) }
        }
        #expect(cache.statistics.hits == 2)
    }

    @Test func requestsArrivingWhileASegmentIsReadWaitForThatOneRead() async throws {
        let cache = SegmentCache(budget: 8000)
        let reads = Reads()
        let buffers = try await withThrowingTaskGroup(of: ByteBuffer.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    try await cache.bytes(of: "new") {
                        await reads.count()
                        try await Task.sleep(for: .milliseconds(50)) // a read that takes a while
                        return Self.buffer(500)
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(await reads.total == 1)
        #expect(buffers.count == 50 && buffers.allSatisfy { $0.readableBytes == 500 })
        #expect(cache.bytes(of: "new") != nil, "kept for the next request")
        // A failed read is not kept, and the next request reads again.
        await #expect(throws: CancellationError.self) { try await cache.bytes(of: "bad") { throw CancellationError() } }
        #expect(try await cache.bytes(of: "bad") { Self.buffer(10) }.readableBytes == 10)
    }

    actor Reads {
        var total = 0
        func count() { total += 1 }
    }
}
