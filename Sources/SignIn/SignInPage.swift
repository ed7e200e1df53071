import Foundation
import HTTP1
import ServerCore

/// The page a browser gets when sign-in fails: the reason in words, and the way back.
enum SignInPage {
    static func failure(_ failure: SignInFailure) -> HTTPResponse {
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Sign-in failed</title></head>
            <body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem">
            <h1>Sign-in failed</h1>
            <p id="reason">\(escape(failure.message))</p>
            <p><a href="/console/">Back to the console</a></p>
            </body></html>
            """
        return HTTPResponse(status: failure.status, headers: HTTPHeaders([
            ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"),
            ("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'"),
        ]), body: Array(html.utf8))
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
