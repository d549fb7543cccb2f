import OriginPolicy

extension StreamRegistry {
    /// The one stream lookup of every route: the stream, or the refusal `Refusal.lookUp` gives
    /// (404 for a name no stream has, 410 for a removed one).
    public func existing(_ name: String) throws(Refusal) -> Stream {
        let found = stream(named: name)
        if let refusal = Refusal.lookUp(stream: name, phase: found?.phase) { throw refusal }
        // lookUp refuses a missing stream, so there is one here.
        return found!
    }
}
