import Foundation

#if HEARTH_FUZZ
/// libFuzzer's driver (LLVM 13 and later), linked in by `-sanitize=fuzzer`.
// swift-format-ignore: AlwaysUseLowerCamelCase
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32
#endif

/// A fuzz target's entry: built for fuzzing (HEARTH_FUZZ=1, deploy/fuzz), libFuzzer runs `check` on the inputs it
/// makes and takes the command line (`-max_total_time=60 CORPUS…`); built plainly, `check` replays the files named.
///
/// The target's own `main` calls this: SwiftPM names an executable's entry point after its module and links it as
/// `main`, so libFuzzer's `main` cannot be used; `LLVMFuzzerRunDriver` is its documented replacement.
public enum FuzzDriver {
    public static func run(
        name: String, check: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Int32 {
        #if HEARTH_FUZZ
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        return LLVMFuzzerRunDriver(&argc, &argv, check)
        #else
        return FuzzReplay.run(Array(CommandLine.arguments.dropFirst()), name: name) { bytes in
            _ = bytes.withUnsafeBufferPointer { check($0.baseAddress, $0.count) }
        }
        #endif
    }

    /// The input libFuzzer passes, as bytes.
    public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    }
}
