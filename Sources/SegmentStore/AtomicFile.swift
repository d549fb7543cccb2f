import Foundation

/// Writes whole files so that a reader, or a restart after a crash, sees either the old file
/// or the new one, never a torn one: the bytes go to a temporary file in the same directory,
/// are flushed to the disk, and the temporary file is renamed over the target (rename(2) is
/// atomic within a filesystem).
public enum AtomicFile {
    /// Temporary files start with this; a restart may delete any it finds.
    public static let temporaryPrefix = ".tmp-"

    /// `mode`: the new file's permissions (less the umask); 0o600 for what only its owner
    /// may read (push's queue).
    public static func write(_ bytes: some Collection<UInt8>, to path: String, mode: mode_t = 0o644) throws(StoreError) {
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let temporary = "\(directory)/\(temporaryPrefix)\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw .writing(path) }
        var failure: StoreError?
        let written: Bool = bytes.withContiguousStorageIfAvailable { buffer in
            writeAll(fd, UnsafeRawBufferPointer(buffer))
        } ?? Array(bytes).withUnsafeBytes { writeAll(fd, $0) }
        if !written {
            failure = .writing(path)
        } else if fsync(fd) != 0 {
            failure = .writing(path, "fsync")
        }
        close(fd)
        if failure == nil, rename(temporary, path) != 0 {
            failure = .writing(path, "rename")
        }
        if let failure {
            unlink(temporary)
            throw failure
        }
    }

    public static func write(_ text: String, to path: String) throws(StoreError) {
        try write(Array(text.utf8), to: path)
    }

    /// Makes `path` a second name of the existing file `source` (a hard link: no byte is
    /// copied, and the file stays as long as either name does), replacing what `path` was;
    /// across file systems, a copy written as above. Returns the file's size.
    @discardableResult
    public static func link(_ source: String, to path: String) throws(StoreError) -> Int {
        var status = stat()
        guard stat(source, &status) == 0 else { throw .writeFailed(path: path, reason: "cannot read \(source): \(StoreError.errnoText())") }
        let directory = (path as NSString).deletingLastPathComponent
        let temporary = "\(directory)/\(temporaryPrefix)\((path as NSString).lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max))"
        if Foundation.link(source, temporary) == 0 {
            guard rename(temporary, path) == 0 else {
                let failure = StoreError.writing(path, "rename")
                unlink(temporary)
                throw failure
            }
            return Int(status.st_size)
        }
        guard errno == EXDEV, let data = FileManager.default.contents(atPath: source) else {
            throw .writing(path, "link \(source)")
        }
        try write([UInt8](data), to: path)
        return data.count
    }

    private static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < buffer.count {
            let n = Foundation.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += n
        }
        return true
    }
}
