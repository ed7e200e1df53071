import HTTP1
import ServerCore

extension ErrorDialect {
    /// Google's error body with the console's security fields, which every answer of the
    /// console carries.
    static let console = ErrorDialect(name: "console", answer: { error, _ in
        var error = error
        for field in ConsoleFiles.securityHeaders { error.headers.add(name: field.name, value: field.value) }
        return error.response
    }, format: nil)
}
