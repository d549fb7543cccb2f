/// Runs `body` until it returns or `seconds` pass, whichever is first; nil on the deadline
/// (`body` is cancelled). For calls to another box whose answer must be whole in time:
/// AsyncHTTPClient's own deadline ends once the headers are in, so a body trickled a byte at a
/// time would otherwise hold the caller for as long as the sender likes.
func withDeadline<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () async -> T?) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask { await body() }
        group.addTask {
            try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
