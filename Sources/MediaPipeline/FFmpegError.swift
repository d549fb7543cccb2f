import CFFmpeg

/// A failed libav* call: which function, its AVERROR code and FFmpeg's own text for it.
public struct FFmpegError: Error, CustomStringConvertible, Sendable {
    public let call: String
    public let code: Int32
    public var text: String { FFmpegError.text(for: code) }

    public init(call: String, code: Int32) {
        self.call = call
        self.code = code
    }

    public var description: String { "\(call) failed: \(text) (AVERROR \(code))" }

    public var isEndOfFile: Bool { code == sideline_averror_eof() }
    public var isTryAgain: Bool { code == sideline_averror_eagain() }

    static func text(for code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        return buffer.withUnsafeMutableBufferPointer { pointer in
            String(cString: sideline_error_string(code, pointer.baseAddress, pointer.count))
        }
    }
}

/// Throws when a libav* call returns a negative code; passes non-negative results through.
@discardableResult
func check(_ code: Int32, _ call: @autoclosure () -> String) throws(FFmpegError) -> Int32 {
    guard code >= 0 else { throw FFmpegError(call: call(), code: code) }
    return code
}
