import Foundation

/// How a test reads an angle set's master as a player does: its renditions, and a URI resolved
/// against the master's path.
public enum SetMasterReading {
    /// `uri` (relative, as the master gives it) resolved against `master`'s path, dot segments
    /// removed, its query kept; nil when it does not resolve.
    public static func path(resolving uri: String, against master: String) -> String? {
        guard let base = URL(string: "http://127.0.0.1" + master), let resolved = URL(string: uri, relativeTo: base)?.absoluteURL.standardized else { return nil }
        return resolved.path + (resolved.query.map { "?" + $0 } ?? "")
    }

    /// NAME and URI of each `EXT-X-MEDIA` of the master's first group.
    public static func renditions(_ master: String) -> [(name: String, uri: String)] {
        var seen: [(String, String)] = []
        for line in master.split(separator: "\n") where line.hasPrefix("#EXT-X-MEDIA:") {
            let fields = line.dropFirst("#EXT-X-MEDIA:".count).split(separator: ",").map { $0.split(separator: "=", maxSplits: 1).map(String.init) }
            let value = { (key: String) in fields.first { $0.first == key && $0.count == 2 }.map { $0[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) } ?? "" }
            if seen.contains(where: { $0.0 == value("NAME") }) { break }
            seen.append((value("NAME"), value("URI")))
        }
        return seen
    }
}
