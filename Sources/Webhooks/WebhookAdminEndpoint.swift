package import ConfigCore
package import ConfigStore
import Foundation
import HTTP1
package import ServerCore

/// A project's webhook endpoints and their delivery log (docs/webhooks.md, "API"): list,
/// create, read, update, delete, rotate the secret, send a test event, list deliveries and
/// redeliver one. Their routes let only the project's admins in; the audit trail keeps every
/// change (never a secret). Secrets are in the answers of create and rotate only.
package struct WebhookAdminEndpoint: Sendable {
    let store: any ConfigDatabase
    let settings: WebhookSettings
    let dispatcher: WebhookDispatcher
    let clock: any WallClock

    package init(store: any ConfigDatabase, settings: WebhookSettings, dispatcher: WebhookDispatcher, clock: any WallClock) {
        self.store = store
        self.settings = settings
        self.dispatcher = dispatcher
        self.clock = clock
    }

    static let maxPerProject = 20

    // MARK: Endpoints

    func list(_ exchange: Exchange, project: StoredProject) throws {
        exchange.answerFromStore { [store] in
            .json(Self.encode(["webhooks": try store.webhooks.webhooks(project: project.id).map { EndpointJSON($0) }]))
        }
    }

    func show(_ exchange: Exchange, project: StoredProject, id: String) {
        exchange.answerFromStore { [self] in .json(Self.encode(EndpointJSON(try endpoint(project: project, id: id)))) }
    }

    func create(_ exchange: Exchange, project: StoredProject) throws {
        let request = try WebhookRequest(body: exchange.request.body, requireAll: true)
        let url = request.url ?? ""
        let address = try WebhookRequest.check(url: url, allowPrivate: settings.allowPrivateAddresses)
        let now = clock.now
        let endpoint = StoredWebhook(
            id: "wh_" + RandomSecret.hex(bytes: 8), project: project.id, url: url, description: request.description ?? "",
            events: request.events ?? [], secret: WebhookSignature.newSecret(), createTime: now, updateTime: now)
        exchange.answerFromStore { [self] in
            try WebhookRequest.checkResolved(address, allowPrivate: settings.allowPrivateAddresses)
            guard try store.webhooks.webhooks(project: project.id).count < Self.maxPerProject else {
                throw APIError(400, "Project '\(project.id)' has \(Self.maxPerProject) webhooks already, the most it may have.",
                               canonicalStatus: "FAILED_PRECONDITION")
            }
            try store.webhooks.createWebhook(endpoint)
            return .json(Self.encode(EndpointJSON(endpoint, showingSecret: true)))
        }
    }

    func update(_ exchange: Exchange, project: StoredProject, id: String) throws {
        let request = try WebhookRequest(body: exchange.request.body, requireAll: false)
        let address = try request.url.map { try WebhookRequest.check(url: $0, allowPrivate: settings.allowPrivateAddresses) }
        exchange.answerFromStore { [self] in
            if let address { try WebhookRequest.checkResolved(address, allowPrivate: settings.allowPrivateAddresses) }
            var endpoint = try endpoint(project: project, id: id)
            endpoint.url = request.url ?? endpoint.url
            endpoint.description = request.description ?? endpoint.description
            endpoint.events = request.events ?? endpoint.events
            endpoint.updateTime = clock.now
            guard try store.webhooks.updateWebhook(endpoint) else { throw Self.notFound(id) }
            return .json(Self.encode(EndpointJSON(endpoint)))
        }
    }

    func delete(_ exchange: Exchange, project: StoredProject, id: String) {
        exchange.answerFromStore { [store] in
            guard try store.webhooks.deleteWebhook(project: project.id, id: id) else { throw Self.notFound(id) }
            return HTTPResponse(status: 204)
        }
    }

    /// `:rotateSecret` `{"overlapSeconds": N}`: a new secret; the old one keeps signing (beside
    /// the new) for the overlap.
    func rotate(_ exchange: Exchange, project: StoredProject, id: String) throws {
        let requested = try ManagementBody(exchange.request.body, fields: ["overlapSeconds"]).numberText("overlapSeconds")
        let overlap = try requested.map { text in
            guard let seconds = Double(text), (0...2_592_000).contains(seconds) else {
                throw APIError.badRequest("'overlapSeconds' must be a number of seconds from 0 to 2592000 (30 days).")
            }
            return seconds
        } ?? settings.rotationOverlapSeconds
        exchange.answerFromStore { [self] in
            var endpoint = try endpoint(project: project, id: id)
            let now = clock.now
            endpoint.previousSecret = overlap > 0 ? endpoint.secret : nil
            endpoint.previousSecretExpireTime = overlap > 0 ? now.addingTimeInterval(overlap) : nil
            endpoint.secret = WebhookSignature.newSecret()
            endpoint.updateTime = now
            guard try store.webhooks.updateWebhook(endpoint) else { throw Self.notFound(id) }
            return .json(Self.encode(EndpointJSON(endpoint, showingSecret: true)))
        }
    }

    /// `:test`: a `test` event for this endpoint alone, delivered like any other.
    func sendTest(_ exchange: Exchange, project: StoredProject, id: String) {
        let data = Self.encode(["endpoint": id, "message": "A test event from remote-config-server."])
        let event = WebhookEvent(type: WebhookEventType.test.rawValue, project: project.id, namespace: nil, time: clock.now, data: data)
        exchange.answerFromStore { [self] in
            guard let delivery = try store.webhooks.appendTestEvent(event, project: project.id, endpointID: id) else {
                throw Self.notFound(id)
            }
            dispatcher.poke()
            return .json(Self.encode(["deliveryId": "\(delivery)", "eventId": event.id]))
        }
    }

    // MARK: Delivery log

    func listDeliveries(_ exchange: Exchange, project: StoredProject, id: String) throws {
        let pageSize = try exchange.uri.pageSize(in: 1...1000, default: 50)
        let pageToken = exchange.uri.parameter("pageToken")
        exchange.answerFromStore { [self] in
            _ = try endpoint(project: project, id: id)
            let (deliveries, next) = try store.webhooks.deliveries(endpointID: id, pageSize: pageSize, pageToken: pageToken)
            return .json(Self.encode(DeliveryPage(deliveries: deliveries.map(DeliveryJSON.init), nextPageToken: next)))
        }
    }

    /// `POST …/deliveries/{delivery}:redeliver`.
    func redeliver(_ exchange: Exchange, project: StoredProject, id: String, delivery: String) throws {
        guard let number = Int64(delivery), number > 0 else { throw APIError.notFound("No delivery '\(delivery)'.") }
        exchange.answerFromStore { [self] in
            _ = try endpoint(project: project, id: id)
            guard try store.webhooks.redeliver(endpointID: id, deliveryID: number) else {
                throw APIError.notFound("No delivery '\(delivery)' of webhook '\(id)'.")
            }
            dispatcher.poke()
            return .json(Self.encode(["deliveryId": "\(number)", "state": WebhookDelivery.State.pending.rawValue]))
        }
    }

    // MARK: Helpers

    /// The endpoint `id` of `project` (blocking).
    private func endpoint(project: StoredProject, id: String) throws -> StoredWebhook {
        guard let endpoint = try store.webhooks.webhooks(project: project.id).first(where: { $0.id == id }) else {
            throw Self.notFound(id)
        }
        return endpoint
    }

    private static func notFound(_ id: String) -> APIError { APIError.notFound("No webhook '\(id)' in this project.") }

    static func encode(_ value: some Encodable) -> [UInt8] { Array(TemplateJSON.encode(value)) }
}
