import Foundation
import Logging
import OriginPolicy
import OriginRegistry
import OriginState
import SegmentStore
import StreamPublishing
import StreamPushing
import StreamServices

/// A pushed stream's title, description and keywords, as its encoder last sent them.
extension PushedStream {
    // MARK: Metadata

    /// Title, description and keywords: kept (atomically) before the master and `/api/streams`
    /// show them, so a restart shows them too.
    func receiveMetadata(_ body: [UInt8]) -> Result<IngestReceipt, Refusal> {
        let metadata: StreamMetadata
        switch StreamMetadata.parse(body) {
        case let .success(parsed): metadata = parsed
        case let .failure(rejection): return .failure(.malformed("\(rejection)").forOperators())
        }
        do {
            try files.keep(metadata, as: .metadata)
        } catch {
            logger.error("pushed metadata not kept", metadata: ["error": "\(error)"])
            return .failure(Self.writeRefusal(error, "the metadata could not be kept"))
        }
        apply(metadata)
        return .success(IngestReceipt(created: false, message: "metadata taken: title '\(metadata.title)'"))
    }

    func apply(_ metadata: StreamMetadata) {
        publisher.registry.apply(.metadata(stream: name, title: metadata.title, description: metadata.description, keywords: metadata.keywords))
        publisher.writer.setSessionData(MasterAssembly.sessionData(title: metadata.title, description: metadata.description, keywords: metadata.keywords))
    }

    /// 507 when the disk (or the user's quota) is full, logged by the caller; 500 otherwise.
    static func writeRefusal(_ error: any Error, _ what: String) -> Refusal {
        if case .diskFull = error as? StoreError {
            return Refusal(.insufficientStorage, "\(what): the server's disk is full; an operator must free space (retention.max_size_gb)").forOperators()
        }
        return Refusal(.internalError, "\(what): \(error)").forOperators()
    }
}
