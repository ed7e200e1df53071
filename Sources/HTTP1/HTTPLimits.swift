/// Size limits the parser enforces on every request; each breach has its own status code.
public struct HTTPLimits: Sendable, Equatable {
    /// Request line plus header fields, in bytes (431 beyond it).
    public var maxHeaderBytes: Int
    /// Number of header fields (431 beyond it).
    public var maxHeaderCount: Int
    /// Length of the request target (414 beyond it).
    public var maxURILength: Int
    /// Decoded body size (413 beyond it).
    public var maxBodyBytes: Int

    public init(maxHeaderBytes: Int = 16 * 1024, maxHeaderCount: Int = 100, maxURILength: Int = 8 * 1024, maxBodyBytes: Int = 2 * 1024 * 1024) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxURILength = maxURILength
        self.maxBodyBytes = maxBodyBytes
    }
}
