import Foundation
import Testing
import TestSupport

/// `server.tls` end to end, with a venue CA and server certificate made as Docs/operations.md
/// says (scripts/venue-certificates.sh, openssl): ffmpeg and GStreamer play over TLS verifying
/// the certificate against the venue CA, the certificate is renewed and reloaded on SIGHUP under
/// a playing GStreamer, the plain port redirects, a mirror follows with `--ca-file`, and a key
/// that is not the certificate's stops the start with one line.
@Suite(.serialized) struct TLSEndToEndTests {
    static let script = Repository.root.appendingPathComponent("scripts/venue-certificates.sh").path

    static let ingestToken = "tls-ingest-token-0123456789"
    static let ladder = """
        video:
          ladder:
            - {name: 180p, width: 320, height: 180, bitrate: 200k, preset: ultrafast, profile: baseline}
        """

    static func config(certificates dir: String) -> String {
        """
        server: {tls: {certificate: \(dir)/server.pem, key: \(dir)/server.key}, plain_port: 0}
        \(ladder)
        streams:
          - {name: main, input: \(Repository.sample), loop: true}
          - {name: roof, ingest_token: \(ingestToken)}
        """
    }

    /// Segment requests answered 200 in the server's debug log.
    static func segmentsServed(_ log: Substring) -> Int {
        log.split(separator: "\n").filter { $0.contains(".ts ") && $0.contains("http.status=200") }.count
    }

    @Test func playersVerifyTheVenueCAAndAReloadKeepsThemPlaying() async throws {
        let directory = try makeTemporaryDirectory("tls")
        let certificates = directory + "/certs"
        let made = try await Command.run("bash", [Self.script, certificates, "127.0.0.1", "--days", "30"])
        #expect(made.status == 0, "\(made.stderr)")
        try Self.config(certificates: certificates).write(toFile: directory + "/tls.yaml", atomically: true, encoding: .utf8)
        let server = try SidelineProcess(arguments: ["--config", directory + "/tls.yaml", "--host", "127.0.0.1", "--port", "0", "--data-dir", directory + "/data",
                                                     "--log-level", "debug"])
        defer { _ = Task { try? await server.stop() } }
        let url = try await server.waitForURL()
        #expect(url.scheme == "https", "\(url)")
        let master = url.absoluteString

        // The plain port redirects to the same path over TLS.
        let plainPort = try #require(server.log.firstMatch(of: /plain HTTP on port (\d+) redirects/).map { String($0.1) })
        let redirect = try await Command.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code} %{redirect_url}", "http://127.0.0.1:\(plainPort)/live/main/master.m3u8"])
        #expect(redirect.stdout == "308 \(master)", "\(redirect.stdout)")

        // ffmpeg, verifying: with the venue CA it plays; without it the handshake is refused.
        try await Task.sleep(for: .seconds(4))
        let verified = try await Command.run("ffmpeg", ["-v", "error", "-tls_verify", "1", "-ca_file", certificates + "/ca.pem", "-i", master, "-t", "4", "-f", "null", "-"], timeout: 60)
        #expect(verified.status == 0, "\(verified.stderr)")
        let unverified = try await Command.run("ffmpeg", ["-v", "error", "-tls_verify", "1", "-i", master, "-t", "2", "-f", "null", "-"], timeout: 60)
        #expect(unverified.status != 0, "a certificate from an unknown CA must not verify")

        // GStreamer trusts the system's CA file: in a mount namespace of its own, that file is
        // the system's plus the venue CA (nothing on the machine changes).
        let bundle = certificates + "/bundle.crt"
        try (String(contentsOfFile: certificates + "/ca.pem", encoding: .utf8) + ((try? String(contentsOfFile: "/etc/ssl/certs/ca-certificates.crt", encoding: .utf8)) ?? ""))
            .write(toFile: bundle, atomically: true, encoding: .utf8)
        let player = Task {
            try await Command.run("unshare", ["-m", "sh", "-c", "mount --bind \(bundle) /etc/ssl/certs/ca-certificates.crt && exec gst-launch-1.0 -q playbin3 uri=\(master) video-sink=fakesink audio-sink=fakesink"],
                                  timeout: 24)
        }
        try await Task.sleep(for: .seconds(9))
        let servedBefore = Self.segmentsServed(Substring(server.log))
        // Renewed during the event: the new certificate is read on SIGHUP.
        let renewed = try await Command.run("bash", [Self.script, certificates, "127.0.0.1", "--days", "90"])
        #expect(renewed.status == 0)
        kill(server.process.processIdentifier, SIGHUP)
        try await Task.sleep(for: .seconds(1))
        let reloadedAt = server.log.count
        #expect(server.log.contains("SIGHUP: TLS certificate reloaded"), "\(server.log.suffix(2000))")
        let played = try await player.value
        #expect(!played.stderr.contains("ERROR") && !played.stdout.contains("ERROR"), "\(played.stdout.suffix(2000)) \(played.stderr.suffix(2000))")
        let servedAfter = Self.segmentsServed(server.log.dropFirst(reloadedAt))
        #expect(servedBefore >= 2 && servedAfter >= 4, "GStreamer kept fetching segments after the reload: \(servedBefore) before, \(servedAfter) after")
        let shown = try await Command.run("sh", ["-c", "openssl s_client -connect 127.0.0.1:\(url.port!) -CAfile \(certificates)/ca.pem </dev/null 2>/dev/null | openssl x509 -noout -enddate"])
        let expected = try await Command.run("openssl", ["x509", "-in", certificates + "/server.pem", "-noout", "-enddate"])
        #expect(shown.stdout == expected.stdout && !shown.stdout.isEmpty, "the server presents the renewed certificate: \(shown.stdout) vs \(expected.stdout)")

