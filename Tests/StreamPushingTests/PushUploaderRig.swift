import Foundation
import HLSPlaylist
import SidelineCore
import SidelineTesting
import StreamPushing
import Synchronization

/// A link and a server's ingest in memory, on simulated time: uploads take bytes x 8 / rate
/// seconds, a cut link answers nothing at once (connection refused), a stalled one never
/// answers; answers can be scripted by path. The server keeps what it received and lists what
/// a playlist names, and notes anything listed twice or named without being received.
final class SimulatedLink: IngestUploading {
    struct Request: Sendable, Equatable {
        var at: Double
        var path: String
        var status: Int?
        var answeredAt: Double
    }

    struct Server: Sendable {
        var received: Set<String> = []
        /// Per variant, push's slots in the order the server listed them.
        var listed: [String: [Int]] = [:]
        var masters: [String] = []
        var metadata: [String] = []
        var problems: [String] = []
    }

    private struct State {
        /// Bits per second; nil: instant.
        var rate: Int?
        var down = false
        var stalled = false
        var scripted: [String: [Int]] = [:]
        var requests: [Request] = []
        var server = Server()
    }

    private let time: SimulatedTime
    private let state: Mutex<State>

    init(time: SimulatedTime, rate: Int? = nil) {
        self.time = time
        state = Mutex(State(rate: rate))
    }

    func set(rate: Int?) { state.withLock { $0.rate = rate } }
    func set(down: Bool) { state.withLock { $0.down = down } }
    func set(stalled: Bool) { state.withLock { $0.stalled = stalled } }
    /// The next uploads to `path` answer `statuses`, one each, before the server takes it.
    func script(_ path: String, _ statuses: [Int]) { state.withLock { $0.scripted[path] = statuses } }

    var requests: [Request] { state.withLock { $0.requests } }
    var server: Server { state.withLock { $0.server } }
    func requests(to path: String) -> [Request] { requests.filter { $0.path == path } }

    func put(_ path: String, body: [UInt8], contentType: String, timeout: Double) async -> IngestAnswer {
        let started = time.now
        let (scripted, down, stalled, rate) = state.withLock { s -> (Int?, Bool, Bool, Int?) in
            var scripted: Int?
            if var statuses = s.scripted[path], !statuses.isEmpty {
                scripted = statuses.removeFirst()
                s.scripted[path] = statuses
            }
            return (scripted, s.down, s.stalled, s.rate)
        }
        func answer(_ status: Int?, _ reason: String) -> IngestAnswer {
            state.withLock { $0.requests.append(Request(at: started, path: path, status: status, answeredAt: time.now)) }
            return IngestAnswer(status: status, reason: reason)
        }
        if let scripted { return answer(scripted, "scripted \(scripted)") }
        if down { return answer(nil, "connection refused") }
        do {
            if stalled { try await time.sleep(.infinity) }
            if let rate { try await time.sleep(Double(body.count) * 8 / Double(rate)) }
        } catch {
            return answer(nil, "cancelled")
        }
        // Cut while the upload was under way: the connection is reset.
        if state.withLock({ $0.down }) { return answer(nil, "connection reset") }
        return state.withLock { s in
            let (status, reason) = Self.take(path, body: body, server: &s.server)
            s.requests.append(Request(at: started, path: path, status: status, answeredAt: time.now))
            return IngestAnswer(status: status, reason: reason)
        }
    }

    /// The server's side of one upload.
    private static func take(_ path: String, body: [UInt8], server: inout Server) -> (Int, String) {
        if path == "metadata" {
            server.metadata.append(String(decoding: body, as: UTF8.self))
            return (200, "")
        }
        if path == "master.m3u8" {
            server.masters.append(String(decoding: body, as: UTF8.self))
            return (201, "")
        }
        let parts = path.split(separator: "/").map(String.init)
        guard parts.count == 2 else { return (404, "no such path") }
        let variant = parts[0]
        if parts[1].hasSuffix(".ts") {
            server.received.insert(path)
            return (201, "")
        }
        guard let playlist = try? MediaPlaylist.parse(String(decoding: body, as: UTF8.self)) else { return (400, "not a playlist") }
        for (offset, entry) in playlist.segments.enumerated() where !entry.gap {
            let slot = playlist.mediaSequence + offset
            guard server.received.contains("\(variant)/\(entry.uri)") else {
                return (400, "the playlist names \(entry.uri), which was not received")
            }
            if server.listed[variant, default: []].contains(slot) {
                server.problems.append("\(variant) slot \(slot) named again after it was listed")
            } else {
                server.listed[variant, default: []].append(slot)
            }
        }
        return (200, "")
    }
}

/// The queue's files in memory.
final class MemoryQueueStore: PushQueueStore {
    struct NotKept: Error {}
    let files = Mutex<[String: [UInt8]]>([:])
    let acknowledgedUpTo = Mutex<[String: Int]>([:])
    let failsToKeep = Mutex(false)

