import HLSPlaylist
import OriginPolicy

extension SetMaster {
    /// A set's master as a value, made from its angles' masters as published; nil when the
    /// default angle has none. Angles without a master yet (a pushed angle before its
    /// encoder's first master, an angle on another box that has not answered yet) or removed
    /// are left out until they have one. An angle on another box is listed with the master
    /// that box last served, also while it does not answer (`/api/sets` says `unreachable`).
    public init?(_ set: OriginState.AngleSet, in state: OriginState) {
        let angles = set.streams.compactMap { name -> SetMaster.Angle? in
            if let remote = state.remoteAngles[name] {
                guard let master = remote.master, remote.state != "removed" else { return nil }
                return SetMaster.Angle(stream: name, title: remote.title, master: master, remote: true)
            }
            guard let stream = state.streams[name], stream.phase != .removed, let master = stream.masterPlaylist else { return nil }
            return SetMaster.Angle(stream: name, title: stream.title, master: master)
        }
        guard angles.first?.stream == set.defaultStream else { return nil }
        self.init(angles: angles, title: set.title, pathways: state.setPathways)
    }
}
