import Foundation
import HearthService
import HearthTransport

/// One entry of a device's `brokers` setting: a broker's ready file, or its two endpoints and public key file.
///
/// The setting is a comma-separated list; an entry with no space is a ready file's path, one with spaces is
/// `INGRESS EGRESS KEYFILE`, e.g. `/run/b1/broker.ready.json, tcp://b2:7701 tcp://b2:7702 /etc/hearth/b2.pub`.
public enum BrokerListEntry: Sendable, Equatable {
    case readyFile(String)
    case endpoints(ingress: String, egress: String, keyFile: String)

    /// Parses the setting's text; throws a `SettingProblem` naming the bad entry.
    public static func parseList(_ text: String) throws -> [BrokerListEntry] {
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard items.contains(where: { !$0.isEmpty }) else { throw SettingProblem("names no broker") }
        return try items.enumerated().map { index, item in
            do {
                return try parse(item)
            } catch let problem as SettingProblem {
                throw SettingProblem("entry \(index + 1) '\(item)': \(problem.reason)")
            }
        }
    }

    private static func parse(_ item: String) throws -> BrokerListEntry {
        let words = item.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        switch words.count {
        case 0: throw SettingProblem("is empty")
        case 1: return .readyFile(try SettingParsers.path(words[0]))
        case 3:
            return .endpoints(
                ingress: try SettingParsers.endpoint(words[0]), egress: try SettingParsers.endpoint(words[1]),
                keyFile: try SettingParsers.path(words[2]))
        default:
            throw SettingProblem("expected a ready file, or INGRESS EGRESS KEYFILE; got \(words.count) words")
        }
    }

    /// The broker this entry names, reading its file; throws a `SettingProblem` when the file is unreadable.
    public func resolve() throws -> BrokerAddress {
        switch self {
        case .readyFile(let path):
            guard let data = FileManager.default.contents(atPath: path),
                let ready = try? JSONDecoder().decode(ReadyFile.self, from: data)
            else {
                throw SettingProblem("cannot read the broker's ready file '\(path)'; is family-broker running?")
            }
            return BrokerAddress(ingress: ready.ingress, egress: ready.egress, publicKey: ready.publicKey)
        case .endpoints(let ingress, let egress, let keyFile):
            do {
                return BrokerAddress(ingress: ingress, egress: egress, publicKey: try KeyFiles.loadPublic(keyFile))
            } catch let failure as KeyFiles.Failure {
                throw SettingProblem(failure.description)
            }
        }
    }

    /// The part of a broker's ready file a device reads.
    struct ReadyFile: Decodable {
        var ingress: String
        var egress: String
        var publicKey: String
    }
}
