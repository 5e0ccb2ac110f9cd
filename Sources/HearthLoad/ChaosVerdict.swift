public import Foundation
public import HearthCore

/// The end of a chaos run, judged from the devices' and apps' side: every question answered once, every response
/// delivered once to the app on every child device, nothing left pending at a parent, every device's log applied
/// without a gap up to its member's head.
public struct ChaosVerdict: Sendable {
    /// What the app on one child device received, by question.
    public var delivered: [DeviceID: [UUID: [ChaosLedger.Answer]]] = [:]
    /// Questions still pending at each parent device.
    public var pendingAtParents: [DeviceID: [UUID]] = [:]
    /// Each device's last applied sequence number, and its member.
    public var lastApplied: [DeviceID: (member: MemberID, sequence: UInt64)] = [:]
    /// Each member's log at the broker: how many events, and the highest sequence number.
    public var brokerLogs: [MemberID: (count: Int, head: UInt64)] = [:]

    public init() {}

    /// Every loss, duplicate and gap found; empty when the run kept its promises.
    public func problems(_ ledger: ChaosLedger) -> [String] {
        var problems: [String] = []
        let answers = ledger.answers
        for (id, asked) in ledger.questions {
            guard asked.accepted else {
                problems.append("question \(id) from \(asked.device) was never accepted by its daemon")
                continue
            }
            var seen = Set(answers[id] ?? [])
            for device in delivered.keys.sorted() {
                let got = delivered[device]?[id] ?? []
                if got.isEmpty {
                    problems.append("lost: \(id) (asked on \(asked.device)) never reached the app on \(device)")
                }
                if got.count > 1 { problems.append("duplicate: \(id) reached the app on \(device) \(got.count) times") }
                seen.formUnion(got)
            }
            if seen.count > 1 {
                problems.append("answered more than once: \(id) has \(seen.count) resolutions \(seen)")
            }
        }
        for (device, pending) in pendingAtParents.sorted(by: { $0.key < $1.key }) where !pending.isEmpty {
            problems.append("\(device) still shows \(pending.count) questions as pending: \(pending.prefix(5))")
        }
        for (member, log) in brokerLogs.sorted(by: { $0.key < $1.key }) where UInt64(log.count) != log.head {
            problems.append("gap: \(member)'s log at the broker holds \(log.count) events up to sequence \(log.head)")
        }
        for (device, applied) in lastApplied.sorted(by: { $0.key < $1.key }) {
            let head = brokerLogs[applied.member]?.head ?? 0
            if applied.sequence != head {
                problems.append(
                    "\(device) applied \(applied.member)'s log up to \(applied.sequence), the broker's head is \(head)")
            }
        }
        return problems
    }
}
