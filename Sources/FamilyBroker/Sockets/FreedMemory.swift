import Foundation

/// Hands memory the allocator holds but no longer uses back to the system.
///
/// glibc keeps the pages of freed blocks in its arenas resident, and the broker's start-up with a large family file
/// frees several times what the directory keeps (the parsed file, the import's copies), spread over the arenas of
/// several threads: without this, resident memory after start-up stays near the import's peak for good.
enum FreedMemory {
    /// `malloc_trim(0)` where the C library has it (glibc); Swift's Glibc module does not export `malloc.h`.
    static func release() {
        #if os(Linux)
        typealias Trim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(nil, "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
        #endif
    }
}
