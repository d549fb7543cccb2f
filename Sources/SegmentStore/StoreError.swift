import Foundation

/// A failure of the recording on disk, naming the path and the system's reason.
public enum StoreError: Error, CustomStringConvertible, Sendable, Equatable {
    case notWritable(directory: String, reason: String)
    case writeFailed(path: String, reason: String)

    public var description: String {
        switch self {
        case let .notWritable(directory, reason):
            "data directory '\(directory)' is not writable: \(reason). Choose another with --data-dir or data_dir in the config, or fix its permissions."
        case let .writeFailed(path, reason):
            "cannot write '\(path)': \(reason)"
        }
    }

    static func errnoText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }
}
