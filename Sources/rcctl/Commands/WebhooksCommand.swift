import ArgumentParser
import ConfigClient
import Foundation

/// `rcctl webhooks …`: the project's webhook endpoints and their delivery log (admin).
struct WebhooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks",
        abstract: "List, create, delete, rotate and test the project's webhook endpoints; read and redeliver their deliveries.",
        discussion: "Needs the admin role on the project (docs/webhooks.md). A secret is printed once, when made.",
        subcommands: [List.self, Create.self, Delete.self, Rotate.self, Test.self, Deliveries.self, Redeliver.self],
        defaultSubcommand: List.self
    )

    struct Endpoint: Decodable {
        var id: String, url: String, events: [String], description: String, secret: String?, previousSecretExpireTime: String?

        var line: String { "\(id)\t\(url)\t\(events.joined(separator: ","))\t\(description)" }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the endpoints (id, URL, events, description).")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            struct Page: Decodable { var webhooks: [Endpoint] }
            try await global.run({ client throws(ConfigClientError) in try await client.webhooks() }, as: Page.self) {
                $0.webhooks.map(\.line).joined(separator: "\n")
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an endpoint: URL and the events it wants (--event, repeated).")
        @Argument(help: "The http(s) URL to POST events to.") var url: String
        @Option(name: .customLong("event"), help: "An event type (template.publish, template.rollback, canary.start, …, test).")
        var events: [String] = []
        @Option(help: "What the endpoint is for.") var description: String?
        @OptionGroup var global: GlobalOptions

        func validate() throws {
            if events.isEmpty { throw ValidationError("name at least one --event") }
        }

        func run() async throws {
            let (url, events, description) = (url, events, description)
            try await global.run({ client throws(ConfigClientError) in
                try await client.createWebhook(url: url, events: events, description: description)
            }, as: Endpoint.self) { "Webhook \($0.id) (secret shown once):\n\($0.secret ?? "")" }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete an endpoint with its delivery log.")
        @Argument(help: "The endpoint's id.") var id: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let client = global.adminClient()
            let id = id
            _ = try await checked { () async throws(ConfigClientError) in try await client.deleteWebhook(id) }
            Console.out("Deleted \(id)")
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give an endpoint a new secret; the old one keeps signing for the overlap.")
        @Argument(help: "The endpoint's id.") var id: String
        @Option(help: "Seconds the old secret still signs (default: the server's webhooks.rotationOverlapSeconds; 0: none).")
        var overlap: Double?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let (id, overlap) = (id, overlap)
            try await global.run({ client throws(ConfigClientError) in
                try await client.rotateWebhookSecret(id, overlapSeconds: overlap)
            }, as: Endpoint.self) { endpoint in
                "New secret of \(endpoint.id) (shown once):\n\(endpoint.secret ?? "")"
                    + (endpoint.previousSecretExpireTime.map { "\nThe old secret signs too until \($0)." } ?? "")
            }
        }
    }

    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Send a test event to an endpoint.")
        @Argument(help: "The endpoint's id.") var id: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            struct Made: Decodable { var deliveryId: String, eventId: String }
            let id = id
            try await global.run({ client throws(ConfigClientError) in try await client.testWebhook(id) }, as: Made.self) {
                "Test event \($0.eventId): delivery \($0.deliveryId) (see rcctl webhooks deliveries \(id))"
            }
        }
    }

    struct Deliveries: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "An endpoint's delivery log, newest first: each delivery, then its attempts (time, status, latency, error).")
        @Argument(help: "The endpoint's id.") var id: String
        @Option(help: "At most this many deliveries (1-1000).") var limit = 20
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            struct Page: Decodable {
                struct Delivery: Decodable {
                    struct Attempt: Decodable { var time: String, status: Int?, latencyMs: Int, error: String? }
                    var id: String, eventId: String, eventType: String, state: String, attempts: [Attempt]
                }
                var deliveries: [Delivery]
            }
            let (id, limit) = (id, limit)
            try await global.run({ client throws(ConfigClientError) in
                try await client.webhookDeliveries(id, pageSize: limit)
            }, as: Page.self) { page in
                page.deliveries.map { delivery in
                    (["\(delivery.id)\t\(delivery.eventType)\t\(delivery.eventId)\t\(delivery.state)"] + delivery.attempts.map {
                        "  \($0.time)\t\($0.status.map(String.init) ?? "-")\t\($0.latencyMs) ms\t\($0.error ?? "")"
                    }).joined(separator: "\n")
                }.joined(separator: "\n")
            }
        }
    }

    struct Redeliver: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Send a delivery again (the same message and webhook-id).")
        @Argument(help: "The endpoint's id.") var id: String
        @Argument(help: "The delivery's id (rcctl webhooks deliveries).") var delivery: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let (id, delivery) = (id, delivery)
            let client = global.adminClient()
            _ = try await checked { () async throws(ConfigClientError) in try await client.redeliverWebhook(id, delivery: delivery) }
            Console.out("Delivery \(delivery) is pending again")
        }
    }
}
