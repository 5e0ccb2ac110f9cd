// Only in the libFuzzer build: a plain build replays files, and two of these symbols would clash in a test bundle.
#if HEARTH_FUZZ
/// libFuzzer's entry point: one input, run as one batch by `BrokerCommandCheck`.
@_cdecl("LLVMFuzzerTestOneInput")
public func brokerCommandFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    BrokerCommandCheck.shared.check(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
#endif
