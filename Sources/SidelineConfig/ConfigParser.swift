import Foundation
import SidelineCore
import Yams

/// Reads a config's YAML into a `SidelineConfiguration`, section by section: every key checked
/// against what it may be, unknown keys refused, each refusal naming the file, the key and what
/// it expects (`ConfigSection`). Apart from the configuration's values and rules, which it fills.
enum ConfigParser {
    static func configuration(yaml: String, file: String) throws(ConfigError) -> SidelineConfiguration {
        let root: Node
        do {
            guard let node = try Yams.compose(yaml: yaml) else { return SidelineConfiguration.defaults }
            root = node
        } catch {
            throw .syntax(file: file, reason: "\(error)")
        }
        var top = try ConfigSection(file: file, path: "", node: root)
        var config = SidelineConfiguration.defaults

        if var server = try top.section("server") {
            config.server.host = try server.string("host", matching: { !$0.isEmpty }, expected: "an IP address or host name") ?? config.server.host
            config.server.port = try server.int("port", in: 0...65535) ?? config.server.port
            if let limit = try server.int("max_connections", in: 0...1_000_000) { config.server.maxConnections = limit == 0 ? nil : limit }
            if let limit = try server.int("max_requests_in_flight", in: 0...1_000_000) { config.server.maxRequestsInFlight = limit == 0 ? nil : limit }
            if let limit = try server.int("max_connections_per_client", in: 0...1_000_000) { config.server.maxConnectionsPerClient = limit == 0 ? nil : limit }
            if let seconds = try server.double("idle_timeout", in: 0...3600) { config.server.idleTimeout = seconds == 0 ? nil : seconds }
            if let seconds = try server.double("write_timeout", in: 0...3600) { config.server.writeTimeout = seconds == 0 ? nil : seconds }
            if let limit = try server.int("max_held_per_client", in: 0...1_000_000) { config.server.maxHeldPerClient = limit == 0 ? nil : limit }
            if let proxies = try server.stringList("trusted_proxies", matching: { IPAddressRange($0) != nil },
                                                   expected: "IP addresses or CIDR ranges of the edge caches in front of this server, such as 10.0.0.5 or 10.0.0.0/24") {
                config.server.trustedProxies = proxies.compactMap(IPAddressRange.init)
            }
            config.server.deltaUpdates = try server.bool("delta_updates") ?? config.server.deltaUpdates
            config.server.blockingReload = try server.bool("blocking_reload") ?? config.server.blockingReload
            config.server.requestMetrics = try server.bool("request_metrics") ?? config.server.requestMetrics
            config.server.fastPath = try server.bool("fast_path") ?? config.server.fastPath
            config.server.segmentCacheMegabytes = try server.int("segment_cache_mb", in: 0...65536) ?? config.server.segmentCacheMegabytes
            config.server.logHeaders = try server.stringList("log_headers", matching: SidelineConfiguration.isHeaderName, expected: "HTTP header names such as User-Agent or CMCD-Session") ?? config.server.logHeaders
            if var tls = try server.section("tls") {
                let certificate = try tls.string("certificate", matching: { !$0.isEmpty }, expected: "the path of a PEM file with the server's certificate chain")
                let key = try tls.string("key", matching: { !$0.isEmpty }, expected: "the path of a PEM file with the certificate's private key")
                try tls.rejectUnknownKeys()
                guard let certificate, let key else {
                    throw .invalidValue(file: file, key: "server.tls.\(certificate == nil ? "certificate" : "key")", value: "(missing)",
                                        expected: "both server.tls.certificate and server.tls.key (PEM files)")
                }
                config.server.tls = TLSSettings(certificate: certificate, key: key)
            }
            if let port = try server.int("plain_port", in: 0...65535) { config.server.plainPort = port }
            config.server.publicName = try server.string("public_name", matching: SidelineConfiguration.isHostName, expected: "a host name or IP address, such as sideline.venue.lan or 10.0.0.2 (no scheme, port or path)") ?? config.server.publicName
            let plainModes = PlainHTTP.allCases.map(\.rawValue)
            if let mode = try server.string("plain_http", matching: { plainModes.contains($0) }, expected: plainModes.joined(separator: " or ")) {
                config.server.plainHTTP = PlainHTTP(rawValue: mode)!
            }
            try server.rejectUnknownKeys()
            if config.server.plainPort != nil, config.server.tls == nil {
                throw .invalidValue(file: file, key: "server.plain_port", value: "\(config.server.plainPort!)", expected: "server.tls as well: the plain port is a second port beside the TLS one (without TLS, server.port is plain already)")
            }
        }
        if var admin = try top.section("admin") {
            config.admin.token = try admin.string("token", matching: { $0.isEmpty || SidelineConfiguration.isStrongSecret($0) }, expected: SidelineConfiguration.secretExpected + ", or empty for off") ?? config.admin.token
            config.admin.drills = try admin.bool("drills") ?? config.admin.drills
            try admin.rejectUnknownKeys()
        }
        if var access = try top.section("access") {
            config.access.signingKey = try access.string("signing_key", matching: SidelineConfiguration.isStrongSecret, expected: SidelineConfiguration.secretExpected) ?? config.access.signingKey
            config.access.failedCredentialsBurst = try access.int("failed_credentials_burst", in: 1...10_000) ?? config.access.failedCredentialsBurst
            config.access.failedCredentialsInterval = try access.double("failed_credentials_interval", in: 0.001...86_400) ?? config.access.failedCredentialsInterval
            try access.rejectUnknownKeys()
        }
        if var redundancy = try top.section("redundancy") {
            let roles = RedundancySettings.Role.allCases.map(\.rawValue)
            guard let peer = try redundancy.string("peer", matching: SidelineConfiguration.isBackupURL, expected: "the other box's base URL, http:// or https://, such as http://10.0.0.3:8080") else {
                throw .invalidValue(file: file, key: "redundancy.peer", value: "missing", expected: "the other box's base URL, such as http://10.0.0.3:8080")
            }
            guard let role = try redundancy.string("role", matching: { roles.contains($0) }, expected: roles.joined(separator: " or ")) else {
                throw .invalidValue(file: file, key: "redundancy.role", value: "missing", expected: "primary on the box players go to first, standby on the other")
            }
            let keyframeEveryPart = try redundancy.bool("keyframe_every_part") ?? true
            try redundancy.rejectUnknownKeys()
            config.redundancy = RedundancySettings(peer: peer, role: RedundancySettings.Role(rawValue: role)!, keyframeEveryPart: keyframeEveryPart)
        }
        if var clips = try top.section("clips") { config.clips = try SidelineConfiguration.clipSettings(from: &clips) }
        if var ingest = try top.section("ingest") { config.ingest = try SidelineConfiguration.ingestSettings(from: &ingest) }
        if var analyst = try top.section("analyst") {
            config.analyst.token = try analyst.string("token", matching: { $0.isEmpty || SidelineConfiguration.isStrongSecret($0) }, expected: SidelineConfiguration.secretExpected + ", or empty for off") ?? config.analyst.token
            try analyst.rejectUnknownKeys()
        }
        if var retention = try top.section("retention") {
            config.retention.maxAgeHours = try retention.double("max_age_hours", in: 0...1_000_000) ?? config.retention.maxAgeHours
            config.retention.maxSizeGB = try retention.double("max_size_gb", in: 0...1_000_000) ?? config.retention.maxSizeGB
            config.retention.checkInterval = try retention.double("check_interval", in: 1...86_400) ?? config.retention.checkInterval
            try retention.rejectUnknownKeys()
        }
        if var push = try top.section("push") {
            config.push.ratio = try push.double("ratio", in: 0.05...1) ?? config.push.ratio
            config.push.minBitrate = try push.bitRate("min_bitrate") ?? config.push.minBitrate
            // 0 means the ladder's own total, as the default.
            if let text = try push.string("max_bitrate", matching: { $0 == "0" || BitRate(parsing: $0) != nil }, expected: "a bit rate such as 4M, or 0 for the ladder's total") {
                config.push.maxBitrate = text == "0" ? nil : BitRate(parsing: text)
            }
            let modes = PushBacklog.allCases.map(\.rawValue)
            if let mode = try push.string("backlog", matching: { modes.contains($0) }, expected: modes.joined(separator: " or ")) {
                config.push.backlog = PushBacklog(rawValue: mode)!
            }
            config.push.queueDirectory = try push.string("queue_dir") ?? config.push.queueDirectory
            try push.rejectUnknownKeys()
            if let maximum = config.push.maxBitrate, maximum < config.push.minBitrate {
                throw .invalidValue(file: file, key: "push.max_bitrate", value: "\(maximum)", expected: "at least push.min_bitrate (\(config.push.minBitrate))")
            }
        }
        config.dataDirectory = try top.string("data_dir", matching: { !$0.isEmpty }, expected: "a directory path") ?? config.dataDirectory
        config.segmentDuration = try top.double("segment_duration", in: 0.5...30) ?? config.segmentDuration
        config.partDuration = try top.double("part_duration", in: 0...30) ?? config.partDuration
        if config.partDuration != 0 && !(0.1...config.segmentDuration).contains(config.partDuration) {
            throw .invalidValue(file: file, key: "part_duration", value: String(format: "%g", config.partDuration),
                                expected: "0 (no parts) or from 0.1 to segment_duration (\(String(format: "%g", config.segmentDuration))) seconds")
        }
        if var video = try top.section("video") {
            config.video = try videoSettings(from: &video, default: config.video)
            try config.video.validate(file: file, path: "video")
            // The top-level ladder is the cameras' default; only a stream's own binds a pushed stream.
            config.video.ladderConfigured = false
        }
        let single = try top.section("stream")
        let several = try top.sequence("streams")
        switch (single, several) {
        case (.some, .some):
            throw .invalidValue(file: file, key: "streams", value: "given together with 'stream'", expected: "either 'stream' (one camera) or 'streams' (a list), not both")
        case (var stream?, nil):
            config.streams = [try streamSettings(from: &stream, video: config.video)]
        case (nil, let entries?):
            guard !entries.isEmpty else {
                throw .invalidValue(file: file, key: "streams", value: "an empty list", expected: "at least one stream")
            }
            config.streams = try entries.enumerated().map { (offset, node) throws(ConfigError) in
                var section = try ConfigSection(file: file, path: "streams[\(offset)]", node: node)
                // In a list each camera must say which it is and what to read (or that it is pushed).
                for key in ["name", "input"] where !section.has(key) && !(key == "input" && section.has("ingest_token")) {
                    throw .invalidValue(file: file, key: "streams[\(offset)].\(key)", value: "(missing)",
                                        expected: key == "name" ? "the stream's name, the {stream} of its URLs" : "a file path, URL or device (or an ingest_token, for a stream a remote encoder pushes)")
                }
                return try streamSettings(from: &section, video: config.video)
            }
        case (nil, nil):
            config.streams = [SidelineConfiguration.defaultStream]
            config.streams[0].video = config.video
        }
        if let sets = try top.sequence("angle_sets") { config.angleSets = try SidelineConfiguration.angleSets(from: sets, file: file) }
        if let boxes = try top.sequence("boxes") { config.boxes = try SidelineConfiguration.venueBoxes(from: boxes, file: file) }
        if var audio = try top.section("audio") {
            config.audio.bitrate = try audio.bitRate("bitrate") ?? config.audio.bitrate
            config.audio.sampleRate = try audio.int("sample_rate", in: 8000...96000) ?? config.audio.sampleRate
            config.audio.channels = try audio.int("channels", in: 1...2) ?? config.audio.channels
            try audio.rejectUnknownKeys()
        }
        try top.rejectUnknownKeys()
        try config.validate(file: file)
        return config
    }

