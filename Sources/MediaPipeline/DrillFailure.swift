/// The error a drilled variant fails with.
struct DrillFailure: Error, CustomStringConvertible {
    let variant: String
    var description: String { "encoder of variant '\(variant)' failed (drill requested by the operator)" }
}
