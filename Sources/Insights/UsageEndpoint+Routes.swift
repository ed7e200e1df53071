import HTTP1
import ConfigStore
package import ServerCore

extension UsageEndpoint {
    /// A template's usage report (viewers), marking its parameters permanent (editors, kept in
    /// the audit log), the project's usage settings.
    package var routes: [RouteDeclaration] {
        let template = "/v1/projects/{project}/namespaces/{namespace}"
        let projectSettings = "/v1/projects/{project}/usageSettings"
        return [
            RouteDeclaration(.get, path: template + "/remoteConfig:usage", label: "remoteConfig:usage", access: .role(.viewer),
                             reads: .controlPlaneAndTemplate, audit: .read("usage.read")) { try report($0, key: $1.key) },
            RouteDeclaration(.post, path: template + "/parameters/{parameter}:markPermanent", label: "parameters:markPermanent",
                             access: .role(.editor), reads: .controlPlaneAndTemplate,
                             audit: .change("parameter.permanent", target: .parameters(["parameter"]))) {
                try mark($0, key: $1.key, permanent: true, actor: $1.identity.id)
            },
            RouteDeclaration(.post, path: template + "/parameters/{parameter}:unmarkPermanent", label: "parameters:unmarkPermanent",
                             access: .role(.editor), reads: .controlPlaneAndTemplate,
                             audit: .change("parameter.notPermanent", target: .parameters(["parameter"]))) {
                try mark($0, key: $1.key, permanent: false, actor: $1.identity.id)
            },
        ].withFirebasePaths() + [
            RouteDeclaration(.get, path: projectSettings, label: "usageSettings", access: .role(.viewer), reads: .controlPlane,
                             audit: .read("usage.settings.read")) { settings($0, project: $1.project.id) },
            RouteDeclaration(.patch, path: projectSettings, label: "usageSettings", access: .role(.editor), reads: .controlPlane,
                             audit: .change("usage.settings")) { try updateSettings($0, project: $1.project.id) },
        ]
    }
}
