import Foundation

/// Polls until `condition` holds (every `interval` seconds), or throws after `timeout` seconds
/// saying `what` did not happen: for what a real server does in its own time.
public func eventually(_ what: String, timeout: Double = 30, interval: Double = 0.2, _ condition: () async throws -> Bool) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .seconds(interval))
    }
    throw NotWithin(what: what, timeout: timeout)
}

/// What `eventually` throws: the thing that did not happen, and how long it was given.
public struct NotWithin: Error, CustomStringConvertible {
    public let what: String
    public let timeout: Double
    public var description: String { "not within \(timeout) s: \(what)" }
}
