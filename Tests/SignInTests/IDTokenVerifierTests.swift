@testable import SignIn
import Foundation
import Testing

/// ID tokens for sign-in, checked against a provider's keys: a key set and tokens made once with
/// Python's `cryptography` (RSA 2048 and EC P-256 keys; valid tokens expire in 2100), so that
/// the checks run against signatures made elsewhere.
@Suite struct IDTokenVerifierTests {
    static let jwks = #"{"keys":[{"kty":"RSA","kid":"rsa-1","use":"sig","alg":"RS256","n":"rQvy6gXBg5ysOfbO0xQCV37LD02Q9tGJ8uQflXlmXcWR03Y0oqJdMMY37-1GG1byU0K5WB3eybC24NI1Sfmrf5V6Sc90I1p6672s_o5Fxiu7t6-AkIwKjMUtMX4Fx5As6Z6bMMj6NbngHcad17c4YUzgBdk4FQsryh_7kASFbM7WmEpMg_0ocX35EkvlDQRRttBrNTdQD-ilZu3wP6XSsHB2Osip3W9IDklmj1qhDWg2ItC2PDIPqLDzucvEK_dJw5wn2nxIBMOJeWX-pOJODNfh1GocOD6BsiGlar_EXrJewuLd343t9Z5kf6P9-Ho3cXw_Htvf0wEZIfsm5QeyXw","e":"AQAB"},{"kty":"EC","kid":"ec-1","use":"sig","alg":"ES256","crv":"P-256","x":"tuBdLDTBskE6RgIlfRfTNCoBuNoa-2YTvWX9CMLClRg","y":"Jn7eyzchgy4W44XaoEEYYRmh8So81bYenP5hE7aRUOc"}]}"#
    static let tokens: [String: String] = [
        "validRS256": "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6InJzYS0xIn0.eyJpc3MiOiJodHRwczovL2lkcC5leGFtcGxlLmNvbSIsImF1ZCI6InJjcy1jb25zb2xlIiwic3ViIjoidS0xIiwiZW1haWwiOiJhZGFAYWNtZS5jb20iLCJuYW1lIjoiQWRhIiwibm9uY2UiOiJuLTEyMyIsImlhdCI6MTg5MzQ1NjAwMCwiZXhwIjo0MTAyNDQ0ODAwfQ.SuS0XYM8v3txNyvdtCMcLX0xhRl-7qBn6ruhU1QVZyvctzK8sZjC1vywldLJfSwRa83xOJYrUf8nB3KPkGSYCm3Di2NHYTfO78EHjIiS4XLBViWEYOEqFCaFL66PsZUW4SEFSxXBmq4N1iyWUMxG_fHBNpS30N01hcuhKsgAliPDCeaC5cOKDmG27a2Bvb5Idj5SNS8H52ZdKObXI3r7nkwG_hEINIqTkUKuFYktbhqJr2-1WM6eDnfyyB9TPEPe3y3i8Vkh35Ci8COJLye6ld1AewFOVXHuSPCblmfp7zmdiLNgm6Y6ua_GsNWuhUyAZwvo8_u-qCjf1OozedyVhg",
        "validES256": "eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6ImVjLTEifQ.eyJpc3MiOiJodHRwczovL2lkcC5leGFtcGxlLmNvbSIsImF1ZCI6InJjcy1jb25zb2xlIiwic3ViIjoidS0xIiwiZW1haWwiOiJhZGFAYWNtZS5jb20iLCJuYW1lIjoiQWRhIiwibm9uY2UiOiJuLTEyMyIsImlhdCI6MTg5MzQ1NjAwMCwiZXhwIjo0MTAyNDQ0ODAwfQ.a3QChunIaiEUDM2RYT03MA9X1Ye7uM6V-nFLD_IgNm5hzhPyJSFLXggOhiRI5Hmzkay8fTAnixBBtuLZnV6zoQ",
        "audienceList": "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6InJzYS0xIn0.eyJpc3MiOiJodHRwczovL2lkcC5leGFtcGxlLmNvbSIsImF1ZCI6WyJvdGhlciIsInJjcy1jb25zb2xlIl0sInN1YiI6InUtMSIsImVtYWlsIjoiYWRhQGFjbWUuY29tIiwibmFtZSI6IkFkYSIsIm5vbmNlIjoibi0xMjMiLCJpYXQiOjE4OTM0NTYwMDAsImV4cCI6NDEwMjQ0NDgwMH0.Ry3OznlrXjnmK_KISe2ky2tqxkHmEhoL9qBFOunS5QFTxBGvIZKLVet8DPBC6mOpiABPH18PgoWIcaxPfwrIiQqokQkZk4fckG3Gws460ABqS0ib3qCdDMr-Hxs2-4zD7azyirlr66Y7UoHKM7uxMRNhdB1VUEf7dDRZU7KxA4uqm6c4mlePQ_mtjcfFggleicPGgutRvwSH4ACG1e9hZShnumdA8-xz9we60lQssmuj4EpHex7iMGGWEIYQwLcRAgTWoAHRPjvZNS6K7ljRFaLsxRzRxnXaFP8qW1lt8w--jEhodNi_qPGZN4Vek_rVqd-UNrLGNv6TVWCOqma0uw",
        "wrongSignature": "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6InJzYS0xIn0.eyJpc3MiOiJodHRwczovL2lkcC5leGFtcGxlLmNvbSIsImF1ZCI6InJjcy1jb25zb2xlIiwic3ViIjoidS0xIiwiZW1haWwiOiJhZGFAYWNtZS5jb20iLCJuYW1lIjoiQWRhIiwibm9uY2UiOiJuLTEyMyIsImlhdCI6MTg5MzQ1NjAwMCwiZXhwIjo0MTAyNDQ0ODAwfQ.gqmwZsvJ9jtqeBoNDNRWkT4XISuZvebRsa08T6_oJUJwnhwDAkF5useaKilEt8AcuIypktnrLfEsWKWkI0jWfOlpJgDiAQJNZArGir1NlrbyUxv1QxMkDdqtRd9sSJFO4YbAW7CYv6LolINz4xTOv2KRh0xfbI8FTSK2a8Oe3Xd_UGOvuZf0nMtpsaAjyNDle_H2_ZQdzFX_bJ4V4jTTIneAj4WXmWfmCxJfWFio5_8JboL8zns2z98-sK5re0C6VZNznvqtzdjpLGmrRYHRjSBXa2gZA6bWdE_b9FxFudp1HJNibvjO1KBNSKhsOsiuKopZjw-zDsUPYP4BOaFjRQ",
        "wrongAudience": "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6InJzYS0xIn0.eyJpc3MiOiJodHRwczovL2lkcC5leGFtcGxlLmNvbSIsImF1ZCI6InNvbWVvbmUtZWxzZSIsInN1YiI6InUtMSIsImVtYWlsIjoiYWRhQGFjbWUuY29tIiwibmFtZSI6IkFkYSIsIm5vbmNlIjoibi0xMjMiLCJpYXQiOjE4OTM0NTYwMDAsImV4cCI6NDEwMjQ0NDgwMH0.BtR30_4ehfYEsjicWMQUNljoOvfSBtWjdA7jF1hiXEclDw21-gEEjB1sTSyTjTkb8No0qsmeAx4gBt5qK4lle0Spr7amuXplWZd20BymUn3hJvCoo2n2qTSia6XEb-KlmKSbFDUH3Zb4MQxWNi9ZCLV9PnwSd39IkG_QvFpu-41SLQASB2yu5CCwYKsx2RNIjapv53h0sL-YLigMDmf_0i_4YFZAyKjlXdtaKZ5oVfgv7agcEe6B8wP-YEaeIfxclTBld8-96Gwg6u2HFqw6bcqntTn8TQ5iCxQbZGw4H7u3S62iwIu30FzIuHegTyP2lkTO4xs38rla6LZ5-YsQRw",
        "wrongIssuer": "eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6ImVjLTEifQ.eyJpc3MiOiJodHRwczovL2V2aWwuZXhhbXBsZS5jb20iLCJhdWQiOiJyY3MtY29uc29sZSIsInN1YiI6InUtMSIsImVtYWlsIjoiYWRhQGFjbWUuY29tIiwibmFtZSI6IkFkYSIsIm5vbmNlIjoibi0xMjMiLCJpYXQiOjE4OTM0NTYwMDAsImV4cCI6NDEwMjQ0NDgwMH0.cMR0S9QKs-zc-lsxCa5l43-3oaAsHppUVorFGAWInpzs7d37adQBrmSVGQHFU68U1dLiiYHLd7g5T7FHvuDJmg",
        "expired": "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6InJzYS0xIn0.eyJpc3MiOiJodHRwczovL2lkcC5leGFtcGxlLmNvbSIsImF1ZCI6InJjcy1jb25zb2xlIiwic3ViIjoidS0xIiwiZW1haWwiOiJhZGFAYWNtZS5jb20iLCJuYW1lIjoiQWRhIiwibm9uY2UiOiJuLTEyMyIsImlhdCI6OTQ2NjgwMDAwLCJleHAiOjk0NjY4NDgwMH0.iPpYfhF8zXw4A6y1-0Nt87l6hF0Slzbb3E0P791AqsDMUkDkm0aEy9Fi0rXfd9Nlb7D-Lm22vFcbhdL80-wTBCPo2QUE8knH2uu7jBHkCWEwLGjff5SQOTf0ircVujawz0w-IggwjQJVRFIvBlKlaIWOKEtPxs2HRlRgqxw2dVdM2lA2ryFoXB3j3fInt-7pcQ85XoSqs5bRWSdmLovExDVlu3dF8QAl8I01Sk5Q1l3Leo4rm9FNTfZJp5PeuQxUr8NrrFEBp5lwvosRQ-AQNw6R0nOS8_xtsLY7bAGc-1YruYPyZS64LxTodg977kly70hWjanI6GX90m8mT94_VA",
        "issuedInTheFuture": "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6InJzYS0xIn0.eyJpc3MiOiJodHRwczovL2lkcC5leGFtcGxlLmNvbSIsImF1ZCI6InJjcy1jb25zb2xlIiwic3ViIjoidS0xIiwiZW1haWwiOiJhZGFAYWNtZS5jb20iLCJuYW1lIjoiQWRhIiwibm9uY2UiOiJuLTEyMyIsImlhdCI6NDEwMjQ0NDAwMCwiZXhwIjo0MTAyNDQ0ODAwfQ.MMZWZwR5VYrwPqzWVjUDwMlIExSecPMlsptNAPaPbhzidg867P_wD9X6PTi9hssuZ9ShxUcUkj1p3E6I7sn9LuseTieutZeQuDqGPv80y9tQCGOiVrX8F_Ps1IvknoSXKI9-JY0lE_E8K0d-_nFcHIWpUR_8IfUFydTmvui--oZbu6CMLb3WRVI-XKEg63oBv9i7OmdHKSypo1-sxNjACD-n28ocScCVKXUYcnKg4aRuoTXXO0qIuQswAtb-2lNXaxK2m9YvAs5D9mS1kNvB-1GIEQv9n7hJODcdT50RWRcn3dgkiWnRiI4CcuYlWe5cxIAxYDxQA3paXPs_JbJGSw",
        "wrongNonce": "eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6ImVjLTEifQ.eyJpc3MiOiJodHRwczovL2lkcC5leGFtcGxlLmNvbSIsImF1ZCI6InJjcy1jb25zb2xlIiwic3ViIjoidS0xIiwiZW1haWwiOiJhZGFAYWNtZS5jb20iLCJuYW1lIjoiQWRhIiwibm9uY2UiOiJyZXBsYXllZCIsImlhdCI6MTg5MzQ1NjAwMCwiZXhwIjo0MTAyNDQ0ODAwfQ.z2e6_NBg_kz1COJ_S56yjXkGBgaRR4OmHgcTEcT4GxwCB8bgjpXOIquQwcMvZgfYW9eR0o-fE50DSe0ecU7vOA",
        "algNone": "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJpc3MiOiJodHRwczovL2lkcC5leGFtcGxlLmNvbSIsImF1ZCI6InJjcy1jb25zb2xlIiwic3ViIjoidS0xIiwiZW1haWwiOiJhZGFAYWNtZS5jb20iLCJuYW1lIjoiQWRhIiwibm9uY2UiOiJuLTEyMyIsImlhdCI6MTg5MzQ1NjAwMCwiZXhwIjo0MTAyNDQ0ODAwfQ.",
        "unknownKey": "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6InJzYS05In0.eyJpc3MiOiJodHRwczovL2lkcC5leGFtcGxlLmNvbSIsImF1ZCI6InJjcy1jb25zb2xlIiwic3ViIjoidS0xIiwiZW1haWwiOiJhZGFAYWNtZS5jb20iLCJuYW1lIjoiQWRhIiwibm9uY2UiOiJuLTEyMyIsImlhdCI6MTg5MzQ1NjAwMCwiZXhwIjo0MTAyNDQ0ODAwfQ.X_6T7lPfHlxTR-QAQZBUOjz8zsyO0XNasfc889HZ9jnoKcKlt7g0vm4kTbBK9cWA6O0K7LX5M-OQ8-BwS5_LWtoSeaOcyot6Onj1xecpSYMqhhIqI47EsMtf35hTebqZbC6tK2RHZPO6fXO_c--xbfNo10WE2SxqPf_0q114PaaFk6TgS61NvwMMnmRBmK3q4uDebkFgm5BOBiauYLfuL_hTORInAJ4q5dt27JTstWXYaVBLx9Hkio94sDYSz1wphy7rPMDoxgxbIQ4BghZpzvUV1Rr9jghv34DbKn1PewGkHlvETs4TPB70Wo-m73Uy2vUzCgHiHUazEW97qdiN4w",
        "hs256": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6InJzYS0xIn0.eyJpc3MiOiJodHRwczovL2lkcC5leGFtcGxlLmNvbSIsImF1ZCI6InJjcy1jb25zb2xlIiwic3ViIjoidS0xIiwiZW1haWwiOiJhZGFAYWNtZS5jb20iLCJuYW1lIjoiQWRhIiwibm9uY2UiOiJuLTEyMyIsImlhdCI6MTg5MzQ1NjAwMCwiZXhwIjo0MTAyNDQ0ODAwfQ.",
        "tamperedPayload": "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6InJzYS0xIn0.eyJpc3MiOiJodHRwczovL2lkcC5leGFtcGxlLmNvbSIsImF1ZCI6InJjcy1jb25zb2xlIiwic3ViIjoidS0xIiwiZW1haWwiOiJtYWxsb3J5QGFjbWUuY29tIiwibmFtZSI6IkFkYSIsIm5vbmNlIjoibi0xMjMiLCJpYXQiOjE4OTM0NTYwMDAsImV4cCI6NDEwMjQ0NDgwMH0.SuS0XYM8v3txNyvdtCMcLX0xhRl-7qBn6ruhU1QVZyvctzK8sZjC1vywldLJfSwRa83xOJYrUf8nB3KPkGSYCm3Di2NHYTfO78EHjIiS4XLBViWEYOEqFCaFL66PsZUW4SEFSxXBmq4N1iyWUMxG_fHBNpS30N01hcuhKsgAliPDCeaC5cOKDmG27a2Bvb5Idj5SNS8H52ZdKObXI3r7nkwG_hEINIqTkUKuFYktbhqJr2-1WM6eDnfyyB9TPEPe3y3i8Vkh35Ci8COJLye6ld1AewFOVXHuSPCblmfp7zmdiLNgm6Y6ua_GsNWuhUyAZwvo8_u-qCjf1OozedyVhg",
    ]

