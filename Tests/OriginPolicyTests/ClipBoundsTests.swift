import OriginPolicy
import Testing

/// Each bound of `clips` as rows: what is in use, what is asked, the answer.
@Suite struct ClipBoundsTests {
    let bounds = ClipBounds(maxDuration: 600, maxInProgress: 2, scratchLimitBytes: 1000)

    @Test(arguments: [(0.0, nil), (599.9, nil), (600, nil), (600.1, 400), (.infinity, 400), (.nan, 400)] as [(Double, Int?)])
    func duration(seconds: Double, status: Int?) {
        #expect(bounds.refusal(duration: seconds)?.status == status)
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: Int
        var inProgress: Int
        var inUse: Int
        var status: Int?
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "nothing in use", bytes: 500, inProgress: 0, inUse: 0, status: nil),
        Row(name: "one below the count", bytes: 100, inProgress: 1, inUse: 100, status: nil),
        Row(name: "at the count", bytes: 1, inProgress: 2, inUse: 0, status: 503),
        Row(name: "exactly fills the scratch", bytes: 400, inProgress: 1, inUse: 600, status: nil),
        Row(name: "one byte past the scratch", bytes: 401, inProgress: 1, inUse: 600, status: 503),
        Row(name: "alone larger than the scratch: never fits", bytes: 1001, inProgress: 0, inUse: 0, status: 400),
        Row(name: "sizes that would overflow", bytes: 1000, inProgress: 0, inUse: .max, status: 503),
    ]

    @Test(arguments: rows)
    func admission(row: Row) {
        let refusal = bounds.refusal(adding: row.bytes, inProgress: row.inProgress, scratchInUse: row.inUse)
        #expect(refusal?.status == row.status)
        if refusal?.status == 503 { #expect(refusal?.retryAfter == ClipBounds.retryAfter) }
    }
}
