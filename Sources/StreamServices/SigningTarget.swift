import SidelineConfig
import SidelineCore

/// What `sideline sign <name>` signs: a stream, or an angle set, whose URL opens the set's
/// master and every angle (`AccessRules.credential(of:covers:)`). Checked against the config
/// here, so the command stays wiring.
public struct SigningTarget: Sendable, Equatable {
    /// `stream` or `set`, for the line printed above the URL.
    public var kind: String
    /// Whether nothing of it needs a credential (no viewer_token on it or any of its angles).
    public var isOpen: Bool
    /// A set another box serves (its default angle's): its URL must name the venue's edge
    /// (`--base`), since this box answers it 404.
    public var servedElsewhere = false

    /// The target `name` names; an error naming the streams and sets there are, or the ladder
    /// when `variant` is not one of its rungs (a set's: its default angle's). `base`: the
    /// `--base` given, which a set another box serves needs (this box's own address answers 404).
    public init(_ name: String, variant: String?, base: String? = nil, in settings: SidelineConfiguration) throws(SidelineStartupError) {
        let set = settings.angleSet(named: name)
        // A set another box serves: its credential is the same on every box that shares the
        // signing key, so it is signed here as there; but its default angle's ladder, and
        // whether that angle is private, are the other box's to know.
        if let set, !settings.isServedHere(set) {
            guard variant == nil else {
                throw SidelineStartupError(message: "set '\(name)' is served by the box that encodes its default angle '\(set.defaultStream)', which knows its ladder: sign a URL limited to one variant there")
            }
            guard base != nil else {
                throw SidelineStartupError(message: "set '\(name)' is served by the box that encodes its default angle '\(set.defaultStream)', not this one: give --base the venue's edge (such as --base https://10.0.0.1), which sends the set's URLs there")
            }
            kind = "set"
            isOpen = false
            servedElsewhere = true
            return
        }
        let streams = settings.streams.filter { $0.name == name || set?.streams.contains($0.name) == true }
        guard let first = streams.first(where: { $0.name == (set?.defaultStream ?? name) }) else {
            let sets = settings.angleSets.isEmpty ? "" : "; its angle sets are \(settings.angleSets.map(\.name).joined(separator: ", "))"
            throw SidelineStartupError(message: "the config has no stream or angle set '\(name)'; its streams are \(settings.streams.map(\.name).joined(separator: ", "))\(sets)")
        }
        if let variant, !first.video.ladder.contains(where: { $0.name == variant }) {
            throw SidelineStartupError(message: "\(set == nil ? "stream" : "set") '\(name)' has no variant '\(variant)'; its ladder has \(first.video.ladder.map(\.name).joined(separator: ", "))")
        }
        kind = set == nil ? "stream" : "set"
        isOpen = streams.allSatisfy { $0.viewerToken.isEmpty }
    }
}
