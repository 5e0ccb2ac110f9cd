import Foundation
import HearthCore
import HearthFleet
import HearthProtocol
import HearthTransport
import PermissionKit
import Testing

/// Secret keys are made owner-only and never logged; passcodes are never logged nor stored in the clear.
@Suite("Secrets", .serialized)
struct SecretsTests {
    static func permissions(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
    }

    @Test func keyFilesAreOwnerOnlyAndPublicKeysReadableByAll() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hearth-keys-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let made = try KeyFiles.generate(at: directory + "/device")
        #expect(Self.permissions(directory + "/device.key") == 0o600)
        #expect(Self.permissions(directory + "/device.pub") == 0o644)
        #expect(try KeyFiles.loadPair(secretPath: directory + "/device.key") == made)
        #expect(try KeyFiles.loadPublic(directory + "/device.pub") == made.publicKey)
        #expect(throws: KeyFiles.Failure.self, "an existing secret key is never overwritten") {
            try KeyFiles.generate(at: directory + "/device")
        }
        #expect(try KeyFiles.loadPair(secretPath: directory + "/device.key") == made)

        // What the daemons do on first start.
        let daemon = try KeyFiles.loadOrGenerate(secretPath: directory + "/state/broker.key")
        #expect(Self.permissions(directory + "/state/broker.key") == 0o600)
        #expect(Self.permissions(directory + "/state/broker.pub") == 0o644)
        #expect(
            try KeyFiles.loadOrGenerate(secretPath: directory + "/state/broker.key") == daemon, "loaded, not made again"
        )
    }

    @Test func logsNeverHoldSecretKeysNorPasscodesAndTheDatabaseHoldsOnlyAHash() async throws {
        let spec = FleetSpec(families: [
            .init(
                "appleseed",
                members: [.organizer("alice", devices: ["alice-phone"]), .child("emma", devices: ["emma-tablet"])])
        ])
        let passcode = "975310"
        let wrongPasscode = "135799"
        try await Fleet.with(spec) { fleet in
            let alice = try await RawPeer.device("alice-phone", of: fleet)
            #expect(try await alice.request(.setPasscode(childID: "emma", passcode: passcode), requestID: 1) == .ok)
            var topic = CommunicationTopic(personInformation: [
                PersonInformation(handle: CommunicationHandle(value: "pal", kind: .custom))
            ])
            topic.actions = [.message]
            let question = PermissionQuestion(communicationTopic: topic)
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            try await app.ask(question)
            let emma = try await RawPeer.device("emma-tablet", of: fleet)
            let wrong = try await emma.request(
                .approveInPerson(questionID: question.id, passcode: wrongPasscode), requestID: 1)
            #expect(wrong == .error(ErrorReply(.wrongPasscode, "wrong passcode; 4 attempts left before a lockout")))
            guard
                case .answerAccepted = try await emma.request(
                    .approveInPerson(questionID: question.id, passcode: passcode), requestID: 2)
            else {
                Issue.record("the right passcode did not approve")
                return
            }
            // Restarts log start-up lines again, keys loaded from their files this time.
            try await fleet.restartBroker()
            try await fleet.restart("emma-tablet")
            await alice.close()
            await emma.close()
            await app.close()

            let logs = try FileManager.default.contentsOfDirectory(atPath: fleet.directory + "/logs").map {
                ($0, try String(contentsOfFile: fleet.directory + "/logs/" + $0, encoding: .utf8))
            }
            #expect(logs.count == 3)
            var keyFiles = ["broker/broker.key"]
            keyFiles += ["alice-phone", "emma-tablet"].map { "keys/\($0).key" }
            for file in keyFiles {
                let keys = try KeyFiles.loadPair(secretPath: fleet.directory + "/" + file)
                for (name, text) in logs {
                    #expect(!text.contains(keys.secretKey), "\(name) holds the secret key of \(file)")
                }
                // The probe can see a key: each daemon logs its public key.
                #expect(logs.contains { $0.1.contains(keys.publicKey) }, "no log names the public key of \(file)")
            }
            for (name, text) in logs {
                #expect(!text.contains(passcode) && !text.contains(wrongPasscode), "\(name) holds a passcode")
            }
            let stored = try BrokerSnapshot(fleet)
            let hex = { (text: String) in text.utf8.map { String(format: "%02X", $0) }.joined() }
            #expect(!stored.allText.contains(passcode) && !stored.allText.contains(hex(passcode)))
            #expect(!stored.allText.contains(wrongPasscode) && !stored.allText.contains(hex(wrongPasscode)))
            #expect(stored.allText.contains("'scrypt$15$8$1$"), "the passcode is stored as its scrypt hash")
        }
    }
}
