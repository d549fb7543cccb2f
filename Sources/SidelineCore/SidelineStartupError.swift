/// A problem found before serving (a bad input, config value, data directory or upstream):
/// the command prints it as one line, naming what is wrong and what to do, and exits with
/// status 2.
public struct SidelineStartupError: Error, CustomStringConvertible {
    public let message: String

    public init(message: String) {
        self.message = message
    }

    public var description: String { message }
}
