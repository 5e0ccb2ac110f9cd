// Only in the libFuzzer build: a plain build replays files, and two of these symbols would clash in a test bundle.
#if HEARTH_FUZZ
/// libFuzzer's entry point: one input, checked by `CodecCheck`.
@_cdecl("LLVMFuzzerTestOneInput")
public func codecFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    CodecCheck.check(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
#endif
