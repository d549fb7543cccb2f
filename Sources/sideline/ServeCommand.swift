import ArgumentParser
import Foundation
import HLSOrigin
import Logging
import ServiceLifecycle
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

    @OptionGroup var options: StreamOptions
    @Option(help: "Address to listen on.")
    var host: String?
    @Option(help: "Port to listen on (0 picks a free one).")
    var port: Int?
    @Flag(help: "Encode a file as fast as possible instead of at real time (for tests and benchmarks).")
    var noRealtime = false

    func run() async throws {
        options.bootstrapLogging()
        try await reportingStartupErrors { try await serve(logger: Logger(label: "sideline")) }
    }

    private func serve(logger: Logger) async throws {
        let settings = try options.resolve(host: host, port: port)
        let plan = ServePlan(configuration: settings, realtime: !noRealtime)
        let (pipeline, publisher) = try plan.makePipeline(logger: logger)

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
}
