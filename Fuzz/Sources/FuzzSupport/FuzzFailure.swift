/// Stops the process on a broken invariant: libFuzzer records the input that did it as a crash.
public func fuzzFailure(
    _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line
) -> Never {
    fatalError("fuzz invariant broken: \(message())", file: file, line: line)
}
