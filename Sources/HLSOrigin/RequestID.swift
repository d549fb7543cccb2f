import HTTPTypes
import Synchronization

/// `X-Request-ID` on every response: the client's own when it sent a usable one (a proxy's or
/// a player's, so both logs name the same request), one made here otherwise. It is in the
/// request's log line and in the body of every 4xx and 5xx, so an analyst's screenshot of an
/// error is enough to find the request in the server's log.
public enum RequestID {
    public static let header = HTTPField.Name("X-Request-ID")!

    /// The ID a route's refusals carry (`Response(refusal)`), set by `RequestIDMiddleware` for
    /// the task that handles the request. The fast path passes its ID explicitly.
    @TaskLocal public static var current: String?

    /// The client's ID when it is 1-128 visible ASCII characters (it goes into a log line and a
    /// header as it is), a new one otherwise.
    public static func take(_ given: String?) -> String {
        if let given, !given.isEmpty, given.utf8.count <= 128, given.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) { return given }
        return next()
    }

    /// A new ID: this process's random prefix and a counter, unique across restarts without a
    /// random number per request.
    public static func next() -> String {
        let number = counter.add(1, ordering: .relaxed).newValue
        return prefix + String(number, radix: 36)
    }

    private static let counter = Atomic<UInt64>(0)
    private static let prefix: String = {
        var generator = SystemRandomNumberGenerator()
        return String(generator.next() as UInt32, radix: 36) + "-"
    }()
}
