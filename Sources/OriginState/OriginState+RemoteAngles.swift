import HLSPlaylist
import OriginPolicy

/// Angles another box of the venue encodes and serves (issue 35, "cameras spread over boxes";
/// `boxes` in the config). This box lists such an angle in its sets' masters and pages, and
/// leaves its media to the box that serves it: the edge sends the angle's own URLs there. What
/// this box knows of it is what that box last said (`OriginChange.remoteAngle`), fetched by
/// `RemoteAngleService`.
extension OriginState {
    public struct RemoteAngle: Sendable, Equatable {
        /// The base URL of the box that serves it (`boxes[].url`).
        public var box: String
        /// As that box's `/api/streams/<stream>` says; empty until it has answered.
        public var title: String
        /// That box's word for the stream's state (`live`, `starting`...), or `unreachable`
        /// while it does not answer.
        public var state: String
        /// Its master as that box serves it; nil until it has answered with one. An angle
        /// without one is left out of the set's master, as a local angle without one is.
        public var master: MultivariantPlaylist?
        /// The state's revision when `master` or `title` last changed: the set's master (whose
        /// NAME is the title) is rendered again for each.
        public var version: Int

        public init(box: String, title: String = "", state: String = "unreachable", master: MultivariantPlaylist? = nil, version: Int = 0) {
            self.box = box
            self.title = title
            self.state = state
            self.master = master
            self.version = version
        }
    }

    /// The version of `name`'s master, local or remote: what a set's master is tagged with.
    public func masterVersion(of name: String) -> Int {
        streams[name]?.masterVersion ?? remoteAngles[name]?.version ?? 0
    }

    /// Takes what the angle's box said. A master and title equal to the ones held change no
    /// version, so a poll that finds nothing new renders nothing again.
    mutating func apply(remote name: String, title: String, state: String, master: MultivariantPlaylist?) {
        guard var angle = remoteAngles[name] else { return }
        let changed = title != angle.title || (master != nil && master != angle.master)
        angle.title = title
        angle.state = state
        if let master { angle.master = master }
        if changed {
            revision += 1
            angle.version = revision
        }
        remoteAngles[name] = angle
    }
}

extension Refusal {
    /// A stream another box serves, asked of this one: 404, as for a name this box does not
    /// serve, saying where it is served. The box's address is not said: the edge is the way in.
    public static func servedByAnotherBox(_ name: String) -> Refusal {
        Refusal(.noSuchResource, "stream '\(name)' is encoded and served by another box of this venue: reach it through the venue's edge (Config/nginx/sideline-edge-boxes.conf), which sends its URLs to that box")
    }

    /// An angle set another box serves (the box of its default angle), asked of a box that
    /// lists it only for its own angles' sake: 404, saying where it is served.
    public static func setServedByAnotherBox(_ name: String) -> Refusal {
        Refusal(.noSuchResource, "angle set '\(name)' is served by the box that encodes its default angle, another box of this venue: reach it through the venue's edge (Config/nginx/sideline-edge-boxes.conf), which sends its URLs to that box")
    }
}
