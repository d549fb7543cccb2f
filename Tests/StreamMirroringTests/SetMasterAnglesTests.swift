import StreamMirroring
import Testing

/// `SetMasterAngles`: the angles a mirror reads from an upstream's set master, from hostile text.
@Suite struct SetMasterAnglesTests {
    static func line(_ angle: String, _ group: String = "360p") -> String {
        "#EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID=\"\(group)\",NAME=\"\(angle)\",URI=\"../\(angle)/\(group)/index.m3u8\""
    }

    static func valid(_ name: String) -> Bool { !name.isEmpty && name.allSatisfy { $0.isLetter || $0.isNumber } }

    @Test func theAnglesInOrderEachOnce() {
        let master = ["#EXTM3U", Self.line("wide"), Self.line("tv"), Self.line("wide", "180p"), Self.line("goal"), "../wide/360p/index.m3u8"].joined(separator: "\n")
        #expect(SetMasterAngles.angles(inMaster: master, isValidName: Self.valid) == ["wide", "tv", "goal"])
    }

    @Test func aStreamsMasterAndABadNameAreNotASet() {
        #expect(SetMasterAngles.angles(inMaster: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n360p/index.m3u8\n", isValidName: Self.valid) == nil)
        #expect(SetMasterAngles.angles(inMaster: Self.line("../etc"), isValidName: Self.valid) == nil)
        #expect(SetMasterAngles.angles(inMaster: "#EXT-X-MEDIA:TYPE=VIDEO,URI=\"../noslash", isValidName: Self.valid) == nil)
    }

    /// Sixteen angles at most, counted as the lines are read: a master of 50,000 names is
    /// refused at the seventeenth, not compared name against name to the end.
    @Test func moreThanSixteenAnglesAreRefusedAtTheSeventeenth() {
        let sixteen = (0..<16).map { Self.line("a\($0)") }.joined(separator: "\n")
        #expect(SetMasterAngles.angles(inMaster: sixteen, isValidName: Self.valid)?.count == 16)
        #expect(SetMasterAngles.angles(inMaster: sixteen + "\n" + Self.line("a16"), isValidName: Self.valid) == nil)
        let huge = (0..<50_000).map { Self.line("a\($0)") }.joined(separator: "\n")
        #expect(SetMasterAngles.angles(inMaster: huge, isValidName: Self.valid) == nil)
    }
}
