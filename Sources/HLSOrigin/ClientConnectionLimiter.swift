import NIOCore
import Synchronization

/// Open connections per client address, so one device cannot take the whole connection limit
/// (1,100 idle connections from one address used to lock every player out).
public final class ClientConnections: Sendable {
    /// Connections one address may hold open; nil for no cap.
    public let cap: Int?
    private let open = Mutex<[String: Int]>([:])

    public init(cap: Int?) { self.cap = cap }

    /// Counts a new connection in; false (and not counted) when its address is at the cap.
    func admit(_ address: String) -> Bool {
        open.withLock { counts in
            let now = counts[address, default: 0]
            if let cap, now >= cap { return false }
            counts[address] = now + 1
            return true
        }
    }

    func release(_ address: String) {
        open.withLock { counts in
            let left = counts[address, default: 1] - 1
            counts[address] = left > 0 ? left : nil
        }
    }

    public func openConnections(from address: String) -> Int { open.withLock { $0[address] ?? 0 } }
}

/// Closes a new connection at once when its client address already holds `cap` connections.
/// Added to every connection's pipeline (`HTTP1Channel.Configuration.additionalChannelHandlers`);
/// it never touches what the connection carries.
final class ClientConnectionLimiter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Any
    private let clients: ClientConnections
    private var counted: String?
    private var decided = false

    init(clients: ClientConnections) { self.clients = clients }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { decide(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        decide(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        release()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { release() }

    private func decide(_ context: ChannelHandlerContext) {
        guard !decided else { return }
        decided = true
        guard let address = context.channel.remoteAddress?.ipAddress else { return }
        if clients.admit(address) {
            counted = address
        } else {
            context.close(promise: nil)
        }
    }

    private func release() {
        guard let address = counted else { return }
        counted = nil
        clients.release(address)
    }
}
