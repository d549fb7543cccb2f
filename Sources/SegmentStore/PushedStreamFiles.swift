import Foundation

/// Every file a pushed stream keeps beside its recording, with one owner: the segments
/// received and not yet listed (`ingest/<variant>/`), what the ingest must remember across a
/// restart (its encoder's session, the ladder it declared), the stream's metadata, and the
/// segments no slot took (`unplaced/`). No other code builds these paths or touches them;
/// every write is atomic (`AtomicFile`): a crash leaves the file as it was, never torn.
public struct PushedStreamFiles: Sendable {
    public let layout: StreamLayout

    public init(layout: StreamLayout) { self.layout = layout }

    /// What the stream remembers as one small file of its own (JSON).
    public enum Kept: Sendable, CaseIterable {
        /// The encoder's session and how far each variant was listed in it.
        case session
        /// The ladder the stream took from its encoder's master.
        case ladder
        /// Its title, description and keywords.
        case metadata
    }

    public func path(of kept: Kept) -> String {
        switch kept {
        case .session: layout.ingestSessionPath
        case .ladder: layout.pushedLadderPath
        case .metadata: layout.metadataPath
        }
    }

    /// Keeps `value` as `kept`'s file (atomically).
    public func keep(_ value: some Encodable, as kept: Kept) throws {
        let path = path(of: kept)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try AtomicFile.write(Array(try JSONEncoder().encode(value)), to: path)
    }

    /// `kept`'s file as `type`; nil when there is none or it does not decode.
    public func load<T: Decodable>(_ type: T.Type, from kept: Kept) -> T? {
        FileManager.default.contents(atPath: path(of: kept)).flatMap { try? JSONDecoder().decode(type, from: $0) }
    }

    // MARK: Received segments

    /// Keeps a segment received for `variant` under the name it was pushed with (atomically: a
    /// full disk leaves the name as it was). `stamps`: the shift its bytes were restamped by and
    /// where they then start, then those of the file it replaces (`ReceivedStamp`); kept beside
    /// it first (`<name>.stamp`), none when every one is 0, so a restart reads its timestamps as
    /// pushed (`receivedStamps`).
    public func keepReceived(_ bytes: some Collection<UInt8>, variant: String, name: String, stamps: [ReceivedStamp] = []) throws {
        let directory = layout.ingestDirectory(variant)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let stampPath = stampPath(variant: variant, name: name)
        if stamps.contains(where: { $0.stamp != 0 }) {
            try AtomicFile.write(try JSONEncoder().encode(stamps), to: stampPath)
        } else {
            try? FileManager.default.removeItem(atPath: stampPath)
        }
        try AtomicFile.write(bytes, to: receivedPath(variant: variant, name: name))
    }

    /// Where a received segment's file is: linked into the recording from here when it is
    /// listed as it was kept.
    public func receivedPath(variant: String, name: String) -> String {
        "\(layout.ingestDirectory(variant))/\(name)"
    }

    /// What is kept beside a received segment's file (`keepReceived`): empty when nothing is,
    /// nil when it cannot be read.
    public func receivedStamps(variant: String, name: String) -> [ReceivedStamp]? {
        guard let data = FileManager.default.contents(atPath: stampPath(variant: variant, name: name)) else { return [] }
        return try? JSONDecoder().decode([ReceivedStamp].self, from: data)
    }

    private func stampPath(variant: String, name: String) -> String { receivedPath(variant: variant, name: name) + ".stamp" }

    /// The bytes of a received segment; nil when it is not there (or cannot be read).
    public func received(variant: String, name: String) -> [UInt8]? {
        FileManager.default.contents(atPath: receivedPath(variant: variant, name: name)).map { [UInt8]($0) }
    }

    public func removeReceived(variant: String, name: String) {
        try? FileManager.default.removeItem(atPath: receivedPath(variant: variant, name: name))
        try? FileManager.default.removeItem(atPath: stampPath(variant: variant, name: name))
    }

    /// The names of `variant`'s received segments (temporary files of an interrupted write left out).
    public func receivedNames(variant: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: layout.ingestDirectory(variant))) ?? []).filter { $0.hasSuffix(".ts") && !$0.hasPrefix(".") }.sorted()
    }

    // MARK: Unplaced segments

    /// How many segments `variant`'s `unplaced/` holds (for `IngestBounds.keepsUnplaced`).
    public func unplacedCount(variant: String) -> Int {
        let directory = (layout.unplacedPath(variant, slot: 0, name: "x") as NSString).deletingLastPathComponent
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).count { !$0.hasPrefix(".") }
    }

    /// Keeps a pushed segment no slot could take, restamped for `slot` (atomically).
    public func keepUnplaced(_ bytes: some Collection<UInt8>, variant: String, slot: Int, name: String) throws {
        let path = layout.unplacedPath(variant, slot: slot, name: name)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try AtomicFile.write(bytes, to: path)
    }

    // MARK: A new ladder

    /// What a ladder's rungs recorded and received (their folders), the master and the
    /// timeline: removed before the stream is set up for a ladder its encoder declared.
    public func removeRecording(of variants: [String]) {
        for variant in variants {
            try? FileManager.default.removeItem(atPath: layout.variantDirectory(variant))
            try? FileManager.default.removeItem(atPath: layout.ingestDirectory(variant))
        }
        try? FileManager.default.removeItem(atPath: layout.masterPlaylistPath)
        try? FileManager.default.removeItem(atPath: layout.timelinePath)
    }
}
