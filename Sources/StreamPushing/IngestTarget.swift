import Foundation

/// Where `sideline push --to` sends: `http(s)://<server>[:port]/ingest/<stream>`, checked, with
/// the stream's name taken from it. Pure.
public struct IngestTarget: Sendable, Equatable {
    /// The ingest base every upload's path is added to (no trailing slash).
    public var base: URL
    public var stream: String

    public struct Rejection: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    public static func parse(_ text: String) -> Result<IngestTarget, Rejection> {
        let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
        let example = "give one like http://10.0.0.2:8080/ingest/roof"
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil else {
            return .failure(Rejection(description: "--to '\(text)' is not an http:// or https:// URL; \(example)"))
        }
        guard url.query == nil, url.fragment == nil else {
            return .failure(Rejection(description: "--to '\(text)' has a query or fragment; \(example)"))
        }
        let components = url.path.split(separator: "/", omittingEmptySubsequences: true)
        guard components.count == 2, components[0] == "ingest", isStreamName(components[1]) else {
            return .failure(Rejection(description: "--to '\(text)' is not a server's ingest URL for one stream (/ingest/<stream>); \(example)"))
        }
        return .success(IngestTarget(base: url, stream: String(components[1])))
    }

    /// A stream name as the server's config allows one: letters, digits, '-', '_' or '.', not
    /// starting with '.' or '-', at most 64.
    static func isStreamName(_ name: Substring) -> Bool {
        !name.isEmpty && name.count <= 64 && name.first != "." && name.first != "-"
            && name.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0)) }
    }
}
