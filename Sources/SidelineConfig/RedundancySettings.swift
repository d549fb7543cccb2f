import Foundation

/// A second box on the same match (issue 35): `redundancy: {peer: <base URL of the other box>,
/// role: primary|standby}`. Both boxes encode the same cameras on their own and, with this set,
/// run every stream on the one wall-clock timeline (`SetTimeline.universal`), so the two list
/// the same moment under the same media sequence number with nothing shared but their configs
/// and an NTP clock. Without it a box runs as it always has.
public struct RedundancySettings: Sendable, Equatable {
    public enum Role: String, Sendable, CaseIterable {
        /// The box players are sent to first.
        case primary
        /// The box players move to when the primary fails; it encodes and serves live on its
        /// own, never following the primary.
        case standby
    }

    /// The other box's base URL as players reach it (http:// or https://, host, optional port
    /// and path prefix; no query), such as http://10.0.0.3:8080.
    public var peer: String
    public var role: Role
    /// `keyframe_every_part` (default true): every Low-Latency HLS part starts with an IDR, so
    /// a player that moves between the two boxes in the middle of a segment decodes the other
    /// box's part on its own instead of with this box's frames as references
    /// (`KeyframeSchedule`). Costs picture quality at the same bit rate (Docs/low-latency.md);
    /// false keeps a keyframe per segment. No effect without parts.
    public var keyframeEveryPart: Bool

    public init(peer: String, role: Role, keyframeEveryPart: Bool = true) {
        self.peer = peer
        self.role = role
        self.keyframeEveryPart = keyframeEveryPart
    }

    /// The other box's role.
    public var otherRole: Role { role == .primary ? .standby : .primary }

    /// `peer` without a trailing slash, for joining paths to it.
    public var peerBase: String { peer.hasSuffix("/") ? String(peer.dropLast()) : peer }
}
