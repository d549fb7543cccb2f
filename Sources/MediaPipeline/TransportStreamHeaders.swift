/// Puts a segment's program tables in the order players and validators expect: PAT first,
/// then the PMT, then anything else. libavformat's MPEG-TS muxer, asked to resend its tables
/// at each segment (`resend_headers`), writes the SDT (PID 0x11) before the PAT, so every
/// segment began with the SDT. Pure: a permutation of the leading table packets, so byte
/// offsets after them (and the IDR byte ranges, which start at the segment's first byte)
/// stay valid.
enum TransportStreamHeaders {
    static let packetSize = 188
    static let patPID = 0x0000
    static let sdtPID = 0x0011

    /// `bytes` with its leading PAT, PMT and SDT packets reordered PAT, PMT, SDT; unchanged
    /// when it does not start with tables or has no PAT among them.
    static func patFirst(_ bytes: [UInt8]) -> [UInt8] {
        var leading: [(pid: Int, start: Int)] = []
        var pmtPIDs: Set<Int> = []
        var offset = 0
        while offset + packetSize <= bytes.count, bytes[offset] == 0x47 {
            let pid = Int(bytes[offset + 1] & 0x1F) << 8 | Int(bytes[offset + 2])
            if pid == patPID { pmtPIDs.formUnion(programMapPIDs(inPATPacket: bytes, at: offset)) }
            guard pid == patPID || pid == sdtPID || pmtPIDs.contains(pid) else { break }
            leading.append((pid, offset))
            offset += packetSize
        }
        guard leading.contains(where: { $0.pid == patPID }), leading.first?.pid != patPID else { return bytes }
        func rank(_ pid: Int) -> Int { pid == patPID ? 0 : pmtPIDs.contains(pid) ? 1 : 2 }
        // A stable sort keeps multi-packet tables in their order.
        let ordered = leading.enumerated().sorted { (rank($0.element.pid), $0.offset) < (rank($1.element.pid), $1.offset) }.map(\.element)
        var out = bytes
        for (index, packet) in ordered.enumerated() {
            out.replaceSubrange(index * packetSize..<(index + 1) * packetSize, with: bytes[packet.start..<(packet.start + packetSize)])
        }
        return out
    }

    /// The PMT PIDs a PAT section in one packet lists (ISO/IEC 13818-1 §2.4.4.3).
    static func programMapPIDs(inPATPacket bytes: [UInt8], at start: Int) -> [Int] {
        guard bytes[start + 1] & 0x40 != 0 else { return [] }
        let control = (bytes[start + 3] >> 4) & 0x3
        var index = start + 4
        if control & 0x2 != 0 { index += 1 + Int(bytes[index]) }
        index += 1 + Int(bytes[index]) // pointer field
        guard index + 8 <= start + packetSize else { return [] }
        let sectionLength = Int(bytes[index + 1] & 0x0F) << 8 | Int(bytes[index + 2])
        let end = min(index + 3 + sectionLength - 4, start + packetSize) // less the CRC
        var pids: [Int] = []
        var entry = index + 8
        while entry + 4 <= end {
            let program = Int(bytes[entry]) << 8 | Int(bytes[entry + 1])
            if program != 0 { pids.append(Int(bytes[entry + 2] & 0x1F) << 8 | Int(bytes[entry + 3])) }
            entry += 4
        }
        return pids
    }
}
