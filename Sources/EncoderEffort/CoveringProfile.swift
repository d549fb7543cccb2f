import SidelineCore

/// The H.264 profile x264 writes into a rung's SPS at each effort step, and the one the
/// master's CODECS declares for the rung: the highest of them, so CODECS covers every segment
/// the rung carries at any step (a High decoder decodes Main and Constrained Baseline), and it
/// is the same from the first master on (players read the master once).
///
/// x264 picks profile_idc from the features a step uses (`x264_sps_init`): the 8x8 transform
/// makes High; else CABAC, B-frames or weighted P prediction make Main; else Constrained
/// Baseline. Every preset from superfast up has them all; plain `ultrafast` has none, and
/// `ultrafast-b` puts CABAC and B-frames back (Main). The configured profile caps the features
/// (`x264_param_apply_profile`): main drops the 8x8 transform, baseline drops all of them.
public struct H264Profile: Sendable, Equatable, Comparable {
    /// profile_idc: 66 Baseline, 77 Main, 100 High.
    public var idc: UInt8
    /// The constraint-flag byte x264 writes with it: set0 and set1 for Baseline (Constrained
    /// Baseline), set1 for Main, none for High.
    public var constraintFlags: UInt8

    public static let constrainedBaseline = H264Profile(idc: 66, constraintFlags: 0xC0)
    public static let main = H264Profile(idc: 77, constraintFlags: 0x40)
    public static let high = H264Profile(idc: 100, constraintFlags: 0x00)

    public static func < (lhs: H264Profile, rhs: H264Profile) -> Bool { lhs.idc < rhs.idc }

    /// The profile a rung configured with `profile` (baseline, main or high) gets from a step.
    public static func written(by step: EffortStep, configured profile: String) -> H264Profile {
        let cap: H264Profile = switch profile {
        case "baseline": .constrainedBaseline
        case "main": .main
        default: .high
        }
        guard step.preset == "ultrafast" else { return cap }
        let parameters = step.x264Params.split(separator: ":")
        let mainFeatures = parameters.contains("cabac=1") || parameters.contains { $0.hasPrefix("bframes=") && $0 != "bframes=0" }
        return min(cap, mainFeatures ? .main : .constrainedBaseline)
    }

    /// What a rung's CODECS declares: the highest profile any of its steps writes.
    public static func covering(_ rung: Rung) -> H264Profile {
        EffortSteps.steps(for: rung).map { written(by: $0, configured: rung.profile) }.max() ?? .high
    }
}
