import HearthCore
import Testing
import ZeroMQ

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// A batch's replies as the socket loop gets them (`BrokerSockets.replyMessages`): one message per reply on the
/// ingress socket, each device's together and in its order, devices in the order of their first reply.
@Suite struct ReplyMessagesTests {
    static func reply(_ routing: UInt8, _ tag: UInt8) -> CommandIntake.Reply {
        .init(routingID: [0, routing], frame: [tag], outcome: .success(.ok))
    }

    @Test func eachDevicesRepliesLeaveTogetherInTheirOrder() {
        let replies = [
            Self.reply(1, 10), Self.reply(2, 20), Self.reply(1, 11), Self.reply(3, 30), Self.reply(2, 21),
            Self.reply(1, 12),
        ]
        let messages = BrokerSockets.replyMessages(replies)
        #expect(
            messages.map(\.frames) == [
                [[0, 1], [10]], [[0, 1], [11]], [[0, 1], [12]], [[0, 2], [20]], [[0, 2], [21]], [[0, 3], [30]],
            ])
        #expect(messages.allSatisfy { $0.socket == BrokerSockets.Slot.ingress })
    }

    @Test func distinctDevicesKeepTheBatchOrder() {
        let replies = (0..<50).map { Self.reply(UInt8(49 - $0), UInt8($0)) }
        #expect(BrokerSockets.replyMessages(replies).map(\.frames) == replies.map { [$0.routingID, $0.frame] })
        #expect(BrokerSockets.replyMessages([]).isEmpty)
    }
}
