extension Wire {
    /// Longest text of a parent's notification, in UTF-8 bytes.
    public static let maxNotificationTextBytes = 2048
    /// Most notifications parent-device pushes to a watcher that resumes after an old position.
    public static let maxNotificationBacklog = 256
}
