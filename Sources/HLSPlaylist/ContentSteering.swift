/// `#EXT-X-CONTENT-STEERING` (draft-pantos-hls-rfc8216bis §4.4.6.6; the HLS Content Steering
/// specification): where a client reloads the steering manifest that ranks the master's
/// pathways, and the pathway it uses until it has one.
public struct ContentSteering: Sendable, Equatable {
    /// `SERVER-URI`: the steering manifest, relative to the multivariant playlist.
    public var serverURI: String
    /// `PATHWAY-ID`: the pathway to use before the first manifest arrives.
    public var pathwayID: String?

    public init(serverURI: String, pathwayID: String? = nil) {
        self.serverURI = serverURI
        self.pathwayID = pathwayID
    }

    /// A legal Pathway ID: one or more of `a-z A-Z 0-9 . - _` (the steering specification).
    public static func isPathwayID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D || byte == 0x2E || byte == 0x5F
        }
    }

    var attributes: [String] {
        ["SERVER-URI=\"\(serverURI)\""] + (pathwayID.map { ["PATHWAY-ID=\"\($0)\""] } ?? [])
    }
}
