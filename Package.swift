// swift-tools-version:6.0
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "remote-config-server",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "remote-config-server", targets: ["remote-config-server"]),
        .executable(name: "rcctl", targets: ["rcctl"]),
        .library(name: "ConfigClient", targets: ["ConfigClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // C and system libraries.
        .target(name: "CLinuxIO"),
        .systemLibrary(name: "RCSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CLibCrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),

        // Templates, validation, conditions and evaluation: pure code, no I/O.
        .target(
            name: "ConfigCore",
            dependencies: ["CLibCrypto"],
            swiftSettings: strictSettings
        ),
        // Versioned template storage in SQLite.
        .target(name: "ConfigStore", dependencies: ["ConfigCore", "RCSQLite"], swiftSettings: strictSettings),
        // The same storage on a PostgreSQL server, for several nodes sharing one database.
        .target(
            name: "PostgresStore", dependencies: ["ConfigStore", "ConfigCore", "CLibPQ"], swiftSettings: strictSettings),
        // HTTP/1.1 request parser and response encoder; no sockets.
        .target(name: "HTTP1", swiftSettings: strictSettings),
        // Sockets, the epoll loop, connections and the HTTP server on top of HTTP1.
        .target(
            name: "EventLoop",
            dependencies: ["CLinuxIO", "HTTP1", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),
        // The server, in modules the compiler keeps apart (docs/server-layout.md): ServerCore, which
        // every feature builds on; one module per feature, each on ServerCore alone (no feature
        // imports another; where the core has to reach a feature, such as a commit poking webhook
        // delivery, it declares a protocol or a closure and ConfigServer wires the feature in); and
        // ConfigServer, which builds them all. What they offer one another is `package`, not
        // `public`.
        //
        // What every part of the server builds on: the exchange and its errors, routing, access
        // control, the audit trail, the templates a worker serves and the one path for their
        // changes, the client API (fetch, real-time), metrics, the job runtime, the workers'
        // coordination and the configuration (docs/server-layout.md).
        .target(
            name: "ServerCore",
            dependencies: [
                "ConfigCore", "ConfigStore", "EventLoop", "HTTP1", "CLinuxIO", "CZlib", "CLibCrypto",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The management API: templates, versions, canaries, projects and their keys, principals,
        // members and tokens, and the audit log's endpoint.
        .target(
            name: "Management",
            dependencies: ["ServerCore", "ConfigCore", "ConfigStore", "EventLoop", "HTTP1"],
            swiftSettings: strictSettings
        ),
        // Change requests and approval policies (docs/change-control.md): the endpoint, the rules
        // of their statuses and steps, the applier, the rule on direct changes the management
        // API's routes carry, and the `due changes` job.
        .target(
            name: "ChangeControl",
            dependencies: [
                "ServerCore", "ConfigCore", "ConfigStore", "HTTP1", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // Webhook endpoints, their delivery log and the `webhook delivery` job (docs/webhooks.md).
        .target(
            name: "Webhooks",
            dependencies: [
                "ServerCore", "ConfigCore", "ConfigStore", "HTTP1", "CLibCrypto",
                // Posts to the address it checked.
                "OutboundHTTP",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // OpenFeature's remote evaluation protocol (OFREP): its evaluations, event stream and
        // error dialect (docs/openfeature.md). What a template's OFREP answers are is ServerCore's:
        // each served template caches them beside its fetch answers.
        .target(
            name: "OpenFeature",
            dependencies: ["ServerCore", "ConfigCore", "ConfigStore", "EventLoop", "HTTP1"],
            swiftSettings: strictSettings
        ),
        // What clients read (docs/insights.md): the usage report, parameters marked permanent and
        // the project's stale days, and the `usage review` job (stale events, gauges). Counting,
        // on the fetch path, and the workers' writes of their counts are ServerCore's.
        .target(
            name: "Insights",
            dependencies: ["ServerCore", "ConfigCore", "ConfigStore", "HTTP1", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),
        // Signing in to the console with the team's OpenID Connect provider, and the routes of
        // console sessions (docs/access.md, "Sign-in"). Looking a session up, which every request
        // with a cookie needs, is ServerCore's.
        .target(
            name: "SignIn",
            dependencies: [
                "ServerCore", "ConfigCore", "ConfigStore", "EventLoop", "HTTP1", "CLibCrypto",
                // Calls the identity provider.
                "OutboundHTTP",
            ],
            swiftSettings: strictSettings
        ),
        // The composition: `Application`, which builds every part of a worker and lists every
        // feature's routes; the daemon (command line, supervisor, worker slots, `ServerInstance`);
        // the web console's files and the OpenAPI document.
        .target(
            name: "ConfigServer",
            dependencies: [
                "ServerCore", "Management", "ChangeControl", "OpenFeature", "SignIn", "Webhooks", "Insights",
                "ConfigCore", "ConfigStore", "PostgresStore", "EventLoop", "HTTP1", "CLinuxIO",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(name: "remote-config-server", dependencies: ["ConfigServer"], swiftSettings: strictSettings),

        // HTTP calls out on libcurl, for the client library and the server alike: pinned
        // addresses, no redirects, proxies only when allowed, limits on what is read and kept.
        .target(name: "OutboundHTTP", dependencies: ["CCurl"], swiftSettings: strictSettings),
        // Client library and admin CLI: speak only the public HTTP API.
        .target(name: "ConfigClient", dependencies: ["OutboundHTTP"], swiftSettings: strictSettings),
        .executableTarget(
            name: "rcctl",
            dependencies: ["ConfigClient", "ConfigCore", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: strictSettings
        ),

        // Helpers shared by test targets (and compiled into the HTTP fuzz target by scripts/fuzz).
        .target(name: "TestSupport", dependencies: ["CLinuxIO", "CZlib"], path: "Tests/TestSupport", swiftSettings: strictSettings),
        // The real server started in-process, for the end-to-end tests of the server and the client.
        .target(
            name: "ServerTestSupport",
            dependencies: ["ConfigServer", "ServerCore", "ConfigCore", .product(name: "Logging", package: "swift-log")],
            path: "Tests/ServerTestSupport",
            swiftSettings: strictSettings
        ),
        // A PostgreSQL server for the tests: RCS_TEST_POSTGRES_URL or a throw-away cluster.
        .target(
            name: "PostgresTestSupport", dependencies: ["PostgresStore", "TestSupport"], path: "Tests/PostgresTestSupport",
            swiftSettings: strictSettings
        ),
        // Stores of either engine on fresh data, for the store contract and each engine's own tests.
        .target(
            name: "StoreTestSupport",
            dependencies: ["ConfigStore", "ConfigCore", "PostgresStore", "PostgresTestSupport", "TestSupport"],
            path: "Tests/StoreTestSupport", swiftSettings: strictSettings
        ),
        .testTarget(name: "HTTP1Tests", dependencies: ["HTTP1", "TestSupport"], swiftSettings: strictSettings),
        .testTarget(name: "ConfigCoreTests", dependencies: ["ConfigCore", "TestSupport"], resources: [.copy("Fixtures")], swiftSettings: strictSettings),
        // SQLite itself, and the store contract that every case runs on both engines.
        .testTarget(
            name: "ConfigStoreTests",
            dependencies: ["ConfigStore", "ConfigCore", "TestSupport", "PostgresStore", "PostgresTestSupport", "StoreTestSupport"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "PostgresStoreTests",
            dependencies: ["PostgresStore", "ConfigStore", "ConfigCore", "TestSupport", "PostgresTestSupport", "StoreTestSupport"],
            swiftSettings: strictSettings),
        .testTarget(name: "OutboundHTTPTests", dependencies: ["OutboundHTTP", "TestSupport"], swiftSettings: strictSettings),
        .testTarget(name: "EventLoopTests", dependencies: ["EventLoop", "HTTP1", "CLinuxIO", .product(name: "Logging", package: "swift-log")], swiftSettings: strictSettings),
        // Depends on both executables so they are built next to the test bundle for its
        // end-to-end tests, which run them as child processes.
        .testTarget(name: "ConfigServerTests", dependencies: ["ConfigServer", "ServerCore", "Webhooks", "ConfigCore", "ConfigClient", "OutboundHTTP", "remote-config-server", "rcctl", "ConfigStore", "CLinuxIO", "CZlib", "TestSupport", "ServerTestSupport", "PostgresStore", "PostgresTestSupport", .product(name: "Logging", package: "swift-log"), .product(name: "ArgumentParser", package: "swift-argument-parser")], swiftSettings: strictSettings),
        // Each server module's own tests, with none of the modules they do not test: ServerCore's
        // unit tests, and the features' value tests. What needs the whole server is ConfigServerTests.
        .testTarget(
            name: "ServerCoreTests",
            dependencies: ["ServerCore", "ConfigCore", "ConfigStore", "EventLoop", "HTTP1", "TestSupport",
                           .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings),
        .testTarget(name: "ChangeControlTests", dependencies: ["ChangeControl", "ServerCore", "ConfigCore", "ConfigStore"],
                    swiftSettings: strictSettings),
        .testTarget(name: "WebhooksTests", dependencies: ["Webhooks", "ServerCore", "ConfigStore", "TestSupport"],
                    swiftSettings: strictSettings),
        .testTarget(name: "SignInTests", dependencies: ["SignIn", "ServerCore", "ConfigCore", "ConfigStore", "HTTP1", "OutboundHTTP"],
                    swiftSettings: strictSettings),
        .testTarget(name: "ConfigClientTests", dependencies: ["ConfigClient", "ConfigCore", "ConfigServer", "ServerCore", "TestSupport", "ServerTestSupport"], swiftSettings: strictSettings),
    ]
)
