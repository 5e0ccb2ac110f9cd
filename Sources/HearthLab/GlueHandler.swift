import NIOCore
import Synchronization

/// Joins two channels on one event loop into a byte pipe: what one reads the other writes, reading only as fast as
/// the other side can write, and closing one closes the other (the pattern of swift-nio's connect-proxy example).
///
/// While its `Blackhole` is on, the pipe forwards nothing either way and neither side learns that the other closed,
/// as across a network partition that drops packets: bytes wait in the sockets' buffers, and a close waits, until it
/// is off (`GlueHandler.Resume` then delivers both).
final class GlueHandler {
    /// Whether the relay's pipes are blackholed now; shared by every pipe of one relay.
    final class Blackhole: Sendable {
        private let on = Atomic(false)
        var isOn: Bool { on.load(ordering: .acquiring) }
        func set(_ value: Bool) { on.store(value, ordering: .releasing) }
    }

    /// Fired into each channel when the blackhole is lifted: forwarding and pending closes resume.
    struct Resume {}

    private var partner: GlueHandler?
    private var context: ChannelHandlerContext?
    private var pendingRead = false
    /// The partner closed while blackholed: this side closes once it is lifted.
    private var closeOnResume = false
    /// Read while blackholed, before reading stopped: written on once it is lifted.
    private var held: [NIOAny] = []
    private let blackhole: Blackhole

    private init(blackhole: Blackhole) {
        self.blackhole = blackhole
    }

    static func matchedPair(blackhole: Blackhole = Blackhole()) -> (GlueHandler, GlueHandler) {
        let first = GlueHandler(blackhole: blackhole)
        let second = GlueHandler(blackhole: blackhole)
        first.partner = second
        second.partner = first
        return (first, second)
    }

    private func partnerWrite(_ data: NIOAny) {
        context?.write(data, promise: nil)
    }

    private func partnerFlush() {
        context?.flush()
    }

    private func partnerClose() {
        if blackhole.isOn { closeOnResume = true } else { context?.close(promise: nil) }
    }

    private func partnerBecameWritable() {
        if pendingRead, !blackhole.isOn {
            pendingRead = false
            context?.read()
        }
    }

    private var partnerWritable: Bool { context?.channel.isWritable ?? false }
}

extension GlueHandler: ChannelDuplexHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny
    typealias OutboundOut = NIOAny

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        partner = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if blackhole.isOn { held.append(data) } else { partner?.partnerWrite(data) }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        partner?.partnerFlush()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is Resume else { return context.fireUserInboundEventTriggered(event) }
        for data in held { partner?.partnerWrite(data) }
        held = []
        partner?.partnerFlush()
        if closeOnResume { return context.close(promise: nil) }
        if pendingRead, partner?.partnerWritable ?? false {
            pendingRead = false
            context.read()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        partner?.partnerClose()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        partner?.partnerClose()
        context.close(promise: nil)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { partner?.partnerBecameWritable() }
    }

    func read(context: ChannelHandlerContext) {
        if !blackhole.isOn, partner?.partnerWritable ?? false {
            context.read()
        } else {
            pendingRead = true
        }
    }
}
