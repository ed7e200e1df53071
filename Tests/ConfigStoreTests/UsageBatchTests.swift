import ConfigCore
import ConfigStore
import Foundation
import Testing

/// A worker's counts that could not be written are added to its next ones: nothing is lost or
/// counted twice, the newer head and the later evaluation win.
@Suite struct UsageBatchTests {
    @Test func batchesOfOneHourAddUp() {
        let key = TemplateKey(project: "p1", namespace: .client), other = TemplateKey(project: "p2", namespace: .client)
        let t0 = Date(timeIntervalSince1970: 1_800_000_000), t1 = t0.addingTimeInterval(10)
        let use = ParameterUse(key: "a", source: "default", valueDigest: 1)
        let client = ClientCount(version: 3, dimension: .appVersion, value: "1.0")
        var first = UsageBatch(hour: t0, time: t1, templates: [
            TemplateUsage(key: key, head: ServedHead(version: 3, publishTime: t0, keys: ["a"]), uses: [use: 2], clients: [client: 2],
                          versionKeys: [3: ["a"]], lastEvaluations: ["a": t1]),
        ])
        first.add(UsageBatch(hour: t0, time: t0, templates: [
            TemplateUsage(key: key, head: ServedHead(version: 2, publishTime: t0, keys: ["b"]), uses: [use: 1], clients: [client: 5],
                          lastEvaluations: ["a": t0, "b": t0]),
            TemplateUsage(key: other, uses: [use: 7]),
        ]))
        #expect(first.time == t0 && first.templates.map(\.key) == [key, other])
        #expect(first.templates[0] == TemplateUsage(
            key: key, head: ServedHead(version: 3, publishTime: t0, keys: ["a"]), uses: [use: 3], clients: [client: 7],
            versionKeys: [3: ["a"]], lastEvaluations: ["a": t1, "b": t0]))
        #expect(first.templates[1].uses == [use: 7])
    }
}
