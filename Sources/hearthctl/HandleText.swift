import ArgumentParser
import HearthCore

/// A handle as a person types it, `KIND:VALUE`, read by `CommunicationHandle(parsing:bareIsCustom:)` (the rule
/// hearth-fleet's scenarios follow too); a refusal is a `ValidationError`, so ArgumentParser prints it with the usage.
enum HandleText {
    /// Parses `text`; with `bareIsCustom`, text without a known kind is a custom handle (an app's username).
    static func parse(_ text: String, bareIsCustom: Bool = false) throws -> CommunicationHandle {
        do {
            return try CommunicationHandle(parsing: text, bareIsCustom: bareIsCustom)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
