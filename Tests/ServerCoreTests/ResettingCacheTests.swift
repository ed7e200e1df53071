@testable import ServerCore
import Testing

@Suite struct ResettingCacheTests {
    @Test func keepsValuesUntilFullThenStartsOver() {
        let cache = ResettingCache<Int, String>(capacity: 3)
        var computed = 0
        func value(_ key: Int) -> (value: String, hit: Bool) {
            cache.value(for: key) {
                computed += 1
                return "v\(key)"
            }
        }
        #expect(value(1) == ("v1", false))
        #expect(value(1) == ("v1", true))
        #expect(value(2).hit == false && value(3).hit == false)
        #expect(value(2) == ("v2", true) && computed == 3)
        // A fourth key finds the cache full: it starts over with that key alone.
        #expect(value(4) == ("v4", false))
        #expect(value(4).hit && !value(1).hit)
        #expect(computed == 5)
    }
}
