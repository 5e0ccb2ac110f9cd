import Foundation
import FuzzSupport

/// Fuzzes (HEARTH_FUZZ=1, deploy/fuzz) or replays files through `CodecCheck`.
@main
enum CodecFuzzerMain {
    static func main() {
        exit(
            FuzzDriver.run(name: "CodecFuzzer") { data, size in
                CodecCheck.check(FuzzDriver.bytes(data, size))
                return 0
            })
    }
}
