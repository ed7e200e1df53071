extension CurlTransport {
    /// What a transport does beyond sending each request as written. Whatever the options, no
    /// redirect is followed, only `http` and `https` are spoken, and no signal is used.
    public struct Options: Sendable, Equatable {
        /// Whether proxies named by the environment (`http_proxy`, `https_proxy`, `all_proxy`)
        /// are used. Off for calls that must reach the address they asked for: a proxy would
        /// connect elsewhere.
        public var usesEnvironmentProxy: Bool
        /// Whether to offer every content encoding libcurl decodes (`Accept-Encoding`), and
        /// decode answers that use one.
        public var acceptsEncodedBodies: Bool
        /// Body bytes read by `send` before it stops the transfer; the response then ends there,
        /// without error. `nil`: no limit. Streams are not limited.
        public var readLimit: Int?
        /// Body bytes of those read that the response keeps; the rest is read and dropped.
        /// `nil`: all.
        public var keptLimit: Int?

        /// - Parameters:
        ///   - usesEnvironmentProxy: see ``usesEnvironmentProxy``.
        ///   - acceptsEncodedBodies: see ``acceptsEncodedBodies``.
        ///   - readLimit: see ``readLimit``.
        ///   - keptLimit: see ``keptLimit``.
        public init(
            usesEnvironmentProxy: Bool = true, acceptsEncodedBodies: Bool = true, readLimit: Int? = nil, keptLimit: Int? = nil
        ) {
            self.usesEnvironmentProxy = usesEnvironmentProxy
            self.acceptsEncodedBodies = acceptsEncodedBodies
            self.readLimit = readLimit
            self.keptLimit = keptLimit
        }
    }
}
