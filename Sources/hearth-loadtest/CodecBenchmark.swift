import ArgumentParser
import Foundation
import HearthCore
import HearthProtocol

/// Encodes and decodes the messages of one ask -> approve cycle, against a baseline of copying the same bytes.
struct CodecBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "codec",
        abstract: "Messages per second through the wire codec, with a memcpy baseline in the same run.")

    @Option(help: "Messages per run.") var messages = 200_000
    @Option(help: "Runs; the median is reported.") var runs = 5

    func run() throws {
        var topic = CommunicationTopic(personInformation: [
            PersonInformation(handle: CommunicationHandle(value: "dragonslayer42", kind: .custom))
        ])
        topic.actions = [.message]
        let question = Question(topic: .communication(topic))
        let asked = AskedQuestion(
            question: question, childMemberID: "emma", appBundleID: "com.example.chat", askingDeviceID: "emma-tablet",
            askedAt: Date())
        let resolution = Resolution(
            questionID: question.id, choice: .approve, reason: .parentAnswered, answeredBy: "alice", resolvedAt: Date())
        // The messages the broker decodes or encodes in one cycle.
        let cycle: [Message] = [
            .ask(appBundleID: "com.example.chat", question: question),
            .askAccepted(asked, nil),
            .event(Event(memberID: "alice", sequence: 7, createdAt: Date(), body: .questionPending(asked))),
            .answer(questionID: question.id, choiceID: "approve"),
            .answerAccepted(resolution),
            .event(Event(memberID: "emma", sequence: 9, createdAt: Date(), body: .questionResolved(asked, resolution))),
        ]
        let frames = cycle.map { MessageCodec.encode($0, requestID: 1) }
        let meanBytes = frames.map(\.count).reduce(0, +) / frames.count

        var sink = 0
        // Baseline: the same ask as JSON through Foundation's coders, the obvious alternative to our binary layout.
        let json = JSONAsk(question: question, app: "com.example.chat")
        let jsonFrame = try JSONEncoder().encode(json)
        let jsonEncoder = JSONEncoder()
        let jsonDecoder = JSONDecoder()
        let baselineEncode = try Measurement.time(runs: runs) {
            for _ in 0..<messages { sink &+= try jsonEncoder.encode(json).count }
        }
        let baselineDecode = try Measurement.time(runs: runs) {
            for _ in 0..<messages { sink &+= try jsonDecoder.decode(JSONAsk.self, from: jsonFrame).choices.count }
        }
        let encode = Measurement.time(runs: runs) {
            for i in 0..<messages { sink &+= MessageCodec.encode(cycle[i % cycle.count], requestID: UInt64(i)).count }
        }
        let decode = try Measurement.time(runs: runs) {
            for i in 0..<messages { sink &+= try MessageCodec.decode(frames[i % frames.count]).requestID == 0 ? 0 : 1 }
        }
        func rate(_ m: Measurement) -> String { String(format: "%10.0f msg/s", Double(messages) / m.median) }
        print(
            "codec benchmark: \(messages) messages x \(runs) runs, mean frame \(meanBytes) B (JSON ask: \(jsonFrame.count) B), medians"
        )
        print("  baseline JSON encode   \(rate(baselineEncode))")
        print("  baseline JSON decode   \(rate(baselineDecode))")
        print(
            "  Hearth encode          \(rate(encode))  (\(String(format: "%.1f", baselineEncode.median / encode.median))x JSON)"
        )
        print(
            "  Hearth decode          \(rate(decode))  (\(String(format: "%.1f", baselineDecode.median / decode.median))x JSON)"
        )
        print(
            "  cycles/s the codec alone allows on one core (6 messages encoded + decoded per cycle): \(String(format: "%.0f", 1 / ((encode.median + decode.median) / Double(messages) * 6)))"
        )
        if sink == 42 { print("") }
    }
}

/// The ask as a Codable JSON document, for the baseline.
struct JSONAsk: Codable {
    struct Person: Codable {
        var value: String
        var kind: UInt8
        var givenName: String?
    }
    struct Choice: Codable {
        var id: String
        var title: String
        var approval: Bool
    }
    var app: String
    var id: UUID
    var people: [Person]
    var actions: [UInt8]
    var choices: [Choice]
    var defaultChoice: String
    var expiration: Date?

    init(question: Question, app: String) {
        self.app = app
        id = question.id
        people = question.handles.map { Person(value: $0.value, kind: $0.kind.rawValue, givenName: nil) }
        actions = [1]
        choices = question.choices.map { Choice(id: $0.id, title: $0.title, approval: $0.answer == .approval) }
        defaultChoice = question.defaultChoiceID
        expiration = question.expirationDate
    }
}
