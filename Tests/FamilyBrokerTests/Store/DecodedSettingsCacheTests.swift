import Foundation
import HearthCore
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// The settings cache is keyed by the stored bytes, so a change to a child's settings is never served stale.
@Suite("Decoded settings cache")
struct DecodedSettingsCacheTests {
    @Test func changedBytesDecodeToTheChangedSettings() throws {
        let cache = DecodedSettingsCache(capacity: 8)
        let strict = CommunicationSettings(screenTime: .contactsOnly)
        let relaxed = CommunicationSettings(
            screenTime: .everyone, downtimeSchedule: .init(startMinute: 1260, endMinute: 420))
        let strictBytes = try JSONEncoder().encode(strict)
        let relaxedBytes = try JSONEncoder().encode(relaxed)
        #expect(try cache.settings(from: strictBytes) == strict)
        #expect(try cache.settings(from: relaxedBytes) == relaxed)
        #expect(try cache.settings(from: strictBytes) == strict)
    }

    @Test func pastItsCapacityItStillDecodesEveryEntry() throws {
        let cache = DecodedSettingsCache(capacity: 2)
        let all = (0..<5).map {
            CommunicationSettings(downtimeSchedule: .init(startMinute: UInt16($0), endMinute: 600))
        }
        for _ in 0..<2 {
            for settings in all {
                #expect(try cache.settings(from: JSONEncoder().encode(settings)) == settings)
            }
        }
    }

    @Test func badBytesAreAnErrorNotAnEntry() throws {
        let cache = DecodedSettingsCache(capacity: 2)
        #expect(throws: DecodingError.self) { try cache.settings(from: Data("{".utf8)) }
        #expect(throws: DecodingError.self) { try cache.settings(from: Data("{".utf8)) }
    }
}
