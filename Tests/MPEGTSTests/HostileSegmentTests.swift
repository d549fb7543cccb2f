import MPEGTS
import Testing

/// Segments built to break the readers of MPEG-TS headers: lengths that point past the packet
/// (issue 26: an adaptation field that claims 255 bytes stopped the server on upload). Every
/// reader answers with a value or a refusal; none reads outside the packet it was given.
@Suite struct HostileSegmentTests {
    /// One packet: header, an optional adaptation field (its length byte as given, then its
    /// bytes), then the payload, padded with 0xFF to 188 bytes.
    static func packet(pid: Int, unitStart: Bool = true, adaptationLength: UInt8? = nil, adaptation: [UInt8] = [], payload: [UInt8] = []) -> [UInt8] {
        let control: UInt8 = adaptationLength == nil ? 0x10 : 0x30
        var bytes: [UInt8] = [0x47, (unitStart ? 0x40 : 0) | UInt8(pid >> 8 & 0x1F), UInt8(pid & 0xFF), control]
        if let adaptationLength { bytes += [adaptationLength] + adaptation }
        bytes += payload
        return Array((bytes + [UInt8](repeating: 0xFF, count: 188)).prefix(188))
    }

    /// PAT naming program 1 on PMT PID 0x1000 (ISO/IEC 13818-1 §2.4.4.3).
    static let pat: [UInt8] = [0x00, 0x00, 0xB0, 0x0D, 0x00, 0x01, 0xC1, 0x00, 0x00, 0x00, 0x01, 0xF0, 0x00, 0, 0, 0, 0]
    /// PMT listing one H.264 stream on PID 0x100 (§2.4.4.8).
    static let pmt: [UInt8] = [0x00, 0x02, 0xB0, 0x12, 0x00, 0x01, 0xC1, 0x00, 0x00, 0xE1, 0x00, 0xF0, 0x00, 0x1B, 0xE1, 0x00, 0xF0, 0x00, 0, 0, 0, 0]
    /// A video PES with a PTS of 90,000 and an IDR slice.
    static func pes(headerLength: UInt8 = 5, flags: UInt8 = 0x80) -> [UInt8] {
        [0x00, 0x00, 0x01, 0xE0, 0x00, 0x00, 0x80, flags, headerLength, 0x21, 0x00, 0x05, 0xBF, 0x21] + [0x00, 0x00, 0x00, 0x01, 0x65, 0x88]
    }

    static func segment(patAdaptation: UInt8? = nil, pmtAdaptation: UInt8? = nil, video: [UInt8]? = nil) -> [UInt8] {
        packet(pid: 0, adaptationLength: patAdaptation, payload: pat) + packet(pid: 0x1000, adaptationLength: pmtAdaptation, payload: pmt)
            + (video ?? packet(pid: 0x100, payload: pes()))
    }

    @Test func theBuiltSegmentPasses() throws {
        let inspection = try PushedSegmentCheck.inspect(Self.segment()).get()
        #expect(inspection.videoPID == 0x100)
        #expect(inspection.firstPTS == 90_000)
    }

    /// 255 bytes of adaptation field cannot fit in a 188-byte packet: the packet has no payload.
    @Test(arguments: [UInt8(255), 184, 183])
    func anAdaptationFieldLongerThanItsPacketIsNotReadPast(length: UInt8) {
        for bytes in [Self.packet(pid: 0, adaptationLength: length, payload: Self.pat),
                      Self.segment(patAdaptation: length),
                      Self.segment(pmtAdaptation: length),
                      Self.segment(video: Self.packet(pid: 0x100, adaptationLength: length, payload: Self.pes()))] {
            #expect(throws: (any Error).self) { try PushedSegmentCheck.inspect(bytes).get() }
            _ = TransportStreamHeaders.patFirst(bytes)
            _ = try? TransportStreamRestamp.restamp(bytes, by: 90_000, copy: 3)
            _ = TransportStreamRestamp.firstPTS(bytes)
        }
    }

    /// A PES header that claims 255 bytes of optional fields, more than is left in the packet.
    @Test func aPESHeaderLongerThanItsPacketIsRefused() {
        let bytes = Self.segment(video: Self.packet(pid: 0x100, payload: Self.pes(headerLength: 255)))
        #expect(PushedSegmentCheck.inspect(bytes) == .failure(.firstVideoNotKeyframe))
    }

    /// A PES header with PTS and DTS that starts so near the end of its packet that the DTS
    /// would lie past it (in the next packet, or past the segment's last byte).
    @Test func aTimestampPastTheEndOfItsPacketIsNotRewritten() throws {
        let pes = Self.pes(headerLength: 10, flags: 0xC0)
        let room = 188 - 4 - 1 - 14
        let video = Self.packet(pid: 0x100, adaptationLength: UInt8(room), adaptation: [0x00] + [UInt8](repeating: 0xFF, count: room - 1), payload: pes)
        let bytes = Self.segment(video: video)
        let moved = try TransportStreamRestamp.restamp(bytes, by: 90_000)
        #expect(moved.count == bytes.count)
        #expect(Array(moved[(2 * 188)...]) == Array(bytes[(2 * 188)...]), "no room for PTS and DTS: the packet is left as it was")
    }

    /// The offset and the copy count come from the ingest's arithmetic: any value wraps, none traps.
    @Test(arguments: [Int64.max, Int64.min, 0, -1])
    func anyOffsetAndCopyCountWrap(offset: Int64) throws {
        _ = try TransportStreamRestamp.restamp(Self.segment(), by: offset, copy: Int.max)
    }

    @Test func aSegmentOfOnlyTablesOrNothingIsRefused() {
        #expect(throws: (any Error).self) { try PushedSegmentCheck.inspect([]).get() }
        #expect(throws: (any Error).self) { try PushedSegmentCheck.inspect(Self.packet(pid: 0, payload: Self.pat)).get() }
        #expect(SegmentCheck.verify([], announced: nil) == .empty)
        #expect(SegmentCheck.verify(Self.segment(), announced: Int.max) != nil)
    }
}
