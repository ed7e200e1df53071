import ConfigCore
import Testing

/// A namespace's name, and its equality and hash, which compare its kind and environment
/// without spelling the name out.
@Suite struct TemplateNamespaceTests {
    private let namespaces: [TemplateNamespace] = [
        .client, .server,
        TemplateNamespace(.client, in: .production), TemplateNamespace(.server, in: .production),
        TemplateNamespace(rawValue: "firebase")!, TemplateNamespace(rawValue: "firebase-server")!,
        TemplateNamespace(rawValue: "staging/firebase")!, TemplateNamespace(rawValue: "staging/firebase-server")!,
        TemplateNamespace(.client, in: EnvironmentID(rawValue: "staging")!),
        TemplateNamespace(.client, in: EnvironmentID(rawValue: "dev")!),
        // An id made at run time, as one read from the store is.
        TemplateNamespace(.server, in: EnvironmentID(rawValue: "dev-" + String(2))!),
        TemplateNamespace(.client, in: EnvironmentID(rawValue: "produc" + "tion")!),
    ]

    @Test func namespacesAreEqualExactlyWhenTheirNamesAreAndEqualOnesHashAlike() {
        for lhs in namespaces {
            for rhs in namespaces {
                #expect((lhs == rhs) == (lhs.rawValue == rhs.rawValue), "\(lhs) and \(rhs)")
                if lhs == rhs { #expect(lhs.hashValue == rhs.hashValue, "\(lhs) and \(rhs)") }
            }
        }
        #expect(Set(namespaces).count == Set(namespaces.map(\.rawValue)).count)
    }

    @Test func productionIsNamedByItsKindAloneAndAnotherEnvironmentByItsIdFirst() {
        #expect(TemplateNamespace.client.rawValue == "firebase")
        #expect(TemplateNamespace(.server, in: .production).rawValue == "firebase-server")
        #expect(TemplateNamespace(.client, in: EnvironmentID(rawValue: "staging")!).rawValue == "staging/firebase")
        #expect(TemplateNamespace(rawValue: "production/firebase") == nil)
        #expect(TemplateNamespace(rawValue: "staging/firebase")?.environment == EnvironmentID(rawValue: "staging"))
    }
}