    func keep(_ bytes: [UInt8], as segment: PushQueue.Segment, of variant: String) throws {
        if failsToKeep.withLock({ $0 }) { throw NotKept() }
        files.withLock { $0["\(variant)/\(segment.slot)"] = bytes }
    }
    func queuedBytes(of variant: String, slot: Int) async -> [UInt8]? { files.withLock { $0["\(variant)/\(slot)"] } }
    func removeQueued(_ variant: String, slots: [Int]) async { files.withLock { for slot in slots { $0["\(variant)/\(slot)"] = nil } } }
    func recordAcknowledged(_ upTo: [String: Int]) async throws { acknowledgedUpTo.withLock { $0 = upTo } }
    var count: Int { files.withLock { $0.count } }
}

/// An uploader on simulated time, behind a simulated link, fed by a simulated encoder that
/// makes a segment of every rung each 2 s at the rates the uploader's plan gives it.
final class UploaderRig: Sendable {
    static let rungs: [PushLadder.Rung] = [.init(name: "720p", bitRate: 2_000_000), .init(name: "360p", bitRate: 600_000), .init(name: "180p", bitRate: 200_000)]
    static let audio = 64_000
    static let epoch = Date(timeIntervalSince1970: 1_800_000_000)

    let time = SimulatedTime()
    let link: SimulatedLink
    let store = MemoryQueueStore()
    let uploader: PushUploader
    /// What the uploader reported, and the plan the encoders follow (the last one reported).
    final class Reports: Sendable {
        let events = Mutex<[(at: Double, event: PushEvent)]>([])
        let plan: Mutex<PushLadder.Plan>
        init(plan: PushLadder.Plan) { self.plan = Mutex(plan) }
    }

    let reports: Reports
    let outcome = Mutex<Result<Void, PushRefusal>?>(nil)
    let encoderDone = Mutex(false)
    let started: Double

    init(rate: Int? = 10_000_000, backlog: PushBacklog = .liveFirst, metadata: StreamMetadata? = nil, queue: PushQueue = PushQueue(segmentDuration: 2)) {
        link = SimulatedLink(time: time, rate: rate)
        let settings = PushUploader.Settings(rungs: Self.rungs, peakBitRates: Dictionary(uniqueKeysWithValues: Self.rungs.map { ($0.name, $0.bitRate * 3 / 2 + Self.audio) }),
                                             segmentDuration: 2, targetDuration: 2, audioBitRate: Self.audio, rule: UploadBitRate(), minimum: 150_000,
                                             maximum: Self.rungs.reduce(0) { $0 + $1.bitRate }, backlog: backlog, metadata: metadata)
        let reports = Reports(plan: settings.ladder.full)
        self.reports = reports
        started = time.now
        let time = self.time
        uploader = PushUploader(settings: settings, queue: queue, transport: link, store: store, clock: time.clock.read, sleep: time.sleeper) { event in
            reports.events.withLock { $0.append((time.now, event)) }
            if case let .planChanged(change) = event { reports.plan.withLock { $0 = change.plan } }
        }
    }

    /// Starts the uploader's run and the encoder: slots `slots`, one every 2 s, each rung's
    /// format known before its first segment.
    func start(slots: Range<Int>) {
        startUploader()
        startEncoder(slots: slots)
    }

    func startUploader() {
        time.start { [self] in
            do throws(PushRefusal) {
                try await uploader.run()
                outcome.withLock { $0 = .success(()) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
        }
        for rung in Self.rungs {
            uploader.formatKnown(VariantFormat(codecs: ["avc1.64001f", "mp4a.40.2"], width: 1280, height: 720, frameRate: 25), of: rung.name)
        }
    }

    func startEncoder(slots: Range<Int>) {
        time.start { [self] in
            for slot in slots {
                guard (try? await time.sleep(2)) != nil else { return }
                encode(slot: slot)
            }
            uploader.encoderFinished()
            encoderDone.withLock { $0 = true }
        }
    }

    /// Every rung's segment of `slot`, at its rate in the plan (the audio and 2 s of it).
    func encode(slot: Int) {
        let plan = reports.plan.withLock { $0 }
        for rung in Self.rungs {
            let rate = plan.bitRate(of: rung.name) ?? rung.bitRate
            let bytes = (rate + Self.audio) * 2 / 8
            let segment = PushQueue.Segment(slot: slot, duration: 2, programDateTime: Self.epoch.addingTimeInterval(Double(slot) * 2), bytes: bytes)
            uploader.segmentFinished([UInt8](repeating: 0x47, count: bytes), as: segment, of: rung.name)
        }
    }

    var ended: Bool { outcome.withLock { $0 != nil } }
    var refusal: PushRefusal? {
        guard case let .failure(refusal) = outcome.withLock({ $0 }) else { return nil }
        return refusal
    }

    /// Runs until the uploader's run has returned; false when it is still waiting (nothing
    /// left to happen) or more than `seconds` of simulated time passed.
    @discardableResult
    func runToEnd(within seconds: Double = 600) -> Bool {
        time.run(until: { ended }, limit: time.now + seconds)
    }

    /// Seconds since the rig started.
    var elapsed: Double { time.now - started }

    func reported() -> [PushEvent] { reports.events.withLock { $0.map(\.event) } }
    func planChanges() -> [(at: Double, change: PushPlanChange)] {
        reports.events.withLock { $0.compactMap { entry in
            if case let .planChanged(change) = entry.event { return (entry.at, change) }
            return nil
        } }
    }
}
