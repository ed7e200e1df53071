/// The id of a client API key made through the API, in lists, revocations and messages: the
/// start of its hash (never the key).
package enum ClientKeyID {
    package static func of(_ hash: String) -> String { String(hash.prefix(12)) }
}
