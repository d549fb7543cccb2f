import Foundation
import HLSPlaylist
import SidelineCore

/// What this box makes of another box's answers about an angle it serves (issue 35, `boxes`):
/// the box's stream listing (`GET /api/streams`) and the angle's master
/// (`GET /live/<angle>/master.m3u8`), each an answer or none. The answers are the network's and
/// so hostile: the title is cut to a bound and stripped of control characters, a state this
/// server does not use is `unknown`, and the master is taken only as far as this server would
/// have written it itself (`sanitized`): its rungs' names, codecs, numbers and ranges held to
/// what Sideline's own masters carry and to bounds, everything else dropped, since it is
/// rendered into the set's master every viewer loads. A master that does not parse or keeps no
/// variant is not taken (the one held stays). Pure; `RemoteAngleService` fetches and applies.
public enum RemoteAngleReading {
    /// What the page and the set's master say of the angle.
    public struct Said: Sendable, Equatable {
        public var title: String
        public var state: String
        /// The master to list: the one this answer brought, else the one said before (nil until
        /// the box has answered with one).
        public var master: MultivariantPlaylist?
        /// Whether the box keeps the angle behind a credential: it lists it as locked, or gives
        /// its URLs an access prefix (`urlPrefix`). A set this box serves openly cannot open it.
        public var isPrivate: Bool

        public init(title: String, state: String, master: MultivariantPlaylist? = nil, isPrivate: Bool = false) {
            self.title = title
            self.state = state
            self.master = master
            self.isPrivate = isPrivate
        }
    }

    /// The states `/api/streams` gives, and the three this box adds: `unreachable` (the box
    /// does not answer), `missing` (it answers without the stream), `unknown` (a word not here).
    public static let states: Set<String> = ["starting", "live", "input-lost", "stalled", "ended", "removed"]
    public static let maximumTitleLength = 200
    /// The largest answer read: `/api/streams` of one three-rung stream is 1,549 bytes (`curl |
    /// wc -c` on `sideline serve --input testpattern`, 2026-11-29), so a box's 64 about 100 KB.
    public static let maximumAnswerBytes = 1 << 20
    /// The largest master taken: Sideline's master of a three-rung ladder is 1,059 bytes
    /// (`wc -c` of a mirror test's `master.m3u8`, 2026-11-29), a pair's about twice that.
    public static let maximumMasterBytes = 64 << 10
    /// Rungs (and I-frame playlists) taken from one master, and codecs per rung.
    public static let maximumRungs = 16
    public static let maximumCodecs = 4

    /// Whether the box's `/api/streams` answer lists `stream` as locked (private, and this box
    /// asked without a credential for it); nil when the answer says nothing (no answer, not
    /// JSON, or too large).
    public static func isLocked(_ stream: String, in listing: UpstreamAnswer?) -> Bool? {
        isLocked(stream, decoded: Listing.decoded(listing))
    }

    /// `isLocked` of an answer decoded once (`Listing.decoded`), for every angle of a box.
    public static func isLocked(_ stream: String, decoded listing: Listing?) -> Bool? {
        listing.map { $0.locked?.contains { $0.id == stream } == true }
    }

    /// `listing`: the box's `/api/streams` answer, asked without a credential (nil: no answer
    /// in time); `info`: the angle's own `/api/streams/<angle>` answer, asked with a credential
    /// when the listing shows it locked (nil: not asked, or no answer); `master`: the angle's
    /// master answer (nil: none, or not asked); `before`: what was said last.
    public static func reading(stream: String, listing: UpstreamAnswer?, info: UpstreamAnswer? = nil, master: UpstreamAnswer?, before: Said?) -> Said {
        reading(stream: stream, decoded: Listing.decoded(listing), info: info, master: master, before: before)
    }

    /// `reading` of a listing decoded once (`Listing.decoded`), for every angle of a box.
    public static func reading(stream: String, decoded: Listing?, info: UpstreamAnswer? = nil, master: UpstreamAnswer?, before: Said?) -> Said {
        var said = Said(title: before?.title ?? "", state: "unreachable", master: before?.master, isPrivate: before?.isPrivate ?? false)
        /// The title and state an entry gives (the list's, or the angle's own).
        func take(_ entry: Listing.Entry) {
            said.title = clean(entry.title)
            said.state = states.contains(entry.state) ? entry.state : "unknown"
        }
        if let decoded {
            if let entry = decoded.streams.first(where: { $0.id == stream }) {
                take(entry)
                said.isPrivate = entry.urlPrefix?.isEmpty == false
            } else if decoded.locked?.contains(where: { $0.id == stream }) == true {
                said.isPrivate = true
                said.state = "private"
                // Its own entry, asked with a credential: its title and state.
                if let info, info.status == 200, info.body.count <= maximumAnswerBytes,
                   let entry = try? JSONDecoder().decode(Listing.Entry.self, from: Data(info.body)), entry.id == stream {
                    take(entry)
                }
            } else {
                said.state = "missing"
            }
        }
        if let master, master.status == 200, master.body.count <= maximumMasterBytes,
           let parsed = try? MultivariantPlaylist.parse(master.text), let taken = sanitized(parsed) {
            said.master = taken
        }
        return said
    }