    let now = Date(timeIntervalSince1970: 1_900_000_000)

    func verifier() throws -> IDTokenVerifier {
        IDTokenVerifier(issuer: "https://idp.example.com", clientID: "rcs-console", keys: try JSONWebKeySet(json: Array(Self.jwks.utf8)))
    }

    func verify(_ name: String, nonce: String = "n-123") throws(IDTokenVerifier.Failure) -> IDTokenVerifier.Identity {
        try (try? verifier())!.verify(Self.tokens[name]!, nonce: nonce, now: now)
    }

    @Test(arguments: ["validRS256", "validES256", "audienceList"]) func aValidTokenGivesWhoSignedIn(_ name: String) throws {
        let identity = try verify(name)
        #expect(identity == IDTokenVerifier.Identity(subject: "u-1", email: "ada@acme.com", emailVerified: nil, name: "Ada", groups: []))
    }

    @Test func everyBadTokenIsRefusedWithItsReason() {
        let expected: [(String, IDTokenVerifier.Failure)] = [
            ("wrongSignature", .badSignature), ("tamperedPayload", .badSignature), ("wrongAudience", .wrongAudience),
            ("wrongIssuer", .wrongIssuer("https://evil.example.com")), ("expired", .expired),
            ("issuedInTheFuture", .issuedInTheFuture), ("wrongNonce", .wrongNonce), ("algNone", .unsupportedAlgorithm("none")),
            ("hs256", .unsupportedAlgorithm("HS256")), ("unknownKey", .unknownKey("rsa-9")),
        ]
        for (name, failure) in expected {
            #expect(throws: failure, "\(name)") { try verify(name) }
        }
    }

