public import Foundation

/// Sign-ins under way: `ConfigDatabase.signIns`. No worker keeps attempts in memory (only the
/// one the provider sends the person back to reads one), so nothing is announced.
public protocol SignInStore: Sendable {
    /// Keeps a sign-in under way (its state's hash as key) until `expireTime`, and removes the
    /// expired ones.
    /// - Returns: false, keeping nothing, when `maxPending` unexpired attempts are kept already
    ///   (anyone may start one: the table stays bounded).
    func putAttempt(stateHash: String, record: [UInt8], expireTime: Date, maxPending: Int) throws(StoreError) -> Bool

    /// Takes the attempt of `stateHash`: deletes and returns it, nil for an unknown, used or
    /// expired one. Of two takers of one state, on any workers or nodes, only one gets it.
    func takeAttempt(stateHash: String) throws(StoreError) -> [UInt8]?
}
