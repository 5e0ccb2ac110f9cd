import HearthCore
import Logging

extension FamilyBrokerService {
    /// One line per question asked and per resolution, with its member, device and question id as metadata.
    /// Each event goes to the child and to every parent: only the child's copy is logged.
    static func logResolutions(_ events: [Event], logger: Logger) {
        for event in events {
            switch event.body {
            case .questionPending(let asked) where event.memberID == asked.childMemberID:
                logger.info(
                    "question asked",
                    metadata: [
                        "member": "\(asked.childMemberID)", "device": "\(asked.askingDeviceID)",
                        "question": "\(asked.question.id)", "app": "\(asked.appBundleID)",
                    ])
            case .questionResolved(let asked, let resolution) where event.memberID == asked.childMemberID:
                logger.info(
                    "question resolved",
                    metadata: [
                        "member": "\(asked.childMemberID)", "device": "\(asked.askingDeviceID)",
                        "question": "\(asked.question.id)", "app": "\(asked.appBundleID)",
                        "reason": "\(resolution.reason)",
                        "choice": "\(resolution.choice.id)", "answeredBy": "\(resolution.answeredBy ?? "-")",
                    ])
            default:
                continue
            }
        }
    }
}
