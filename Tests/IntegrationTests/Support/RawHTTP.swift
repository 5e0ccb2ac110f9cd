import Foundation
import HearthService

/// HTTP/1.1 over a plain TCP socket, for what URLSession will not send: a `Host` of our choosing, a body announced
/// and then sent in pieces until the server stops reading, no cookie jar. Blocking calls, on a thread of their own.
struct RawHTTP: Sendable {
    struct Reply: Sendable {
        /// Nil if the connection ended before a status line.
        var status: Int?
        /// The head, as sent (status line and header fields).
        var head: String
        var body: String
        /// How much of the body was sent before the server closed the connection.
        var bodyBytesSent: Int

        func header(_ name: String) -> String? {
            for line in head.split(separator: "\r\n").dropFirst() {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == name.lowercased() {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
            return nil
        }
    }

    var port: Int
    var host: String?
    /// How long a send or a receive may wait.
    var timeout: Int

    init(port: Int, host: String? = nil, timeout: Int = 20) {
        self.port = port
        self.host = host
        self.timeout = timeout
    }

    /// Sends `method path` with `headers` and a body of `bodyBytes` bytes (`x` repeated; announced in
    /// `Content-Length`), then reads the reply until the server closes.
    func send(
        _ method: String, _ path: String, headers: [String: String] = [:], body: Data? = nil, bodyBytes: Int = 0
    ) async throws -> Reply {
        let port = port
        let host = host ?? "127.0.0.1:\(port)"
        let timeout = timeout
        return try await BlockingWork.run { () throws -> Reply in
            let fd = try Self.connect(port: port, timeout: timeout)
            defer { close(fd) }
            let length = body?.count ?? bodyBytes
            var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            if length > 0 || method == "POST" { head += "Content-Length: \(length)\r\n" }
            head += "\r\n"
            guard Self.write(fd, Array(head.utf8)) else { return Self.read(fd, sent: 0) }
            var sent = 0
            if let body {
                if Self.write(fd, Array(body)) { sent = body.count }
            } else {
                let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 64 * 1024)
                while sent < bodyBytes {
                    let piece = Array(chunk.prefix(bodyBytes - sent))
                    guard Self.write(fd, piece) else { break }
                    sent += piece.count
                }
            }
            return Self.read(fd, sent: sent)
        }
    }

    /// A blocking socket connected to 127.0.0.1:`port`, with a send and receive timeout of `timeout` seconds.
    static func connect(port: Int, timeout seconds: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ECONNREFUSED)
        }
        return fd
    }

    /// Writes all of `bytes`; false once the peer is gone (no SIGPIPE).
    static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    private static func read(_ fd: Int32, sent: Int) -> Reply {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            data.append(contentsOf: buffer[0..<count])
        }
        let text = String(decoding: data, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        let head = parts.first ?? ""
        let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        return Reply(
            status: head.hasPrefix("HTTP/") ? status : nil, head: head,
            body: parts.dropFirst().joined(separator: "\r\n\r\n"), bodyBytesSent: sent)
    }
}
