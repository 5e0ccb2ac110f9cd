public import HearthProtocol

extension DeviceContext {
    /// Passes a person's command on the local socket to the broker and returns the broker's reply, or a typed error when
    /// the broker cannot be reached. The broker decides whether this device's member may do it. `timeout` defaults to
    /// the message's `brokerDeadline`.
    public func forward(_ message: Message, timeout: Duration? = nil) async -> Message {
        let timeout = timeout ?? message.brokerDeadline
        // A link being re-established (a sync after a missed heartbeat, a broker restart) is worth a short wait; the
        // command goes as soon as the link is up.
        guard await waitUntilLinked(within: .seconds(3)) else {
            let reason = "\(daemonName) is not connected to its broker; try again when it is"
            return .error(ErrorReply(.brokerUnavailable, reason))
        }
        do {
            return try await request(message, timeout: timeout)
        } catch let error as ErrorReply {
            return .error(error)
        } catch {
            return .error(ErrorReply(.brokerUnavailable, "the broker did not answer: \(error)"))
        }
    }
}
