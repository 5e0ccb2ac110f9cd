public import Foundation
public import HearthCore

extension MessageCodec {
    /// The `event` frame (request id 0) whose body is `body`, an already encoded event.
    public static func eventFrame(body: [UInt8]) -> [UInt8] {
        var w = publicationHeader(.event, capacity: Wire.headerSize + body.count)
        w.raw(body)
        return w.bytes
    }

    /// The `event` frame of an event whose body was encoded apart (`WireWriter.eventBody`), once for every member it
    /// goes to: the same bytes as `eventFrame(body:)` of the whole event's encoding.
    public static func eventFrame(
        member: MemberID, sequence: UInt64, createdAt: Date, encodedBody: [UInt8]
    ) -> [UInt8] {
        var w = publicationHeader(
            .event, capacity: Wire.headerSize + eventHeadBytes(member: member) + encodedBody.count)
        w.eventHead(member: member, sequence: sequence, createdAt: createdAt)
        w.raw(encodedBody)
        return w.bytes
    }

    /// The size of `WireWriter.eventHead`'s encoding for `member`: the member id's length and bytes, the sequence
    /// number and the time.
    public static func eventHeadBytes(member: MemberID) -> Int { 4 + member.utf8.count + 8 + 8 }

    /// The frame for a reply that must fit in `Wire.maxFrameSize`: unchanged when it fits; else a reply carrying
    /// questions is sent with its questions trimmed (`AskedQuestion.Trim`), a list with as many as fit; else an
    /// `internalError`. A frame over the limit would cost the peer its connection and never arrive.
    public static func encodeReply(_ message: Message, requestID: UInt64) -> [UInt8] {
        let frame = encode(message, requestID: requestID)
        if frame.count <= Wire.maxFrameSize { return frame }
        for level in AskedQuestion.Trim.allCases {
            let trimmed: Message
            switch message {
            case .askAccepted(let asked, let resolution): trimmed = .askAccepted(asked.trimmed(level), resolution)
            case .appResponse(let id, let asked, let resolution):
                trimmed = .appResponse(inboxID: id, asked.trimmed(level), resolution)
            case .pendingList(let list): trimmed = .pendingList(list.map { $0.trimmed(level) })
            default: continue
            }
            let bytes = encode(trimmed, requestID: requestID)
            if bytes.count <= Wire.maxFrameSize { return bytes }
        }
        if case .pendingList(let list) = message {
            return encode(.pendingList(fitting(list.map { $0.trimmed(.avatarsAndNames) })), requestID: requestID)
        }
        let error = ErrorReply(
            .internalError, "the reply would be \(frame.count) bytes, over the \(Wire.maxFrameSize)-byte frame limit")
        return encode(.error(error), requestID: requestID)
    }

    /// The longest prefix of `list` whose `pendingList` fits in a frame.
    private static func fitting(_ list: [AskedQuestion]) -> [AskedQuestion] {
        var size = Wire.headerSize + 4
        var kept: [AskedQuestion] = []
        for asked in list {
            var w = WireWriter()
            w.askedQuestion(asked)
            size += w.bytes.count
            if size > Wire.maxFrameSize { break }
            kept.append(asked)
        }
        return kept
    }
}
