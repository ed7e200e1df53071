import Testing

/// The behaviour every `ConfigDatabase` shares, written once against its protocols: a suite per
/// store (templates, projects, access, audit, change requests, sign-ins, webhooks) and one for
/// the database as a whole, each case run on every engine on fresh data of its own
/// (`StoreEngine.allCases`, `FreshData`).
@Suite struct StoreContract {}
