import HLSPlaylist

/// One answer of a server's ingest to an upload.
public struct IngestAnswer: Sendable, Equatable {
    /// nil: no answer (refused, cut, timed out, abandoned).
    public var status: Int?
    /// The server's text, or why there was no answer.
    public var reason: String

    public init(status: Int?, reason: String) {
        self.status = status
        self.reason = reason
    }

    public var succeeded: Bool { status.map { (200...299).contains($0) } ?? false }
}

/// What `sideline push` needs of the network: one PUT. PushServices gives it an HTTP client;
/// tests give it a link in memory.
public protocol IngestUploading: Sendable {
    /// PUTs `body` to `path` under the stream's ingest URL within `timeout` seconds. Never
    /// throws: a failure is an answer without a status. Returns soon after its task is cancelled.
    func put(_ path: String, body: [UInt8], contentType: String, timeout: Double) async -> IngestAnswer
}

/// Where push's queued segments are kept until the server has them (PushServices: the queue
/// directory, files whole or absent). The async calls may block: the store runs them off
/// Swift's cooperative pool.
public protocol PushQueueStore: Sendable {
    /// Keeps a finished segment, bytes then description. Called on the pipeline's threads.
    func keep(_ bytes: [UInt8], as segment: PushQueue.Segment, of variant: String) throws
    /// A queued segment's bytes; nil when its file is gone.
    func queuedBytes(of variant: String, slot: Int) async -> [UInt8]?
    /// The segments leave the store (the server has them, or refused them for good).
    func removeQueued(_ variant: String, slots: [Int]) async
    /// Records how far each variant was acknowledged (after those segments' files went).
    func recordAcknowledged(_ upTo: [String: Int]) async throws
}

/// Why push ended without sending everything: a refusal retrying cannot fix.
public struct PushRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}

/// A change of what is encoded and sent, and what caused it.
public struct PushPlanChange: Sendable, Equatable {
    public var plan: PushLadder.Plan
    /// Bits per second the slot's uploads went up at; nil: an upload is taking too long.
    public var measured: Int?
    /// The plan before a measured change (nil for a step down while an upload drags).
    public var before: PushLadder.Plan?

    public init(plan: PushLadder.Plan, measured: Int?, before: PushLadder.Plan?) {
        self.plan = plan
        self.measured = measured
        self.before = before
    }

    /// Worth an operator's attention: a step down while an upload drags, a rung dropped or
    /// back, or a rate change beyond 0.8x to 1.25x (every measurement moves the rates a little).
    public var isNotable: Bool {
        guard let before else { return true }
        let step = Double(plan.videoBitRate) / Double(max(1, before.videoBitRate))
        return plan.dropped != before.dropped || step < 0.8 || step > 1.25
    }
}

/// What happened, for the log and the measurements: the uploader decides, PushServices words it.
public enum PushEvent: Sendable, Equatable {
    /// The encoders take the plan's rates from their next frame.
    case planChanged(PushPlanChange)
    /// The first failure after a success (the rest show on the status line).
    case uploadFailing(upload: String, status: Int?, reason: String)
    case uploadsRecovered
    /// A segment's upload went through in `seconds` (the injected clock).
    case segmentUploaded(variant: String, slot: Int, seconds: Double)
    /// The server listed these segments: they left the queue.
    case acknowledged(variant: String, slots: [Int])
    case segmentNotKept(variant: String, slot: Int, error: String)
    case segmentFileGone(variant: String, slot: Int)
    /// The server refused the segment for good; its slot is filled on the server.
    case segmentDropped(variant: String, slot: Int, reason: String)
    /// The server refused a playlist: its segments are sent again.
    case playlistRefused(variant: String, reason: String)
    case queueStateNotSaved(error: String)
}
