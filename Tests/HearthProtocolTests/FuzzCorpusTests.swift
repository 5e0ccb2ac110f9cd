import Foundation
import HearthCore
import HearthProtocol
import Testing

/// The libFuzzer seed corpus (Tests/FuzzCorpus, docs/RELIABILITY.md) is the golden fixtures' frames: this test says
/// it holds every one, and `HEARTH_WRITE_FUZZ_CORPUS=1 swift test --filter FuzzCorpusTests` writes them.
struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("FuzzCorpus")

    /// CodecFuzzer: every fixture frame.
    static var codecSeeds: [[UInt8]] {
        Fixtures.messages.enumerated().map { MessageCodec.encode($1, requestID: UInt64($0 + 1)) }
    }

    /// BrokerCommandFuzzer (Fuzz/Sources/BrokerCommandFuzzer/BrokerCommandInput.swift): each broker command as a
    /// record from the child's device (0, kid-1.tablet) and the organizer's (1, mum.phone), and an ask answered in
    /// the same batch.
    static var brokerSeeds: [[UInt8]] {
        func record(_ device: UInt8, _ frame: [UInt8]) -> [UInt8] {
            [device, UInt8(frame.count >> 8), UInt8(frame.count & 0xFF)] + frame
        }
        var seeds: [[UInt8]] = []
        for (index, message) in Fixtures.messages.enumerated() where message.isBrokerCommand {
            let frame = MessageCodec.encode(message, requestID: UInt64(index + 1))
            seeds.append(record(0, frame))
            seeds.append(record(1, frame))
        }
        let question = Fixtures.fullQuestion
        let ask = MessageCodec.encode(.ask(appBundleID: "com.example.chat", question: question), requestID: 1)
        let answer = MessageCodec.encode(.answer(questionID: question.id, choiceID: "approve"), requestID: 2)
        seeds.append(record(0, ask) + record(1, answer))
        return seeds
    }

    /// A stable file name: FNV-1a of the bytes.
    static func name(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return "seed-" + String(hash, radix: 16)
    }

    /// The input BrokerCommandFuzzer found (docs/RELIABILITY.md): a contact whose handle starts with U+0000. It stays in
    /// the corpus when the seeds are rewritten, and the codec still refuses it for the NUL, not for anything else.
    @Test func theNULContactRegressionInputStays() throws {
        let path = Self.corpus.appendingPathComponent("broker/regression-nul-contact").path
        let input = try #require(FileManager.default.contents(atPath: path).map([UInt8].init))
        let frame = Array(input.dropFirst(3))
        #expect(input.count == 3 + (Int(input[1]) << 8 | Int(input[2])) && frame.count > 2 && frame[1] == 0x09)
        let refusal = WireError.invalidValue(field: "contact.handle.value", reason: "must not contain U+0000 (NUL)")
        #expect(throws: refusal) { _ = try MessageCodec.decode(frame) }
    }

    @Test(arguments: ["codec", "broker"])
    func theCorpusHoldsEveryGoldenFrame(target: String) throws {
        let seeds = target == "codec" ? Self.codecSeeds : Self.brokerSeeds
        let folder = Self.corpus.appendingPathComponent(target)
        if ProcessInfo.processInfo.environment["HEARTH_WRITE_FUZZ_CORPUS"] == "1" {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for seed in seeds { try Data(seed).write(to: folder.appendingPathComponent(Self.name(seed))) }
        }
        for seed in seeds {
            let stored = FileManager.default.contents(atPath: folder.appendingPathComponent(Self.name(seed)).path)
            #expect(stored.map([UInt8].init) == seed, "\(target)/\(Self.name(seed)) is missing or stale")
        }
    }
}
