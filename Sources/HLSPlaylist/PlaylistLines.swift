/// The lines of a playlist after its `#EXTM3U` header, each with its 1-based line number and
/// without surrounding blanks (spaces, tabs); empty lines are left out. CRLF line ends are
/// accepted. Works on UTF-8 bytes: a 3-hour playlist has 16,000 lines, and splitting it by
/// Characters and trimming with Foundation took most of `sideline export`'s parse time.
enum PlaylistLines {
    static func read(_ text: String) throws(PlaylistParseError) -> [(number: Int, line: String)] {
        var lines: [(number: Int, line: String)] = []
        var number = 0
        for raw in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            var line = raw[...]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            if number == 1 {
                guard line.elementsEqual("#EXTM3U".utf8) else { throw .missingHeader }
                continue
            }
            while let first = line.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { line = line.dropFirst() }
            while let last = line.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") || last == UInt8(ascii: "\r") { line = line.dropLast() }
            if !line.isEmpty { lines.append((number, String(decoding: line, as: UTF8.self))) }
        }
        if number == 0 { throw .missingHeader }
        return lines
    }
}
