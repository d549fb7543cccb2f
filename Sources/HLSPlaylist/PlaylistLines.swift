import Foundation

/// The lines of a playlist after its `#EXTM3U` header, each with its 1-based line number and
/// without surrounding blanks; empty lines are left out. CRLF line ends are accepted.
enum PlaylistLines {
    static func read(_ text: String) throws(PlaylistParseError) -> [(number: Int, line: String)] {
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map {
            $0.hasSuffix("\r") ? $0.dropLast() : $0
        }
        guard let first = lines.first, first == "#EXTM3U" else { throw .missingHeader }
        lines.removeFirst()
        return lines.enumerated().compactMap { offset, raw in
            let line = raw.trimmingCharacters(in: .whitespaces)
            return line.isEmpty ? nil : (offset + 2, line)
        }
    }
}
