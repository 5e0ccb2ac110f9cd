public import Logging

/// Log set-up shared by the daemons: swift-log to standard error, one line per entry with its metadata as
/// `key=value`, at the configured level. Secrets (CURVE secret keys) are never put in a log entry.
public enum DaemonLogging {
    public static func bootstrap(level: Logger.Level) {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
