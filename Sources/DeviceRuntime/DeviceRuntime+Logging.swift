import HearthCore
import Logging

extension DeviceRuntime {
    /// On a child's device, one line per question and response, with member, device and question id as metadata
    /// (parent-device's behaviour logs its own lines).
    func logApplied(_ events: [Event]) {
        for event in events {
            if case .omitted(let kind, let reason) = event.body {
                logger.warning(
                    "the broker omitted an event it could not deliver",
                    metadata: [
                        "sequence": "\(event.sequence)", "kind": "\(kind)", "reason": "\(reason)",
                    ])
            }
        }
        guard let identity, identity.role == .child else { return }
        for event in events {
            switch event.body {
            case .questionPending(let asked):
                logger.info(
                    "question sent to the parents",
                    metadata: [
                        "member": "\(identity.memberID)", "device": "\(identity.deviceID)",
                        "question": "\(asked.question.id)",
                        "app": "\(asked.appBundleID)",
                    ])
            case .questionResolved(let asked, let resolution):
                logger.info(
                    "response received",
                    metadata: [
                        "member": "\(identity.memberID)", "device": "\(identity.deviceID)",
                        "question": "\(asked.question.id)",
                        "app": "\(asked.appBundleID)", "reason": "\(resolution.reason)",
                        "choice": "\(resolution.choice.id)",
                    ])
            default:
                continue
            }
        }
    }
}
