import OriginPolicy
import Testing

/// The same lifetimes for open and private streams; only the viewer's own cache may keep a
/// private stream's answers, which vary on `Authorization`.
@Suite struct CacheAudienceTests {
    @Test(arguments: [
        (CachePolicy.livePlaylist(maxAge: 1), "public, max-age=1", "private, max-age=1"),
        (.endedPlaylist, "public, max-age=86400", "private, max-age=86400"),
        (.segment, "public, max-age=31536000, immutable", "private, max-age=31536000, immutable"),
        (.transientError, "public, max-age=1", "private, max-age=1"),
        (.openPart, "public, max-age=1", "private, max-age=1"),
        (.steeringManifest, "public, max-age=1", "private, max-age=1"),
        (.gone, "public, max-age=3600", "private, max-age=3600"),
        (.gapSegment(maxAge: 2), "public, max-age=2", "private, max-age=2"),
        (.uncached, "no-cache", "private, no-cache"),
        (.noStore, "no-store", "no-store"),
    ])
    func privateKeepsTheLifetime(policy: CachePolicy, open: String, credentialHolders: String) {
        #expect(policy.headerValue == open)
        #expect(policy.headerValue(for: .everyone) == open)
        #expect(policy.headerValue(for: .credentialHolders) == credentialHolders)
    }

    /// Our private edge ignores Cache-Control (it must ignore `private`) and stores a 200
    /// segment a year: only an open part, which a restarted server may make again, tells it
    /// otherwise.
    @Test func onlyAnOpenPartLimitsWhatAnEdgeIgnoringCacheControlKeeps() {
        let all: [CachePolicy] = [.livePlaylist(maxAge: 1), .endedPlaylist, .segment, .transientError, .openPart, .steeringManifest, .uncached, .noStore, .gone, .gapSegment(maxAge: 2)]
        #expect(all.filter { $0.edgeExpiry != nil } == [.openPart])
        #expect(CachePolicy.openPart.edgeExpiry == 1)
    }

    @Test func privateAnswersVaryOnTheCredentialsHeader() {
        #expect(CacheAudience.everyone.vary(adding: "Accept-Encoding") == "Accept-Encoding")
        #expect(CacheAudience.everyone.vary(adding: nil) == nil)
        #expect(CacheAudience.credentialHolders.vary(adding: "Accept-Encoding") == "Accept-Encoding, Authorization")
        #expect(CacheAudience.credentialHolders.vary(adding: nil) == "Authorization")
    }

    @Test(arguments: [
        // (asked, limit, clipped variant or nil for 403)
        (nil as String?, nil as String?, nil as String?, false),
        ("720p", nil, "720p", false),
        (nil, "360p", "360p", false),
        ("360p", "360p", "360p", false),
        ("720p", "360p", nil, true),
    ])
    func aVariantLimitedCredentialClipsItsVariantOnly(asked: String?, limit: String?, clipped: String?, refused: Bool) {
        switch ClipVariantLimit.variant(asked: asked, limit: limit, stream: "home") {
        case let .success(variant):
            #expect(!refused && variant == clipped)
        case let .failure(refusal):
            #expect(refused && refusal.status == 403 && refusal.cache == .noStore)
            #expect(refusal.reason.contains("360p") && refusal.reason.contains("720p"))
        }
    }
}

extension CacheAudienceTests {
    @Test func anAnswerMarkedForEveryoneIsRestrictedForAPrivateStream() {
        #expect(CacheAudience.credentialHolders.restricting("public, max-age=1") == "private, max-age=1")
        #expect(CacheAudience.credentialHolders.restricting("no-cache") == "private, no-cache")
        #expect(CacheAudience.credentialHolders.restricting("no-store") == "no-store")
        #expect(CacheAudience.credentialHolders.restricting("private, max-age=1") == "private, max-age=1")
        #expect(CacheAudience.everyone.restricting("public, max-age=1") == "public, max-age=1")
        // Vary names the credential's header once.
        #expect(CacheAudience.credentialHolders.vary(adding: "Accept-Encoding, Authorization") == "Accept-Encoding, Authorization")
    }
}
