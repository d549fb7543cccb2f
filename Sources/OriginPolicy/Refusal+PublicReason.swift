extension Refusal {
    /// The reason as its answer's body gives it. An internal error's reason often carries a
    /// failed call's error text, and that names files (`/var/lib/sideline/main/720p/…`,
    /// `NSFilePath=…`): those paths are the server's business, not the client's, so each is
    /// shown as `<path>`. Every other kind's reason is written for the client and kept.
    public var publicReason: String {
        kind == .internalError ? Self.withoutPaths(reason) : reason
    }

    /// `text` with every absolute path (a `/` at the start of a word, after `=`, `:` or an
    /// opening quote or bracket, up to the next space, quote or closing bracket) replaced by
    /// `<path>`.
    public static func withoutPaths(_ text: String) -> String {
        let starts: Set<Character> = [" ", "\t", "\n", "=", ":", "'", "\"", "“", "‘", "(", "[", "{", "<"]
        let ends: Set<Character> = [" ", "\t", "\n", "'", "\"", "”", "’", ")", "]", "}", ">", ",", ";"]
        var out = ""
        var inPath = false
        var previous: Character?
        for character in text {
            if inPath {
                if ends.contains(character) {
                    inPath = false
                    out.append(character)
                }
            } else if character == "/", previous.map(starts.contains) ?? true {
                inPath = true
                // `file:///x`: the slashes after the first are part of the same path.
                if !out.hasSuffix("<path>") { out += "<path>" }
            } else {
                out.append(character)
            }
            previous = character
        }
        return out
    }
}
