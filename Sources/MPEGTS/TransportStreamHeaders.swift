/// Puts a segment's program tables in the order players and validators expect: PAT first,
/// then the PMT, then anything else. libavformat's MPEG-TS muxer, asked to resend its tables
/// at each segment (`resend_headers`), writes the SDT (PID 0x11) before the PAT, so every
/// segment began with the SDT. Pure: a permutation of the leading table packets, so byte
/// offsets after them (and the IDR byte ranges, which start at the segment's first byte)
/// stay valid.
public enum TransportStreamHeaders {
    public static let patPID = 0x0000
    public static let sdtPID = 0x0011

    /// `bytes` with its leading PAT, PMT and SDT packets reordered PAT, PMT, SDT; unchanged
    /// when it does not start with tables or has no PAT among them.
    public static func patFirst(_ bytes: [UInt8]) -> [UInt8] {
        var leading: [TransportStreamPacket] = []
        var pmtPIDs: Set<Int> = []
        while let packet = TransportStreamPacket(bytes, at: leading.count * TransportStreamPacket.size) {
            if packet.pid == patPID { pmtPIDs.formUnion(programMapPIDs(in: bytes, pat: packet)) }
            guard packet.pid == patPID || packet.pid == sdtPID || pmtPIDs.contains(packet.pid) else { break }
            leading.append(packet)
        }
        guard leading.contains(where: { $0.pid == patPID }), leading.first?.pid != patPID else { return bytes }
        func rank(_ pid: Int) -> Int { pid == patPID ? 0 : pmtPIDs.contains(pid) ? 1 : 2 }
        // A stable sort keeps multi-packet tables in their order.
        let ordered = leading.enumerated().sorted { (rank($0.element.pid), $0.offset) < (rank($1.element.pid), $1.offset) }.map(\.element)
        var out = bytes
        let size = TransportStreamPacket.size
        for (index, packet) in ordered.enumerated() {
            out.replaceSubrange(index * size..<(index + 1) * size, with: bytes[packet.start..<(packet.start + size)])
        }
        return out
    }

    /// The PMT PIDs a PAT section in one packet lists (ISO/IEC 13818-1 §2.4.4.3).
    public static func programMapPIDs(in bytes: [UInt8], pat packet: TransportStreamPacket) -> [Int] {
        guard packet.unitStart, packet.hasPayload else { return [] }
        let section = packet.payload + 1 + Int(bytes[packet.payload]) // after the pointer field
        let packetEnd = packet.end
        guard section + 8 <= packetEnd else { return [] }
        let sectionLength = Int(bytes[section + 1] & 0x0F) << 8 | Int(bytes[section + 2])
        let end = min(section + 3 + sectionLength - 4, packetEnd) // less the CRC
        var pids: [Int] = []
        var entry = section + 8
        while entry + 4 <= end {
            let program = Int(bytes[entry]) << 8 | Int(bytes[entry + 1])
            if program != 0 { pids.append(Int(bytes[entry + 2] & 0x1F) << 8 | Int(bytes[entry + 3])) }
            entry += 4
        }
        return pids
    }
}
