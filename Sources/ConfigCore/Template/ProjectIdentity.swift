/// The one rule for a project's id and number, kept by the configuration file, the admin API
/// and the store alike.
///
/// An id is 1 to 128 ASCII letters, digits, `-` or `_`, not all digits (so that it can never be
/// read as a number); a number is 1 to 32 ASCII digits. ASCII only: `Character.isNumber` alone
/// lets '٣' through, which template ETags and URLs cannot carry.
public enum ProjectIdentity {
    /// Why `id` is not a project id, or nil when it is one.
    public static func problem(id: String) -> String? {
        let bytes = id.utf8
        let allowed = bytes.allSatisfy { isASCIIDigit($0) || isASCIILetter($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
        guard (1...128).contains(bytes.count), allowed, !bytes.allSatisfy(isASCIIDigit) else {
            return "project id '\(id)' must be 1 to 128 ASCII letters, digits, '-' or '_' and not all digits"
        }
        return nil
    }

    /// Why `number` is not a project number, or nil when it is one.
    public static func problem(number: String) -> String? {
        let bytes = number.utf8
        guard (1...32).contains(bytes.count), bytes.allSatisfy(isASCIIDigit) else {
            return "project number '\(number)' must be 1 to 32 ASCII digits"
        }
        return nil
    }

    /// The first problem of `id` and `number`, or nil when both are valid.
    public static func problem(id: String, number: String) -> String? {
        problem(id: id) ?? problem(number: number)
    }

    private static func isASCIIDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }
}
