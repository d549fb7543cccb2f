/// A shift a received pushed segment's file may carry (`PushedStreamFiles.keepReceived`), and
/// the first video PTS the file starts with when it carries it. Kept beside the file, the new
/// file's first and then the one it replaces: the sidecar is written before the file, so a
/// crash or a full disk between the two leaves a sidecar that still names the file that is
/// there, and a restart tells which one it is by its first PTS (`stamp(ofFileStartingAt:)`).
public struct ReceivedStamp: Codable, Sendable, Equatable {
    public var stamp: Int64
    public var firstPTS: Int64

    public init(stamp: Int64, firstPTS: Int64) {
        self.stamp = stamp
        self.firstPTS = firstPTS
    }

    /// The shift a file that starts at `firstPTS` carries: 0 with nothing kept beside it (kept
    /// as pushed, or by a version without stamps), the stamp of the kept entry that starts
    /// where it does, nil when none does (its timestamps cannot be told: not to be listed).
    public static func stamp(ofFileStartingAt firstPTS: Int64, kept: [ReceivedStamp]) -> Int64? {
        if kept.isEmpty { return 0 }
        return kept.first { $0.firstPTS == firstPTS }?.stamp
    }
}
