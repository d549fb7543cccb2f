import Foundation
import IngestPolicy
import MediaPipeline
import OriginPolicy
import ServiceLifecycle
import StreamServices
import Synchronization

/// Runs a pushed stream as a service of the process: ticks its publishing core from the start
/// (so a pusher that goes quiet, or has not come back after a restart, gets stand-ins on time)
/// and, on shutdown, ends the stream with EXT-X-ENDLIST only when the operator asked for that
/// (Ctrl-C); a SIGTERM leaves it open for the encoder to continue after a restart.
public final class PushedStreamService: Service, RunningStream {
    public let stream: PushedStream
    private let endStream = Atomic<Bool>(false)

    public init(stream: PushedStream) {
        self.stream = stream
    }

    public var pipeline: LivePipeline? { nil }
    public var isPushed: Bool { true }
    public var statistics: PipelineStatistics { stream.statistics }

    /// Whether stopping also ends the stream with EXT-X-ENDLIST (Ctrl-C) or leaves it open (SIGTERM).
    public var endStreamOnStop: Bool {
        get { endStream.load(ordering: .relaxed) }
        set { endStream.store(newValue, ordering: .relaxed) }
    }

    public func run() async throws {
        stream.startTicking()
        defer { stream.stopTicking() }
        try? await gracefulShutdown()
        if endStreamOnStop { stream.endStream() }
    }

    public func endNow() { stream.endStream() }

    public func stopForRemoval() { stream.retire() }
}

/// The ingest route's receiver: every pushed stream of the server, by name.
public struct PushedStreams: IngestReceiving {
    let streams: [String: PushedStream]

    public init(_ streams: [PushedStream]) {
        self.streams = Dictionary(uniqueKeysWithValues: streams.map { ($0.name, $0) })
    }

    public var ingestTokens: [String: String] { streams.mapValues(\.token) }
    /// The config's `ingest` bounds (every pushed stream has the same configuration).
    public var bounds: IngestBounds { streams.values.first?.bounds ?? IngestBounds() }

    public func receive(_ path: IngestPath, body: [UInt8]) -> Result<IngestReceipt, Refusal> {
        // The route checked the token, so the stream is one of these.
        guard let stream = streams[path.stream] else { return .failure(Refusal.noSuchStream(path.stream).forOperators()) }
        return stream.receive(path, body: body)
    }
}
