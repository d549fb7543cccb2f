import ArgumentParser
import Foundation
import HLSOrigin
import Logging
import MediaPipeline
import PushServices
import SidelineConfig
import SidelineCore
import StreamPushing
import StreamServices
import UnixSignals

/// `sideline push`: encodes a camera in the field with the config's ladder and uploads it to a
/// server's ingest over a link of any quality, adapting the bit rate to the uplink and keeping
/// every segment on disk until the server has it (PushServices, StreamPushing).
struct PushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Encode a camera here and upload it to a Sideline server's ingest, adapting to the uplink and losing nothing when it drops.",
        discussion: """
        The server's config names the stream with an ingest_token and no input, and the same \
        ladder and segment_duration as this side's config. Each segment waits in the queue \
        directory until the server has listed it, across cuts of the link and restarts of push; \
        after a cut push.backlog (live-first or catch-up) says what goes first. Ctrl-C or SIGTERM \
        stops encoding and sends what is queued for a few seconds; the rest goes with the next run.

        Example: sideline push --input rtsp://10.0.0.5/stream1 --to http://10.0.0.2:8080/ingest/roof --token 4f1c0e8a9b2d7c6e5f3a1b0c9d8e7f6a
        """
    )

    @Option(help: "What to encode: a file, a device such as /dev/video0, a URL, or testpattern (default: the config's stream input).")
    var input: String?
    @Option(help: "The server's ingest URL for the stream: http://<server>:<port>/ingest/<stream>.")
    var to: String
    @Option(help: "The stream's ingest_token on the server (or the environment variable SIDELINE_INGEST_TOKEN).")
    var token: String?
    @Option(name: .customLong("ca-file"), help: "The venue CA (PEM) an https server's certificate is verified against, besides the system's roots.")
    var caFile: String?
    @Option(help: "Config file (YAML): the ladder, segment_duration, audio and the push section.")
    var config: String?
    @Option(name: .customLong("queue-dir"), help: "Where segments wait until the server has them (default: push.queue_dir, or <data_dir>/push-queue/<stream>).")
    var queueDirectory: String?
    @Option(help: "After a cut: live-first or catch-up (default: push.backlog).")
    var backlog: PushBacklog?
    @Option(help: "The stream's title, for the server's master playlist, /api/streams and the page.")
    var title: String?
    @Option(help: "The stream's description.")
    var description: String?
    @Option(help: "The stream's keywords, comma-separated.")
    var keywords: String?
    @Option(name: .customLong("metadata-file"), help: "Title, keywords and description from a file: JSON, or a field app's 'title\\nkeyword, keyword\\ndescription' text.")
    var metadataFile: String?
    @Flag(inversion: .prefixedNo, help: "Start a file input again at its end.")
    var loop: Bool?
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: LogLevel = .info

    func run() async throws {
        StreamOptions.bootstrapLogging(level: logLevel)
        let logger = Logger(label: "sideline.push")
        var refused: String?
        try await reportingStartupErrors { refused = try await push(logger: logger) }
        if let refused {
            FileHandle.standardError.write(Data("sideline: push stopped: \(refused)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// Runs until stopped or the input ends; returns the server's refusal when one ended it.
    private func push(logger: Logger) async throws -> String? {
        let target: IngestTarget
        switch IngestTarget.parse(to) {
        case let .success(parsed): target = parsed
        case let .failure(rejection): throw SidelineStartupError(message: rejection.description)
        }
        guard let secret = token ?? ProcessInfo.processInfo.environment["SIDELINE_INGEST_TOKEN"], !secret.isEmpty else {
            throw SidelineStartupError(message: "push needs the stream's ingest_token: give it with --token or SIDELINE_INGEST_TOKEN")
        }
        let tls = try caFile.map { file in try startupError { try TLSIdentity.clientConfiguration(trusting: file) } }
        var settings = try SidelineConfiguration.forCommand(config)
        guard settings.streams.count == 1 else {
            throw SidelineStartupError(message: "push encodes one camera, and the config defines \(settings.streams.count) streams; give it a config with one stream (its ladder is what is pushed)")
        }
        if let input { settings.streams[0].input = input }
        if let loop { settings.streams[0].loop = loop }
        if let backlog { settings.push.backlog = backlog }
        guard !settings.streams[0].input.isEmpty else {
            throw SidelineStartupError(message: "push needs a camera: give --input (the config's stream has none)")
        }
        let metadata = try self.metadata()
        let stream = settings.streams[0]
        // Whole segments go up the uplink: parts are the serving origin's to list (issue 34),
        // and cutting them would only cost the encoder its B-frames.
        settings.partDuration = 0
        let plan = ServePlan(configuration: settings, stream: stream, realtime: true)
        let queuePath = queueDirectory ?? PushQueueDirectory.path(configured: settings.push.queueDirectory, dataDirectory: settings.dataDirectory, stream: target.stream)

        // The camera first: a bad input fails before the queue is touched, and a new queue's
        // timeline starts when capture does.
        let opened = try plan.openPipeline(logger: logger)
        let pipeline = opened.pipeline
        let (directory, queue): (PushQueueDirectory, PushQueue)
        do {
            (directory, queue) = try PushQueueDirectory.open(path: queuePath, segmentDuration: settings.segmentDuration, variants: stream.video.ladder.map(\.name),
                                                             now: Date(), logger: logger)
        } catch {
            throw SidelineStartupError(message: error.description)
        }
        if !queue.isEmpty { logger.notice("segments left by an earlier run are sent first as the backlog", metadata: ["segments": "\(queue.count)", "queue": "\(queuePath)"]) }

        let session = PushSession(settings: .init(configuration: settings, stream: stream, targetDuration: plan.targetDuration, hasAudio: pipeline.hasAudio, metadata: metadata),
                                  client: IngestClient(base: target.base, token: secret, tls: tls), directory: directory, queue: queue, bitRates: pipeline.bitRates,
                                  timings: pipeline.timings, logger: logger)
        opened.events.connect(session.handle)
        // Numbered on push's own timeline, after anything already queued, and started when that
        // slot starts on the wall clock: every run then delivers slot k at the same time after
        // the epoch, so the server, which expects each slot at the pace of the first run's, never
        // takes a restarted run's segments for late ones.
        let first = directory.timeline.firstSlot(startingAt: Date(), after: session.newestQueued)
        let wait = directory.timeline.start(of: first).timeIntervalSinceNow
        if wait > 0 { try await Task.sleep(for: .seconds(wait)) }
        pipeline.start(atSegment: first)
        FileHandle.standardError.write(Data("Sideline is pushing '\(Redaction.url(stream.input))' to \(Redaction.url(target.base.absoluteString)) (stream '\(target.stream)'); queue \(queuePath)\n".utf8))

        let console = StatusLinePrinter { PushStatusLine.render(session.status, mediaSeconds: pipeline.statistics.mediaTime) }
        let consoleTask = Task { await console.run() }
        let drainSeconds = session.drainSeconds
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let signalTask = Task {
            for await signal in signals {
                logger.notice("\(signal == .sigint ? "SIGINT" : "SIGTERM"): stopping the encoder; what is queued is sent for \(Int(drainSeconds)) s, the rest with the next run")
                pipeline.stop()
                session.drain(for: drainSeconds)
                return
            }
        }
        var refusal: String?
        do {
            try await session.run()
        } catch {
            refusal = error.description
            pipeline.stop()
        }
        signalTask.cancel()
        consoleTask.cancel()
        console.finish()
        await pipeline.finished()
        await session.client.shutdown()
        let left = session.status.queued
        if left > 0 { FileHandle.standardError.write(Data("sideline: \(left) segment\(left == 1 ? "" : "s") left in \(queuePath); the next push sends them\n".utf8)) }
        for line in PushStatusLine.summary(latency: session.latency, bestRung: session.bestRungLatency, uploads: session.uploadTimes) { print(line) }
        return refusal
    }

    /// Title, description and keywords from the flags, over a metadata file's; nil when none is given.
    private func metadata() throws -> StreamMetadata? {
        var file: [UInt8]?
        if let metadataFile {
            guard let data = FileManager.default.contents(atPath: metadataFile) else {
                throw SidelineStartupError(message: "--metadata-file \(metadataFile) cannot be read")
            }
            file = [UInt8](data)
        }
        switch StreamMetadata.combining(file: file, title: title, description: description, keywords: keywords) {
        case let .success(metadata): return metadata
        case let .failure(rejection): throw SidelineStartupError(message: "the stream's metadata (--title, --description, --keywords, --metadata-file): \(rejection)")
        }
    }
}

extension PushBacklog: ExpressibleByArgument {}