    @Test func aReplayedSignInIsRefusedByItsNonce() {
        #expect(throws: IDTokenVerifier.Failure.wrongNonce) { try verify("validES256", nonce: "n-456") }
    }

    @Test func aKeyOfTheWrongTypeForTheAlgorithmIsRefused() throws {
        // The RSA-signed token's header names the EC key.
        let parts = Self.tokens["validRS256"]!.split(separator: ".")
        let header = Data(#"{"alg":"RS256","kid":"ec-1"}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        #expect(throws: IDTokenVerifier.Failure.badSignature) {
            try verifier().verify("\(header).\(parts[1]).\(parts[2])", nonce: "n-123", now: now)
        }
    }

    @Test func malformedInputIsRefused() throws {
        for token in ["", "a.b", "a.b.c.d", "%%%.e30.", "e30.e30.", "bm90IGpzb24.e30."] {
            #expect(throws: IDTokenVerifier.Failure.self, "\(token)") { try verifier().verify(token, nonce: "n", now: now) }
        }
        #expect(throws: IDTokenVerifier.Failure.self) { try JSONWebKeySet(json: Array("[]".utf8)) }
        let partial = try JSONWebKeySet(json: Array(#"{"keys":[{"kty":"oct","k":"x"},{"kty":"EC","crv":"P-384","x":"AA","y":"AA"}]}"#.utf8))
        #expect(partial.key(nil) == nil, "keys of other types and curves are left out")
    }
}
