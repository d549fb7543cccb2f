import OriginPolicy
import Testing

/// Blocking reload at part granularity (draft-pantos-hls-rfc8216bis §6.2.5.2): rows of
/// directives against a playlist's published edge. Segment 10 is the last listed; two parts of
/// segment 11 are listed; segments are cut into four parts; the target duration is 2 s.
@Suite struct PartBlockingReloadTests {
    static let edge = PublishedEdge(lastSequence: 10, partsOfNext: 2, partsPerSegment: 4)

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var msn: Int?
        var part: Int?
        var edge = PartBlockingReloadTests.edge
        var complete = false
        var offered = true
        var decision: BlockingReload
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "no directive: now", msn: nil, part: nil, decision: .answerNow),
        Row(name: "a listed segment: now", msn: 10, part: nil, decision: .answerNow),
        Row(name: "the segment being made, whole: held as before parts", msn: 11, part: nil, decision: .hold(sequence: 11, seconds: 6)),
        Row(name: "a listed part of the segment being made: now", msn: 11, part: 1, decision: .answerNow),
        Row(name: "the next part of the segment being made: held for it", msn: 11, part: 2, decision: .holdForPart(sequence: 11, part: 2, seconds: 6)),
        Row(name: "the last part a segment has: held for it", msn: 11, part: 3, decision: .holdForPart(sequence: 11, part: 3, seconds: 6)),
        Row(name: "any part of a listed segment: now (the segment holds it whole)", msn: 9, part: 3, decision: .answerNow),
        Row(name: "the first part of the segment after next: held", msn: 12, part: 0, decision: .holdForPart(sequence: 12, part: 0, seconds: 6)),
        Row(name: "two past the last listed is the draft's limit", msn: 12, part: nil, decision: .hold(sequence: 12, seconds: 6)),
        Row(name: "three past the last listed: 400", msn: 13, part: 0,
            decision: .badRequest("_HLS_msn=13 is more than two segments past the last one listed (10)")),
        Row(name: "a part index past the last a segment has: held for the next segment's first (hls.js asks so)", msn: 11, part: 4,
            decision: .holdForPart(sequence: 11, part: 4, seconds: 6)),
        Row(name: "any part index of a listed segment: now (it holds them all)", msn: 9, part: 99, decision: .answerNow),
        Row(name: "four parts past the last listed: 400", msn: 12, part: 1,
            decision: .badRequest("_HLS_msn=12&_HLS_part=1 is 4 parts past the last one listed (part 1 of 11); the limit is 3")),
        Row(name: "0.5 s parts: six parts may be asked ahead (three seconds)", msn: 12, part: 3,
            edge: PublishedEdge(lastSequence: 10, partsOfNext: 2, partsPerSegment: 4, partTarget: 0.5), decision: .holdForPart(sequence: 12, part: 3, seconds: 6)),
        Row(name: "0.5 s parts: seven ahead is 400", msn: 12, part: 4,
            edge: PublishedEdge(lastSequence: 10, partsOfNext: 2, partsPerSegment: 4, partTarget: 0.5),
            decision: .badRequest("_HLS_msn=12&_HLS_part=4 is 7 parts past the last one listed (part 1 of 11); the limit is 6")),
        Row(name: "a client's enormous part index is refused, never overflows", msn: 11, part: Int.max,
            decision: .badRequest("_HLS_msn=11&_HLS_part=\(Int.max) is 10 parts past the last one listed (part 1 of 11); the limit is 3")),
        Row(name: "a stream without parts: a part waits for its segment", msn: 11, part: 2, edge: PublishedEdge(lastSequence: 10),
            decision: .hold(sequence: 11, seconds: 6)),
        Row(name: "a stream without parts: any part of a listed segment now", msn: 10, part: 7, edge: PublishedEdge(lastSequence: 10), decision: .answerNow),
        Row(name: "an ended playlist never holds", msn: 11, part: 2, complete: true, decision: .answerNow),
        Row(name: "blocking reload not offered: now", msn: 11, part: 2, offered: false, decision: .answerNow),
        Row(name: "nothing listed yet: the first part of the first segment is held", msn: 0, part: 0, edge: PublishedEdge(lastSequence: -1, partsPerSegment: 4),
            decision: .holdForPart(sequence: 0, part: 0, seconds: 6)),
    ]

    @Test(arguments: rows)
    func decision(row: Row) {
        let directives = PlaylistDirectives(mediaSequence: row.msn, part: row.part)
        #expect(BlockingReload.decide(directives, edge: row.edge, complete: row.complete, targetDuration: 2, offered: row.offered) == row.decision)
    }

    @Test func withoutPartsTheDecisionIsTheSegmentOneAsBefore() {
        for msn in [8, 10, 11, 12, 13] {
            let directives = PlaylistDirectives(mediaSequence: msn, part: 1)
            #expect(BlockingReload.decide(directives, lastSequence: 10, complete: false, targetDuration: 2, offered: true)
                == BlockingReload.decide(directives, edge: PublishedEdge(lastSequence: 10), complete: false, targetDuration: 2, offered: true))
        }
    }
}

/// What a held request compares: one position for a version's edge and for what the request
/// waits for, so a request wakes only when its part (or anything later) is listed.
@Suite struct PublishedEdgePositionTests {
    @Test(arguments: [
        // (last listed, parts of the next, wanted sequence, wanted part, satisfied)
        (10, 0, 10, nil as Int?, true),
        (10, 0, 10, 3, true),
        (10, 0, 11, 0, false),
        (10, 2, 11, 1, true),
        (10, 2, 11, 2, false),
        (10, 2, 11, nil, false),
        (10, 2, 12, 0, false),
        (10, 4, 11, 3, true),
        (10, 4, 11, nil, false),
    ])
    func aVersionSatisfiesWhatItListsAndEverythingBefore(last: Int, partsOfNext: Int, sequence: Int, part: Int?, satisfied: Bool) {
        let edge = PublishedEdge(lastSequence: last, partsOfNext: partsOfNext, partsPerSegment: 4)
        #expect((edge.position >= PublishedEdge.position(sequence: sequence, part: part)) == satisfied)
    }

    @Test func aClientsNumbersCannotWrapThePositionRound() {
        #expect(PublishedEdge.position(sequence: Int.max, part: 3) == Int.max)
        #expect(PublishedEdge.position(sequence: Int.max / 1024, part: 1023) == Int.max)
        #expect(PublishedEdge.position(sequence: 5, part: Int.max) == PublishedEdge.position(sequence: 5, part: nil))
        #expect(PublishedEdge.position(sequence: 5, part: -3) == PublishedEdge.position(sequence: 5, part: 0))
    }
}
