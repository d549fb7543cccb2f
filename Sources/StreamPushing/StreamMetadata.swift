import Foundation

/// What a pushed stream says about itself: title, description and keywords, as the master's
/// EXT-X-SESSION-DATA (`com.sideline.title`, ...), `/api/streams` and the page show them. Read
/// from JSON (`{"title": ..., "description": ..., "keywords": ...}`, what `sideline push` sends)
/// or from a field app's text file: the title on the first line, the keywords on the second,
/// the description on the rest. Pure.
public struct StreamMetadata: Sendable, Equatable, Codable {
    public var title: String
    public var description: String
    public var keywords: String

    public init(title: String = "", description: String = "", keywords: String = "") {
        self.title = title
        self.description = description
        self.keywords = keywords
    }

    public enum Rejection: Error, Sendable, Equatable, CustomStringConvertible {
        case unreadable(String)
        case unquotable(field: String)
        case tooLong(field: String, limit: Int)

        public var description: String {
            switch self {
            case let .unreadable(reason): "the metadata cannot be read: \(reason); send JSON {\"title\", \"description\", \"keywords\"} or the text 'title\\nkeyword, keyword\\ndescription'"
            case let .unquotable(field): "\(field) holds a double quote or a control character, which cannot stand in a playlist attribute"
            case let .tooLong(field, limit): "\(field) is longer than \(limit) characters"
            }
        }
    }

    static let limit = 1_000

    /// Reads an upload: JSON when it starts with `{`, the field app's three-part text otherwise.
    public static func parse(_ bytes: [UInt8]) -> Result<StreamMetadata, Rejection> {
        guard let text = String(validating: bytes, as: UTF8.self) else { return .failure(.unreadable("not UTF-8 text")) }
        let metadata: StreamMetadata
        if text.drop(while: \.isWhitespace).first == "{" {
            struct Fields: Decodable {
                var title: String?
                var description: String?
                var keywords: String?
            }
            do {
                let fields = try JSONDecoder().decode(Fields.self, from: Data(bytes))
                metadata = StreamMetadata(title: fields.title ?? "", description: fields.description ?? "", keywords: fields.keywords ?? "")
            } catch {
                return .failure(.unreadable("not the JSON expected (\(error))"))
            }
        } else {
            let lines = text.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            // A description of several lines is kept as one line: it goes in a quoted attribute.
            let description = lines.count > 2 ? lines[2].split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ") : ""
            metadata = StreamMetadata(title: lines.first ?? "", description: description, keywords: lines.count > 1 ? lines[1] : "")
        }
        return metadata.checked()
    }

    /// Itself when every field can stand in a playlist attribute, the refusal otherwise.
    public func checked() -> Result<StreamMetadata, Rejection> {
        for (field, value) in [("title", title), ("description", description), ("keywords", keywords)] {
            if value.count > Self.limit { return .failure(.tooLong(field: field, limit: Self.limit)) }
            if value.unicodeScalars.contains(where: { $0 == "\"" || $0.properties.generalCategory == .control }) { return .failure(.unquotable(field: field)) }
        }
        return .success(self)
    }

    /// What `sideline push` sends: a metadata file's fields (`parse`), each replaced by the
    /// flag given for it; nil when neither gives anything.
    public static func combining(file: [UInt8]?, title: String?, description: String?, keywords: String?) -> Result<StreamMetadata?, Rejection> {
        var combined: StreamMetadata?
        if let file {
            switch parse(file) {
            case let .success(parsed): combined = parsed
            case let .failure(rejection): return .failure(rejection)
            }
        }
        guard combined != nil || title != nil || description != nil || keywords != nil else { return .success(nil) }
        var metadata = combined ?? StreamMetadata()
        if let title { metadata.title = title }
        if let description { metadata.description = description }
        if let keywords { metadata.keywords = keywords }
        return metadata.checked().map { $0 }
    }
}
