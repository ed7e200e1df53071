/// A value as the Admin SDKs' server-template evaluation reports it (spec §5.5).
public struct ResolvedValue: Sendable, Hashable, Codable {
    /// Where a value came from.
    public enum Source: String, Sendable, Codable {
        /// Not in the result: type defaults (`""`, `false`, `0`).
        case `static`
        /// The caller's in-app default.
        case `default`
        /// The template.
        case remote
    }

    public var value: String
    public var source: Source

    public init(value: String, source: Source) {
        self.value = value
        self.source = source
    }

    /// The value of a key that is in neither the template's result nor the defaults.
    public static let `static` = ResolvedValue(value: "", source: .static)

    /// True iff the lower-cased value is `1`, `true`, `t`, `yes`, `y` or `on` (the SDKs' rule).
    public var boolValue: Bool {
        source != .static && ["1", "true", "t", "yes", "y", "on"].contains(value.lowercased())
    }

    /// The value as a number (surrounding spaces ignored); `0` when it is not one.
    public var numberValue: Double {
        var text = value[...]
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        guard source != .static, let number = Double(text), number.isFinite else { return 0 }
        return number
    }
}
