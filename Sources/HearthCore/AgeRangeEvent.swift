public import Foundation

/// Declared Age Range entries of a member's event log (`Event.Body.ageRange`), seen by all the member's devices.
public enum AgeRangeEvent: Hashable, Sendable {
    /// The answer remembered for `app` changed: a range was revealed (Always Share, or a prompt answered with
    /// share), or the user declined. Devices pass it to the app's watchers.
    case answerChanged(app: BundleID, AgeRangeAnswer)
    /// An Ask First prompt to show on the member's devices.
    case promptOpened(AgePrompt)
    /// A prompt was answered (on any device) or expired; `answer` is what the app was given.
    case promptClosed(id: UUID, app: BundleID, AgeRangeAnswer)
}
