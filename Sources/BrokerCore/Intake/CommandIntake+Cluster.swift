import HearthCore
import HearthProtocol

extension CommandIntake {
    /// On a cluster: the answer to a command (hello included) of a family this broker does not serve, or nil when
    /// it serves it: a redirect to the partition's owner from the registry, or `brokerUnavailable` (retry) while no
    /// live broker owns it. Nothing is served from memory for such a family.
    static func refusal(
        _ request: BrokerRequest, _ ownership: PartitionOwnership, _ directory: Directory
    ) -> CommandOutcome? {
        let family = directory.members[request.memberID]?.familyID
        guard !ownership.serves(family) else { return nil }
        let partition = ownership.partition(of: family)
        guard let owner = ownership.owner(of: family) else {
            return .failure(
                ErrorReply(.brokerUnavailable, "no broker serves this family's partition (\(partition)) now; retry"))
        }
        return .success(
            .redirect(
                BrokerRedirect(
                    partition: UInt32(partition), epoch: owner.epoch, ingress: owner.ingress, egress: owner.egress,
                    publicKey: owner.publicKey)))
    }
}
