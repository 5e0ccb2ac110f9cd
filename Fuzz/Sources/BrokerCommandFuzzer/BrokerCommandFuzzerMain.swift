import Foundation
import FuzzSupport

/// Fuzzes (HEARTH_FUZZ=1, deploy/fuzz) or replays files through `BrokerCommandCheck`, one batch per input.
@main
enum BrokerCommandFuzzerMain {
    static func main() {
        exit(
            FuzzDriver.run(name: "BrokerCommandFuzzer") { data, size in
                BrokerCommandCheck.shared.check(FuzzDriver.bytes(data, size))
                return 0
            })
    }
}
