import Foundation
import HLSPlaylist
import OriginPolicy
import Testing

/// `POST .../markers` bodies, field by field: what is accepted, and the 400 reason otherwise.
@Suite struct MarkerRequestTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let now = start.addingTimeInterval(60)
    let context = MarkerRequest.Context(now: now, recording: start...start.addingTimeInterval(58), live: true, nextSequence: 29, id: "m-1")

    func marker(_ json: String, context: MarkerRequest.Context? = nil) -> Result<Marker, MarkerRequest.Rejection> {
        MarkerRequest.marker(from: Array(json.utf8), context: context ?? self.context)
    }

    func rejection(_ json: String, context: MarkerRequest.Context? = nil) -> MarkerRequest.Rejection? {
        if case let .failure(rejection) = marker(json, context: context) { return rejection }
        return nil
    }

    @Test func nowWithALeadMarksTheMomentBeforeThePress() throws {
        let made = try marker(##"{"label": " Try ", "time": "now", "lead": 8, "duration": 20, "author": "Sam", "colour": "#E0A030"}"##).get()
        #expect(made == Marker(id: "m-1", label: "Try", time: Self.now.addingTimeInterval(-8), duration: 20, author: "Sam", colour: "#e0a030",
                               created: Self.now, listedBefore: 29))
        #expect(try marker(#"{"label": "Try"}"#).get().time == Self.now)
    }

    @Test func aProgramDateTimeInsideTheRecordingIsTaken() throws {
        #expect(try marker(#"{"label": "Try", "time": "2027-01-15T09:00:10.500+01:00"}"#).get().time == Self.start.addingTimeInterval(10.5))
    }

    @Test func eachBadFieldIsNamedWithItsReason() {
        #expect(rejection(#"{"time": "now"}"#) == .init(field: "label", reason: "is required"))
        #expect(rejection(#"{"label": "  "}"#)?.field == "label")
        #expect(rejection(#"{"label": 3}"#) == .init(field: "label", reason: "must be a string"))
        #expect(rejection(#"{"label": "say \"hi\""}"#)?.reason.contains("double quote") == true)
        #expect(rejection(#"{"label": "two\nlines"}"#)?.reason.contains("control characters") == true)
        #expect(rejection("{\"label\": \"\(String(repeating: "x", count: 121))\"}")?.reason == "must be at most 120 characters, not 121")
        #expect(rejection(#"{"label": "a", "time": "yesterday"}"#)?.field == "time")
        #expect(rejection(#"{"label": "a", "time": 5}"#)?.field == "time")
        #expect(rejection(#"{"label": "a", "lead": -1}"#) == .init(field: "lead", reason: "must be from 0 to 600 seconds, not -1"))
        #expect(rejection(#"{"label": "a", "lead": true}"#) == .init(field: "lead", reason: "must be a number of seconds"))
        #expect(rejection(#"{"label": "a", "time": "2027-01-15T08:00:10Z", "lead": 3}"#)?.field == "lead")
        #expect(rejection(#"{"label": "a", "duration": 0}"#)?.field == "duration")
        #expect(rejection(#"{"label": "a", "colour": "orange"}"#) == .init(field: "colour", reason: "must be #rrggbb, such as #e0a030"))
        #expect(rejection(##"{"label": "a", "color": "#ffffff"}"##)?.field == "color")
        #expect(rejection(#"["label"]"#)?.field == nil)
        #expect(rejection("not json")?.field == nil)
    }

    @Test func aTimeOutsideTheRecordingIsRefusedWithTheRecordingsSpan() {
        let before = rejection(#"{"label": "a", "time": "2027-01-15T07:59:59Z"}"#)
        #expect(before?.field == "time")
        #expect(before?.reason.contains("lies outside the recording, which runs from 2027-01-15T08:00:00.000Z to 2027-01-15T08:01:00.000Z") == true)
        #expect(rejection(#"{"label": "a", "lead": 61}"#)?.field == "time")
        // An ended recording runs to its last entry, not to now.
        var ended = context
        ended.live = false
        #expect(rejection(#"{"label": "a"}"#, context: ended)?.field == "time")
        var empty = context
        empty.recording = nil
        #expect(rejection(#"{"label": "a"}"#, context: empty)?.reason.contains("recorded nothing yet") == true)
    }
}

/// A set's marker passed to another box of the venue (issue 35, `boxes`): the same id, the same
/// moment as a date, every field; an id is held to the shape a box makes.
@Suite struct ForwardedMarkerTests {
    let request = MarkerRequestTests()

    @Test func aForwardedMarkerIsTheSameMarkerThere() throws {
        let made = try request.marker(##"{"label": "Try", "time": "now", "lead": 8, "duration": 20.5, "author": "Sam", "colour": "#e0a030"}"##).get()
        var original = made
        original.id = "m-lx3k2-7"
        let body = MarkerRequest.forwarded(original)
        let there = MarkerRequest.Context(now: MarkerRequestTests.now.addingTimeInterval(0.2), recording: request.context.recording, live: true, nextSequence: 40, id: "m-other")
        let taken = try MarkerRequest.marker(from: body, context: there).get()
        #expect(taken.id == "m-lx3k2-7", "the set's id, not the box's own")
        #expect(taken.time == original.time && taken.label == "Try" && taken.duration == 20.5 && taken.author == "Sam" && taken.colour == "#e0a030")
        #expect(taken.listedBefore == 40, "listed where that box's next entry is")
        let bare = Marker(id: "m-1-1", label: "Goal", time: MarkerRequestTests.start.addingTimeInterval(5), created: MarkerRequestTests.now, listedBefore: 3)
        let plain = try MarkerRequest.marker(from: MarkerRequest.forwarded(bare), context: there).get()
        #expect(plain.duration == nil && plain.author == nil && plain.colour == nil && plain.id == "m-1-1")
    }

    @Test(arguments: [#""M-1""#, #""m-""#, #""x-1""#, #""m-1/../2""#, #""m-1 2""#, "5", "\"m-\(String(repeating: "a", count: 31))\""])
    func anIdOfAnotherShapeIsRefused(id: String) {
        #expect(request.rejection(#"{"label": "Try", "id": \#(id)}"#)?.field == "id")
    }
}
