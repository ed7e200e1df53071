/// Every endpoint of one worker, built once by `Application`; the router picks one per request.
struct Endpoints: Sendable {
    let health: HealthEndpoint
    let metrics: MetricsEndpoint
    let projects: ProjectAdminEndpoint
    let access: AccessAdminEndpoint
    let audit: AuditEndpoint
    let webhooks: WebhookAdminEndpoint
    let templates: TemplateAdminEndpoint
    let versions: VersionAdminEndpoint
    let canaries: CanaryAdminEndpoint
    let adoption: AdoptionEndpoint
    let fetch: FetchEndpoint
    let stream: StreamEndpoint
    let ofrep: OFREPEndpoint
    let console: ConsoleEndpoint
    let signIn: SignInEndpoint
    let changes: ChangeRequestEndpoint
}
