import Foundation
import FuzzSupport

// Built by deploy/fuzz with -sanitize=fuzzer and -D HEARTH_FUZZ, libFuzzer supplies `main` and calls the entry below;
// built plainly, this replays files.
#if !HEARTH_FUZZ
exit(FuzzReplay.run(Array(CommandLine.arguments.dropFirst()), name: "BrokerCommandFuzzer") {
    BrokerCommandCheck.shared.check($0)
})
#endif
