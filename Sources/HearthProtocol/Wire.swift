/// Constants of the Hearth wire protocol; docs/PROTOCOL.md is their specification.
public enum Wire {
    /// The header's version byte: the framing and encodings of protocol v1, which every later version keeps.
    public static let version: UInt8 = 1
    /// Oldest version this build accepts, in a header and in `hello`.
    public static let minimumVersion: UInt8 = 1
    /// Highest version this build negotiates in `hello`/`welcome`: 2 is version 1 plus `eventBatch` (0x92) on
    /// pub/sub; 3 adds Declared Age Range's regulatory features (0x46/0xC7) and acknowledgments (0x47, history kind
    /// 11); 4 adds declining in person (0x10, resolution reason 9, history kind 12). Frames still carry version
    /// byte 1 (docs/PROTOCOL.md §3).
    public static let highestVersion: UInt8 = 4
    /// The negotiated version from which a device reads `eventBatch`.
    public static let eventBatchVersion: UInt8 = 2
    /// The negotiated version from which a device asks the broker for its member's regulatory features and records
    /// acknowledgments (0x46, 0x47), and reads `updateAcknowledged` history entries.
    public static let ageSignalsVersion: UInt8 = 3
    /// The negotiated version from which a device sends `declineInPerson` (0x10) and reads the resolution reason
    /// `declinedInPerson` and the history kind of that name; an older peer reads such a resolution as a parent's answer.
    public static let inPersonDeclineVersion: UInt8 = 4
    /// Largest frame a Hearth socket accepts: 1 MiB of message, on every transport.
    public static let maxFrameSize = 1 << 20
    /// What CURVE adds to each frame on the wire (the `MESSAGE` command name, nonce, flags and MAC), which libzmq
    /// counts against `ZMQ_MAXMSGSIZE`: CURVE sockets set `maxFrameSize + curveOverhead` so that a frame of
    /// `maxFrameSize` passes over CURVE as it does over ipc.
    public static let curveOverhead = 33
    /// `ZMQ_MAXMSGSIZE` for a CURVE socket.
    public static let maxCurveMessageSize = maxFrameSize + curveOverhead
    /// Longest encoded event: one event must fit in a sync's `events` reply (header, head, count) and so in an
    /// `event` message too. The broker never stores a longer one (docs/PROTOCOL.md §5.8).
    public static let maxEventBytes = maxFrameSize - headerSize - 8 - 4
    /// Longest string field in general.
    public static let maxStringBytes = 4096
    /// Longest handle value.
    public static let maxHandleBytes = 512
    /// Longest avatar image.
    public static let maxAvatarBytes = 256 * 1024
    /// Most items in any array field.
    public static let maxArrayCount = 10_000
    /// Budget for the records of one list reply (sync events, pending questions), leaving room for the rest of the frame.
    public static let maxReplyBodyBytes = maxFrameSize - 64 * 1024
    /// Most events one sync reply carries.
    public static let maxEventsPerSync: UInt32 = 1000
    /// Most events one `eventBatch` carries.
    public static let maxEventsPerBatch = 1000
    /// Largest date magnitude, in milliseconds from 1970 (about the year 318,857): beyond it a date is refused.
    public static let maxDateMilliseconds: Int64 = 10_000_000_000_000_000 / 1000

    /// Header size: version, type, request id.
    public static let headerSize = 10
    /// Longest passcode accepted.
    public static let maxPasscodeBytes = 64
    /// Longest admin request or result (JSON text).
    public static let maxAdminBytes = maxReplyBodyBytes

    /// The pub/sub topic frame for a member: the id's UTF-8 bytes and a 0 byte, so that no id is a prefix of another's topic.
    public static func topic(for member: String) -> [UInt8] {
        var bytes = Array(member.utf8)
        bytes.append(0)
        return bytes
    }
}
