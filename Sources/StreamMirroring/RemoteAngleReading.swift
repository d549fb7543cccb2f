import Foundation
import HLSPlaylist

/// What this box makes of another box's answers about an angle it serves (issue 35, `boxes`):
/// the box's stream listing (`GET /api/streams`) and the angle's master
/// (`GET /live/<angle>/master.m3u8`), each an answer or none. The answers are the network's and
/// so hostile: the title is cut to a bound and stripped of control characters, a state this
/// server does not use is `unknown`, and a master that does not parse or lists no variant is
/// not taken (the one held stays). Pure; `RemoteAngleService` fetches and applies.
public enum RemoteAngleReading {
    /// What the page and the set's master say of the angle.
    public struct Said: Sendable, Equatable {
        public var title: String
        public var state: String
        /// A master to take; nil keeps the one held.
        public var master: MultivariantPlaylist?

        public init(title: String, state: String, master: MultivariantPlaylist? = nil) {
            self.title = title
            self.state = state
            self.master = master
        }
    }

    /// The states `/api/streams` gives, and the three this box adds: `unreachable` (the box
    /// does not answer), `missing` (it answers without the stream), `unknown` (a word not here).
    public static let states: Set<String> = ["starting", "live", "input-lost", "stalled", "ended", "removed"]
    public static let maximumTitleLength = 200
    /// The largest answer read: a listing of a box's 64 streams is far below it.
    public static let maximumAnswerBytes = 1 << 20

    /// `listing`: the box's `/api/streams` answer (nil: no answer in time); `master`: the
    /// angle's master answer (nil: none, or not asked); `before`: what was said last.
    public static func reading(stream: String, listing: UpstreamAnswer?, master: UpstreamAnswer?, before: Said?) -> Said {
        var said = Said(title: before?.title ?? "", state: "unreachable")
        if let listing, listing.status == 200, listing.body.count <= maximumAnswerBytes,
           let decoded = try? JSONDecoder().decode(Listing.self, from: Data(listing.body)) {
            if let entry = decoded.streams.first(where: { $0.id == stream }) {
                said.title = clean(entry.title)
                said.state = states.contains(entry.state) ? entry.state : "unknown"
            } else {
                said.state = decoded.locked?.contains(where: { $0.id == stream }) == true ? "private" : "missing"
            }
        }
        if let master, master.status == 200, master.body.count <= maximumAnswerBytes,
           let parsed = try? MultivariantPlaylist.parse(master.text), !parsed.variants.isEmpty {
            said.master = parsed
        }
        return said
    }

    /// At most `maximumTitleLength` characters, no control characters (a title is shown on the
    /// page and quoted into the set's master, which quotes only what it can).
    static func clean(_ title: String) -> String {
        String(String.UnicodeScalarView(title.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }).prefix(maximumTitleLength))
    }

    /// The part of `/api/streams` read here.
    struct Listing: Decodable {
        struct Entry: Decodable {
            var id: String
            var title: String
            var state: String
        }
        struct Locked: Decodable {
            var id: String
        }
        var streams: [Entry]
        var locked: [Locked]?
    }
}
