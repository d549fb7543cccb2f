import SidelineCore

/// What is wrong with a configuration, phrased for the person who wrote it: which file, which
/// key, what was found, and what would be accepted.
public enum ConfigError: Error, Equatable, CustomStringConvertible {
    case unreadable(file: String, reason: String)
    case syntax(file: String, reason: String)
    case unknownKey(file: String, key: String, known: [String])
    case invalidValue(file: String, key: String, value: String, expected: String)

    public var description: String {
        switch self {
        case let .unreadable(file, reason):
            "cannot read config file \(file): \(reason). Check the path given to --config."
        case let .syntax(file, reason):
            "config file \(file) is not valid YAML: \(reason)"
        case let .unknownKey(file, key, known):
            "config file \(file): unknown key '\(key)'. Known keys here: \(known.sorted().joined(separator: ", ")). Check its spelling and indentation."
        case let .invalidValue(file, key, value, expected):
            // A secret's value is never echoed (Redaction): the message goes to logs and terminals.
            "config \(file): '\(key)' is '\(Redaction.configValue(key: key, value: value))', expected \(expected)."
        }
    }
}
