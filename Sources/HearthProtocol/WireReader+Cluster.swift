import Foundation

extension WireWriter {
    /// Writes a `BrokerRedirect` (docs/PROTOCOL.md §6.2, 0x89).
    mutating func brokerRedirect(_ redirect: BrokerRedirect) {
        u32(redirect.partition)
        u64(redirect.epoch)
        string(redirect.ingress)
        string(redirect.egress)
        string(redirect.publicKey)
    }
}

extension WireReader {
    /// Reads a `BrokerRedirect`, refusing endpoints and keys a device could not use.
    mutating func brokerRedirect() throws(WireError) -> BrokerRedirect {
        let partition = try u32("redirect.partition")
        let epoch = try u64("redirect.epoch")
        let ingress = try endpoint("redirect.ingress")
        let egress = try endpoint("redirect.egress")
        let key = try string("redirect.publicKey", max: 40)
        guard BrokerRedirect.isZ85Key(key) else {
            throw .invalidValue(field: "redirect.publicKey", reason: "must be a Z85 key of 40 characters")
        }
        return BrokerRedirect(partition: partition, epoch: epoch, ingress: ingress, egress: egress, publicKey: key)
    }

    private mutating func endpoint(_ field: String) throws(WireError) -> String {
        let text = try string(field, max: BrokerRedirect.maxEndpointBytes)
        if let problem = BrokerRedirect.endpointProblem(text) { throw .invalidValue(field: field, reason: problem) }
        return text
    }
}
