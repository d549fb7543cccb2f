import Foundation
import Logging
import SegmentStore
import Testing

@Suite struct RetentionPolicyTests {
    let now = Date(timeIntervalSince1970: 1_795_215_600)
    let policy = RetentionPolicy(maxAge: 7 * 24 * 3600, maxBytes: 50_000_000_000)

    func recording(ageHours: Double, bytes: Int64 = 1_000_000, encoding: Bool = false) -> RetentionPolicy.Recording {
        .init(stream: "final", lastWrite: now.addingTimeInterval(-ageHours * 3600), bytes: bytes, isEncoding: encoding)
    }

    @Test func aStreamBeingEncodedIsNeverRemoved() {
        #expect(policy.verdict(for: recording(ageHours: 10_000, bytes: 900_000_000_000, encoding: true), now: now) == .keep)
    }

    @Test func oldRecordingsGoAndRecentOnesStay() {
        #expect(policy.verdict(for: recording(ageHours: 167.9), now: now) == .keep)
        guard case let .remove(reason) = policy.verdict(for: recording(ageHours: 168.1), now: now) else {
            Issue.record("a recording older than max_age_hours is removed")
            return
        }
        #expect(reason.contains("168.10 h") && reason.contains("max_age_hours 168.00"), "\(reason)")
    }

    @Test func largeRecordingsGo() {
        #expect(policy.verdict(for: recording(ageHours: 1, bytes: 50_000_000_000), now: now) == .keep)
        #expect(policy.verdict(for: recording(ageHours: 1, bytes: 50_000_000_001), now: now)
            == .remove(reason: "retention: 50000000001 bytes, more than max_size_gb (50000000000 bytes)"))
    }

    @Test func withoutLimitsEverythingStays() {
        let unlimited = RetentionPolicy(maxAge: nil, maxBytes: nil)
        #expect(unlimited.verdict(for: recording(ageHours: 100_000, bytes: .max), now: now) == .keep)
    }
}

@Suite struct RecordingInventoryTests {
    @Test func findsRecordingsWithTheirSizeAndLastWriteAndSkipsTheRest() throws {
        let data = try temporaryDirectory()
        let layout = StreamLayout(dataDirectory: data, stream: "match1")
        let recorder = try StreamRecorder(layout: layout, variantNames: ["720p", "360p"], targetDuration: 2, logger: Logger(label: "test"))
        _ = recorder.variants["720p"]!.record(segment(0, bytes: 5000))
        _ = recorder.variants["360p"]!.record(segment(0, bytes: 3000))
        let old = Date(timeIntervalSince1970: 1_700_000_000)
        for path in try FileManager.default.subpathsOfDirectory(atPath: layout.streamDirectory) {
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: layout.streamDirectory + "/" + path)
        }
        // Not recordings: a removed stream, and a directory without playlists.
        try StreamTombstone.remove(StreamLayout(dataDirectory: data, stream: "gone"), reason: "test")
        try FileManager.default.createDirectory(atPath: data + "/empty/720p", withIntermediateDirectories: true)

        let found = RecordingInventory.scan(dataDirectory: data)
        #expect(found.map(\.stream) == ["match1"])
        let entry = try #require(found.first)
        #expect(entry.lastWrite == old)
        let sizes = try FileManager.default.subpathsOfDirectory(atPath: layout.streamDirectory).map { path -> Int64 in
            let attributes = try FileManager.default.attributesOfItem(atPath: layout.streamDirectory + "/" + path)
            return attributes[.type] as? FileAttributeType == .typeRegular ? (attributes[.size] as! NSNumber).int64Value : 0
        }
        #expect(entry.bytes == sizes.reduce(0, +) && entry.bytes > 8000)
    }
}