        // A remote encoder pushes over TLS with the venue CA; without it, it refuses the server.
        try "\(Self.ladder)\nstream: {input: testpattern}\n".write(toFile: directory + "/push.yaml", atomically: true, encoding: .utf8)
        let pushArguments = ["--config", directory + "/push.yaml", "--to", "https://127.0.0.1:\(url.port!)/ingest/roof", "--token", Self.ingestToken,
                             "--log-level", "notice"]
        let push = try SidelineProcess(command: "push", arguments: pushArguments + ["--queue-dir", directory + "/queue", "--ca-file", certificates + "/ca.pem"])
        defer { _ = Task { try? await push.stop() } }
        let roof = URL(string: "/live/roof/180p/index.m3u8", relativeTo: url)!.absoluteURL.absoluteString
        var pushed = ""
        for _ in 0..<40 where !pushed.contains(".ts") {
            try await Task.sleep(for: .milliseconds(500))
            pushed = try await Command.run("curl", ["-s", "--cacert", certificates + "/ca.pem", roof]).stdout
        }
        #expect(pushed.contains(".ts"), "segments pushed over TLS: \(pushed) \(push.log.suffix(1500))")
        let untrusting = try SidelineProcess(command: "push", arguments: pushArguments + ["--queue-dir", directory + "/queue2"])
        defer { _ = Task { try? await untrusting.stop() } }
        // Until it says why, at most 10 s (it used to be given a fixed 6 s).
        for _ in 0..<100 where !untrusting.log.lowercased().contains("certificate") { try await Task.sleep(for: .milliseconds(100)) }
        #expect(untrusting.log.lowercased().contains("certificate"), "without the venue CA the server is not trusted: \(untrusting.log.suffix(1500))")

        // A mirror follows over TLS with the venue CA.
        let mirror = try SidelineProcess(command: "mirror", arguments: [master, "--ca-file", certificates + "/ca.pem", "--data-dir", directory + "/mirror",
                                                                        "--host", "127.0.0.1", "--port", "0"])
        defer { _ = Task { try? await mirror.stop() } }
        let mirrored = try await mirror.waitForURL()
        let media = URL(string: "/live/main/180p/index.m3u8", relativeTo: mirrored)!.absoluteURL
        var listed = ""
        for _ in 0..<60 where !listed.contains(".ts") {
            listed = String(decoding: try await waitForOK(media, timeout: 30).body, as: UTF8.self)
            try await Task.sleep(for: .milliseconds(500))
        }
        #expect(listed.contains(".ts"), "the mirror fetched segments over TLS: \(listed) \(mirror.log.suffix(1500))")
    }

    @Test func aKeyThatIsNotTheCertificatesStopsTheStartWithOneLine() async throws {
        let directory = try makeTemporaryDirectory("tls-bad")
        let certificates = directory + "/certs"
        _ = try await Command.run("bash", [Self.script, certificates, "127.0.0.1"])
        try Self.config(certificates: certificates).replacingOccurrences(of: "server.key", with: "ca.key")
            .write(toFile: directory + "/tls.yaml", atomically: true, encoding: .utf8)
        let server = try SidelineProcess(arguments: ["--config", directory + "/tls.yaml", "--host", "127.0.0.1", "--port", "0", "--data-dir", directory + "/data"])
        #expect(try await server.waitForExit(timeout: 30) == 2)
        let lines = server.log.split(separator: "\n").filter { $0.hasPrefix("sideline:") }
        #expect(lines.count == 1 && lines[0].contains("TLS: \(certificates)/ca.key is not the private key of \(certificates)/server.pem"), "\(server.log)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/data/main"), "nothing written")
    }
}
