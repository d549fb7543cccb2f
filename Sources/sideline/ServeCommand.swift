import ArgumentParser
import Foundation
import HLSOrigin
import Logging
import MediaPipeline
import SegmentStore
import ServiceLifecycle
import SidelineConfig
import Synchronization
import UnixSignals

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Encode an input into a live HLS stream and serve it over HTTP.",
        discussion: """
        With no options, plays Samples/sample.mp4 as a live camera (looped, at real time) with the \
        defaults of Config/sideline.yaml. Ctrl-C (SIGINT) ends the stream: the last segment is \
        written, EXT-X-ENDLIST closes every playlist, and the server exits. SIGTERM stops the server \
        without ending the stream, so a restart continues the same recording.
        """
    )

    @Option(help: "Config file (YAML). Keys it leaves out keep their defaults.")
    var config: String?
    @Option(help: "What to encode: a file, a device such as /dev/video0, or a URL (rtsp://, srt://, udp://...).")
    var input: String?
    @Option(help: "Address to listen on.")
    var host: String?
    @Option(help: "Port to listen on (0 picks a free one).")
    var port: Int?
    @Option(name: .customLong("data-dir"), help: "Where streams are recorded.")
    var dataDirectory: String?
    @Option(help: "The stream's name, the {stream} of its URLs.")
    var stream: String?
    @Flag(inversion: .prefixedNo, help: "Start a file input again at its end.")
    var loop: Bool?
    @Flag(help: "Encode a file as fast as possible instead of at real time (for tests and benchmarks).")
    var noRealtime = false
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: LogLevel = .info

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = logLevel.level
            return handler
        }
        let logger = Logger(label: "sideline")
        do {
            try await serve(logger: logger)
        } catch let error as SidelineStartupError {
            FileHandle.standardError.write(Data("sideline: \(error.message)\n".utf8))
            throw ExitCode(2)
        }
    }

    private func serve(logger: Logger) async throws {
        let settings = try resolvedConfiguration()
        let plan = ServePlan(configuration: settings, realtime: !noRealtime)
        // Open the input and set up the encoders first: a bad input fails before anything is
        // written to the data directory.
        let events = EventForwarder()
        let pipeline: LivePipeline
        do {
            pipeline = try LivePipeline(configuration: plan.pipelineConfiguration, logger: logger) { event in events.forward(event) }
        } catch {
            throw SidelineStartupError(message: error.description)
        }
        let publisher = try plan.makePublisher(logger: logger)
        publisher.hasAudio = pipeline.hasAudio
        events.connect(publisher)

        let console = ConsoleStatus(pipeline: pipeline, registry: publisher.registry, stream: settings.stream.name)
        let application = OriginServer.makeApplication(
            registry: publisher.registry, host: settings.server.host, port: settings.server.port, logger: logger
        ) { boundPort in
            console.announce(url: PlaylistURL.master(host: settings.server.host, port: boundPort, stream: settings.stream.name))
        }
        let pipelineService = PipelineService(pipeline: pipeline, publisher: publisher, console: console)
        let group = ServiceGroup(configuration: .init(
            services: [.init(service: application), .init(service: pipelineService)],
            logger: logger
        ))
        // Ctrl-C ends the stream (EXT-X-ENDLIST); SIGTERM only stops the server.
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let signalTask = Task {
            for await signal in signals {
                pipelineService.endStreamOnStop = signal == .sigint
                logger.notice("\(signal == .sigint ? "SIGINT: ending the stream" : "SIGTERM: stopping; the stream stays open for a restart")")
                await group.triggerGracefulShutdown()
                return
            }
        }
        try await group.run()
        signalTask.cancel()
    }

    func resolvedConfiguration() throws -> SidelineConfiguration {
        var settings: SidelineConfiguration
        do {
            settings = try config.map { try SidelineConfiguration.load(contentsOf: $0) } ?? .defaults
            if let input { settings.stream.input = input }
            if let host { settings.server.host = host }
            if let port {
                guard (0...65535).contains(port) else {
                    throw ConfigError.invalidValue(file: "--port", key: "port", value: String(port), expected: "a port from 0 to 65535")
                }
                settings.server.port = port
            }
            if let dataDirectory { settings.dataDirectory = dataDirectory }
            if let stream {
                guard SidelineConfiguration.isValidName(stream) else {
                    throw ConfigError.invalidValue(file: "--stream", key: "stream.name", value: stream, expected: "letters, digits, '-', '_' or '.'")
                }
                settings.stream.name = stream
            }
            if let loop { settings.stream.loop = loop }
            try settings.validate()
        } catch let error as ConfigError {
            throw SidelineStartupError(message: error.description)
        }
        return settings
    }
}

/// A problem found before serving: printed as one line, exit status 2.
struct SidelineStartupError: Error {
    let message: String
}

/// `--log-level`, mapped onto swift-log's levels.
enum LogLevel: String, ExpressibleByArgument, CaseIterable {
    case trace, debug, info, notice, warning, error, critical
    var level: Logger.Level { Logger.Level(rawValue: rawValue) ?? .info }
}

/// Lets the pipeline be built before the publisher it reports to. Events only flow after
/// `LivePipeline.start()`, which comes after `connect`.
final class EventForwarder: Sendable {
    private let target = Mutex<StreamPublisher?>(nil)
    func connect(_ publisher: StreamPublisher) { target.withLock { $0 = publisher } }
    func forward(_ event: PipelineEvent) { target.withLock { $0 }?.handle(event) }
}
