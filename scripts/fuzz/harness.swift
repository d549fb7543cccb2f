// libFuzzer's entry: one input through one target of FuzzTargets (fuzzTarget is written by
// scripts/fuzz/run.sh for each harness it builds).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = start.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
    FuzzTargets.all[fuzzTarget]!(bytes)
    return 0
}
