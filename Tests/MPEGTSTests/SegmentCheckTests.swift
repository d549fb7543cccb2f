import MPEGTS
import Testing

struct SegmentCheckTests {
    /// `count` packets, the first on PID `firstPID`.
    func segment(packets count: Int, firstPID: Int = 0) -> [UInt8] {
        var bytes = [UInt8](repeating: 0xFF, count: count * 188)
        for packet in 0..<count {
            bytes[packet * 188] = 0x47
            let pid = packet == 0 ? firstPID : 256
            bytes[packet * 188 + 1] = UInt8(pid >> 8)
            bytes[packet * 188 + 2] = UInt8(pid & 0xFF)
            bytes[packet * 188 + 3] = 0x10
        }
        return bytes
    }

    @Test func aWholeSegmentStartingWithThePATPasses() {
        #expect(SegmentCheck.verify(segment(packets: 10), announced: 1880) == nil)
        #expect(SegmentCheck.verify(segment(packets: 10), announced: nil) == nil)
    }

    @Test func whatANetworkDoesWrongIsCaught() {
        #expect(SegmentCheck.verify(segment(packets: 10), announced: 3760) == .sizeMismatch(announced: 3760, received: 1880))
        #expect(SegmentCheck.verify([], announced: nil) == .empty)
        #expect(SegmentCheck.verify(Array(segment(packets: 10).dropLast(5)), announced: nil) == .partialPacket(size: 1875))
        var torn = segment(packets: 10)
        torn[188 * 7] = 0x3C
        #expect(SegmentCheck.verify(torn, announced: nil) == .missingSyncByte(offset: 1316))
        #expect(SegmentCheck.verify(segment(packets: 3, firstPID: 4096), announced: nil) == .notStartingWithProgramTable(pid: 4096))
        #expect(SegmentCheck.verify(Array("<html>502 Bad Gateway</html>".utf8) + [UInt8](repeating: 32, count: 160), announced: nil)?.description.contains("sync byte") == true)
    }
}
