import HearthCore

extension Transaction {
    /// Whether this transaction may write for `family`: always without a cluster, else only when the lease of its
    /// partition was checked in this transaction.
    func mayWrite(_ family: FamilyID?) -> Bool {
        guard let admitted, let partitioning else { return true }
        return admitted.contains(partitioning.partition(of: family))
    }

    /// `mayWrite` for `member`'s family; a member no longer in the directory counts as the family with no id.
    func mayWrite(member: MemberID) -> Bool { mayWrite(directory.members[member]?.familyID) }
}
