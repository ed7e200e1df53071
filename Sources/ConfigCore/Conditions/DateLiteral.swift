import Foundation

/// A date written in a condition, `('2025-01-01T09:00:00', 'America/Los_Angeles')`.
///
/// The text is `YYYY-MM-DD`, optionally `THH:MM:SS` with an optional fraction, optionally
/// ending in `Z` or `±HH:MM`. With an explicit offset or time zone the literal is one instant,
/// computed at parse time. Without either it is a wall-clock time whose zone is decided per
/// rule: `app.firstOpenTimestamp` uses GMT, `dateTime` the device's time zone (UTC when the
/// client sent none).
struct DateLiteral: Sendable, Hashable {
    /// The written wall-clock time as seconds since 1970 if it were UTC.
    let wallClock: Double
    /// The instant, when the literal is not floating.
    let instant: Date?

    /// Problems are reported with an offset relative to the start of `text`.
    struct Invalid: Error {
        let message: String
    }

    init(text: String, timeZone: TimeZone?) throws(Invalid) {
        guard let (wallClock, offset) = DateLiteral.parse(Array(text.utf8)) else {
            throw Invalid(message: "invalid date '\(text)': expected YYYY-MM-DDTHH:MM:SS")
        }
        self.wallClock = wallClock
        if let offset {
            if timeZone != nil { throw Invalid(message: "date '\(text)' has a UTC offset and a time zone") }
            instant = Date(timeIntervalSince1970: wallClock - Double(offset))
        } else if let timeZone {
            instant = DateLiteral.instant(wallClock: wallClock, in: timeZone)
        } else {
            instant = nil
        }
    }

    /// The instant of a floating literal in `timeZone`, else the fixed instant.
    func instant(in timeZone: TimeZone) -> Date {
        instant ?? DateLiteral.instant(wallClock: wallClock, in: timeZone)
    }

    private static func instant(wallClock: Double, in timeZone: TimeZone) -> Date {
        // The zone's offset at the local time, refined once so DST transitions resolve.
        let guess = wallClock - Double(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: wallClock)))
        let offset = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: guess))
        return Date(timeIntervalSince1970: wallClock - Double(offset))
    }

    /// Wall-clock seconds and the UTC offset in seconds (if written).
    private static func parse(_ bytes: [UInt8]) -> (Double, Int?)? {
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + digits] {
                guard ASCII.isDigit(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += digits
            return value
        }
        func take(_ character: Character) -> Bool {
            guard index < bytes.count, bytes[index] == character.asciiValue else { return false }
            index += 1
            return true
        }

        guard let year = number(4), take("-"), let month = number(2), take("-"), let day = number(2),
              (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day) else { return nil }
        var seconds = Double(daysSinceEpoch(year: year, month: month, day: day)) * 86_400
        if take("T") {
            guard let hour = number(2), take(":"), let minute = number(2), take(":"), let second = number(2),
                  hour < 24, minute < 60, second < 60 else { return nil }
            seconds += Double(hour * 3600 + minute * 60 + second)
            if take(".") {
                var scale = 0.1
                let start = index
                while index < bytes.count, ASCII.isDigit(bytes[index]) {
                    seconds += Double(bytes[index] - 0x30) * scale
                    scale /= 10
                    index += 1
                }
                guard index > start, index - start <= 9 else { return nil }
            }
        }
        var offset: Int?
        if take("Z") {
            offset = 0
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let hours = number(2), take(":"), let minutes = number(2), hours < 24, minutes < 60 else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        }
        guard index == bytes.count else { return nil }
        return (seconds, offset)
    }

    private static func isLeap(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
