import Foundation

extension AgeRangeMessage {
    /// True for the Declared Age Range requests a device passes on to the broker (0x40–0x43); `watch` and
    /// `listPrompts` stay on the device, and the replies go the other way.
    public var isBrokerCommand: Bool {
        switch self {
        case .request, .setSharing, .answerPrompt, .clearCache:
            true
        case .watch, .listPrompts, .result, .prompted, .sharingSet, .promptAnswered, .cacheCleared, .promptList,
             .update:
            false
        }
    }
}
