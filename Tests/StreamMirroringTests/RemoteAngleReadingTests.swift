import Foundation
import HLSPlaylist
import StreamMirroring
import Testing

/// What this box makes of another box's answers about an angle it serves (issue 35, `boxes`):
/// rows over the listing and the master, every answer hostile.
@Suite struct RemoteAngleReadingTests {
    static func listing(_ json: String, status: Int = 200) -> UpstreamAnswer { UpstreamAnswer(status: status, body: Array(json.utf8)) }
    static let master = UpstreamAnswer(status: 200, body: Array("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000\n360p/index.m3u8\n".utf8))
    static let live = listing(#"{"streams":[{"id":"goal","title":"Goal end","state":"live","more":1}],"locked":[]}"#)

    @Test func aLiveAngleGivesItsTitleStateAndMaster() {
        let said = RemoteAngleReading.reading(stream: "goal", listing: Self.live, master: Self.master, before: nil)
        #expect(said.title == "Goal end" && said.state == "live")
        #expect(said.master?.variants.map(\.uri) == ["360p/index.m3u8"])
    }

    @Test(arguments: [
        (nil as UpstreamAnswer?, "unreachable"),
        (listing("", status: 503), "unreachable"),
        (listing("not json"), "unreachable"),
        (listing(#"{"streams":[]}"#), "missing"),
        (listing(#"{"streams":[],"locked":[{"id":"goal"}]}"#), "private"),
        (listing(#"{"streams":[{"id":"goal","title":"G","state":"on fire"}]}"#), "unknown"),
        (listing(#"{"streams":[{"id":"goal","title":"G","state":"stalled"}]}"#), "stalled"),
    ])
    func theStateSaysWhatTheBoxAnswered(listing: UpstreamAnswer?, state: String) {
        let said = RemoteAngleReading.reading(stream: "goal", listing: listing, master: nil, before: .init(title: "Kept", state: "live"))
        #expect(said.state == state)
        #expect(said.master == nil, "no master answer: the one held stays")
        if state != "stalled" && state != "unknown" { #expect(said.title == "Kept", "a title is only replaced by the box's own") }
    }

    @Test func aHostileAnswerIsBoundedOrRefused() {
        // JSON escapes: a control character the decoder turns into one in the title.
        let long = String(repeating: "x", count: 5000) + #"\u001b[2J"#
        let said = RemoteAngleReading.reading(stream: "goal", listing: Self.listing(#"{"streams":[{"id":"goal","title":"\#(long)\u0007","state":"live"}]}"#),
                                              master: nil, before: nil)
        #expect(said.title.count == RemoteAngleReading.maximumTitleLength)
        #expect(!said.title.unicodeScalars.contains { CharacterSet.controlCharacters.contains($0) })
        let empty = UpstreamAnswer(status: 200, body: Array("#EXTM3U\n".utf8))
        #expect(RemoteAngleReading.reading(stream: "goal", listing: Self.live, master: empty, before: nil).master == nil, "a master with no variant is not taken")
        let garbage = UpstreamAnswer(status: 200, body: Array("<html>".utf8))
        #expect(RemoteAngleReading.reading(stream: "goal", listing: Self.live, master: garbage, before: nil).master == nil)
        let huge = UpstreamAnswer(status: 200, body: Self.master.body + Array(repeating: 0x23, count: RemoteAngleReading.maximumAnswerBytes))
        #expect(RemoteAngleReading.reading(stream: "goal", listing: Self.live, master: huge, before: nil).master == nil)
        let refused = UpstreamAnswer(status: 404, body: Self.master.body)
        #expect(RemoteAngleReading.reading(stream: "goal", listing: Self.live, master: refused, before: nil).master == nil)
    }
}
