public import HearthCore

extension WireWriter {
    public mutating func settings(_ s: CommunicationSettings) {
        bool(s.enabled)
        u8(s.screenTime.rawValue)
        u8(s.downtime.rawValue)
        optional(s.downtimeSchedule) { w, d in
            w.u16(d.startMinute)
            w.u16(d.endMinute)
        }
        bool(s.allowContactEditing)
    }

    public mutating func contact(_ c: Contact) {
        handle(c.handle)
        bool(c.allowedDuringDowntime)
    }
}
