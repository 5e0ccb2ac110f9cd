public import HearthCore

extension WireReader {
    /// `settings`: enabled, screenTime, downtime, opt<downtimeSchedule>, allowContactEditing (docs/PROTOCOL.md §4).
    public mutating func settings(_ field: String) throws(WireError) -> CommunicationSettings {
        let enabled = try bool("\(field).enabled")
        let screenTime = try scope("\(field).screenTime")
        guard screenTime != .specificContacts else {
            throw .invalidValue(field: "\(field).screenTime", reason: "specificContacts applies to downtime only")
        }
        let downtime = try scope("\(field).downtime")
        let schedule = try optional("\(field).downtimeSchedule") {
            (r: inout WireReader) throws(WireError) -> CommunicationSettings.Downtime in
            let start = try r.u16("\(field).downtimeSchedule.startMinute")
            let end = try r.u16("\(field).downtimeSchedule.endMinute")
            guard start < 1440, end < 1440 else {
                throw .invalidValue(
                    field: "\(field).downtimeSchedule", reason: "minutes after midnight must be below 1440")
            }
            return CommunicationSettings.Downtime(startMinute: start, endMinute: end)
        }
        let editing = try bool("\(field).allowContactEditing")
        return CommunicationSettings(
            enabled: enabled, screenTime: screenTime, downtime: downtime, downtimeSchedule: schedule,
            allowContactEditing: editing)
    }

    /// `contact`: handle, allowedDuringDowntime.
    public mutating func contact() throws(WireError) -> Contact {
        let handle = try handle("contact.handle")
        return Contact(handle: handle, allowedDuringDowntime: try bool("contact.allowedDuringDowntime"))
    }

    private mutating func scope(_ field: String) throws(WireError) -> CommunicationSettings.Scope {
        let code = try u8(field)
        guard let scope = CommunicationSettings.Scope(rawValue: code) else {
            throw .unknownEnumValue(field: field, value: UInt64(code))
        }
        return scope
    }
}
