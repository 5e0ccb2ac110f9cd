import ArgumentParser
import Foundation
import HearthCore
import HearthTransport
import PermissionKit

struct App: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Act as an app on a child-device, through the PermissionKit library: ask, withdraw, known, watch.",
        subcommands: [Ask.self, Withdraw.self, Known.self, Watch.self])

    struct AppOptions: ParsableArguments {
        @Option(help: "The app's bundle id.")
        var bundleID = "com.example.chat"
        @Option(help: "child-device's app socket.")
        var socket = LocalEndpoints.childDeviceSocket
        @Option(help: "Seconds to wait for child-device.")
        var timeout: Double = 5

        func limits() throws -> CommunicationLimits {
            guard FileManager.default.fileExists(atPath: socket) else {
                throw CommandFailure(
                    "child-device is not running: there is no socket at \(socket).\n"
                        + DaemonSocket.startHint("child-device"))
            }
            if let wrong = DaemonIdentity.mismatch(needed: "child-device", path: socket) { throw wrong }
            return CommunicationLimits(
                socketPath: socket, bundleID: bundleID, timeout: .milliseconds(Int(timeout * 1000)))
        }
    }

    /// `KIND:VALUE` as `HandleText` reads it; a bare value is a custom handle (a username).
    static func parseHandle(_ text: String) throws -> CommunicationHandle {
        guard !text.isEmpty else { throw ValidationError("a handle must not be empty") }
        return try HandleText.parse(text, bareIsCustom: true)
    }

    struct Ask: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Ask the child's parents to approve talking to someone.")
        @OptionGroup var app: AppOptions
        @Argument(help: "Handles: KIND:VALUE (phone:, email:, custom:) or a username.") var handles: [String]
        @Option(help: "The person's display name (for the first handle).") var name: String?
        @Option(help: "Actions: message, call, videoCall, chat, follow, friend, ...") var action: [String] = ["message"]
        @Option(help: "Seconds until nobody can answer any more.") var expiresIn: Double?
        @Option(help: "A note for the parents, shown with the question: \(ShortText.limits).") var note: String?

        func validate() throws {
            // Checked before anything is sent, and named as the user typed it rather than as the wire field.
            if let note, let violation = ShortText.violation(in: note, field: "--note") {
                throw ValidationError(violation.description)
            }
            _ = try handles.map(App.parseHandle)
        }

        func run() async throws {
            let parsed = try handles.map(App.parseHandle)
            guard !parsed.isEmpty else { throw ValidationError("name at least one handle") }
            var people = parsed.map { PersonInformation(handle: $0) }
            if let name {
                var components = PersonNameComponents()
                components.nickname = name
                people[0].nameComponents = components
            }
            var topic = CommunicationTopic(personInformation: people)
            topic.actions = Set(
                try action.map { text in
                    guard
                        let match = CommunicationTopic.Action.allCases.first(where: {
                            "\($0)".lowercased() == text.lowercased()
                        })
                    else {
                        throw ValidationError("unknown action '\(text)'")
                    }
                    return match
                })
            let question = PermissionQuestion(communicationTopic: topic)
            if let expiresIn { question.expirationDate = Date().addingTimeInterval(expiresIn) }
            question.note = note
            let limits = try app.limits()
            do {
                try await limits.ask(question)
                print("asked: question \(question.id)")
            } catch {
                await limits.close()
                throw CommandFailure("ask failed: \(error)")
            }
            await limits.close()
        }
    }

    struct Withdraw: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Take back a question nobody has answered yet; the parents are told.")
        @OptionGroup var app: AppOptions
        @Argument(help: "The question's id, as `app ask` printed it, or a unique prefix of it.") var question: String

        func run() async throws {
            let id = try await Child.resolve(question, socket: app.socket)
            let limits = try app.limits()
            do {
                try await limits.withdraw(questionWithID: id)
                print("withdrawn: question \(id)")
            } catch {
                await limits.close()
                throw CommandFailure("withdraw failed: \(error)")
            }
            await limits.close()
        }
    }

    struct Known: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print which of these handles are known to the child.")
        @OptionGroup var app: AppOptions
        @Argument(help: "Handles: kind:value or a username.") var handles: [String]

        func run() async throws {
            let parsed = Set(try handles.map(App.parseHandle))
            let limits = try app.limits()
            let known = await limits.knownHandles(in: parsed)
            await limits.close()
            for handle in parsed.sorted(by: { $0.value < $1.value }) {
                print("\(handle.value): \(known.contains(handle) ? "known" : "not known")")
            }
        }
    }

    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print this app's responses as they arrive (waiting ones first).")
        @OptionGroup var app: AppOptions
        @Option(help: "Stop after this many responses.") var count: Int?
        @Option(help: "Stop after this many seconds.") var seconds: Double?
        @Option(help: "Seconds to spend handling each response before taking the next (a slow app).")
        var handleSeconds: Double = 0

        func run() async throws {
            let limits = try app.limits()
            let deadline = seconds.map { Date().addingTimeInterval($0) }
            let stopper = Task {
                if let deadline {
                    try? await Task.sleep(for: .seconds(deadline.timeIntervalSinceNow))
                    await limits.close()
                }
            }
            var seen = 0
            for await response in limits.responses(for: CommunicationTopic.self) {
                let handles = response.question.topic.personInformation.map(\.handle.value).joined(separator: ", ")
                // The parent's words, quoted as JSON would (one line whatever they hold).
                let words = response.message.map { ", message \(Self.quoted($0))" } ?? ""
                print(
                    "response: \(response.choice.answer == .approval ? "approved" : "declined") (\(response.choice.id)) for \(handles) — question \(response.question.id)\(response.answeredBy.map { ", by \($0)" } ?? ""), reason \(response.reason)\(words)"
                )
                // Printed before the handling, so whoever reads the output sees what the app holds.
                fflush(nil)
                if handleSeconds > 0 { try? await Task.sleep(for: .milliseconds(Int(handleSeconds * 1000))) }
                seen += 1
                if let count, seen >= count {
                    // Leaving the loop skips the next turn, which is what acknowledges a response.
                    limits.acknowledge(response)
                    break
                }
            }
            stopper.cancel()
            await limits.close()
        }

        static func quoted(_ text: String) -> String {
            let data = (try? JSONEncoder().encode(text)) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }
    }
}
