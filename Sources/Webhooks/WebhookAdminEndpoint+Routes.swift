import HTTP1
package import ServerCore

extension WebhookAdminEndpoint {
    /// Endpoints, their secrets and their delivery log: the project's admins only.
    package var routes: [RouteDeclaration] {
        let hooks = "/v1/projects/{project}/webhooks", hook = hooks + "/{webhook}", delivery = hook + "/deliveries/{delivery}"
        let named = AuditRule.Name.parameters(["webhook"])
        func admin(_ method: HTTPMethod, _ path: String, label: String = "webhooks", audit: AuditRule,
                   handler: @escaping RouteDeclaration.Handler) -> RouteDeclaration {
            RouteDeclaration(method, path: path, label: label, access: .role(.admin), reads: .controlPlane, audit: audit, handler: handler)
        }
        func unknown(_ path: String, label: String, audit: AuditRule, message: @escaping @Sendable (Exchange) -> String)
            -> RouteDeclaration {
            .fallback(path: path, label: label, access: .role(.admin), reads: .controlPlane, audit: audit, message: message)
        }
        let redelivery = AuditRule.change("webhook.redeliver", target: .parameters(["webhook", "delivery"]))
        let deliveryCall = "Unknown call on a delivery; use POST …/deliveries/{delivery}:redeliver."
        return [
            admin(.get, hooks, audit: .read("webhook.list")) { try list($0, project: $1.project) },
            admin(.post, hooks, audit: .change("webhook.create", target: .answerMember("id"))) { try create($0, project: $1.project) },
            admin(.get, hook, audit: .read("webhook.list", target: named)) { show($0, project: $1.project, id: $0.parameter("webhook")) },
            admin(.patch, hook, audit: .change("webhook.update", target: named)) {
                try update($0, project: $1.project, id: $0.parameter("webhook"))
            },
            admin(.delete, hook, audit: .change("webhook.delete", target: named)) {
                delete($0, project: $1.project, id: $0.parameter("webhook"))
            },
            admin(.post, hook + ":rotateSecret", audit: .change("webhook.rotate", target: named)) {
                try rotate($0, project: $1.project, id: $0.parameter("webhook"))
            },
            admin(.post, hook + ":test", audit: .change("webhook.test", target: named)) {
                sendTest($0, project: $1.project, id: $0.parameter("webhook"))
            },
            unknown(hook + ":{method}", label: "webhooks", audit: .read("webhook.list", target: named)) {
                "Unknown method 'webhooks:\($0.parameter("method"))'; use rotateSecret or test."
            },
            admin(.get, hook + "/deliveries", label: "webhookDeliveries", audit: .read("webhookDelivery.list", target: named)) {
                try listDeliveries($0, project: $1.project, id: $0.parameter("webhook"))
            },
            admin(.post, delivery + ":redeliver", label: "webhookDeliveries", audit: redelivery) {
                try redeliver($0, project: $1.project, id: $0.parameter("webhook"), delivery: $0.parameter("delivery"))
            },
            unknown(delivery, label: "webhookDeliveries", audit: redelivery) { _ in deliveryCall },
            unknown(delivery + ":{method}", label: "webhookDeliveries", audit: redelivery) { _ in deliveryCall },
        ]
    }
}
