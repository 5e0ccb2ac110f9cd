import Foundation

/// TEMPORARY (issue 18 A/B in one build): HEARTH_AB=a,b,... turns changes on.
enum EngineAB {
    static let on: Set<String> = Set(
        (ProcessInfo.processInfo.environment["HEARTH_AB"] ?? "").split(separator: ",").map(String.init))
    static let defaults = on.contains("defaults") || on.contains("all")
    static let handlesKey = on.contains("key") || on.contains("all")
    static let known = on.contains("known") || on.contains("all")
    static let windows = on.contains("windows") || on.contains("all")
    static let bodies = on.contains("bodies") || on.contains("all")
    static let decode = on.contains("decode") || on.contains("all")
    static let x1 = on.contains("x1") || on.contains("all")
    static let x2 = on.contains("x2") || on.contains("all")
    static let x3 = on.contains("x3") || on.contains("all")
}
