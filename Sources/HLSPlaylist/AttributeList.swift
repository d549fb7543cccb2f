/// An attribute list (RFC 8216 §4.2): `NAME=value,NAME="quoted, value",...`.
enum AttributeList {
    /// The attributes by name, quotes removed; nil when the list is malformed (a name without
    /// `=`, or a quoted string that never closes).
    static func parse(_ text: some StringProtocol) -> [String: String]? {
        var values: [String: String] = [:]
        var rest = Substring(text)
        while !rest.isEmpty {
            guard let equals = rest.firstIndex(of: "=") else { return nil }
            let name = String(rest[..<equals])
            rest = rest[rest.index(after: equals)...]
            let value: Substring
            if rest.first == "\"" {
                let body = rest.dropFirst()
                guard let close = body.firstIndex(of: "\"") else { return nil }
                value = body[..<close]
                rest = body[body.index(after: close)...]
            } else {
                let end = rest.firstIndex(of: ",") ?? rest.endIndex
                value = rest[..<end]
                rest = rest[end...]
            }
            values[name] = String(value)
            if rest.first == "," { rest = rest.dropFirst() }
        }
        return values
    }

    /// An enumerated-string YES/NO attribute: absent is NO (the draft's default for every such
    /// attribute Sideline reads); another value, malformed (nil).
    static func flag(_ value: String?) -> Bool? {
        switch value {
        case nil, "NO": false
        case "YES": true
        default: nil
        }
    }
}
