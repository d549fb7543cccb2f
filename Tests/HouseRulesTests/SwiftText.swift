/// Just enough of Swift's lexical rules to read Package.swift and the imports of a source file:
/// comments, string literals (plain, multi-line, raw) and brackets. Positions are offsets into
/// an array of `Character`s, so a range found in the text without comments is the same range in
/// the file.
enum SwiftText {
    /// `text` with every comment, and the contents of every multi-line string, replaced by spaces
    /// (newlines kept, so line numbers and offsets stay). A line that starts with `import` in
    /// the result is an import; one inside a comment or a `"""` literal is not.
    static func withoutComments(_ text: String) -> [Character] {
        var code = Array(text)
        var index = 0
        func blank(_ position: Int) { if code[position] != "\n" && code[position] != "\r\n" { code[position] = " " } }
        func starts(_ token: String, at position: Int) -> Bool {
            var offset = position
            for character in token {
                guard offset < code.count, code[offset] == character else { return false }
                offset += 1
            }
            return true
        }
        while index < code.count {
            if starts("//", at: index) {
                while index < code.count, code[index] != "\n", code[index] != "\r\n" { blank(index); index += 1 }
            } else if starts("/*", at: index) {
                // Swift's block comments nest.
                var depth = 0
                repeat {
                    if starts("/*", at: index) { depth += 1; blank(index); blank(index + 1); index += 2 }
                    else if starts("*/", at: index) { depth -= 1; blank(index); blank(index + 1); index += 2 }
                    else { blank(index); index += 1 }
                } while depth > 0 && index < code.count
            } else if code[index] == "#" || code[index] == "\"" {
                var hashes = 0
                while index + hashes < code.count, code[index + hashes] == "#" { hashes += 1 }
                guard index + hashes < code.count, code[index + hashes] == "\"" else { index += max(hashes, 1); continue }
                let terminatorHashes = String(repeating: "#", count: hashes)
                index += hashes
                if starts("\"\"\"", at: index) {
                    index += 3
                    while index < code.count, !starts("\"\"\"" + terminatorHashes, at: index) {
                        if hashes == 0, code[index] == "\\", index + 1 < code.count { blank(index); index += 1 }
                        blank(index); index += 1
                    }
                    index += 3 + hashes
                } else {
                    index += 1
                    while index < code.count, !starts("\"" + terminatorHashes, at: index), code[index] != "\n" {
                        if hashes == 0, code[index] == "\\" { index += 1 }
                        index += 1
                    }
                    index += 1 + hashes
                }
            } else {
                index += 1
            }
        }
        return code
    }

    /// The offset of the bracket that closes the one at `open` (`(`, `[` or `{`), skipping
    /// string literals.
    static func closing(_ code: [Character], _ open: Int) throws -> Int {
        var depth = 0
        var index = open
        while index < code.count {
            switch code[index] {
            case "(", "[", "{": depth += 1
            case ")", "]", "}":
                depth -= 1
                if depth == 0 { return index }
            case "\"": index = endOfString(code, index)
            default: break
            }
            index += 1
        }
        throw ManifestParseError(description: "a bracket opened at offset \(open) is never closed")
    }

    /// The items of a comma-separated list between `range`'s bounds (commas inside brackets or
    /// strings do not count), each trimmed of white space; an empty last item (a trailing
    /// comma) is left out.
    static func items(_ code: [Character], in range: Range<Int>) -> [Range<Int>] {
        var items: [Range<Int>] = []
        var depth = 0
        var start = range.lowerBound
        var index = range.lowerBound
        func close(_ end: Int) {
            var lower = start
            var upper = end
            while lower < upper, code[lower].isWhitespace { lower += 1 }
            while upper > lower, code[upper - 1].isWhitespace { upper -= 1 }
            if lower < upper { items.append(lower ..< upper) }
        }
        while index < range.upperBound {
            switch code[index] {
            case "(", "[", "{": depth += 1
            case ")", "]", "}": depth -= 1
            case "\"": index = endOfString(code, index)
            case "," where depth == 0:
                close(index)
                start = index + 1
            default: break
            }
            index += 1
        }
        close(range.upperBound)
        return items
    }

    /// The labelled arguments of a call whose parentheses enclose `range`: label to the range
    /// of its value.
    static func arguments(_ code: [Character], in range: Range<Int>) -> [String: Range<Int>] {
        var arguments: [String: Range<Int>] = [:]
        for item in items(code, in: range) {
            let text = String(code[item])
            guard let label = text.firstMatch(of: /^([A-Za-z_][A-Za-z0-9_]*)\s*:\s*/) else { continue }
            arguments[String(label.output.1)] = item.lowerBound + label.output.0.count ..< item.upperBound
        }
        return arguments
    }

    /// The contents of `range` when it is exactly one plain string literal with no escapes.
    static func stringLiteral(_ code: [Character], _ range: Range<Int>) -> String? {
        let text = String(code[range])
        guard let match = text.wholeMatch(of: /"([^"\\]*)"/) else { return nil }
        return String(match.output.1)
    }

    /// The offset of the quote that ends the plain string literal opening at `open`.
    private static func endOfString(_ code: [Character], _ open: Int) -> Int {
        var index = open + 1
        while index < code.count, code[index] != "\"" {
            if code[index] == "\\" { index += 1 }
            index += 1
        }
        return index
    }
}