    private static func streamSettings(from stream: inout ConfigSection, video: VideoSettings) throws(ConfigError) -> StreamSettings {
        var settings = SidelineConfiguration.defaultStream
        settings.video = video
        settings.name = try stream.string("name", matching: StoreNames.isUsable, expected: StoreNames.rule) ?? settings.name
        settings.input = try stream.string("input", matching: { !$0.isEmpty }, expected: "a file path, URL or device") ?? settings.input
        if let token = try stream.string("ingest_token", matching: SidelineConfiguration.isStrongSecret, expected: SidelineConfiguration.secretExpected) {
            guard !stream.has("input") else {
                throw .invalidValue(file: stream.file, key: stream.keyPath("ingest_token"), value: "given together with input",
                                    expected: "either input (a camera this server encodes) or ingest_token (a stream a remote encoder pushes), not both")
            }
            settings.ingestToken = token
            settings.input = ""
        }
        settings.viewerToken = try stream.string("viewer_token", matching: SidelineConfiguration.isStrongSecret, expected: SidelineConfiguration.secretExpected) ?? settings.viewerToken
        settings.loop = try stream.bool("loop") ?? settings.loop
        settings.inputTimeout = try stream.double("input_timeout", in: 0.5...300) ?? settings.inputTimeout
        settings.lossTimeout = try stream.double("loss_timeout", in: 0.2...30) ?? settings.lossTimeout
        settings.watchdogTimeout = try stream.double("watchdog_timeout", in: 0...3600) ?? settings.watchdogTimeout
        let policies = InputLossPolicy.allCases.map(\.rawValue)
        if let policy = try stream.string("on_input_loss", matching: { policies.contains($0) }, expected: policies.joined(separator: ", ")) {
            settings.onInputLoss = InputLossPolicy(rawValue: policy)!
        }
        let fills = FailedVariantFill.allCases.map(\.rawValue)
        if let fill = try stream.string("on_variant_failure", matching: { fills.contains($0) }, expected: fills.joined(separator: ", ")) {
            settings.onVariantFailure = FailedVariantFill(rawValue: fill)!
        }
        let lates = LateSegmentFill.allCases.map(\.rawValue)
        if let late = try stream.string("on_late_segment", matching: { lates.contains($0) }, expected: lates.joined(separator: ", ")) {
            settings.onLateSegment = LateSegmentFill(rawValue: late)!
        }
        settings.lateGrace = try stream.double("late_grace", in: 0.1...30) ?? settings.lateGrace
        let quotable = "text without double quotes or line breaks (it goes in a quoted playlist attribute)"
        let isQuotable: (String) -> Bool = { !$0.contains { c in c == "\"" || c == "\n" || c == "\r" || c == "\r\n" } }
        settings.title = try stream.string("title", matching: isQuotable, expected: quotable) ?? settings.title
        settings.description = try stream.string("description", matching: isQuotable, expected: quotable) ?? settings.description
        settings.keywords = try stream.string("keywords", matching: isQuotable, expected: quotable) ?? settings.keywords
        settings.startOffset = try stream.double("start_offset", in: -86_400...86_400) ?? settings.startOffset
        settings.backups = try stream.stringList("backups", matching: SidelineConfiguration.isBackupURL, expected: "http:// or https:// base URLs of servers mirroring this stream, such as http://10.0.0.3:8081") ?? settings.backups
        settings.inputOptions = try stream.stringMap("input_options") ?? settings.inputOptions
        settings.audioInput = try stream.string("audio_input") ?? settings.audioInput
        settings.audioInputOptions = try stream.stringMap("audio_input_options") ?? settings.audioInputOptions
        if var own = try stream.section("video") {
            settings.video = try videoSettings(from: &own, default: video)
            try settings.video.validate(file: own.file, path: own.path)
        }
        try stream.rejectUnknownKeys()
        return settings
    }

