public import DeviceRuntime
public import Logging

/// The one way to build a child-device daemon. The executable and the fleet's in-process mode both use it, so both
/// run the same daemon: communication questions and Declared Age Range.
public enum ChildDeviceDaemon {
    /// The daemon's name in logs, settings and errors.
    public static let name = "child-device"

    /// A child-device daemon with `options`, not yet running.
    public static func make(options: DeviceOptions, logger: Logger) throws -> DeviceRuntime {
        let store = try DeviceStore(path: options.databasePath, label: name) { migrator in
            ChildStore.migrate(&migrator)
            AgePromptStore.migrate(&migrator)
        }
        let behavior = AgeRangeSupport(
            ChildBehavior(store: ChildStore(store.pool)), prompts: AgePromptStore(store.pool))
        return try DeviceRuntime(options: options, store: store, behavior: behavior, logger: logger)
    }
}
