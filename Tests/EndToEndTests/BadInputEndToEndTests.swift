import Foundation
import Testing
import TestSupport

/// Each bad input stops `sideline serve` before it serves: exit status 2 and one message that
/// names the input and says what to do. Nothing is written to the data directory.
@Suite struct BadInputEndToEndTests {
    func serve(_ arguments: [String], data: String? = nil) async throws -> (CommandResult, String) {
        let dataDirectory = try data ?? makeTemporaryDirectory("bad-input") + "/data"
        let result = try await Command.run(Repository.sidelineExecutable, ["serve", "--port", "0", "--host", "127.0.0.1", "--data-dir", dataDirectory] + arguments, timeout: 60)
        return (result, dataDirectory)
    }

    func expectRefused(_ result: CommandResult, mentioning phrases: [String]) {
        #expect(result.status == 2, "exit status \(result.status): \(result.stderr)")
        let lines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("sideline: ") }
        #expect(lines.count == 1, "one message: \(result.stderr)")
        for phrase in phrases { #expect(result.stderr.contains(phrase), "'\(phrase)' missing from: \(result.stderr)") }
        #expect(!result.stderr.contains("Open: "), "it must not serve")
    }

    @Test func missingFile() async throws {
        let (result, data) = try await serve(["--input", "/nonexistent/match.mp4"])
        expectRefused(result, mentioning: ["'/nonexistent/match.mp4'", "no such file", "--input"])
        #expect(!FileManager.default.fileExists(atPath: data), "nothing written for a bad input")
    }

    @Test func fileWithoutVideo() async throws {
        let path = try makeTemporaryDirectory("novideo") + "/commentary.m4a"
        let made = try await Command.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=duration=1", "-c:a", "aac", path])
        #expect(made.status == 0)
        let (result, _) = try await serve(["--input", path])
        expectRefused(result, mentioning: [path, "no video stream"])
    }

    /// A video stream FFmpeg cannot decode: a Matroska file whose codec ID is rewritten to one
    /// no decoder knows (same length, so the file stays well-formed).
    @Test func videoCodecWithoutDecoder() async throws {
        let directory = try makeTemporaryDirectory("unknown-codec")
        let made = try await Command.run("ffmpeg", ["-v", "error", "-i", Repository.sample, "-t", "1", "-an", "-c:v", "copy", "-f", "matroska", directory + "/h264.mkv"])
        #expect(made.status == 0)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: directory + "/h264.mkv"))
        let range = try #require(bytes.range(of: Data("V_MPEG4/ISO/AVC".utf8)))
        bytes.replaceSubrange(range, with: Data("V_UNKNOWN/XXXXX".utf8))
        let path = directory + "/unknown.mkv"
        try bytes.write(to: URL(fileURLWithPath: path))
        let (result, data) = try await serve(["--input", path])
        expectRefused(result, mentioning: [path, "does not recognise", "transcode"])
        #expect(!FileManager.default.fileExists(atPath: data), "nothing written for a bad input")
    }

    @Test func unreachableURL() async throws {
        let (result, _) = try await serve(["--input", "rtsp://127.0.0.1:9/camera"])
        expectRefused(result, mentioning: ["rtsp://127.0.0.1:9/camera", "cannot be opened", "reachable"])
    }

    @Test func missingDevice() async throws {
        let (result, _) = try await serve(["--input", "/dev/video-sideline-missing"])
        expectRefused(result, mentioning: ["/dev/video-sideline-missing", "no such device"])
    }

    @Test func unwritableDataDirectory() async throws {
        let parent = try makeTemporaryDirectory("unwritable")
        _ = FileManager.default.createFile(atPath: parent + "/not-a-directory", contents: Data())
        let (result, _) = try await serve([], data: parent + "/not-a-directory/data")
        expectRefused(result, mentioning: [parent + "/not-a-directory/data", "not writable", "--data-dir"])
    }

    @Test func unknownConfigKey() async throws {
        let config = try makeTemporaryDirectory("config") + "/sideline.yaml"
        try "segment_duration: 2\nvideo:\n  framerate: 30\n".write(toFile: config, atomically: true, encoding: .utf8)
        let (result, _) = try await serve(["--config", config])
        expectRefused(result, mentioning: [config, "unknown key 'video.framerate'", "frame_rate"])
    }

    @Test func badConfigValue() async throws {
        let config = try makeTemporaryDirectory("config") + "/sideline.yaml"
        try "segment_duration: forever\n".write(toFile: config, atomically: true, encoding: .utf8)
        let (result, _) = try await serve(["--config", config])
        expectRefused(result, mentioning: [config, "'segment_duration' is 'forever'", "a number from 0.5 to 30.0"])
    }

    @Test func missingConfigFile() async throws {
        let (result, _) = try await serve(["--config", "/nonexistent/sideline.yaml"])
        expectRefused(result, mentioning: ["/nonexistent/sideline.yaml", "no such file"])
    }

    @Test func badStreamName() async throws {
        let (result, _) = try await serve(["--stream", "../escape"])
        expectRefused(result, mentioning: ["../escape", "stream.name"])
    }
}
