import Foundation
import Synchronization

/// Another user's listener on a local socket path, as an attacker would plant one: it accepts every connection and
/// counts what it is sent, never answering. Plain `AF_UNIX` stream sockets, on a thread of its own.
final class FakeListener: Sendable {
    let path: String
    private let fd: Int32
    private let counts = Mutex<(connections: Int, bytes: Int)>((0, 0))
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    /// Binds and listens at `path` (mode 0777, as an attacker would leave it for the victim to connect).
    init(path: String) throws {
        self.path = path
        unlink(path)
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard fd >= 0, bound == 0, listen(fd, 16) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        chmod(path, 0o777)
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    /// Connections accepted and bytes read so far.
    var connections: Int { counts.withLock { $0.connections } }
    var bytesReceived: Int { counts.withLock { $0.bytes } }

    /// Stops serving and closes every socket (blocks until the thread is done).
    func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        finished.wait()
        unlink(path)
    }

    private func serve() {
        var clients: [Int32] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !stopped.load(ordering: .sequentiallyConsistent) {
            var fds = ([fd] + clients).map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&fds, nfds_t(fds.count), 50) > 0 else { continue }
            if fds[0].revents != 0 {
                let client = accept(fd, nil, nil)
                if client >= 0 {
                    clients.append(client)
                    counts.withLock { $0.connections += 1 }
                }
            }
            for entry in fds.dropFirst() where entry.revents != 0 {
                let count = read(entry.fd, &buffer, buffer.count)
                if count > 0 {
                    counts.withLock { $0.bytes += count }
                } else {
                    close(entry.fd)
                    clients.removeAll { $0 == entry.fd }
                }
            }
        }
        for client in clients { close(client) }
        close(fd)
        finished.signal()
    }
}
