import Synchronization

/// The credentials whose MAC the gate has checked, by their text: bounded, cleared whole when
/// full (a crowd of new viewers costs one HMAC each again, no more).
final class VerifiedCredentials: Sendable {
    static let capacity = 4096
    /// Keyed by the text as a Substring, so a lookup copies nothing out of the request.
    private let known = Mutex<[Substring: AccessCredential]>([:])

    func credential(for text: Substring) -> AccessCredential? {
        known.withLock { $0[text] }
    }

    func insert(_ credential: AccessCredential, for text: Substring) {
        // A copy of its own, so the entry does not keep the whole request target alive.
        let key = Substring(String(text))
        known.withLock { known in
            if known.count >= Self.capacity { known.removeAll(keepingCapacity: true) }
            known[key] = credential
        }
    }
}
