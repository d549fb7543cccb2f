import Foundation

/// Which recordings retention removes: pure, so every rule is tested without a disk.
///
/// A stream that is being encoded is never removed, whatever its age or size: while the event
/// is on, everything an analyst could scrub back to stays. An ended stream, or a recording no
/// configured stream continues, is removed once nothing was written to it for `maxAge`, or
/// once it is larger than `maxBytes`.
public struct RetentionPolicy: Sendable, Equatable {
    /// nil: no age limit.
    public var maxAge: TimeInterval?
    /// nil: no size limit.
    public var maxBytes: Int64?

    public init(maxAge: TimeInterval?, maxBytes: Int64?) {
        self.maxAge = maxAge
        self.maxBytes = maxBytes
    }

    /// What retention knows of one recording.
    public struct Recording: Sendable, Equatable {
        public var stream: String
        /// The newest modification time of its files.
        public var lastWrite: Date
        public var bytes: Int64
        /// Whether a pipeline of this server is encoding it now.
        public var isEncoding: Bool

        public init(stream: String, lastWrite: Date, bytes: Int64, isEncoding: Bool) {
            self.stream = stream
            self.lastWrite = lastWrite
            self.bytes = bytes
            self.isEncoding = isEncoding
        }
    }

    public enum Verdict: Sendable, Equatable {
        case keep
        /// Remove it; the reason goes into the log and the tombstone.
        case remove(reason: String)
    }

    public func verdict(for recording: Recording, now: Date) -> Verdict {
        guard !recording.isEncoding else { return .keep }
        if let maxAge {
            let age = now.timeIntervalSince(recording.lastWrite)
            if age > maxAge {
                return .remove(reason: "retention: nothing written for \(Self.hours(age)) h, more than max_age_hours \(Self.hours(maxAge))")
            }
        }
        if let maxBytes, recording.bytes > maxBytes {
            return .remove(reason: "retention: \(recording.bytes) bytes, more than max_size_gb (\(maxBytes) bytes)")
        }
        return .keep
    }

    private static func hours(_ seconds: TimeInterval) -> String {
        String(format: "%.2f", seconds / 3600)
    }
}

/// The recordings in a data directory, for retention: each subdirectory with a master or a
/// media playlist that has not been removed.
public enum RecordingInventory {
    public struct Entry: Sendable, Equatable {
        public var stream: String
        public var lastWrite: Date
        public var bytes: Int64
    }

    public static func scan(dataDirectory: String) -> [Entry] {
        let fileManager = FileManager.default
        let names = (try? fileManager.contentsOfDirectory(atPath: dataDirectory)) ?? []
        return names.sorted().compactMap { name -> Entry? in
            let layout = StreamLayout(dataDirectory: dataDirectory, stream: name)
            guard StreamTombstone.read(layout) == nil, isRecording(layout) else { return nil }
            var newest = Date(timeIntervalSince1970: 0)
            var bytes: Int64 = 0
            let files = fileManager.enumerator(atPath: layout.streamDirectory)
            while let relative = files?.nextObject() as? String {
                guard let attributes = try? fileManager.attributesOfItem(atPath: "\(layout.streamDirectory)/\(relative)"),
                      attributes[.type] as? FileAttributeType == .typeRegular else { continue }
                bytes += Int64((attributes[.size] as? NSNumber)?.int64Value ?? 0)
                if let modified = attributes[.modificationDate] as? Date, modified > newest { newest = modified }
            }
            return Entry(stream: name, lastWrite: newest, bytes: bytes)
        }
    }

    private static func isRecording(_ layout: StreamLayout) -> Bool {
        let fileManager = FileManager.default
        if fileManager.fileExists(atPath: layout.masterPlaylistPath) { return true }
        let children = (try? fileManager.contentsOfDirectory(atPath: layout.streamDirectory)) ?? []
        return children.contains { fileManager.fileExists(atPath: layout.mediaPlaylistPath($0)) }
    }
}
