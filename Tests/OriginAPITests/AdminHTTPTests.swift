import Foundation
import HLSOrigin
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import OriginAPI
import OriginPolicy
import OriginRegistry
import OriginState
import SidelineTesting
import Synchronization
import Testing

/// The admin API's authentication and refusals, over real HTTP on 127.0.0.1 (the drills
/// themselves run against real pipelines in the end-to-end tests).
@Suite struct AdminHTTPTests {
    /// Records what the admin API asked for: the seam between HTTP and the pipelines.
    final class RecordedOperations: StreamOperations {
        let calls = Mutex<[String]>([])
        func failVariant(stream: String, variant: String, seconds: Double?) throws(Refusal) {
            guard stream == "main" else { throw .adminUnknownStream(stream) }
            guard variant == "720p" else { throw .adminUnknownVariant(variant, of: stream) }
            calls.withLock { $0.append("fail \(stream)/\(variant)" + (seconds.map { " \($0)" } ?? "")) }
        }
        func stall(stream: String, seconds: Double) throws(Refusal) {
            guard stream == "main" else { throw .adminUnknownStream(stream) }
            calls.withLock { $0.append("stall \(stream) \(seconds)") }
        }
        func cutInput(stream: String, seconds: Double) throws(Refusal) {
            guard stream == "main" else { throw .adminUnknownStream(stream) }
            calls.withLock { $0.append("cut \(stream) \(seconds)") }
        }
        func endStream(stream: String) throws(Refusal) {
            guard stream == "main" else { throw .adminUnknownStream(stream) }
            calls.withLock { $0.append("end \(stream)") }
        }
        func removeStream(stream: String) throws(Refusal) {
            guard stream == "main" else { throw .adminUnknownStream(stream) }
            calls.withLock { $0.append("remove \(stream)") }
        }
    }

    /// The streams the admin API acts on are `RecordedOperations`'; the registry only serves.
    func makeApplication(admin: AdminRoutes? = nil) -> some ApplicationProtocol {
        let registry = StreamRegistry(clock: { 0 })
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        return OriginServer.makeApplication(registry: registry, host: "127.0.0.1", port: 0, logger: logger,
                                            routes: admin.map { admin in [{ admin.add(to: $0) }] } ?? [])
    }

    @Test func adminRequestsNeedTheBearerToken() async throws {
        let operations = RecordedOperations()
        let app = makeApplication(admin: AdminRoutes(token: "s3cret", drillsEnabled: true, operations: operations))
        try await app.test(.live) { client in
            let uri = "/admin/streams/main/variants/720p/fail"
            try await client.execute(uri: uri, method: .post) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.wwwAuthenticate] == "Bearer realm=\"sideline-admin\"")
            }
            for wrong in ["Bearer s3cre", "Bearer s3cret2", "Basic s3cret", "s3cret"] {
                try await client.execute(uri: uri, method: .post, headers: [.authorization: wrong]) { #expect($0.status == .unauthorized, "\(wrong)") }
            }
            #expect(operations.calls.withLock { $0 }.isEmpty)
            let auth: HTTPFields = [.authorization: "Bearer s3cret"]
            try await client.execute(uri: uri, method: .post, headers: auth) { #expect($0.status == .accepted) }
            try await client.execute(uri: uri + "?seconds=4", method: .post, headers: auth) { #expect($0.status == .accepted) }
            try await client.execute(uri: uri + "?seconds=0", method: .post, headers: auth) { #expect($0.status == .badRequest) }
            try await client.execute(uri: "/admin/streams/main/stall?seconds=2.5", method: .post, headers: auth) { #expect($0.status == .accepted) }
            try await client.execute(uri: "/admin/streams/main/stall?seconds=-1", method: .post, headers: auth) { #expect($0.status == .badRequest) }
            try await client.execute(uri: "/admin/streams/main/cut?seconds=30", method: .post, headers: auth) { #expect($0.status == .accepted) }
            try await client.execute(uri: "/admin/streams/other/stall", method: .post, headers: auth) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/admin/streams/main/variants/1080p/fail", method: .post, headers: auth) { response in
                #expect(response.status == .notFound)
                #expect(String(buffer: response.body).hasPrefix("stream 'main' has no variant '1080p'\nrequest-id: "))
            }
            #expect(operations.calls.withLock { $0 } == ["fail main/720p", "fail main/720p 4.0", "stall main 2.5", "cut main 30.0"])
        }
    }

    @Test func drillsAreRefusedUnlessEnabledButEndAndRemoveAreNot() async throws {
        let operations = RecordedOperations()
        let app = makeApplication(admin: AdminRoutes(token: "s3cret", drillsEnabled: false, operations: operations))
        try await app.test(.live) { client in
            let auth: HTTPFields = [.authorization: "Bearer s3cret"]
            try await client.execute(uri: "/admin/streams/main/stall", method: .post, headers: auth) { response in
                #expect(response.status == .forbidden)
                #expect(String(buffer: response.body).contains("admin.drills"))
            }
            try await client.execute(uri: "/admin/streams/main/end", method: .post) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/admin/streams/main", method: .delete) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/admin/streams/main/end", method: .post, headers: auth) { #expect($0.status == .accepted) }
            try await client.execute(uri: "/admin/streams/main", method: .delete, headers: auth) { #expect($0.status == .accepted) }
            try await client.execute(uri: "/admin/streams/other", method: .delete, headers: auth) { #expect($0.status == .notFound) }
        }
        #expect(operations.calls.withLock { $0 } == ["end main", "remove main"])
    }

    @Test func withoutATokenThereIsNoAdminAPI() async throws {
        try await makeApplication().test(.live) { client in
            try await client.execute(uri: "/admin/streams/main/stall", method: .post) { #expect($0.status == .notFound) }
        }
    }

}
