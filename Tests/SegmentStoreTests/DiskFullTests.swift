import Foundation
import HLSPlaylist
import Logging
@testable import SegmentStore
import Testing

/// A small tmpfs mounted by the test, filled up by the recorder: a real ENOSPC, not a
/// simulated one. Needs the right to mount (root); the trait says so where it is missing.
@Suite(.enabled(if: TmpfsMount.isPossible, "needs root (CAP_SYS_ADMIN) to mount a tmpfs; disk-full behaviour is then covered by failedWritesBecomeGapsAndTheDiskCatchesUp only"))
struct DiskFullTests {
    @Test func aFullDiskListsGapsTearsNothingAndRecoversWhenSpaceReturns() throws {
        let mount = try TmpfsMount(sizeKB: 640)
        defer { mount.unmount() }
        let layout = StreamLayout(dataDirectory: mount.path, stream: "main")
        let recorder = try StreamRecorder(layout: layout, variantNames: ["720p"], targetDuration: 2, logger: Logger(label: "test"))
        let variant = try #require(recorder.variants["720p"])

        // 100 KB segments into 640 KB: the disk fills after a handful.
        var results: [VariantRecorder.Recorded] = []
        for index in 0..<10 { results.append(variant.record(segment(index, bytes: 100_000))) }
        let written = results.filter(\.segmentWritten).count
        #expect(written >= 3 && written < 10, "\(written) of 10 written")
        let firstFailure = try #require(results.first { $0.diskError != nil })
        #expect("\(firstFailure.diskError!)".contains("No space left on device"), "\(firstFailure.diskError!)")
        // Told apart by its error number, not its text (an ingest answers it 507).
        if case .diskFull = firstFailure.diskError {} else { Issue.record("not .diskFull: \(firstFailure.diskError!)") }
        #expect(results.map(\.sequence) == Array(0..<10), "every segment has its entry, written or GAP")

        // On disk: a whole playlist that lists only whole segments; no temporary file.
        let onDisk = try MediaPlaylist.parse(try String(contentsOfFile: layout.mediaPlaylistPath("720p"), encoding: .utf8))
        for entry in onDisk.segments where !entry.gap {
            #expect(try Data(contentsOf: URL(fileURLWithPath: layout.segmentPath("720p", entry.uri))) == Data(segment(Int(entry.uri.prefix(6))!, bytes: 100_000).bytes))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: layout.variantDirectory("720p")).allSatisfy { !$0.hasPrefix(AtomicFile.temporaryPrefix) })
        #expect(variant.playlist.segments.count == 10, "the playlist served from memory keeps pace")

        // Space returns: the next segment is written and the disk copy catches up.
        try mount.resize(sizeKB: 8192)
        let back = variant.record(segment(10, bytes: 100_000))
        #expect(back.segmentWritten && back.diskError == nil)
        let caughtUp = try MediaPlaylist.parse(try String(contentsOfFile: layout.mediaPlaylistPath("720p"), encoding: .utf8))
        #expect(caughtUp.segments.count == 11)
        #expect(caughtUp.segments.map(\.gap) == results.map { !$0.segmentWritten } + [false])
    }
}

/// A tmpfs of a given size on a fresh temporary directory.
struct TmpfsMount {
    let path: String

    static let isPossible: Bool = {
        guard geteuid() == 0, let mount = try? TmpfsMount(sizeKB: 64) else { return false }
        mount.unmount()
        return true
    }()

    init(sizeKB: Int) throws {
        path = try temporaryDirectory("tmpfs")
        try Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(sizeKB)k", "tmpfs", path])
    }

    func resize(sizeKB: Int) throws {
        try Self.run("/bin/mount", ["-o", "remount,size=\(sizeKB)k", path])
    }

    func unmount() {
        try? Self.run("/bin/umount", [path])
        try? FileManager.default.removeItem(atPath: path)
    }

    struct MountFailed: Error { let status: Int32 }

    private static func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw MountFailed(status: process.terminationStatus) }
    }
}

/// Which write failures are a full disk: by error number, whatever the locale's text.
@Suite struct StoreErrorKindTests {
    @Test(arguments: [(ENOSPC, true), (EDQUOT, true), (EACCES, false), (EIO, false), (EROFS, false)])
    func aFullDiskIsKnownByItsErrorNumber(code: Int32, full: Bool) {
        let error = StoreError.writing("/data/x", "rename", code: code)
        if case .diskFull = error { #expect(full, "\(error)") } else { #expect(!full, "\(error)") }
        #expect("\(error)".hasPrefix("cannot write '/data/x': rename: "))
    }
}
