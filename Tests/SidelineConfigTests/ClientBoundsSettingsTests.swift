import SidelineConfig
import SidelineCore
import Testing

/// The keys that bound what clients make the server keep (`server.write_timeout`, `clips`,
/// `ingest`): decoded, and every bad value refused naming its key.
@Suite struct ClientBoundsSettingsTests {
    @Test func theKeysAreDecoded() throws {
        let config = try SidelineConfiguration.parse(yaml: """
        server: {write_timeout: 5}
        clips: {max_duration: 120, max_in_progress: 1, scratch_limit_mb: 100}
        ingest: {max_uploads_in_flight: 4, max_buffered_mb: 128, max_pending_segments: 8, max_unplaced_segments: 0}
        """)
        #expect(config.server.writeTimeout == 5)
        #expect(config.clips.maxDuration == 120 && config.clips.maxInProgress == 1 && config.clips.scratchLimitMegabytes == 100)
        #expect(config.ingest.maxUploadsInFlight == 4 && config.ingest.maxBufferedMegabytes == 128)
        #expect(config.ingest.maxPendingSegments == 8 && config.ingest.maxUnplacedSegments == 0)
        #expect(try SidelineConfiguration.parse(yaml: "server: {write_timeout: 0}\n").server.writeTimeout == nil, "0: never")
    }

    @Test(arguments: [
        ("server: {write_timeout: -1}\n", "server.write_timeout"),
        ("clips: {max_duration: 0}\n", "clips.max_duration"),
        ("clips: {max_in_progress: 0}\n", "clips.max_in_progress"),
        ("clips: {scratch_limit_mb: lots}\n", "clips.scratch_limit_mb"),
        ("ingest: {max_uploads_in_flight: 0}\n", "ingest.max_uploads_in_flight"),
        ("ingest: {max_buffered_mb: 10}\n", "ingest.max_buffered_mb"),
        ("ingest: {max_pending_segments: 0}\n", "ingest.max_pending_segments"),
        ("ingest: {max_unplaced_segments: -1}\n", "ingest.max_unplaced_segments"),
    ])
    func badValuesNameTheirKey(yaml: String, key: String) {
        #expect {
            try SidelineConfiguration.parse(yaml: yaml, file: "test.yaml")
        } throws: { error in
            guard case let .invalidValue(_, found, _, _) = error as? ConfigError else { return false }
            return found == key
        }
    }

    @Test func anUnknownKeyInTheseSectionsIsNamed() {
        #expect {
            try SidelineConfiguration.parse(yaml: "clips: {max_lenght: 5}\n", file: "test.yaml")
        } throws: { error in
            guard case let .unknownKey(_, found, _) = error as? ConfigError else { return false }
            return found == "clips.max_lenght"
        }
    }
}

/// `server.trusted_proxies` and `server.max_held_per_client`: decoded, and a value that is not
/// an address or range refused naming the key.
@Suite struct TrustedProxySettingsTests {
    @Test func theKeysAreDecoded() throws {
        let config = try SidelineConfiguration.parse(yaml: "server: {trusted_proxies: [10.0.0.5, 10.0.1.0/24, 'fd00::/8'], max_held_per_client: 8}\n")
        #expect(config.server.trustedProxies.map(\.description) == ["10.0.0.5", "10.0.1.0/24", "fd00::/8"])
        #expect(config.server.maxHeldPerClient == 8)
        #expect(try SidelineConfiguration.parse(yaml: "server: {max_held_per_client: 0}\n").server.maxHeldPerClient == nil, "0: no bound")
        #expect(SidelineConfiguration.defaults.server.trustedProxies.isEmpty && SidelineConfiguration.defaults.server.maxHeldPerClient == 32)
    }

    @Test(arguments: [
        ("server: {trusted_proxies: [edge.venue.lan]}\n", "server.trusted_proxies"),
        ("server: {trusted_proxies: [10.0.0.0/40]}\n", "server.trusted_proxies"),
        ("server: {trusted_proxies: 10.0.0.5}\n", "server.trusted_proxies"),
        ("server: {max_held_per_client: -1}\n", "server.max_held_per_client"),
    ])
    func badValuesNameTheirKey(yaml: String, key: String) {
        #expect {
            try SidelineConfiguration.parse(yaml: yaml)
        } throws: { error in
            "\(error)".contains(key)
        }
    }
}
