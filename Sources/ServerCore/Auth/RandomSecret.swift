/// Lower-case hex of random bytes from the system's generator, for secrets and ids.
package enum RandomSecret {
    package static func hex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(2 * bytes)
        for _ in 0..<bytes {
            let byte = UInt8.random(in: 0...255, using: &generator)
            text += [digits[Int(byte >> 4)], digits[Int(byte & 15)]]
        }
        return String(decoding: text, as: UTF8.self)
    }
}

/// A secret that names the record it belongs to: `<prefix><id>_<random>`. The prefix lets secret
/// scanners spot a leaked one; the id finds the record, whose SHA-256 of the whole secret is then
/// compared in constant time.
struct IdentifiedSecret {
    let prefix: String
    /// Random bytes in the id (twice as many hex digits).
    let idBytes: Int

    /// A new id and its secret.
    func mint() -> (id: String, secret: String) {
        let id = RandomSecret.hex(bytes: idBytes)
        return (id, prefix + id + "_" + RandomSecret.hex(bytes: 24))
    }

    /// The id a presented secret names, if it has the form of one.
    func id(in secret: String) -> String? {
        guard secret.hasPrefix(prefix) else { return nil }
        let rest = secret.dropFirst(prefix.count).split(separator: "_", maxSplits: 1)
        guard rest.count == 2, rest[0].count == 2 * idBytes else { return nil }
        return String(rest[0])
    }
}
