import Foundation

/// Content Steering between the two boxes of a redundant pair (issue 35; the HLS Content
/// Steering specification, draft-pantos-hls-rfc8216bis §4.4.6.6 and §7): each box's master lists
/// its own variants and the other box's, each on a pathway named by the box's role, and each
/// box answers a steering manifest that ranks the two. Pure.
public enum SteeringPolicy {
    /// The pathway of the box in `role`: its role's name (`primary`, `standby`), a legal
    /// Pathway ID.
    public static func pathway(ofRole role: String) -> String { role }

    /// PATHWAY-PRIORITY as the box in `role` sees it, the other box in `otherRole` judged
    /// `peer`: the primary first while both are well; the box answering first when the other
    /// is down or unknown (a player reading this manifest reached this box; the other may be
    /// gone). The primary always ranks itself first: it is answering.
    public static func priority(role: String, otherRole: String, peer: PeerHealth.Verdict, primaryRole: String = "primary") -> [String] {
        let own = pathway(ofRole: role), other = pathway(ofRole: otherRole)
        if role != primaryRole && peer == .up { return [other, own] }
        return [own, other]
    }

    /// How long a player keeps a manifest before asking again (TTL, seconds): two segment
    /// durations, at least one second. Short, because it is how soon a player learns the
    /// primary is back; the manifest is a few dozen bytes.
    public static func timeToLive(segmentDuration: Double) -> Int {
        max(1, Int((2 * segmentDuration).rounded(.up)))
    }

    /// The steering manifest (JSON): VERSION 1, TTL, PATHWAY-PRIORITY; RELOAD-URI left out (the
    /// client asks the same URI again). Keys in a fixed order, so the same decision is the same
    /// bytes.
    public static func manifest(priority: [String], timeToLive: Int) -> String {
        let pathways = priority.map { "\"\($0)\"" }.joined(separator: ",")
        return "{\"VERSION\":1,\"TTL\":\(timeToLive),\"PATHWAY-PRIORITY\":[\(pathways)]}"
    }
}
