public import Foundation

/// Who a question is about, with the metadata a parent sees.
public struct PersonInformation: Hashable, Sendable, Codable {
    /// The person's handle in the app.
    public var handle: CommunicationHandle
    /// The person's name as the app knows it.
    public var nameComponents: PersonNameComponents?
    /// A picture of the person, as encoded image bytes (PNG or JPEG); Linux has no `CGImage`.
    public var avatarImage: [UInt8]?

    /// Metadata for one person; "prefer adding the most metadata possible".
    public init(handle: CommunicationHandle, nameComponents: PersonNameComponents? = nil, avatarImage: [UInt8]? = nil) {
        self.handle = handle
        self.nameComponents = nameComponents
        self.avatarImage = avatarImage
    }
}
