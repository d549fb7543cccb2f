import Foundation

/// The angles an upstream's angle-set master lists (`EXT-X-MEDIA:TYPE=VIDEO`, URI
/// `../<angle>/...`, default angle first), for a mirror that follows the set whole. The text is
/// the network's, so it is hostile: a name that cannot be a stream name here, or more angles
/// than a set may hold, and the master is not taken as a set's; the count is bounded as the
/// lines are read, so a master of a million names costs no more than one of seventeen.
public enum SetMasterAngles {
    /// The most angles taken (the config's bound, `AngleSetSettings.maximumAngles`).
    public static let maximumAngles = 16

    /// In order, each once; nil when the master lists none (a stream's master), names one that
    /// `isValidName` refuses, or lists more than `maximumAngles`.
    public static func angles(inMaster text: String, isValidName: (String) -> Bool) -> [String]? {
        var angles: [String] = []
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("#EXT-X-MEDIA:") && line.contains("TYPE=VIDEO") {
            guard let uri = line.range(of: "URI=\"../") else { continue }
            let rest = line[uri.upperBound...]
            guard let slash = rest.firstIndex(of: "/") else { return nil }
            let angle = String(rest[..<slash])
            guard isValidName(angle) else { return nil }
            if !angles.contains(angle) {
                angles.append(angle)
                if angles.count > maximumAngles { return nil }
            }
        }
        return angles.isEmpty ? nil : angles
    }
}
