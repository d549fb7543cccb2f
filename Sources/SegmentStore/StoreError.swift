import Foundation

/// A failure of the recording on disk, naming the path and the system's reason.
public enum StoreError: Error, CustomStringConvertible, Sendable, Equatable {
    case notWritable(directory: String, reason: String)
    case writeFailed(path: String, reason: String)
    /// A write the file system refused for want of space (ENOSPC) or quota (EDQUOT): told
    /// apart by its error number, so an ingest can answer 507 rather than 500.
    case diskFull(path: String, reason: String)

    public var description: String {
        switch self {
        case let .notWritable(directory, reason):
            "data directory '\(directory)' is not writable: \(reason). Choose another with --data-dir or data_dir in the config, or fix its permissions."
        case let .writeFailed(path, reason), let .diskFull(path, reason):
            "cannot write '\(path)': \(reason)"
        }
    }

    /// The failure of a write to `path` that set `code` (errno), with what was being done.
    static func writing(_ path: String, _ step: String? = nil, code: Int32 = errno) -> StoreError {
        let reason = step.map { "\($0): \(errnoText(code))" } ?? errnoText(code)
        return code == ENOSPC || code == EDQUOT ? .diskFull(path: path, reason: reason) : .writeFailed(path: path, reason: reason)
    }

    static func errnoText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }
}
