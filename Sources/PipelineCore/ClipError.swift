/// Why a clip could not be made.
public struct ClipError: Error, CustomStringConvertible, Sendable {
    public let reason: String
    public var description: String { reason }

    public init(reason: String) { self.reason = reason }
}
