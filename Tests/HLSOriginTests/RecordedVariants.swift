import Foundation
import OriginRegistry
import OriginState
import SidelineTesting

/// What the access and set HTTP tests serve: `count` segments of `bytes` per variant, written
/// to `directory` and published with their media and I-frame playlists.
enum RecordedVariants {
    static func publish(_ registry: StreamRegistry, stream: String, variants: [String], bytes: [UInt8], in directory: String, count: Int = 2) throws {
        for variant in variants {
            try FileManager.default.createDirectory(atPath: "\(directory)/\(stream)/\(variant)", withIntermediateDirectories: true)
            for n in 0..<count {
                let name = String(format: "%06d.ts", n)
                let path = "\(directory)/\(stream)/\(variant)/\(name)"
                _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
                registry.apply(.publish(.init(.segment(name, file: .init(path: path, size: bytes.count, duration: 2)),
                    stream: stream, variant: variant, playlist: TestPlaylists.live(count: n + 1), iFrames: TestPlaylists.live(count: n + 1))))
            }
        }
    }
}
