/// Thrown by a handler that found what it reads older than a change acknowledged since (the
/// fetch and OFREP find so in the lookup that serves their template): the router answers the
/// request again once `target` was read (read-your-writes, docs/consistency.md).
package struct ReloadNeeded: Error {
    let target: ReloadTarget

    package init(_ target: ReloadTarget) {
        self.target = target
    }
}
