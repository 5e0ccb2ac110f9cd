import ArgumentParser
import DeclaredAgeRange
import Foundation
import HearthClient
import HearthCore
import HearthProtocol
import HearthTransport

struct Age: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Declared Age Range: request a range as an app would, watch it, answer prompts, set sharing.",
        subcommands: [Request.self, Watch.self, Prompts.self, Answer.self, Sharing.self, ClearCache.self])

    struct SocketOption: ParsableArguments {
        @Option(help: "The device daemon's socket (child-device or parent-device).")
        var socket = LocalEndpoints.deviceSocket

        func console() async throws -> AgeConsole {
            AgeConsole(client: try await DaemonSocket.connect(daemon: "the device daemon", path: socket))
        }
    }

    struct AppOptions: ParsableArguments {
        @Option(help: "The app's bundle id.")
        var app = "com.example.app"
        @OptionGroup var socket: SocketOption
        @Option(help: "Seconds to wait for the device daemon (a prompt adds its own deadline).")
        var timeout: Double = 5

        func service() -> AgeRangeService {
            AgeRangeService(socketPath: socket.socket, bundleID: app, timeout: .milliseconds(Int(timeout * 1000)))
        }
    }

    static func describe(_ response: AgeRangeService.Response) -> String {
        switch response {
        case .declinedSharing:
            return "declined"
        case .sharing(let range):
            let bounds = DeclaredRange(
                lowerBound: range.lowerBound, upperBound: range.upperBound, declaration: .selfDeclared
            ).boundsDescription
            var details = [range.ageRangeDeclaration.map { "\($0)" } ?? "undeclared"]
            if range.activeParentalControls.contains(.communicationLimits) { details.append("communicationLimits") }
            return "sharing: \(bounds) (\(details.joined(separator: ", ")))"
        }
    }

    struct Request: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Request the user's age range, as an app would.",
            discussion: """
                Under Ask First the user is prompted on their devices and this waits for their answer (a prompt \
                nobody answers in time declines); it says so at once on standard error, with the commands that \
                answer it from another terminal: `hearthctl age prompts`, `hearthctl age answer ID share`.
                """)
        @OptionGroup var options: AppOptions
        @Option(help: "1 to 3 ascending ages, comma-separated, e.g. 13,16.") var gates: String

        /// What a person waiting on a prompt is told: that the user must answer, and how.
        static func waiting(_ prompt: AgeRangeService.Prompt, socket: String) -> String {
            let id = prompt.id.uuidString.lowercased()
            let seconds = Int(prompt.expiresIn.components.seconds)
            let on = Age.socketArgument(socket)
            return """
                Waiting for the user to answer an age range prompt (\(id), declined in \(seconds) s if unanswered).
                Answer it from another terminal: `hearthctl age prompts\(on)` lists it, \
                `hearthctl age answer \(id.prefix(8)) share\(on)` shares (or `decline`).

                """
        }

        func run() async throws {
            let parsed = try gates.split(separator: ",").map { text in
                guard let gate = Int(text.trimmingCharacters(in: .whitespaces)) else {
                    throw ValidationError("'\(text)' is not an age")
                }
                return gate
            }
            let service = options.service()
            defer { Task { await service.close() } }
            do {
                let socket = options.socket.socket
                let response = try await service.requestAgeRange(ageGates: parsed) { prompt in
                    // At once, on standard error: the wait can last a minute, and the answer comes from elsewhere.
                    FileHandle.standardError.write(Data(Request.waiting(prompt, socket: socket).utf8))
                }
                print(Age.describe(response))
            } catch AgeRangeService.Failure.invalidRequest(let reason) {
                throw ValidationError("invalid age range request: \(reason)")
            } catch let error as AgeRangeService.Failure {
                throw CommandFailure(error.description)
            }
        }
    }

    static func socketArgument(_ socket: String) -> String {
        socket == LocalEndpoints.deviceSocket ? "" : " --socket \(socket)"
    }

    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print this app's new age range answers as the user's devices learn them.")
        @OptionGroup var options: AppOptions
        @Option(help: "Stop after this many answers.") var count: Int?
        @Option(help: "Stop after this many seconds.") var seconds: Double?

        func run() async throws {
            // `updates` waits for a daemon that is not there yet; a person at a terminal wants to be told instead.
            let socket = options.socket.socket
            guard LocalEndpoints.socketExists(socket) else {
                throw CommandFailure(
                    "the device daemon is not running: there is no socket at \(socket).\n"
                        + DaemonSocket.startHint("the device daemon"))
            }
            let service = options.service()
            let stopper = Task {
                guard let seconds else { return }
                try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
                await service.close()
            }
            var seen = 0
            for await response in service.updates {
                print(Age.describe(response))
                seen += 1
                if let count, seen >= count { break }
            }
            stopper.cancel()
            await service.close()
        }
    }

    struct Prompts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the Ask First prompts waiting on this device.")
        @OptionGroup var options: SocketOption

        func run() async throws {
            let console = try await options.console()
            defer { Task { await console.close() } }
            let prompts = try await Age.explained { try await console.prompts() }
            if prompts.isEmpty { print("No age range prompts are waiting.") }
            for prompt in prompts {
                print(
                    "\(prompt.id)  \(prompt.app) asks to learn: \(prompt.range.boundsDescription); expires \(prompt.expiresAt)"
                )
            }
        }
    }

    struct Answer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Answer a prompt (id or unique prefix): share or decline.")
        @OptionGroup var options: SocketOption
        @Argument(help: "The prompt's id, or a unique prefix of it.") var prompt: String
        @Argument(help: "share or decline.") var choice: String

        func validate() throws {
            guard ["share", "decline"].contains(choice) else {
                throw ValidationError("answer with share or decline, not '\(choice)'")
            }
        }

        func run() async throws {
            let console = try await options.console()
            defer { Task { await console.close() } }
            let waiting = try await Age.explained { try await console.prompts() }
            let id = try IDPrefix.resolve(
                prompt, among: waiting.map(\.id), what: "prompt", hint: "see `hearthctl age prompts`")
            let answer = try await Age.explained { try await console.answer(id, share: choice == "share") }
            switch answer {
            case .sharing(let range): print("shared \(range.boundsDescription) (prompt \(id))")
            case .declined: print("declined (prompt \(id))")
            }
        }
    }

    struct Sharing: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set a member's sharing: always, ask or never (a parent for a child, an adult for themself).")
        @OptionGroup var options: SocketOption
        @Argument(help: "The member id.") var member: String
        @Argument(help: "always, ask or never.") var setting: String

        func validate() throws {
            guard AgeSharing(name: setting) != nil else {
                throw ValidationError("'\(setting)' is not always, ask or never")
            }
        }

        func run() async throws {
            guard let value = AgeSharing(name: setting) else {
                throw ValidationError("'\(setting)' is not always, ask or never")
            }
            let console = try await options.console()
            defer { Task { await console.close() } }
            do {
                try await console.setSharing(value, of: member)
            } catch let reply as ErrorReply where reply.code == .notAuthorized {
                throw refusal(reply)
            } catch {
                throw DaemonSocket.explain(error, daemon: "the device daemon")
            }
            print("\(member): \(value.name)")
        }

        /// A child's device sets nobody's sharing: when child-device refused, the refusal says where to go instead.
        private func refusal(_ reply: ErrorReply) -> CommandFailure {
            let socket = options.socket
            guard DaemonIdentity.of(socket: socket) == "child-device" else {
                return DaemonSocket.explain(reply, daemon: "the device daemon")
            }
            return CommandFailure(
                "child-device answered at \(socket): \(reply.message) [\(reply.code)].\n`hearthctl age sharing` needs "
                    + "parent-device (a parent sets a child's sharing, an adult their own, on their parent-device): "
                    + "pass --socket \(DaemonIdentity.socketHint(for: "parent-device", beside: socket)).")
        }
    }

    struct ClearCache: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clear-cache",
            abstract: "Forget what an app was told; its next request gets the current range.")
        @OptionGroup var options: SocketOption
        @Argument(help: "The app's bundle id.") var app: String

        func run() async throws {
            let console = try await options.console()
            defer { Task { await console.close() } }
            let existed = try await Age.explained { try await console.clearCache(app: app) }
            print(existed ? "cleared \(app)" : "\(app) had nothing cached")
        }
    }

    @discardableResult
    static func explained<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw DaemonSocket.explain(error, daemon: "the device daemon")
        }
    }
}
