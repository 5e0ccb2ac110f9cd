import Foundation

/// The repository's root: the nearest folder above this file that holds `Package.swift` and `Sources` (Tests/ holds a
/// manifest too, the unit tier's). A test that reads the repository's files (docs, config, fixtures) finds them from
/// here, however deep its own file sits in the test folders.
enum RepositoryRoot {
    static let url: URL = {
        var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        func holdsManifest(_ url: URL) -> Bool {
            FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path)
                && FileManager.default.fileExists(atPath: url.appendingPathComponent("Sources").path)
        }
        while url.path != "/", !holdsManifest(url) {
            url.deleteLastPathComponent()
        }
        return url
    }()

    static var path: String { url.path }
}