    /// The rungs of `master` this server would have written itself: URI `<rung>/index.m3u8`
    /// (and `<rung>/iframes.m3u8`) with a rung name a stream could have, codecs of letters,
    /// digits and dots, numbers in bounds, VIDEO-RANGE one of the three the draft names; at
    /// most `maximumRungs`, no pathways, session data or steering. Nil when no rung is left.
    public static func sanitized(_ master: MultivariantPlaylist) -> MultivariantPlaylist? {
        func rung(_ uri: String, _ playlist: String) -> Bool {
            MultivariantPlaylist.variantName(ofURI: uri, playlist: playlist).map(StoreNames.isUsable) ?? false
        }
        func codecs(_ list: [String]) -> Bool {
            !list.isEmpty && list.count <= maximumCodecs && list.allSatisfy { codec in
                !codec.isEmpty && codec.utf8.count <= 32 && codec.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == ".") }
            }
        }
        func resolution(_ value: VariantStream.Resolution?) -> Bool {
            value.map { (1...16_384).contains($0.width) && (1...16_384).contains($0.height) } ?? true
        }
        let bandwidths = 1...100_000_000_000
        var variants: [VariantStream] = []
        for variant in master.variants where variants.count < maximumRungs {
            guard rung(variant.uri, "index.m3u8"), codecs(variant.codecs), bandwidths.contains(variant.bandwidth),
                  variant.averageBandwidth.map(bandwidths.contains) ?? true, resolution(variant.resolution),
                  variant.frameRate.map({ $0.isFinite && $0 > 0 && $0 <= 240 }) ?? true else { continue }
            var kept = variant
            kept.pathwayID = nil
            if let range = kept.videoRange, !["SDR", "PQ", "HLG"].contains(range) { kept.videoRange = nil }
            variants.append(kept)
        }
        guard !variants.isEmpty else { return nil }
        var iFrames: [IFrameStream] = []
        for stream in master.iFrameStreams where iFrames.count < maximumRungs {
            guard rung(stream.uri, "iframes.m3u8"), codecs(stream.codecs), bandwidths.contains(stream.bandwidth), resolution(stream.resolution) else { continue }
            var kept = stream
            kept.pathwayID = nil
            iFrames.append(kept)
        }
        return MultivariantPlaylist(version: master.version, independentSegments: master.independentSegments, variants: variants, iFrameStreams: iFrames)
    }

    /// What to tell the operator when an angle another box keeps private is in a set this box
    /// serves openly (`openSets`: this box's open sets, by name, with their angles): the set's
    /// URLs here carry no credential, so that box refuses the angle to every viewer of the set.
    /// Nil when nothing is wrong. Each box knows only its own angles' tokens, so this is found
    /// here, not in the config.
    public static func privacyMismatch(stream: String, said: Said, box: String, openSets: [String: [String]]) -> String? {
        guard said.isPrivate, let set = openSets.sorted(by: { $0.key < $1.key }).first(where: { $0.value.contains(stream) })?.key else { return nil }
        return "set '\(set)' is open on this box, but its angle '\(stream)' is private on \(box), which will refuse it to the set's viewers: "
            + "make the set private here too (a viewer_token on one of this box's angles of it, with the venue's access.signing_key), or '\(stream)' open there"
    }

    /// At most `maximumTitleLength` characters, no control characters (a title is shown on the
    /// page and quoted into the set's master, which quotes only what it can).
    static func clean(_ title: String) -> String {
        String(String.UnicodeScalarView(title.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }).prefix(maximumTitleLength))
    }

    /// The names another box's `/api/streams` answer lists (open or locked) that this box
    /// encodes too (`local`): with one signing key across the venue, a credential for such a
    /// name opens both, so every name must be the venue's one camera.
    public static func namesAlsoHere(in listing: UpstreamAnswer?, local: Set<String>) -> [String] {
        namesAlsoHere(decoded: Listing.decoded(listing), local: local)
    }

    /// `namesAlsoHere` of a listing decoded once.
    public static func namesAlsoHere(decoded: Listing?, local: Set<String>) -> [String] {
        guard let decoded else { return [] }
        return Set(decoded.streams.map(\.id) + (decoded.locked ?? []).map(\.id)).intersection(local).sorted()
    }

    /// What this box expects of the angle's master: the frame rate its own angles of the set
    /// run at (a set shares one frame grid). Says what is wrong, nil when nothing is (or the
    /// master says no rate).
    public static func frameRateMismatch(stream: String, said: Said, box: String, expected: Double?) -> String? {
        guard let expected, let rates = said.master?.variants.compactMap(\.frameRate), let other = rates.first(where: { abs($0 - expected) > 0.01 }) else { return nil }
        return "angle '\(stream)' on \(box) runs at \(DecimalFormat.compact(other)) fps, its set's angles here at \(DecimalFormat.compact(expected)) fps: every angle of a set shares one frame grid, so give both boxes the same video.frame_rate"
    }

    /// The part of `/api/streams` read here: decoded once per answer (`decoded`), however many
    /// of the box's angles are read from it.
    public struct Listing: Decodable, Sendable {
        /// The answer as read here; nil for no answer, another status, more than
        /// `maximumAnswerBytes` or not this JSON.
        public static func decoded(_ answer: UpstreamAnswer?) -> Listing? {
            guard let answer, answer.status == 200, answer.body.count <= maximumAnswerBytes else { return nil }
            return try? JSONDecoder().decode(Listing.self, from: Data(answer.body))
        }

        struct Entry: Decodable, Sendable {
            var id: String
            var title: String
            var state: String
            var urlPrefix: String?
        }
        struct Locked: Decodable, Sendable {
            var id: String
        }
        var streams: [Entry]
        var locked: [Locked]?
    }
}
