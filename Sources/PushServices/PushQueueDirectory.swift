import Foundation
import Logging
import SegmentStore
import SidelineCore
import StreamPushing
import Synchronization

/// `sideline push`'s queue on disk: every segment the encoder finished waits here until the
/// server acknowledged it (the playlist that lists it answered 200), across cuts of the link
/// and restarts of push, including `kill -9`: each file is written whole (`AtomicFile`) before
/// it counts, the segment before its description, so what a restart finds is consistent.
///
///     <queue>/state.json                 push's timeline and how far each variant was acknowledged
///     <queue>/<variant>/00000042.ts      a segment, as the encoder made it
///     <queue>/<variant>/00000042.json    its slot, duration, capture time and size
public final class PushQueueDirectory: Sendable {
    public let path: String
    public let timeline: PushTimeline
    private let writes = Mutex(())

    struct State: Codable {
        var timeline: PushTimeline
        var acknowledgedUpTo: [String: Int]
    }

    /// `push.queue_dir`, or `<data_dir>/push-queue/<stream>` when it is empty.
    public static func path(configured: String, dataDirectory: String, stream: String) -> String {
        configured.isEmpty ? "\(dataDirectory)/\(StoreNames.pushQueue)/\(stream)" : configured
    }

    /// The queue holds a private stream's footage before the server's gate ever sees it: its
    /// owner (the user push runs as) alone may list and read it, whatever the umask.
    static let directoryMode: Int16 = 0o700
    static let fileMode: mode_t = 0o600

    /// Makes `path` (and what leads to it) if needed, and gives it `directoryMode`, also when
    /// an earlier version made it readable by everyone.
    static func ownerOnlyDirectory(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: directoryMode], ofItemAtPath: path)
    }

    private init(path: String, timeline: PushTimeline) {
        self.path = path
        self.timeline = timeline
    }

    /// Why a queue directory cannot be used.
    public struct Unusable: Error, CustomStringConvertible {
        public let description: String
    }

    /// Opens (or makes) the queue at `path` and reads back what an earlier run left: the
    /// timeline it numbered segments on (or a new one: `PushTimeline.starting(at: now)`) and every whole segment
    /// of `variants`, none of them sent yet.
    public static func open(path: String, segmentDuration: Double, variants: [String], now: Date, logger: Logger) throws(Unusable) -> (PushQueueDirectory, PushQueue) {
        do {
            try ownerOnlyDirectory(path)
        } catch {
            throw Unusable(description: "cannot create the push queue directory \(path): \(error.localizedDescription); give a writable --queue-dir")
        }
        let statePath = "\(path)/\(StoreNames.pushQueueState)"
        var state: State
        if let data = FileManager.default.contents(atPath: statePath) {
            guard let read = try? JSONDecoder().decode(State.self, from: data) else {
                throw Unusable(description: "\(statePath) cannot be read; move the queue directory aside (it may hold segments not sent yet) or give another --queue-dir")
            }
            guard read.timeline.segmentDuration == segmentDuration else {
                throw Unusable(description: "the queue in \(path) was made with segment_duration \(read.timeline.segmentDuration), the config says \(segmentDuration): "
                    + "finish it with the config it was made with, or give another --queue-dir")
            }
            state = read
        } else {
            // A new queue cuts on the grid of multiples of D since 1970, as an angle set does;
            // an existing queue keeps the timeline it numbered its segments on (above).
            state = State(timeline: PushTimeline.starting(at: now, segmentDuration: segmentDuration), acknowledgedUpTo: [:])
        }
        let directory = PushQueueDirectory(path: path, timeline: state.timeline)
        do {
            try directory.write(state)
        } catch {
            throw Unusable(description: "cannot write \(statePath): \(error); give a writable --queue-dir")
        }
        var queue = PushQueue(segmentDuration: segmentDuration)
        queue.acknowledgedUpTo = state.acknowledgedUpTo
        for variant in variants {
            for segment in directory.kept(variant, logger: logger) { queue.add(segment, of: variant) }
        }
        let others = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { name in
            !variants.contains(name) && name != StoreNames.pushQueueState && !name.hasPrefix(".")
        }
        if !others.isEmpty {
            logger.warning("the push queue holds variants the config's ladder does not name; they are left where they are, not sent",
                           metadata: ["variants": "\(others.sorted().joined(separator: ","))", "queue": "\(path)"])
        }
        return (directory, queue)
    }

    private func variantDirectory(_ variant: String) -> String { "\(path)/\(variant)" }
    private func segmentPath(_ variant: String, _ slot: Int) -> String { "\(variantDirectory(variant))/\(PushQueue.segmentName(slot: slot))" }
    private func descriptionPath(_ variant: String, _ slot: Int) -> String { String(segmentPath(variant, slot).dropLast(3)) + ".json" }

    /// The whole segments of `variant` a run left behind; a segment without its description
    /// (cut off between the two writes) or a description without its segment is removed.
    private func kept(_ variant: String, logger: Logger) -> [PushQueue.Segment] {
        let directory = variantDirectory(variant)
        let names = Set((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
        var segments: [PushQueue.Segment] = []
        for name in names {
            if name.hasPrefix(AtomicFile.temporaryPrefix) {
                unlink("\(directory)/\(name)")
                continue
            }
            guard name.hasSuffix(".json") else { continue }
            let stem = String(name.dropLast(5))
            guard names.contains(stem + ".ts"), let data = FileManager.default.contents(atPath: "\(directory)/\(name)"),
                  let segment = try? JSONDecoder().decode(PushQueue.Segment.self, from: data),
                  PushQueue.segmentName(slot: segment.slot) == stem + ".ts" else {
                logger.warning("an incomplete entry of the push queue is removed", metadata: ["file": "\(directory)/\(name)"])
                unlink("\(directory)/\(name)")
                continue
            }
            segments.append(segment)
        }
        for name in names where name.hasSuffix(".ts") && !names.contains(String(name.dropLast(3)) + ".json") {
            unlink("\(directory)/\(name)")
        }
        return segments.sorted { $0.slot < $1.slot }
    }

    /// Keeps a finished segment: its bytes, then its description (only then does it count).
    public func keep(_ bytes: [UInt8], as segment: PushQueue.Segment, of variant: String) throws {
        try Self.ownerOnlyDirectory(variantDirectory(variant))
        try AtomicFile.write(bytes, to: segmentPath(variant, segment.slot), mode: Self.fileMode)
        try AtomicFile.write(Array(try JSONEncoder().encode(segment)), to: descriptionPath(variant, segment.slot), mode: Self.fileMode)
    }

    /// A queued segment's bytes; nil when its file is gone.
    public func bytes(of variant: String, slot: Int) -> [UInt8]? {
        FileManager.default.contents(atPath: segmentPath(variant, slot)).map { [UInt8]($0) }
    }

    /// The server has the segment (or refused it for good): it leaves the queue.
    public func remove(_ variant: String, slot: Int) {
        unlink(descriptionPath(variant, slot))
        unlink(segmentPath(variant, slot))
    }

    /// Records how far each variant was acknowledged (after the files of those segments went).
    public func saveAcknowledged(_ upTo: [String: Int]) throws {
        try write(State(timeline: timeline, acknowledgedUpTo: upTo))
    }

    private func write(_ state: State) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let bytes = Array(try encoder.encode(state))
        try writes.withLock { _ in try AtomicFile.write(bytes, to: "\(path)/state.json", mode: Self.fileMode) }
    }
}
