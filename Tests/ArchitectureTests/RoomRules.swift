import Foundation

/// ARCHITECTURE.md's table of the broker's rooms (the folders of its modules: `Sources/BrokerCore/`, `BrokerSQLite/`,
/// `BrokerPostgres/`, `FamilyBroker/`), as the test reads it, and the types each room's files name. The compiler keeps
/// the modules apart; within each, this keeps the rooms apart, by name. A room's name is its folder's, unique across
/// the modules.
struct RoomRules {
    /// Each room's row: the rooms its files may name types of.
    var allowed: [String: Set<String>]

    /// The broker's modules, whose folders are the rooms.
    static let modules = ["BrokerCore", "BrokerSQLite", "BrokerPostgres", "FamilyBroker"]
    static let sources = ModuleRules.root.appendingPathComponent("Sources")

    /// The table under "talks to": a row's first cell is the folder (`Engine/`), its last the rooms it talks to,
    /// "every room", or "—"; words that name no room (other packages, a parenthesis) are not rooms and are ignored.
    static func fromArchitecture() throws -> RoomRules {
        let text = try String(
            contentsOf: ModuleRules.root.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let header = lines.firstIndex(of: "| folder | holds | talks to |") else {
            throw ModuleRules.RulesError.noTable
        }
        var rows: [String: String] = [:]
        for line in lines[(header + 2)...] {
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 3 else { throw ModuleRules.RulesError.badRow(line) }
            let room = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`/"))
            guard rows[room] == nil else { throw ModuleRules.RulesError.twice(room) }
            rows[room] = cells[2]
        }
        let rooms = Set(rows.keys)
        var allowed: [String: Set<String>] = [:]
        for (room, talksTo) in rows {
            if talksTo.hasPrefix("every room") {
                allowed[room] = rooms
            } else {
                let words = talksTo.split(separator: ",").compactMap { $0.split(separator: " ").first.map(String.init) }
                allowed[room] = Set(words).intersection(rooms)
            }
        }
        return RoomRules(allowed: allowed)
    }

    /// The Swift files of a room, relative to `Sources/` (`BrokerCore/Engine/BrokerEngine.swift`).
    static func files(of room: String) -> [String] {
        modules.flatMap { module in
            let folder = sources.appendingPathComponent(module + "/" + room)
            guard let files = FileManager.default.enumerator(atPath: folder.path) else { return [String]() }
            return files.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.map {
                module + "/" + room + "/" + $0
            }
        }.sorted()
    }

    /// The room folders of the broker's modules, each with its module.
    static func folders() throws -> [(module: String, room: String)] {
        try modules.flatMap { module in
            let path = sources.appendingPathComponent(module).path
            return try FileManager.default.contentsOfDirectory(atPath: path).filter { name in
                var folder: ObjCBool = false
                return FileManager.default.fileExists(atPath: path + "/" + name, isDirectory: &folder)
                    && folder.boolValue
            }.map { (module, $0) }
        }
    }

    /// The top-level types each room declares (a declaration at the start of a line), by name.
    static func declaredTypes(in rooms: some Sequence<String>) throws -> [String: String] {
        var owner: [String: String] = [:]
        for room in rooms {
            for file in files(of: room) {
                for line in try code(of: file).split(separator: "\n") {
                    if let name = declaredType(String(line)) { owner[name] = room }
                }
            }
        }
        return owner
    }

    /// The name a top-level type declaration line declares, or nil.
    static func declaredType(_ line: String) -> String? {
        guard let first = line.first, !first.isWhitespace else { return nil }
        var words = line.split(separator: " ").map(String.init)
        while let word = words.first, word.hasPrefix("@") || modifiers.contains(word) { words.removeFirst() }
        guard words.count >= 2, kinds.contains(words[0]) else { return nil }
        let name = words[1].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        return name.isEmpty ? nil : String(name)
    }

    /// A file's code without its comments and string literals, so that naming a type in words is not using it.
    static func code(of file: String) throws -> String {
        stripped(try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8))
    }

    /// `text` without its `//` comments and its string literals' contents.
    static func stripped(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { strippedLine(String($0)) }
            .joined(separator: "\n")
    }

    /// A line without its `//` comment and its string literals' contents (escaped quotes included).
    static func strippedLine(_ line: String) -> String {
        var kept = ""
        var inString = false
        var escaped = false
        var previous: Character = " "
        for character in line {
            if inString {
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inString = false
                }
            } else if character == "\"" {
                inString = true
            } else if character == "/" && previous == "/" {
                kept.removeLast()
                break
            } else {
                kept.append(character)
            }
            previous = inString ? " " : character
        }
        return kept
    }

    /// Each identifier-like word of `code` that starts with a capital letter.
    static func typeNames(in code: String) -> Set<String> {
        var names: Set<String> = []
        var word = ""
        for character in code + " " {
            if character.isLetter || character.isNumber || character == "_" {
                word.append(character)
            } else {
                if let first = word.first, first.isUppercase { names.insert(word) }
                word = ""
            }
        }
        return names
    }

    static let modifiers: Set<String> = [
        "public", "package", "internal", "private", "fileprivate", "final", "nonisolated", "indirect",
    ]
    static let kinds: Set<String> = ["struct", "class", "enum", "actor", "protocol", "typealias"]
}
