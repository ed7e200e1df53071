/// An int64 in proto3 JSON: written as a string, read from a string or a number.
struct JSONInt64: Codable, Sendable, Equatable {
    var value: Int64

    init(_ value: Int64) {
        self.value = value
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int64.self) {
            value = number
        } else {
            let text = try container.decode(String.self)
            guard let number = Int64(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not an int64")
            }
            value = number
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(String(value))
    }
}
