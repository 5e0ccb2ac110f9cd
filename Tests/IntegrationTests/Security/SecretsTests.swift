import Foundation
import HearthCore
import HearthFleet
import HearthProtocol
import HearthTransport
import PermissionKit
import Testing
import ZeroMQ

/// Secret keys are made owner-only and never logged; passcodes are never logged nor stored in the clear.
@Suite("Secrets", .serialized, .tags(.fleet))
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

    /// Both kinds of key file are 40 Z85 characters: a secret key file says what it is on its first line, and one
    /// written before that line is told by the `.pub` beside it. `admin enroll` refuses either before it connects,
    /// naming the `.pub`; so `admin show` never has a secret key to print.
    @Test func enrollingASecretKeyFileIsRefusedNamingThePublicOne() async throws {
        let directory = try ExecutableRun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let made = try KeyFiles.generate(at: directory + "/emma-laptop")
        let old = try CurveKeyPair.generate()
        try (old.secretKey + "\n").write(toFile: directory + "/old.key", atomically: true, encoding: .utf8)
        try (old.publicKey + "\n").write(toFile: directory + "/old.pub", atomically: true, encoding: .utf8)
        for (base, secret) in [("emma-laptop", made.secretKey), ("old", old.secretKey)] {
            let run = try await ExecutableRun.run(
                "hearthctl",
                [
                    "admin", "enroll", "emma", "emma-laptop", "--key-file", directory + "/\(base).key",
                    "--broker-state", directory,
                ])
            #expect(run.status != 0)
            #expect(
                run.output.contains(
                    "holds a secret key, which must never leave its device: use \(directory)/\(base).pub"),
                "\(run.output)")
            #expect(!run.output.contains(secret), "\(run.output)")
            #expect(!run.output.contains("not running"), "refused before connecting: \(run.output)")
            #expect(
                try KeyFiles.loadPublic(directory + "/\(base).pub")
                    == KeyFiles.loadPair(secretPath: directory + "/\(base).key").publicKey)
        }
    }

    /// A device daemon's state (its pending questions, its key's neighbours) is its user's alone: the directory 0700,
    /// the database and its -wal and -shm 0600; older, wider modes are narrowed; another user's directory is refused.
    @Test func deviceStateIsOwnerOnly() async throws {
        let spec = FleetSpec(families: [
            .init(
                "appleseed",
                members: [.organizer("alice", devices: ["alice-phone"]), .child("emma", devices: ["emma-tablet"])])
        ])
        try await Fleet.with(spec) { fleet in
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            try await app.ask(LocalSocketTests.question())
            await app.close()
            for device in ["emma-tablet", "alice-phone"] {
                let state = fleet.directory + "/devices/\(device)"
                #expect(Self.permissions(state) == 0o700, "\(state)")
                for file in ["device.sqlite", "device.sqlite-wal", "device.sqlite-shm"] {
                    #expect(Self.permissions(state + "/" + file) == 0o600, "\(device)/\(file)")
                }
            }
            // As an older version left them: narrowed at the next start.
            let state = fleet.directory + "/devices/emma-tablet"
            chmod(state, 0o755)
            chmod(state + "/device.sqlite", 0o644)
            try await fleet.restart("emma-tablet")
            #expect(Self.permissions(state) == 0o700)
            #expect(Self.permissions(state + "/device.sqlite") == 0o600)
        }
        guard geteuid() == 0 else { return }  // making a directory another user's needs root (CI runs as root)
        let directory = try ExecutableRun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/state", withIntermediateDirectories: false)
        chown(directory + "/state", LocalSocketTests.stranger, LocalSocketTests.stranger)
        _ = try KeyFiles.generate(at: directory + "/broker")
        let run = try await ExecutableRun.run(
            "child-device",
            [
                "--key-file", directory + "/c.key", "--state", directory + "/state", "--socket", directory + "/c.sock",
                "--brokers", "tcp://127.0.0.1:1 tcp://127.0.0.1:2 \(directory)/broker.pub",
            ])
        #expect(run.status != 0)
        #expect(run.output.contains("\(directory)/state: owned by uid \(LocalSocketTests.stranger)"), "\(run.output)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/state/device.sqlite"))
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
