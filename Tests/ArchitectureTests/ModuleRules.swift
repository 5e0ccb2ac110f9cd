import Foundation

/// ARCHITECTURE.md's table of which module of this repository may import which, as the test reads it, and the
/// imports the sources actually have.
struct ModuleRules {
    /// Each module's row: the repository's modules its sources may import.
    var allowed: [String: Set<String>]

    /// The repository's root, found from this file's place in it (`Tests/ArchitectureTests/`).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The table under "may import" in docs/ARCHITECTURE.md: a row names one or more modules in backticks, then the
    /// modules they may import (or "—").
    static func fromArchitecture() throws -> ModuleRules {
        let text = try String(contentsOf: root.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let header = lines.firstIndex(of: "| module | may import |") else {
            throw RulesError.noTable
        }
        var allowed: [String: Set<String>] = [:]
        for line in lines[(header + 2)...] {
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 2 else { throw RulesError.badRow(line) }
            let modules = cells[0].split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            }
            let imports =
                cells[1] == "—"
                ? []
                : cells[1].split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
            for module in modules {
                guard allowed[module] == nil else { throw RulesError.twice(module) }
                allowed[module] = Set(imports)
            }
        }
        return ModuleRules(allowed: allowed)
    }

    /// The module folders of `Sources/`: each is one target.
    static func sourceModules() throws -> [String] {
        let sources = root.appendingPathComponent("Sources").path
        return try FileManager.default.contentsOfDirectory(atPath: sources).filter { name in
            var folder: ObjCBool = false
            return FileManager.default.fileExists(atPath: sources + "/" + name, isDirectory: &folder)
                && folder.boolValue
        }.sorted()
    }

    /// Every module a Swift file under `Sources/<module>` imports, with the file that does.
    static func imports(of module: String) throws -> [(module: String, file: String)] {
        try imports(inFolder: "Sources/" + module).map { ($0.module, String($0.file.dropFirst("Sources/".count))) }
    }

    /// Every module a Swift file under `folder` (from the repository's root, subfolders included) imports, with the
    /// file that does (from the root).
    static func imports(inFolder folder: String) throws -> [(module: String, file: String)] {
        let url = root.appendingPathComponent(folder)
        guard let files = FileManager.default.enumerator(atPath: url.path) else { return [] }
        var found: [(String, String)] = []
        for case let file as String in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: url.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                if let imported = importedModule(String(line)) { found.append((imported, folder + "/" + file)) }
            }
        }
        return found
    }

    /// The module an `import` line names (`@testable`, `@preconcurrency`, an access level, `import struct X.Y` and
    /// `import X.Sub` included), or nil for any other line.
    static func importedModule(_ line: String) -> String? {
        var words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        while let first = words.first, first.hasPrefix("@") || accessLevels.contains(first) { words.removeFirst() }
        guard words.first == "import", words.count >= 2 else { return nil }
        let name = declarationKinds.contains(words[1]) && words.count >= 3 ? words[2] : words[1]
        // A module's name is an identifier: `import os, pty` is another language's, in a string literal.
        guard let module = name.split(separator: ".").first,
            module.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
        else { return nil }
        return String(module)
    }

    static let accessLevels: Set<String> = ["public", "package", "internal", "fileprivate", "private"]
    static let declarationKinds: Set<String> = [
        "struct", "class", "enum", "protocol", "typealias", "func", "var", "let", "actor",
    ]

    enum RulesError: Error {
        case noTable
        case badRow(String)
        case twice(String)
        case commandFailed(String)
    }
}
