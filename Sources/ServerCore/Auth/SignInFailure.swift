/// Why a sign-in failed, in words for the person signing in and the audit log.
package struct SignInFailure: Error, Sendable {
    /// 400 for a bad or replayed answer, 403 for someone who may not sign in, 502 for a
    /// provider that failed or did not answer.
    package let status: Int
    package let message: String

    package init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }
}
