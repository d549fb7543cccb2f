import HLSPlaylist
import SidelineCore

/// Whether a mirror follows its upstream (EVENT playlists), serves what it holds as VOD
/// because the upstream is unreachable or stale, or has the whole recording of an ended
/// stream. Pure: the caller passes the times, read from one monotonic clock.
public struct MirrorFreshness: Sendable, Equatable {
    /// The upstream is stale after this many target durations without a new entry, plus
    /// `lateGrace`; RFC 8216 §6.3.4 lets a client give up on an unchanged playlist after 1.5
    /// target durations.
    public var staleFactor: Double
    /// How long past its due time the upstream waits for a late segment before it fills the slot
    /// (its `late_grace`): a stalled camera's first stand-in comes one segment plus the grace
    /// after the last entry, so a mirror that gave up at 1.5 target durations alone (3 s at the
    /// defaults, the same instant) turned VOD, EXT-X-ENDLIST and all, for a moment in an upstream
    /// stall, and a player on the mirror took the stream for ended. The upstream's own stale rule
    /// counts the grace too (`StatusPolicy.staleAfter`).
    public var lateGrace: Double

    public init(staleFactor: Double = 1.5, lateGrace: Double = LateSegmentFill.defaultGrace) {
        self.staleFactor = staleFactor
        self.lateGrace = max(0, lateGrace)
    }

    public enum Mode: String, Sendable, Equatable {
        /// EVENT playlists that grow as the upstream's do.
        case following
        /// VOD playlists with EXT-X-ENDLIST: everything the mirror holds, scrubbable offline.
        case offline
        /// The upstream ended its stream and the mirror holds all of it: EXT-X-ENDLIST, for good.
        case ended
    }

    public struct Facts: Sendable, Equatable {
        /// The upstream's playlist carried EXT-X-ENDLIST.
        public var upstreamEnded: Bool
        /// The mirror lists every entry the upstream listed.
        public var caughtUp: Bool
        /// When an upstream playlist last listed an entry the mirror had not seen (the first
        /// playlist of this process counts); nil before any.
        public var lastAdvance: Double?
        /// When an upstream playlist was last fetched at all; nil before any.
        public var lastContact: Double?
        /// When the mirror started: the clock starts there before any contact.
        public var since: Double
        public var targetDuration: Int
        public var now: Double

        public init(upstreamEnded: Bool = false, caughtUp: Bool = true, lastAdvance: Double?, lastContact: Double?, since: Double, targetDuration: Int, now: Double) {
            self.upstreamEnded = upstreamEnded
            self.caughtUp = caughtUp
            self.lastAdvance = lastAdvance
            self.lastContact = lastContact
            self.since = since
            self.targetDuration = targetDuration
            self.now = now
        }
    }

    public func mode(_ facts: Facts) -> Mode {
        if facts.upstreamEnded && facts.caughtUp { return .ended }
        // An ended upstream never advances again: while it answers, it is fresh.
        let reference = (facts.upstreamEnded ? facts.lastContact : facts.lastAdvance) ?? facts.since
        return facts.now - reference > staleFactor * Double(facts.targetDuration) + lateGrace ? .offline : .following
    }

    /// What a mirrored media (or I-frame) playlist looks like in `mode`: the upstream's EVENT
    /// while following, VOD with EXT-X-ENDLIST offline, the upstream's own EXT-X-ENDLIST once
    /// ended.
    public static func rendition(of listed: MediaPlaylist, in mode: Mode) -> MediaPlaylist {
        var shaped = listed
        switch mode {
        case .following: shaped.endList = false
        case .offline: shaped = listed.vodRendition
        case .ended: shaped.endList = true
        }
        return shaped
    }
}
