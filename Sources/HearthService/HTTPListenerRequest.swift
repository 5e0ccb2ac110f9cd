public import Foundation

/// One HTTP request as an `HTTPListener` hands it on: the head, and the body once it is read whole.
public struct HTTPListenerRequest: Sendable {
    /// `GET`, `POST`...
    public var method: String
    /// The path, without the query.
    public var path: String
    /// The query's fields, percent-decoded; a name given twice keeps its last value.
    public var query: [String: String]
    /// Header fields by lowercased name; a field given several times has its values joined with `, ` (`; ` for
    /// `cookie`).
    public var headers: [String: String]
    /// Empty until the body is read; never more than the policy's `maxBodyBytes`.
    public var body: Data

    public init(method: String, uri: String, headers: [(String, String)], body: Data = Data()) {
        self.method = method
        let components = URLComponents(string: uri)
        path = components?.path ?? uri
        var fields: [String: String] = [:]
        for item in components?.queryItems ?? [] { fields[item.name] = item.value ?? "" }
        query = fields
        var merged: [String: String] = [:]
        for (name, value) in headers {
            let key = name.lowercased()
            let separator = key == "cookie" ? "; " : ", "
            merged[key] = merged[key].map { $0 + separator + value } ?? value
        }
        self.headers = merged
        self.body = body
    }

    /// The value of cookie `name`, if the request carries it.
    public func cookie(_ name: String) -> String? {
        guard let header = headers["cookie"] else { return nil }
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }
}
