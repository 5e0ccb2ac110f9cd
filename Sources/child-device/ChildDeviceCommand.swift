import ArgumentParser
import ChildDevice
import DeviceRuntime
import HearthTransport

@main
struct ChildDeviceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "child-device",
        abstract: "Asks the broker questions for the apps on a child's device and hands each app its responses.")

    @OptionGroup var device: DeviceArguments

    func run() async throws {
        try await device.run(
            daemon: ChildDeviceDaemon.name, defaultSocket: LocalEndpoints.childDeviceSocket,
            make: ChildDeviceDaemon.make)
    }
}
