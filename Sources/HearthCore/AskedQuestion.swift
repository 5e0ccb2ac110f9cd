public import Foundation

/// A question as the broker recorded it: who asked, from which app and device, and when.
public struct AskedQuestion: Hashable, Sendable {
    public var question: Question
    public var childMemberID: MemberID
    public var appBundleID: BundleID
    public var askingDeviceID: DeviceID
    public var askedAt: Date

    public init(
        question: Question, childMemberID: MemberID, appBundleID: BundleID, askingDeviceID: DeviceID, askedAt: Date
    ) {
        self.question = question
        self.childMemberID = childMemberID
        self.appBundleID = appBundleID
        self.askingDeviceID = askingDeviceID
        self.askedAt = askedAt
    }
}
