import ConfigCore
import ConfigStore
import Foundation
import StoreTestSupport
import Testing

/// The time of one publish, printed for docs/benchmarks.md. Off unless `RCS_MEASURE_PUBLISH`
/// is set: it measures, it does not check behaviour.
@Suite struct PublishTimingTests {
    static let enabled = ProcessInfo.processInfo.environment["RCS_MEASURE_PUBLISH"] != nil

    /// The median and 90th percentile of `count` sequential publishes, in microseconds.
    static func measure(_ store: any TemplateStore, count: Int = 200) throws -> (median: Double, p90: Double) {
        let template = Array(#"{"parameters":{"welcome":{"defaultValue":{"value":"hello"}}}}"#.utf8)
        var samples: [Double] = []
        for _ in 0..<count {
            let start = ContinuousClock.now
            _ = try store.publish(
                project: "p1", namespace: .client, templateJSON: template, expectedVersion: nil,
                metadata: PublishMetadata(updateUser: "bench@example.com"))
            let elapsed = ContinuousClock.now - start
            samples.append(Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6)
        }
        samples.sort()
        return (samples[count / 2], samples[count * 9 / 10])
    }

    @Test(.enabled(if: enabled), arguments: StoreEngine.allCases) func publish(engine: StoreEngine) throws {
        let fixture = try engine.fixture()  // owns the data: keep it until the end
        let result = try withExtendedLifetime(fixture) { try Self.measure(fixture.make().templates) }
        print("\(engine) publish: median \(Int(result.median)) µs, p90 \(Int(result.p90)) µs (200 publishes)")
        #expect(result.median > 0)
    }
}
