/// The family-broker flags an in-process fleet understands in `brokerArguments`.
struct InProcessBrokerSettings {
    var heartbeat: Duration = .milliseconds(500)
    var subscriberHighWaterMark: Int32 = 10_000

    init(arguments: [String]) throws {
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { throw FleetError("broker argument \(flag) needs a value") }
            switch flag {
            case "--heartbeat":
                guard let seconds = Double(value), seconds > 0 else {
                    throw FleetError("--heartbeat \(value): not a positive number of seconds")
                }
                heartbeat = .milliseconds(Int(seconds * 1000))
            case "--subscriber-hwm":
                guard let hwm = Int32(value), hwm >= 0 else {
                    throw FleetError("--subscriber-hwm \(value): not a count")
                }
                subscriberHighWaterMark = hwm
            default:
                throw FleetError.notSupportedInProcess("broker argument \(flag)")
            }
        }
    }
}
