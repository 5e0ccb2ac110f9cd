import Foundation

/// Runs a fuzz target's check over files when the target is built without libFuzzer (a plain `swift build`), so the
/// committed corpus and any crash file can be replayed in a debugger: `CodecFuzzer Tests/FuzzCorpus/codec crash-…`.
public enum FuzzReplay {
    /// Calls `check` with the bytes of every file named in `arguments`, directories read one level deep; returns the
    /// process's exit status.
    public static func run(_ arguments: [String], name: String, check: ([UInt8]) -> Void) -> Int32 {
        guard !arguments.isEmpty, !arguments.contains(where: { $0.hasPrefix("-") }) else {
            print("usage: \(name) FILE-OR-DIRECTORY…  (replays inputs; deploy/fuzz fuzzes)")
            return arguments.contains("-h") || arguments.contains("--help") ? 0 : 64
        }
        var count = 0
        for path in arguments {
            for file in files(at: path) {
                guard let data = FileManager.default.contents(atPath: file) else {
                    print("\(name): cannot read \(file)")
                    return 66
                }
                check([UInt8](data))
                count += 1
            }
        }
        print("\(name): \(count) inputs replayed, every check held")
        return 0
    }

    /// `path` itself, or the regular files in it when it is a directory, sorted.
    static func files(at path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return [path]
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { path + "/" + $0 }
    }
}
