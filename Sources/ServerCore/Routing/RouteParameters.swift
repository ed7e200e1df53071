/// Where a request's path gave its route's parameters their values, in the order of
/// `Route.parameterNames`: byte ranges of the path, held inline and copied as plain bytes (an
/// exchange is copied several times a request); a value becomes a string when it is read.
struct RouteParameters: Sendable {
    private let ranges: RouteCaptures

    init(_ ranges: RouteCaptures = RouteCaptures()) {
        self.ranges = ranges
    }

    var count: Int { ranges.count }

    /// Parameter `index`'s value in `path`, the path its ranges were found in.
    func value(at index: Int, in path: String) -> String {
        var path = path
        return path.withUTF8 { String(decoding: UnsafeBufferPointer(rebasing: $0[ranges[index]]), as: UTF8.self) }
    }
}
