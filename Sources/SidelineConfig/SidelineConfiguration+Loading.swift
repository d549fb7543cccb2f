import Foundation
import SidelineCore
import Yams

extension SidelineConfiguration {
    /// x264's presets, fastest first (`Rung.presets`).
    public static let presets = Rung.presets
    public static let profiles = ["baseline", "main", "high"]

    /// A token or key (ingest, viewer, analyst, admin tokens; the signing key): only
    /// characters that travel in an `Authorization` header as they are, and the minimum
    /// strength this server asks of every secret: at least 16 characters, at least 8 of them
    /// different (which turns away `aaaaaaaaaaaaaaaa` and `abababababababab`). Guessing is
    /// slowed as well (429 after a burst of wrong credentials), but only a long random secret
    /// holds: 'openssl rand -hex 16' gives 32 characters, 128 bits.
    static func isStrongSecret(_ text: String) -> Bool {
        (16...256).contains(text.count) && text.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 && $0.value < 0x7F } && Set(text).count >= 8
    }

    static let secretExpected = "a secret of 16 to 256 visible ASCII characters (no spaces), at least 8 of them different, such as the output of 'openssl rand -hex 16'"

    /// The secrets the environment gives in place of the config's (SIDELINE_ADMIN_TOKEN,
    /// SIDELINE_ANALYST_TOKEN, SIDELINE_SIGNING_KEY), checked as the config's are: a weak one
    /// stops the start, named, never shown.
    public static func checkEnvironmentSecrets(_ environment: [String: String]) throws(ConfigError) {
        for name in ["SIDELINE_ADMIN_TOKEN", "SIDELINE_ANALYST_TOKEN", "SIDELINE_SIGNING_KEY"] {
            if let value = environment[name], !value.isEmpty, !isStrongSecret(value) {
                throw .invalidValue(file: "(environment)", key: name, value: value, expected: secretExpected)
            }
        }
    }

    /// An HTTP field name (RFC 9110 token characters).
    static func isHeaderName(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 64 && text.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "!#$%&'*+-.^_`|~".unicodeScalars.contains($0)) }
    }

    /// A host name or IP address as it stands in a URL's authority (IPv6 in brackets).
    static func isHostName(_ text: String) -> Bool {
        (1...253).contains(text.count) && text.unicodeScalars.allSatisfy {
            $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-.:[]".unicodeScalars.contains($0))
        }
    }

    /// A backup server's base URL: http(s), a host, no query, and no quote or space that could
    /// break the master playlist's URI line.
    static func isBackupURL(_ text: String) -> Bool {
        guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil,
              url.query == nil, url.fragment == nil else { return false }
        return !text.contains { $0 == "\"" || $0.isWhitespace }
    }

    /// Reads a config file; keys it leaves out keep their defaults.
    public static func load(contentsOf path: String) throws(ConfigError) -> SidelineConfiguration {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "it is not readable UTF-8 text" : "no such file"
            throw .unreadable(file: path, reason: reason)
        }
        return try parse(yaml: text, file: path)
    }

    /// Reads a config from its YAML text (`ConfigParser`): every key checked, unknown keys refused,
    /// each refusal naming the file, the key and what it expects.
    public static func parse(yaml: String, file: String = "(config)") throws(ConfigError) -> SidelineConfiguration {
        try ConfigParser.configuration(yaml: yaml, file: file)
    }

    /// Rules that involve more than one key; checked again after the command line's overrides.
    public func validate(file: String = "(config)") throws(ConfigError) {
        var streamNames: Set<String> = []
        for (index, stream) in streams.enumerated() {
            let path = streams.count == 1 ? "stream" : "streams[\(index)]"
            guard streamNames.insert(StoreNames.key(of: stream.name)).inserted else {
                throw .invalidValue(file: file, key: "\(path).name", value: stream.name, expected: "a name no other stream has")
            }
            try stream.video.validate(file: file, path: stream.video == video ? "video" : "\(path).video")
            // --input on the command line may name a camera for a stream the config says is pushed.
            guard !stream.isPushed || stream.input.isEmpty else {
                throw .invalidValue(file: file, key: "\(path).ingest_token", value: "given together with an input (\(stream.input))",
                                    expected: "either an input (a camera this server encodes) or an ingest_token (a stream a remote encoder pushes), not both")
            }
            // Segments finish every segment_duration seconds; a shorter watchdog would restart
            // a healthy pipeline.
            guard stream.watchdogTimeout == 0 || stream.watchdogTimeout >= segmentDuration + 1 else {
                throw .invalidValue(file: file, key: "\(path).watchdog_timeout", value: String(format: "%g", stream.watchdogTimeout),
                                    expected: "0 (off) or at least segment_duration + 1 (\(String(format: "%g", segmentDuration + 1)))")
            }
        }
        try validateVenueBoxes(file: file)
        try validateAngleSets(file: file)
    }
}

extension VideoSettings {
    func validate(file: String, path: String) throws(ConfigError) {
        guard !ladder.isEmpty else {
            throw .invalidValue(file: file, key: "\(path).ladder", value: "an empty list", expected: "at least one variant")
        }
        var seen: Set<String> = []
        for (index, variant) in ladder.enumerated() {
            let path = "\(path).ladder[\(index)]"
            guard seen.insert(StoreNames.key(of: variant.name)).inserted else {
                throw .invalidValue(file: file, key: "\(path).name", value: variant.name, expected: "a name no other variant has")
            }
            guard variant.width % 2 == 0, variant.height % 2 == 0 else {
                throw .invalidValue(file: file, key: "\(path).width/height", value: "\(variant.width)x\(variant.height)", expected: "even dimensions (4:2:0 video)")
            }
            guard variant.maxrate >= variant.bitrate else {
                throw .invalidValue(file: file, key: "\(path).maxrate", value: "\(variant.maxrate)", expected: "at least bitrate (\(variant.bitrate))")
            }
        }
    }
}
