import OriginPolicy
import Testing

/// No file paths in answers: an internal error's body keeps what happened, not where.
@Suite struct RefusalPublicReasonTests {
    static let rows: [(reason: String, shown: String)] = [
        ("segment /var/lib/sideline/main/720p/seg_00012.ts cannot be read: No such file or directory (errno: 2)",
         "segment <path> cannot be read: No such file or directory (errno: 2)"),
        ("the clip could not be made: Error Domain=NSCocoaErrorDomain Code=4 \"The file “seg.ts” doesn’t exist.\" UserInfo={NSFilePath=/data/main/720p/seg.ts}",
         "the clip could not be made: Error Domain=NSCocoaErrorDomain Code=4 \"The file “seg.ts” doesn’t exist.\" UserInfo={NSFilePath=<path>}"),
        ("open('/tmp/x y') failed", "open('<path> y') failed"),
        ("cannot write file:///srv/a/b: full", "cannot write file:<path> full"),
        ("/abs at the start", "<path> at the start"),
        ("nothing to hide here: 3/4 done", "nothing to hide here: 3/4 done"),
    ]

    @Test(arguments: rows) func internalErrorsShowNoPath(row: (reason: String, shown: String)) {
        #expect(Refusal(.internalError, row.reason).publicReason == row.shown)
    }

    @Test func otherKindsAreKept() {
        let reason = "no such resource: /live/main/x.ts"
        #expect(Refusal(.noSuchResource, reason).publicReason == reason)
    }
}
