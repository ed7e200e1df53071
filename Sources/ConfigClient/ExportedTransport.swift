// The transport is part of this library's API: `ConfigClient(configuration:transport:)` and
// `AdminClient` take any `HTTPTransport`, and users write their own or use `CurlTransport`.
// Re-exported rather than aliased, so that `import ConfigClient` alone keeps compiling: public
// typealiases would name the types, but under MemberImportVisibility their members (a response's
// `status`, a stream event's cases) would still need `import OutboundHTTP` in every file.
@_exported public import OutboundHTTP
