import ArgumentParser
import Foundation
import HLSOrigin
import Logging
import SidelineConfig
import SidelineCore

/// The options `serve` and `encode` share: where the configuration comes from and the keys
/// the command line may override.
struct StreamOptions: ParsableArguments {
    @Option(help: "Config file (YAML). Keys it leaves out keep their defaults.")
    var config: String?
    @Option(help: "What to encode: a file, a device such as /dev/video0, or a URL (rtsp://, srt://, udp://...).")
    var input: String?
    @Option(name: .customLong("data-dir"), help: "Where streams are recorded.")
    var dataDirectory: String?
    @Option(help: "The stream's name, the {stream} of its URLs.")
    var stream: String?
    @Flag(inversion: .prefixedNo, help: "Start a file input again at its end.")
    var loop: Bool?
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: LogLevel = .info

    /// The config file (or the defaults) with the command line's overrides applied.
    func resolve(host: String? = nil, port: Int? = nil) throws -> SidelineConfiguration {
        do {
            var settings = try config.map { try SidelineConfiguration.load(contentsOf: $0) } ?? .defaults
            // --input and --stream name one camera; with several in the config they would be ambiguous.
            if settings.streams.count > 1, input != nil || stream != nil {
                let flag = input != nil ? "--input" : "--stream"
                throw ConfigError.invalidValue(file: flag, key: "streams", value: "\(settings.streams.count) streams (\(settings.streams.map(\.name).joined(separator: ", ")))",
                                               expected: "a config with one stream when \(flag) is given; set each stream's input and name in the config instead")
            }
            if let input { settings.streams[0].input = input }
            if let host { settings.server.host = host }
            if let port {
                guard (0...65535).contains(port) else {
                    throw ConfigError.invalidValue(file: "--port", key: "port", value: String(port), expected: "a port from 0 to 65535")
                }
                settings.server.port = port
            }
            if let dataDirectory { settings.dataDirectory = dataDirectory }
            if let stream {
                guard StoreNames.isUsable(stream) else {
                    throw ConfigError.invalidValue(file: "--stream", key: "stream.name", value: stream, expected: "letters, digits, '-', '_' or '.'")
                }
                settings.streams[0].name = stream
            }
            if let loop { for index in settings.streams.indices { settings.streams[index].loop = loop } }
            try settings.validate()
            try SidelineConfiguration.checkEnvironmentSecrets(ProcessInfo.processInfo.environment)
            return settings
        } catch let error as ConfigError {
            throw SidelineStartupError(message: error.description)
        }
    }

    func bootstrapLogging() {
        Self.bootstrapLogging(level: logLevel)
    }

    static func bootstrapLogging(level logLevel: LogLevel) {
        let level = logLevel.level
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}

/// `--log-level`, mapped onto swift-log's levels.
enum LogLevel: String, ExpressibleByArgument, CaseIterable {
    case trace, debug, info, notice, warning, error, critical
    var level: Logger.Level { Logger.Level(rawValue: rawValue) ?? .info }
}

extension SidelineConfiguration {
    /// The config file a command was given (`--config`), or the defaults; a bad file is a
    /// startup error that names the key.
    static func forCommand(_ path: String?) throws -> SidelineConfiguration {
        do {
            return try path.map { try SidelineConfiguration.load(contentsOf: $0) } ?? .defaults
        } catch let error as ConfigError {
            throw SidelineStartupError(message: error.description)
        }
    }
}

/// `body`'s TLS error as a startup error (one line, exit status 2).
func startupError<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as TLSIdentityError { throw SidelineStartupError(message: error.description) }
}

extension ParsableCommand {
    /// Runs `body`; a startup error becomes one line on stderr and exit status 2.
    func reportingStartupErrors(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as SidelineStartupError {
            FileHandle.standardError.write(Data("sideline: \(error.message)\n".utf8))
            throw ExitCode(2)
        }
    }
}

