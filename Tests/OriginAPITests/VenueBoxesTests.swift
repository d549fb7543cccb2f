import Foundation
import HTTPTypes
import OriginAPI
import OriginPolicy
import Testing

/// What the set routes decide about the venue's other boxes (issue 35, `boxes`): which angles
/// are whose, and how another box's answer is quoted in a refusal (its body is the network's).
/// The calls themselves (`VenueBoxCalling`, `VenueBoxClient`) run for real in
/// VenueBoxesEndToEndTests: a marker taken by both boxes, one refused by the other box (502,
/// neither marked), and a set's clip with the other box's angle in it.
@Suite struct VenueBoxesTests {
    struct NoCalls: VenueBoxCalling {
        func send(_ method: HTTPRequest.Method, url: String, body: [UInt8]?, authorization: String?, saveTo: String?, limit: Int, timeout: Double) async -> VenueBoxAnswer? { nil }
    }

    @Test func anglesAreSplitInOrderIntoThisBoxsAndTheOthers() {
        let boxes = VenueBoxes(calls: NoCalls(), bases: ["goal": "http://10.0.0.12:8080", "tunnel": "http://10.0.0.13:8080"])
        let split = boxes.split(["wide", "goal", "tv", "tunnel"])
        #expect(split.local == ["wide", "tv"] && split.remote == ["goal", "tunnel"])
        #expect(boxes.split([]).local.isEmpty)
    }

    @Test func anotherBoxsAnswerIsQuotedBoundedAndPrintable() {
        #expect(VenueBoxAnswer(status: 400, body: Array("time: outside the recording".utf8)).said == "400: time: outside the recording")
        #expect(VenueBoxAnswer(status: 204).said == "204")
        let hostile = VenueBoxAnswer(status: 500, body: Array(("\u{1B}[2J" + String(repeating: "x", count: 5000) + "\n").utf8))
        #expect(hostile.said.count == "500: ".count + 300)
        #expect(!hostile.said.unicodeScalars.contains { CharacterSet.controlCharacters.contains($0) })
        let invalid = VenueBoxAnswer(status: 502, body: [0xFF, 0xFE, 0x41])
        #expect(invalid.said.hasPrefix("502: "))
    }
}
