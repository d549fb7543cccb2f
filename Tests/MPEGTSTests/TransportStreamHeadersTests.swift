import MPEGTS
import Testing

@Suite struct TransportStreamHeadersTests {
    /// A table packet: PID, then a PAT section listing `pmt` when it is the PAT.
    static func packet(pid: Int, pmt: Int = 0x1000) -> [UInt8] {
        var bytes: [UInt8] = [0x47, UInt8(0x40 | (pid >> 8)), UInt8(pid & 0xFF), 0x10, 0x00]
        if pid == 0 {
            // table_id 0, section_length 13, ts id, version, section 0/0, program 1 -> pmt, CRC.
            bytes += [0x00, 0xB0, 0x0D, 0x00, 0x01, 0xC1, 0x00, 0x00, 0x00, 0x01, UInt8(0xE0 | (pmt >> 8)), UInt8(pmt & 0xFF), 0, 0, 0, 0]
        }
        return bytes + [UInt8](repeating: 0xFF, count: 188 - bytes.count)
    }

    static func pids(_ bytes: [UInt8]) -> [Int] {
        stride(from: 0, to: bytes.count, by: 188).map { Int(bytes[$0 + 1] & 0x1F) << 8 | Int(bytes[$0 + 2]) }
    }

    @Test func sdtMovesBehindPATAndPMT() {
        let segment = Self.packet(pid: 0x11) + Self.packet(pid: 0) + Self.packet(pid: 0x1000) + Self.packet(pid: 0x100)
        let ordered = TransportStreamHeaders.patFirst(segment)
        #expect(Self.pids(ordered) == [0, 0x1000, 0x11, 0x100])
        #expect(ordered.count == segment.count)
        #expect(Array(ordered[(3 * 188)...]) == Array(segment[(3 * 188)...]), "the media after the tables is untouched")
    }

    @Test func alreadyOrderedOrTablelessSegmentsAreUnchanged() {
        let ordered = Self.packet(pid: 0) + Self.packet(pid: 0x1000) + Self.packet(pid: 0x100)
        #expect(TransportStreamHeaders.patFirst(ordered) == ordered)
        let media = Self.packet(pid: 0x100) + Self.packet(pid: 0x101)
        #expect(TransportStreamHeaders.patFirst(media) == media)
    }
}
