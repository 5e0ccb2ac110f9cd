import Foundation
import HearthFleet
import Testing

/// The libFuzzer targets built plainly replay their committed corpus (Tests/FuzzCorpus, golden frames and whatever
/// long runs added): every invariant they check holds for every input. deploy/fuzz fuzzes them.
@Suite("Fuzz corpus replay")
struct FuzzCorpusReplayTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("FuzzCorpus").path

    @Test(arguments: [("CodecFuzzer", "codec"), ("BrokerCommandFuzzer", "broker")])
    func theCorpusReplays(fuzzer: String, folder: String) async throws {
        let inputs = try FileManager.default.contentsOfDirectory(atPath: Self.corpus + "/" + folder).count
        #expect(inputs > 20, "a corpus of golden frames")
        let (status, output) = try await ExecutableRun.run(fuzzer, [Self.corpus + "/" + folder], timeout: .seconds(60))
        #expect(status == 0, "\(output)")
        #expect(output.contains("\(inputs) inputs replayed, every check held"), "\(output)")
    }
}
