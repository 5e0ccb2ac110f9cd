import HearthCore

extension ShortText {
    /// A note's or message's caps in words, for --help: both, since an emoji is one character but four or more bytes.
    static var limits: String {
        "at most \(maxCharacters) characters and \(maxBytes) bytes of UTF-8 (an emoji takes 4 or more)"
    }
}
