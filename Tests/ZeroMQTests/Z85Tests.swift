import Glibc
import Testing
import ZeroMQ

@Suite struct Z85Tests {
    @Test func encodesRFCVectorAndRoundTrips() throws {
        // The test vector from ZeroMQ RFC 32.
        let vector: [UInt8] = [0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B]
        #expect(try Z85.encode(vector) == "HelloWorld")
        #expect(try Z85.decode("HelloWorld") == vector)

        let random = (0..<64).map { _ in UInt8.random(in: .min ... .max) }
        #expect(try Z85.decode(Z85.encode(random)) == random)
        #expect(try Z85.encode([]) == "")
        #expect(try Z85.decode("") == [])
    }

    @Test func rejectsMalformedInput() {
        #expect(throws: ZMQError.self) { try Z85.encode([1, 2, 3]) }
        #expect((try? Z85.encode([1, 2, 3])) == nil)
        let wrongLength = #expect(throws: ZMQError.self) { try Z85.decode("Hello") + Z85.decode("abc") }
        #expect(wrongLength?.code == EINVAL)
        #expect(throws: ZMQError.self) { try Z85.decode("Hello Worl") }
        #expect(throws: ZMQError.self) { try Z85.decode("#####") }
        #expect(throws: ZMQError.self) { try Z85.decode("Helloé") }
    }

    @Test func curveKeys() throws {
        let pair = try CurveKeyPair.generate()
        #expect(pair.publicKey.count == 40)
        #expect(pair.secretKey.count == 40)
        #expect(Z85.isValidKey(pair.publicKey))
        #expect(Z85.isValidKey(pair.secretKey))
        #expect(try CurveKeyPair(secretKey: pair.secretKey) == pair)
        #expect(try CurveKeyPair.generate() != pair)

        #expect(!Z85.isValidKey("HelloWorld"))
        #expect(throws: ZMQError.self) { try CurveKeyPair(secretKey: "HelloWorld") }
        #expect(throws: ZMQError.self) { try CurveKeyPair(secretKey: String(repeating: "#", count: 40)) }
        #expect(throws: ZMQError.self) { try CurveKeyPair(secretKey: pair.secretKey + "HelloWorld") }
    }

    @Test func libraryFacts() {
        #expect(ZeroMQ.version.major == 4)
        #expect(ZeroMQ.has("curve"))
        #expect(!ZeroMQ.has("no-such-capability"))
    }
}
