/// A parameter of a header value such as `multipart/form-data; boundary=XyZ` or
/// `form-data; name="uploadFile"; filename="seg 1.ts"` (RFC 9110 §5.6.6): the name compared
/// without case, the value a token or a quoted string with its backslash escapes undone.
extension HeaderTokens {
    public static func parameter(_ name: String, in value: String) -> String? {
        var rest = Substring(value)
        // Skip the value itself (`multipart/form-data`, `form-data`).
        guard let firstSemicolon = rest.firstIndex(of: ";") else { return nil }
        rest = rest[rest.index(after: firstSemicolon)...]
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == ";" }
            guard let equals = rest.firstIndex(of: "=") else { return nil }
            let key = rest[..<equals].trimmingSpaces
            rest = rest[rest.index(after: equals)...].drop { $0 == " " || $0 == "\t" }
            var parsed = ""
            if rest.first == "\"" {
                var index = rest.index(after: rest.startIndex)
                var closed = false
                while index < rest.endIndex {
                    let c = rest[index]
                    if c == "\\", rest.index(after: index) < rest.endIndex {
                        index = rest.index(after: index)
                        parsed.append(rest[index])
                    } else if c == "\"" {
                        closed = true
                        break
                    } else {
                        parsed.append(c)
                    }
                    index = rest.index(after: index)
                }
                guard closed else { return nil }
                rest = rest[rest.index(after: index)...]
                rest = rest.drop { $0 != ";" }
            } else {
                let end = rest.firstIndex(of: ";") ?? rest.endIndex
                parsed = String(rest[..<end].trimmingSpaces)
                rest = rest[end...]
            }
            if key.lowercased() == name.lowercased() { return parsed }
        }
        return nil
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var trimmed = self
        while let first = trimmed.first, first == " " || first == "\t" { trimmed.removeFirst() }
        while let last = trimmed.last, last == " " || last == "\t" { trimmed.removeLast() }
        return trimmed
    }
}
