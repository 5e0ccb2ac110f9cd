import HearthService
import Testing

@Suite struct SettingKeyTests {
    @Test func flagAndVariableFollowTheKeyName() {
        let key = SettingKey("subscriberHwm", default: "1", help: "")
        #expect(key.flag == "--subscriber-hwm")
        #expect(key.environmentVariable(prefix: "HEARTH_BROKER") == "HEARTH_BROKER_SUBSCRIBER_HWM")
        #expect(SettingKey("state", default: "", help: "").flag == "--state")
    }
}