    private static func videoSettings(from video: inout ConfigSection, default fallback: VideoSettings) throws(ConfigError) -> VideoSettings {
        var settings = fallback
        settings.frameRate = try video.double("frame_rate", in: 1...120) ?? settings.frameRate
        if let items = try video.sequence("ladder") {
            settings.ladder = try items.enumerated().map { (offset, node) throws(ConfigError) in
                try variant(from: node, file: video.file, path: "\(video.keyPath("ladder"))[\(offset)]")
            }
            settings.ladderConfigured = true
        }
        try video.rejectUnknownKeys()
        return settings
    }

    private static func variant(from node: Node, file: String, path: String) throws(ConfigError) -> Rung {
        var section = try ConfigSection(file: file, path: path, node: node)
        func required<T>(_ value: T?, _ key: String, _ expected: String) throws(ConfigError) -> T {
            guard let value else { throw .invalidValue(file: file, key: "\(path).\(key)", value: "(missing)", expected: expected) }
            return value
        }
        let name = try required(section.string("name", matching: StoreNames.isUsable, expected: StoreNames.rule), "name", "a variant name such as 720p")
        let width = try required(section.int("width", in: 16...7680), "width", "a width in pixels")
        let height = try required(section.int("height", in: 16...4320), "height", "a height in pixels")
        let bitrate = try required(section.bitRate("bitrate"), "bitrate", "a bit rate such as 3000k")
        let maxrate = try section.bitRate("maxrate") ?? BitRate(bitsPerSecond: bitrate.bitsPerSecond * 11 / 10)
        let bufsize = try section.bitRate("bufsize") ?? BitRate(bitsPerSecond: bitrate.bitsPerSecond * 2)
        let preset = try section.string("preset", matching: SidelineConfiguration.presets.contains, expected: "one of \(SidelineConfiguration.presets.joined(separator: ", "))") ?? "veryfast"
        let profile = try section.string("profile", matching: SidelineConfiguration.profiles.contains, expected: "one of \(SidelineConfiguration.profiles.joined(separator: ", "))") ?? "high"
        let lookahead = try section.int("lookahead", in: 0...250) ?? SidelineConfiguration.defaultLookahead
        try section.rejectUnknownKeys()
        return Rung(name: name, width: width, height: height, bitrate: bitrate, maxrate: maxrate, bufsize: bufsize, preset: preset, profile: profile, lookahead: lookahead)
    }
}
