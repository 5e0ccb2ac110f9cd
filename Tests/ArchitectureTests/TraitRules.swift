import Foundation

/// What the package's `PostgreSQL` trait builds, read from the sources: the code between `#if PostgreSQL` and its
/// `#else` or `#endif`, and the types BrokerPostgres declares there. A build without the trait has none of them, so a
/// file that names one outside such a block compiles only with the trait (docs/decisions/0023-postgresql-trait.md).
struct TraitRules {
    /// The top-level types BrokerPostgres declares only under `#if PostgreSQL`.
    var traitOnlyTypes: Set<String>

    static let condition = "PostgreSQL"

    static func read() throws -> TraitRules {
        var types: Set<String> = []
        for file in try swiftFiles(in: "Sources/BrokerPostgres") {
            let lines = try lines(of: file)
            // Top-level declarations only: a nested `Settings` or `State` is named through its type.
            var depth = 0
            for (line, underTrait) in zip(lines, traitLines(lines)) {
                let code = RoomRules.strippedLine(line)
                if underTrait && depth == 0 { types.formUnion(declaredTypes(code)) }
                depth += code.filter { $0 == "{" }.count - code.filter { $0 == "}" }.count
            }
        }
        return TraitRules(traitOnlyTypes: types)
    }

    /// A file's lines, from its path from the repository's root.
    static func lines(of file: String) throws -> [String] {
        try String(contentsOf: ModuleRules.root.appendingPathComponent(file), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// For each line, whether it is compiled only with the trait: inside an `#if PostgreSQL` (or an `#if` whose
    /// condition requires it, `#if PostgreSQL && X`) before its `#else`, at any depth.
    static func traitLines(_ lines: [String]) -> [Bool] {
        // One entry per open `#if`: whether its current branch needs the trait.
        var open: [Bool] = []
        var under: [Bool] = []
        for line in lines {
            let words = line.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1).map(String.init)
            switch words.first {
            case "#if": open.append(needsTrait(words.dropFirst().first ?? ""))
            case "#elseif": if !open.isEmpty { open[open.count - 1] = needsTrait(words.dropFirst().first ?? "") }
            case "#else": if !open.isEmpty { open[open.count - 1] = false }
            case "#endif": _ = open.popLast()
            default: break
            }
            under.append(open.contains(true))
        }
        return under
    }

    /// Whether an `#if` condition holds only with the trait: the trait's name alone or joined with `&&`.
    static func needsTrait(_ condition: String) -> Bool {
        let code = condition.components(separatedBy: "//")[0]
        guard !code.contains("||"), !code.contains("!") else { return false }
        return code.components(separatedBy: "&&").contains {
            $0.trimmingCharacters(in: CharacterSet.whitespaces.union(["(", ")"])) == Self.condition
        }
    }

    /// The names of the types a line of code declares (`struct X`, `final class X`, `actor X`, `enum X`,
    /// `protocol X`, `typealias X`).
    static func declaredTypes(_ code: String) -> [String] {
        let words = identifiers(code)
        return zip(words, words.dropFirst()).compactMap { kind, name in
            RoomRules.kinds.contains(kind) && name.first?.isUppercase == true ? name : nil
        }
    }

    /// The identifiers of a line of code, in order.
    static func identifiers(_ code: String) -> [String] {
        code.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }).map(String.init)
    }

    /// Each Swift file under `folder` (from the repository's root, subfolders included), from the root.
    static func swiftFiles(in folder: String) throws -> [String] {
        let url = ModuleRules.root.appendingPathComponent(folder)
        guard let files = FileManager.default.enumerator(atPath: url.path) else { return [] }
        return files.compactMap { ($0 as? String).flatMap { $0.hasSuffix(".swift") ? folder + "/" + $0 : nil } }
            .sorted()
    }
}
