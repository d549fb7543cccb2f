import NIOPosix
import StreamPushing

/// The queue directory as the uploader's store: its file work off Swift's cooperative pool,
/// on NIO's blocking-I/O threads (`keep` runs on the pipeline's own threads).
extension PushQueueDirectory: PushQueueStore {
    public func queuedBytes(of variant: String, slot: Int) async -> [UInt8]? {
        await blocking { self.bytes(of: variant, slot: slot) } ?? nil
    }

    public func removeQueued(_ variant: String, slots: [Int]) async {
        await blocking { for slot in slots { self.remove(variant, slot: slot) } }
    }

    public func recordAcknowledged(_ upTo: [String: Int]) async throws {
        try await NIOThreadPool.singleton.runIfActive { try self.saveAcknowledged(upTo) }
    }

    private func blocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T? {
        try? await NIOThreadPool.singleton.runIfActive(body)
    }
}
