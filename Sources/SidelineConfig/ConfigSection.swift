import SidelineCore
import Yams

/// A YAML mapping being read, with the dotted path that leads to it, so that every error can
/// name the exact key. Reading is strict: a key nobody asked for is an error, because a
/// misspelt key silently ignored is a default silently used.
struct ConfigSection {
    let file: String
    let path: String
    private let mapping: [String: Node]
    private var consumed: Set<String> = []

    init(file: String, path: String, node: Node) throws(ConfigError) {
        guard let mapping = node.mapping else {
            throw .invalidValue(file: file, key: path.isEmpty ? "(top level)" : path, value: Self.show(node), expected: "a mapping of keys to values")
        }
        var entries: [String: Node] = [:]
        for (key, value) in mapping {
            guard let name = key.string else {
                throw .invalidValue(file: file, key: path, value: Self.show(key), expected: "string keys")
            }
            entries[name] = value
        }
        self.file = file
        self.path = path
        self.mapping = entries
    }

    func keyPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// Whether the key is present with a value (an explicit null counts as absent).
    func has(_ key: String) -> Bool {
        var copy = self
        return copy.node(key) != nil
    }

    mutating func node(_ key: String) -> Node? {
        consumed.insert(key)
        guard let node = mapping[key] else { return nil }
        // An explicit null (`key:`, `key: ~`) means "use the default".
        if case let .scalar(scalar) = node, ["", "~", "null", "Null", "NULL"].contains(scalar.string), scalar.style == .plain { return nil }
        return node
    }

    mutating func section(_ key: String) throws(ConfigError) -> ConfigSection? {
        guard let node = node(key) else { return nil }
        return try ConfigSection(file: file, path: keyPath(key), node: node)
    }

    mutating func string(_ key: String, matching valid: ((String) -> Bool)? = nil, expected: String = "a string") throws(ConfigError) -> String? {
        guard let node = node(key) else { return nil }
        guard let text = node.scalar?.string, valid?(text) ?? true else {
            throw .invalidValue(file: file, key: keyPath(key), value: Self.show(node), expected: expected)
        }
        return text
    }

    mutating func int(_ key: String, in range: ClosedRange<Int>) throws(ConfigError) -> Int? {
        guard let node = node(key) else { return nil }
        guard let value = node.int, range.contains(value) else {
            throw .invalidValue(file: file, key: keyPath(key), value: Self.show(node), expected: "a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    mutating func double(_ key: String, in range: ClosedRange<Double>) throws(ConfigError) -> Double? {
        guard let node = node(key) else { return nil }
        guard let value = node.float ?? node.int.map(Double.init), value.isFinite, range.contains(value) else {
            throw .invalidValue(file: file, key: keyPath(key), value: Self.show(node), expected: "a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    mutating func bool(_ key: String) throws(ConfigError) -> Bool? {
        guard let node = node(key) else { return nil }
        guard let value = node.bool else {
            throw .invalidValue(file: file, key: keyPath(key), value: Self.show(node), expected: "true or false")
        }
        return value
    }

    mutating func bitRate(_ key: String) throws(ConfigError) -> BitRate? {
        guard let node = node(key) else { return nil }
        guard let text = node.scalar?.string, let rate = BitRate(parsing: text) else {
            throw .invalidValue(file: file, key: keyPath(key), value: Self.show(node), expected: "a bit rate such as 3000k, 3M or 128000")
        }
        return rate
    }

    /// A mapping of names to scalar values, kept as text.
    mutating func stringMap(_ key: String) throws(ConfigError) -> [String: String]? {
        guard let node = node(key) else { return nil }
        guard let mapping = node.mapping else {
            throw .invalidValue(file: file, key: keyPath(key), value: Self.show(node), expected: "a mapping of option names to values")
        }
        var result: [String: String] = [:]
        for (name, value) in mapping {
            guard let name = name.string, !name.isEmpty, let text = value.scalar?.string else {
                throw .invalidValue(file: file, key: keyPath(key), value: Self.show(value), expected: "option: value pairs")
            }
            result[name] = text
        }
        return result
    }

    mutating func sequence(_ key: String) throws(ConfigError) -> [Node]? {
        guard let node = node(key) else { return nil }
        guard let items = node.sequence else {
            throw .invalidValue(file: file, key: keyPath(key), value: Self.show(node), expected: "a list")
        }
        return Array(items)
    }

    /// A list of strings, each checked by `valid`.
    mutating func stringList(_ key: String, matching valid: (String) -> Bool, expected: String) throws(ConfigError) -> [String]? {
        guard let items = try sequence(key) else { return nil }
        return try items.map { item throws(ConfigError) -> String in
            guard let text = item.scalar?.string, valid(text) else {
                throw .invalidValue(file: file, key: keyPath(key), value: Self.show(item), expected: expected)
            }
            return text
        }
    }

    /// Call once every known key has been read.
    func rejectUnknownKeys() throws(ConfigError) {
        if let unknown = mapping.keys.sorted().first(where: { !consumed.contains($0) }) {
            throw .unknownKey(file: file, key: keyPath(unknown), known: Array(consumed))
        }
    }

    static func show(_ node: Node) -> String {
        if let scalar = node.scalar { return scalar.string }
        if node.sequence != nil { return "a list" }
        return "a mapping"
    }
}
