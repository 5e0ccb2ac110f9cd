public import DeviceRuntime
public import Logging

/// The one way to build a parent-device daemon, used by the executable and by the fleet's in-process mode: pending
/// questions for a parent, and the Ask First prompts of Declared Age Range.
public enum ParentDeviceDaemon {
    /// The daemon's name in logs, settings and errors.
    public static let name = "parent-device"

    /// A parent-device daemon with `options`, not yet running.
    public static func make(options: DeviceOptions, logger: Logger) throws -> DeviceRuntime {
        let store = try DeviceStore(path: options.databasePath, label: name) { migrator in
            ParentStore.migrate(&migrator)
            AgePromptStore.migrate(&migrator)
        }
        let behavior = AgeRangeSupport(
            ParentBehavior(store: ParentStore(store.pool), page: ParentPage(stateDirectory: options.stateDirectory)),
            prompts: AgePromptStore(store.pool))
        return try DeviceRuntime(options: options, store: store, behavior: behavior, logger: logger)
    }
}
