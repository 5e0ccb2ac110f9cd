import Foundation
import HearthCore
public import HearthProtocol
import Yams

extension FamilyFile {
    /// Parses YAML text; errors name the file and the key.
    ///
    /// A JSON document (YAML's flow style, as the fleet writes files of many families) is read by Foundation's JSON
    /// decoder: Yams builds a node tree of the whole document and looks keys up by comparing nodes, which took most
    /// of a 100,000-family start-up and hundreds of megabytes. Whatever the JSON decoder refuses goes to Yams, so a
    /// file reads the same either way and errors stay Yams' own.
    public static func parse(_ text: String, source: String) throws -> FamilyFile {
        if text.utf8.first(where: { !Self.isJSONWhitespace($0) }) == UInt8(ascii: "{"),
            let file = try? JSONDecoder().decode(FamilyFile.self, from: Data(text.utf8))
        {
            return file
        }
        do {
            return try YAMLDecoder().decode(FamilyFile.self, from: text)
        } catch let error as DecodingError {
            throw ConfigurationError(source: source, key: Self.path(of: error), reason: Self.reason(of: error))
        } catch {
            throw ConfigurationError(source: source, key: "", reason: "not valid YAML: \(error)")
        }
    }

    /// Loads and parses the file at `path`.
    public static func load(path: String) throws -> FamilyFile {
        // An ASCII JSON document (as the fleet writes large files) is decoded from the file's bytes: the text and the
        // bytes copied out of it for the decoder were two more copies of the whole file, held through the decode.
        // Anything else, or a decode that fails, takes the path below, so the result and the errors stay the same.
        if let data = FileManager.default.contents(atPath: path),
            data.first(where: { !Self.isJSONWhitespace($0) }) == UInt8(ascii: "{"),
            data.withUnsafeBytes({ !$0.contains { $0 >= 0x80 } }),
            let file = try? JSONDecoder().decode(FamilyFile.self, from: data)
        {
            return file
        }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ConfigurationError(source: path, key: "", reason: "cannot read the family file")
        }
        return try parse(text, source: path)
    }

    /// YAML text for this file, as `hearthctl` and the fleet write it.
    public func yaml() throws -> String { try YAMLEncoder().encode(self) }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private static func path(of error: DecodingError) -> String {
        let context: DecodingError.Context? =
            switch error {
            case .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c): c
            case .keyNotFound(let key, let c):
                DecodingError.Context(codingPath: c.codingPath + [key], debugDescription: c.debugDescription)
            @unknown default: nil
            }
        // Written as families[0].members[1].role, the way Directory's errors and the docs name keys.
        var path = ""
        for key in context?.codingPath ?? [] {
            if let index = key.intValue {
                path += "[\(index)]"
            } else {
                path += path.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return path
    }

    private static func reason(of error: DecodingError) -> String {
        switch error {
        case .keyNotFound: "required key is missing"
        case .typeMismatch(let type, _): "expected \(type)"
        case .valueNotFound(let type, _): "expected \(type), found nothing"
        case .dataCorrupted(let c): c.debugDescription
        @unknown default: "invalid"
        }
    }
}
