import OriginPolicy

/// What a request's path is about, as far as access goes (the gate's first step; its own
/// file, free of swift-crypto, so scripts/fuzz builds it alone).
enum AccessScope: Equatable {
    case stream(String, variant: String?)
    case other

    static func of(path target: Substring) -> Result<AccessScope, Refusal> {
        let path = target[..<(target.firstIndex(of: "?") ?? target.endIndex)]
        // Empty components are skipped, as a router that collapses '//' would.
        let components = path.split(separator: "/")
        let streamIndex: Int
        switch components.first {
        case "live", "vod": streamIndex = 1
        case "api" where components.count > 2 && components[1] == "streams": streamIndex = 2
        default: return .success(.other)
        }
        guard components.count > streamIndex else { return .success(.other) }
        func decoded(_ component: Substring) -> Result<String, Refusal> {
            OriginPath.decode(component).mapError { rejection in
                if case let .malformed(reason) = rejection { return Refusal.malformed(reason) }
                return Refusal.malformed("bad path component '\(component)'")
            }
        }
        let stream: String
        switch decoded(components[streamIndex]) {
        case let .success(name): stream = name
        case let .failure(refusal): return .failure(refusal)
        }
        // /live/<stream>/<variant>/<file>: the variant is the component before a file.
        var variant: String?
        if streamIndex == 1, components.count == 4 {
            switch decoded(components[2]) {
            case let .success(name): variant = name
            case let .failure(refusal): return .failure(refusal)
            }
        }
        return .success(.stream(stream, variant: variant))
    }
}
