import Foundation

extension StreamLayout {
    /// The whole segment files of `variant`, by name, with their sizes: files renamed into
    /// place by `AtomicFile` (so checked and complete). Temporary files of writes cut short
    /// (a download interrupted by a crash) are removed, never counted. The variant's directory
    /// is created when missing.
    public func wholeSegmentFiles(_ variant: String) throws -> [String: Int] {
        let directory = variantDirectory(variant)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var files: [String: Int] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            if name.hasPrefix(AtomicFile.temporaryPrefix) {
                unlink("\(directory)/\(name)")
                continue
            }
            guard name.hasSuffix(".ts") else { continue }
            let size = ((try? FileManager.default.attributesOfItem(atPath: "\(directory)/\(name)"))?[.size] as? NSNumber)?.intValue ?? 0
            if size > 0 { files[name] = size }
        }
        return files
    }
}
