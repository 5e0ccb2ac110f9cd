import ArgumentParser
import DeviceRuntime
import HearthTransport
import ParentDevice

@main
struct ParentDeviceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parent-device",
        abstract: "Receives a child's questions on a parent's device and sends the parent's approve or decline.")

    @OptionGroup var device: DeviceArguments

    func run() async throws {
        try await device.run(
            daemon: ParentDeviceDaemon.name, defaultSocket: LocalEndpoints.parentDeviceSocket,
            make: ParentDeviceDaemon.make)
    }
}
