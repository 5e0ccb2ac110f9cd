public import HearthCore

// Typealiases rather than `@_exported import`: an app that writes only `import PermissionKit` sees Apple's names,
// without the rest of HearthCore leaking into its namespace.

/// An identifier of a person in an app: a phone number, an email address or an app-specific username.
public typealias CommunicationHandle = HearthCore.CommunicationHandle
/// Who a question is about, with the metadata a parent sees.
public typealias PersonInformation = HearthCore.PersonInformation
/// A question about communicating with one or more people.
public typealias CommunicationTopic = HearthCore.CommunicationTopic
/// One answer a parent can give to a question; `.approve` and `.decline` are the standard ones.
public typealias PermissionChoice = HearthCore.PermissionChoice
