
/// A credential a player carries in the URL path (`/access/<credential>/live/...`), so that
/// every relative URI of the master and media playlists carries it too and an unmodified
/// player sends it with every playlist and segment request (Docs/access.md says which ways
/// were measured with which players). Two forms, both plain URL-path text (`~` separates
/// fields; names cannot hold it):
///
/// - `v1~<stream>~<mac>`: made from the stream's `viewer_token` (what the page gives a viewer
///   who typed the token when no signing key is configured). It does not expire; changing the
///   token revokes every such URL. The token itself never appears in a URL.
/// - `s1~<stream>~<expires>~<variant>~<mac>`: signed with `access.signing_key` (`sideline
///   sign`), valid until `expires` (Unix seconds), limited to one variant unless `variant` is
///   empty.
///
/// `mac` is HMAC-SHA256 over the fields (and a label that says which form, so one form's MAC
/// can never pass as the other's), truncated to 128 bits, base64url without padding.
public enum AccessCredential: Sendable, Equatable {
    case viewer(stream: String)
    case signed(stream: String, expires: Int, variant: String?)

    public var stream: String {
        switch self {
        case let .viewer(stream), let .signed(stream, _, _): stream
        }
    }

    /// The fields before the MAC, the first naming the form.
    var fields: [String] {
        switch self {
        case let .viewer(stream): ["v1", stream]
        case let .signed(stream, expires, variant): ["s1", stream, String(expires), variant ?? ""]
        }
    }

    /// What a credential's text says, before its MAC is checked (`verify`).
    public struct Parsed: Sendable, Equatable {
        public let credential: AccessCredential
        let fields: [Substring]
        let mac: Substring
    }

    /// Parses a credential's text; nil for anything that is not one of the two forms.
    public static func parse(_ text: Substring) -> Parsed? {
        guard text.utf8.count <= 512 else { return nil }
        let parts = text.split(separator: "~", omittingEmptySubsequences: false)
        guard let mac = parts.last, mac.utf8.count == macLength else { return nil }
        let fields = Array(parts.dropLast())
        switch fields.first {
        case "v1" where fields.count == 2 && isName(fields[1]):
            return Parsed(credential: .viewer(stream: String(fields[1])), fields: fields, mac: mac)
        case "s1" where fields.count == 4 && isName(fields[1]) && (fields[3].isEmpty || isName(fields[3])):
            guard fields[2].utf8.count <= 12, fields[2].utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let expires = Int(fields[2]) else { return nil }
            let variant = fields[3].isEmpty ? nil : String(fields[3])
            return Parsed(credential: .signed(stream: String(fields[1]), expires: expires, variant: variant), fields: fields, mac: mac)
        default:
            return nil
        }
    }

    /// base64url characters of a 128-bit MAC without padding.
    static let macLength = 22

    /// Stream and variant names: what `SidelineConfiguration.isValidName` allows.
    static func isName(_ text: Substring) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 64, text.first != "." else { return false }
        return text.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F || c == 0x2E
        }
    }
}
