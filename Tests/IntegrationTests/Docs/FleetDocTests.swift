import Foundation
import HearthFleet
import Testing

/// docs/FLEET.md's examples run as written: its Swift example is FleetDocExamples.swift (compiled and run as tests),
/// and its YAML example runs through the real `hearth-fleet run`.
@Suite("docs/FLEET.md examples")
struct FleetDocTests {
    static let root = ScenarioFileTests.root

    /// The fenced blocks of a language in a Markdown file, in order.
    static func blocks(_ language: String, in path: String) throws -> [String] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```" + language {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    @Test func theSwiftExampleIsTheCompiledFile() throws {
        let documented = try #require(try Self.blocks("swift", in: Self.root + "/docs/FLEET.md").first)
        // The compiled file sits beside this one.
        let compiledFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("FleetDocExamples.swift")
        let file = try String(contentsOf: compiledFile, encoding: .utf8)
        let compiled = try #require(file.range(of: "import Foundation")).lowerBound
        #expect(
            String(file[compiled...]).trimmingCharacters(in: .newlines) == documented.trimmingCharacters(in: .newlines))
    }

    @Test func theYAMLExampleRunsThroughHearthFleet() async throws {
        let yaml = try #require(try Self.blocks("yaml", in: Self.root + "/docs/FLEET.md").first)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-doc-\(UUID().uuidString).yaml")
            .path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try yaml.write(toFile: file, atomically: true, encoding: .utf8)
        let (status, output) = try await ScenarioFileTests.hearthFleet(["run", file])
        #expect(status == 0, "\(output)")
        #expect(output.contains("PASSED: a question while a parent is offline: 9 steps"), "\(output)")
    }
}
