import HLSPlaylist
import OriginState
import Synchronization

extension StreamRegistry {
    /// The set's master as served (`SetMaster`), rendered once per version of its angles'
    /// masters and kept (`setMasters`); nil when the default angle has no master (or no rung
    /// `variantLimit` names).
    public func setMaster(_ set: AngleSet, variantLimit: String?) -> RenderedPlaylist? {
        guard let (master, tag) = setMasterValue(set, variantLimit: variantLimit) else { return nil }
        if let made = setMasters.made(tag: tag) { return made }
        guard let text = master.render(variantLimit: variantLimit) else { return nil }
        return setMasters.rendered(tag: tag) { text }
    }

    /// The set's master as a value (`OriginState.setMaster`), and the tag that says which
    /// versions of its angles' masters it was made from; nil when the default angle has none.
    public func setMasterValue(_ set: AngleSet, variantLimit: String?) -> (master: SetMaster, tag: String)? {
        published.withLock { published in
            guard let master = SetMaster(set, in: published.state) else { return nil }
            let versions = master.angles.map { "-" + String(published.state.masterVersion(of: $0.stream), radix: 36) }.joined()
            return (master, "set-" + set.name + (variantLimit.map { "-" + $0 } ?? "") + "-" + epoch + versions)
        }
    }
}
