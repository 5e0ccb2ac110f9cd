import ArgumentParser
import HearthTransport
import ZeroMQ

struct Keygen: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make a CURVE key pair: PATH.key (secret, 0600) and PATH.pub; prints the public key to enrol.")

    @Argument(help: "Path without extension, e.g. keys/emma-tablet.")
    var path: String

    func run() throws {
        do {
            let keys = try KeyFiles.generate(at: path)
            print(keys.publicKey)
        } catch let failure as KeyFiles.Failure {
            throw CommandFailure(failure.description)
        }
    }
}
