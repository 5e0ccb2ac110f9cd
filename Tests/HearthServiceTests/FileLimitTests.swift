import Foundation
import HearthService
import Testing

@Suite struct FileLimitTests {
    /// The soft descriptor limit below the hard one (as a service manager's 1,024 is) is raised to it.
    @Test func theSoftLimitIsRaisedToTheHardOne() throws {
        var limit = rlimit()
        #expect(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        let saved = limit
        defer {
            var restore = saved
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &restore)
        }
        // One below the hard limit (a finite hard limit above what this process has open): the least change to a
        // test process that runs other suites meanwhile.
        try #require(limit.rlim_max > 1024 && limit.rlim_max < 1 << 40, "hard limit \(limit.rlim_max)")
        limit.rlim_cur = limit.rlim_max - 1
        #expect(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        #expect(FileLimit.current().soft == UInt64(limit.rlim_max - 1))
        let raised = FileLimit.raise()
        #expect(raised.soft == UInt64(saved.rlim_max))
        #expect(raised.hard == UInt64(saved.rlim_max))
    }
}
