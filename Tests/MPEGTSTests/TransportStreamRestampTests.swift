import MPEGTS
import Testing

@Suite struct TransportStreamRestampTests {
    /// One TS packet with a PES header carrying PTS and DTS, and a PCR in its adaptation field.
    static func packet(pid: Int, counter: Int, pts: Int64, dts: Int64, pcr: Int64?) -> [UInt8] {
        var bytes: [UInt8] = [0x47, UInt8(0x40 | (pid >> 8)), UInt8(pid & 0xFF)]
        var adaptation: [UInt8] = []
        if let pcr {
            adaptation = [0x10, UInt8((pcr >> 25) & 0xFF), UInt8((pcr >> 17) & 0xFF), UInt8((pcr >> 9) & 0xFF), UInt8((pcr >> 1) & 0xFF), UInt8((pcr & 1) << 7) | 0x7E, 0x00]
        }
        bytes.append(UInt8((adaptation.isEmpty ? 0x10 : 0x30) | counter))
        if !adaptation.isEmpty { bytes.append(UInt8(adaptation.count)); bytes += adaptation }
        func stamp(_ prefix: UInt8, _ v: Int64) -> [UInt8] {
            [prefix | UInt8((v >> 29) & 0x0E) | 1, UInt8((v >> 22) & 0xFF), UInt8((v >> 14) & 0xFE) | 1, UInt8((v >> 7) & 0xFF), UInt8((v << 1) & 0xFE) | 1]
        }
        bytes += [0, 0, 1, 0xE0, 0, 0, 0x80, 0xC0, 10] + stamp(0x30, pts) + stamp(0x10, dts)
        bytes += [UInt8](repeating: 0xFF, count: 188 - bytes.count)
        return bytes
    }

    @Test func movesPTSDTSAndPCR() throws {
        let original = Self.packet(pid: 0x100, counter: 3, pts: 90_000 + 6006, dts: 90_000, pcr: 27_000)
        let moved = try TransportStreamRestamp.restamp(original, by: 180_000)
        let expected: Int64 = 276_006
        #expect(TransportStreamRestamp.firstPTS(moved) == expected)
        #expect(moved.count == original.count)
        let back = try TransportStreamRestamp.restamp(moved, by: -180_000)
        #expect(back == original, "restamping is exact and touches nothing else")
    }

    @Test func wrapsAt33Bits() throws {
        let near = (Int64(1) << 33) - 1000
        let moved = try TransportStreamRestamp.restamp(Self.packet(pid: 0x100, counter: 0, pts: near, dts: near, pcr: nil), by: 2000)
        let expected: Int64 = 1000
        #expect(TransportStreamRestamp.firstPTS(moved) == expected)
    }

    @Test func continuityCountersRunOnAcrossCopies() throws {
        let segment = (0..<3).flatMap { Self.packet(pid: 0x100, counter: $0, pts: 0, dts: 0, pcr: nil) }
        let second = try TransportStreamRestamp.restamp(segment, by: 0, copy: 1)
        #expect(stride(from: 0, to: second.count, by: 188).map { second[$0 + 3] & 0x0F } == [3, 4, 5])
        let sixth = try TransportStreamRestamp.restamp(segment, by: 0, copy: 5)
        #expect(sixth[3] & 0x0F == 15)
        #expect(sixth[188 + 3] & 0x0F == 0)
    }

    @Test func refusesWhatIsNotTransportStream() {
        #expect(throws: TransportStreamRestamp.Failure.notTransportStream(offset: 0)) {
            try TransportStreamRestamp.restamp([UInt8](repeating: 0, count: 188), by: 1)
        }
    }
}
