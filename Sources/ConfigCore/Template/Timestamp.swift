public import Foundation

/// A point in time as proto3 JSON writes it: RFC 3339 in UTC (spec §1.3, `Version.updateTime`).
///
/// Kept as whole seconds plus nanoseconds so that `2026-03-04T10:15:30.123456789Z` survives a
/// round trip exactly (a `Date` is a `Double` and loses the last digits).
public struct Timestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Seconds since 1970-01-01T00:00:00Z.
    public let seconds: Int64
    /// 0 ..< 1 000 000 000.
    public let nanoseconds: Int32

    /// - Parameters:
    ///   - seconds: seconds since the Unix epoch.
    ///   - nanoseconds: the fraction of the second, `0 ..< 1_000_000_000`.
    public init(seconds: Int64, nanoseconds: Int32 = 0) {
        precondition((0..<1_000_000_000).contains(nanoseconds), "nanoseconds out of range")
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    /// The instant `date`, to the microsecond (the precision a `Date` holds reliably today).
    public init(_ date: Date) {
        let micros = (date.timeIntervalSince1970 * 1_000_000).rounded()
        let whole = Int64((micros / 1_000_000).rounded(.down))
        self.init(seconds: whole, nanoseconds: Int32(Int64(micros) - whole * 1_000_000) * 1000)
    }

    /// This instant as a `Date`.
    public var date: Date {
        Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1_000_000_000)
    }

    /// Parses RFC 3339 (`2026-03-04T10:15:30.123Z`, `…+02:00`); 0–9 fractional digits; years
    /// 0001–9999; no leap second. Returns `nil` for anything else.
    public init?(rfc3339 text: String) {
        var scanner = DigitScanner(text.utf8)
        guard let year = scanner.number(digits: 4), scanner.skip("-"),
              let month = scanner.number(digits: 2), scanner.skip("-"),
              let day = scanner.number(digits: 2), scanner.skip("T") || scanner.skip("t"),
              let hour = scanner.number(digits: 2), scanner.skip(":"),
              let minute = scanner.number(digits: 2), scanner.skip(":"),
              let second = scanner.number(digits: 2)
        else { return nil }
        var nanos: Int64 = 0
        if scanner.skip(".") {
            var digits = 0
            while let digit = scanner.digit() {
                digits += 1
                guard digits <= 9 else { return nil }
                nanos = nanos * 10 + digit
            }
            guard digits > 0 else { return nil }
            for _ in digits..<9 { nanos *= 10 }
        }
        var offsetSeconds: Int64 = 0
        if !(scanner.skip("Z") || scanner.skip("z")) {
            let sign: Int64
            if scanner.skip("+") { sign = 1 } else if scanner.skip("-") { sign = -1 } else { return nil }
            guard let offsetHour = scanner.number(digits: 2), scanner.skip(":"),
                  let offsetMinute = scanner.number(digits: 2), offsetHour < 24, offsetMinute < 60
            else { return nil }
            offsetSeconds = sign * (offsetHour * 3600 + offsetMinute * 60)
        }
        guard scanner.isAtEnd, year >= 1, (1...12).contains(month), hour < 24, minute < 60,
              second < 60
        else { return nil }
        let days = Self.daysFromCivil(year: year, month: month, day: day)
        // Rejects 2026-02-30 and friends: the day count must map back to the same date.
        guard Self.civilFromDays(days) == (year, month, day) else { return nil }
        self.init(
            seconds: days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds,
            nanoseconds: Int32(nanos)
        )
    }

    /// RFC 3339 in UTC with 3, 6 or 9 fractional digits (as few as keep the value exact).
    public var rfc3339: String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = Self.civilFromDays(days)
        var fraction = Int64(nanoseconds)
        var fractionDigits = 9
        while fractionDigits > 3, fraction % 1000 == 0 {
            fraction /= 1000
            fractionDigits -= 3
        }
        return Self.pad(year, 4) + "-" + Self.pad(month, 2) + "-" + Self.pad(day, 2) + "T"
            + Self.pad(secondOfDay / 3600, 2) + ":" + Self.pad(secondOfDay / 60 % 60, 2) + ":"
            + Self.pad(secondOfDay % 60, 2) + "." + Self.pad(fraction, fractionDigits) + "Z"
    }

    public var description: String { rfc3339 }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let timestamp = Timestamp(rfc3339: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' is not an RFC 3339 timestamp"
            )
        }
        self = timestamp
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rfc3339)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    // Howard Hinnant's days_from_civil / civil_from_days (proleptic Gregorian calendar).
    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civilFromDays(_ days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// Reads fixed-width ASCII digits and separators off a UTF-8 view.
private struct DigitScanner {
    private var bytes: String.UTF8View.SubSequence

    init(_ utf8: String.UTF8View) { bytes = utf8[...] }

    var isAtEnd: Bool { bytes.isEmpty }

    mutating func digit() -> Int64? {
        guard let byte = bytes.first, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else {
            return nil
        }
        bytes.removeFirst()
        return Int64(byte - UInt8(ascii: "0"))
    }

    mutating func number(digits: Int) -> Int64? {
        var value: Int64 = 0
        for _ in 0..<digits {
            guard let digit = digit() else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard bytes.first == UInt8(ascii: character) else { return false }
        bytes.removeFirst()
        return true
    }
}
