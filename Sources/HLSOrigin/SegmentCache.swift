import NIOCore
import Synchronization

/// The newest segments' bytes, kept in memory so that every player after the first is
/// answered without touching the file: the response is the cached buffer itself (or a slice
/// of it for a Range request), shared by reference and written to the socket as it is. No
/// per-request read, no per-request copy in user space.
///
/// Segments are immutable once listed, so an entry never goes stale; it is only evicted,
/// least recently used first, when the cache holds more than its budget. Players at the live
/// edge all fetch the same few segments, so a budget of a few minutes of the ladder serves
/// nearly every request; an analyst scrubbing back reads the file once and shares it too.
///
/// A segment that is not cached is read once however many requests ask for it at the same
/// time: players on blocking reload all learn of a new segment at the same instant.
///
/// Why not sendfile: tried from the fast path (`OriginWire` could write a `FileRegion`), it cost
/// more CPU per 1 MB answer than one write of the cached buffer (136.7 against 123.3 µs:
/// opening the file per answer, and a second call beside the head's); Docs/benchmarks.md,
/// "Issue 33: the bound on unsent bytes". `scripts/bench/run serve` measures segments served
/// this way against nginx with sendfile.
public final class SegmentCache: Sendable {
    /// Bytes the cache may hold; 0 turns it off.
    public let budget: Int
    private let state = Mutex(State())

    private struct State {
        var entries: [String: Entry] = [:]
        /// Reads under way, which later requests for the same path wait for.
        var loading: [String: Task<ByteBuffer, any Error>] = [:]
        var bytes = 0
        var clock: UInt64 = 0
        var hits = 0
        var misses = 0
    }

    private struct Entry {
        let buffer: ByteBuffer
        var lastUse: UInt64
    }

    public init(budget: Int) {
        self.budget = max(0, budget)
    }

    /// One segment may take at most this share of the budget, so one stray large file cannot
    /// empty the cache.
    var largestEntry: Int { budget / 8 }

    /// The cached bytes of `path`, if any.
    public func bytes(of path: String) -> ByteBuffer? { lookUp(path, countingMiss: true) }

    /// The cached bytes of `path`, if any, without counting a miss: for the event-loop fast
    /// path, which hands a miss to the router, whose read counts it.
    func cachedBytes(of path: String) -> ByteBuffer? { lookUp(path, countingMiss: false) }

    private func lookUp(_ path: String, countingMiss: Bool) -> ByteBuffer? {
        state.withLock { s in
            guard var entry = s.entries[path] else {
                if countingMiss { s.misses += 1 }
                return nil
            }
            s.clock += 1
            entry.lastUse = s.clock
            s.entries[path] = entry
            s.hits += 1
            return entry.buffer
        }
    }

    /// The bytes of `path`: cached, or read by `load`, once for all the requests that ask
    /// while it reads, and then kept.
    public func bytes(of path: String, loading load: @escaping @Sendable () async throws -> ByteBuffer) async throws -> ByteBuffer {
        if let cached = bytes(of: path) { return cached }
        let reading = state.withLock { s -> Task<ByteBuffer, any Error> in
            if let underway = s.loading[path] { return underway }
            let task = Task {
                do {
                    let buffer = try await load()
                    self.finishLoading(path, with: buffer)
                    return buffer
                } catch {
                    self.finishLoading(path, with: nil)
                    throw error
                }
            }
            s.loading[path] = task
            return task
        }
        return try await reading.value
    }

    private func finishLoading(_ path: String, with buffer: ByteBuffer?) {
        state.withLock { s in
            s.loading[path] = nil
            if let buffer { Self.keep(buffer, for: path, in: &s, budget: budget, largest: largestEntry) }
        }
    }

    /// Keeps `buffer` as the bytes of `path`, evicting the least recently used entries over
    /// the budget.
    public func insert(_ buffer: ByteBuffer, for path: String) {
        state.withLock { Self.keep(buffer, for: path, in: &$0, budget: budget, largest: largestEntry) }
    }

    private static func keep(_ buffer: ByteBuffer, for path: String, in s: inout State, budget: Int, largest: Int) {
        guard buffer.readableBytes <= largest, buffer.readableBytes > 0 else { return }
        if let old = s.entries[path] { s.bytes -= old.buffer.readableBytes }
        s.clock += 1
        s.entries[path] = Entry(buffer: buffer, lastUse: s.clock)
        s.bytes += buffer.readableBytes
        while s.bytes > budget, let oldest = s.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            s.bytes -= oldest.value.buffer.readableBytes
            s.entries.removeValue(forKey: oldest.key)
        }
    }

    public struct Statistics: Sendable, Equatable {
        public let entries: Int
        public let bytes: Int
        public let hits: Int
        public let misses: Int
    }

    public var statistics: Statistics {
        state.withLock { Statistics(entries: $0.entries.count, bytes: $0.bytes, hits: $0.hits, misses: $0.misses) }
    }
}
