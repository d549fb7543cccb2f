import OriginPolicy
import Testing

/// Which connection goes at the cap, and when a writer is timed out: rows of plain values,
/// the clock a number the test chooses.
@Suite struct ConnectionEvictionTests {
    typealias Connection = ConnectionEviction.Connection

    static func c(_ id: UInt64, _ address: String, _ activity: ConnectionEviction.Activity) -> Connection {
        Connection(id: id, address: address, activity: activity)
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var connections: [Connection]
        var victim: UInt64?
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "nothing open: nothing to take", connections: [], victim: nil),
        Row(name: "a stalled writer before an idle connection", connections: [c(1, "a", .idle(since: 0)), c(2, "b", .writing(lastProgress: 50))], victim: 2),
        Row(name: "an idle connection when no writer is stalled", connections: [c(1, "a", .writing(lastProgress: 99.5)), c(2, "b", .idle(since: 90))], victim: 2),
        Row(name: "never a busy connection", connections: [c(1, "a", .busy), c(2, "a", .busy)], victim: nil),
        Row(name: "never a writer making progress", connections: [c(1, "a", .writing(lastProgress: 99.2))], victim: nil),
        Row(name: "never a connection idle for less than the grace", connections: [c(1, "a", .idle(since: 99.5))], victim: nil),
        Row(name: "exactly the grace counts", connections: [c(1, "a", .idle(since: 99))], victim: 1),
        Row(name: "never a writer between two pieces of a slow read (1.2 s)", connections: [c(1, "a", .writing(lastProgress: 98.8))], victim: nil),
        Row(name: "a writer is stalled at exactly the stalled-writer time", connections: [c(1, "a", .writing(lastProgress: 98.5))], victim: 1),
        Row(name: "among stalled writers, the address holding more connections",
            connections: [c(1, "a", .writing(lastProgress: 10)), c(2, "b", .writing(lastProgress: 80)), c(3, "b", .busy)], victim: 2),
        Row(name: "same address count: the one stalled longest",
            connections: [c(1, "a", .writing(lastProgress: 80)), c(2, "b", .writing(lastProgress: 10))], victim: 2),
        Row(name: "among idle connections, the heaviest address, then the longest idle",
            connections: [c(1, "a", .idle(since: 0)), c(2, "b", .idle(since: 50)), c(3, "b", .idle(since: 40)), c(4, "b", .busy)], victim: 3),
        Row(name: "an idle connection of a heavy address does not beat a stalled writer of a light one",
            connections: [c(1, "a", .writing(lastProgress: 98)), c(2, "b", .idle(since: 0)), c(3, "b", .idle(since: 0))], victim: 1),
    ]

    @Test(arguments: rows)
    func victim(row: Row) {
        #expect(ConnectionEviction.victim(among: row.connections, now: 100) == row.victim)
    }

    @Test func severalVictimsComeLeastUsefulFirstAndNeverMoreThanQualify() {
        let connections = [Self.c(1, "a", .busy), Self.c(2, "a", .idle(since: 10)), Self.c(3, "b", .writing(lastProgress: 90)),
                           Self.c(4, "c", .writing(lastProgress: 20)), Self.c(5, "c", .idle(since: 99.9))]
        #expect(ConnectionEviction.victims(among: connections, now: 100, count: 2) == [4, 3])
        #expect(ConnectionEviction.victims(among: connections, now: 100, count: 10) == [4, 3, 2])
        #expect(ConnectionEviction.victims(among: connections, now: 100, count: 0) == [])
    }

    @Test func theWriteTimeoutCountsFromTheLastProgressNotFromTheStartOfTheAnswer() {
        // An answer written for 100 s whose last write completed 2 s ago: a slow reader, kept.
        #expect(!ConnectionEviction.writeTimedOut(.writing(lastProgress: 98), now: 100, timeout: 30))
        #expect(ConnectionEviction.writeTimedOut(.writing(lastProgress: 70), now: 100, timeout: 30))
        #expect(ConnectionEviction.writeTimedOut(.writing(lastProgress: 69), now: 100, timeout: 30))
        // Nothing to write: the idle timeout's business, not this one's.
        #expect(!ConnectionEviction.writeTimedOut(.idle(since: 0), now: 100, timeout: 30))
        #expect(!ConnectionEviction.writeTimedOut(.busy, now: 100, timeout: 30))
    }
}
