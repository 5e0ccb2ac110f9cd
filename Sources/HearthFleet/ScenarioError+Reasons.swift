import Foundation
import Yams

extension ScenarioError {
    /// A YAML syntax error as a person reads it: the line and column, the problem, and the line itself.
    init(syntax error: YamlError) {
        switch error {
        case .scanner(_, let problem, let mark, let yaml), .parser(_, let problem, let mark, let yaml),
            .composer(_, let problem, let mark, let yaml):
            let line = yaml.split(separator: "\n", omittingEmptySubsequences: false)
            let text = mark.line - 1 < line.count ? String(line[mark.line - 1]) : ""
            self.init(
                "line \(mark.line), column \(mark.column): not valid YAML (\(problem))\n  \(text)\n  "
                    + String(repeating: " ", count: max(0, mark.column - 1)) + "^")
        default:
            self.init("not valid YAML: \(error)")
        }
    }

    /// Why a file cannot be read, in the words of the system (`No such file or directory`, `Permission denied`,
    /// `Is a directory`), or that it is not UTF-8 text.
    static func reason(reading path: String) -> String {
        let descriptor = open(path, O_RDONLY)
        if descriptor < 0 { return String(cString: strerror(errno)) }
        defer { close(descriptor) }
        var byte: UInt8 = 0
        if read(descriptor, &byte, 1) < 0 { return String(cString: strerror(errno)) }
        return "it is not UTF-8 text"
    }
}
