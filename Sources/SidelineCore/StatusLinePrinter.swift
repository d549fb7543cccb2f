import Foundation

/// Keeps a status line on standard error, like ffmpeg's: rewritten in place every second on a
/// terminal; on a pipe or a log file, one line every ten seconds, and the last one at the end.
public struct StatusLinePrinter: Sendable {
    let line: @Sendable () -> String
    private let isTerminal = isatty(STDERR_FILENO) == 1

    public init(line: @escaping @Sendable () -> String) {
        self.line = line
    }

    public func run() async {
        var tick = 0
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            tick += 1
            if isTerminal {
                Self.write("\r" + line() + "\u{1B}[K")
            } else if tick % 10 == 0 {
                Self.write(line() + "\n")
            }
        }
    }

    public func finish() { Self.write((isTerminal ? "\r" : "") + line() + "\n") }

    public static func write(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }
}
