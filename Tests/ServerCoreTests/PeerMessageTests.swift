import ConfigCore
@testable import ServerCore
import ConfigStore
import Testing

@Suite struct PeerMessageTests {
    @Test(arguments: [
        PeerMessage.published(TemplateKey(project: "p-1", namespace: .client), version: 42),
        .question(from: 2, id: 7, .metrics),
        .question(from: 0, id: 8, .adoption(TemplateKey(project: "demo", namespace: .server))),
        .answer(from: 1, id: 9, payload: Array("line one\nline two\n".utf8)),
        .answer(from: 1, id: 10, payload: []),
    ])
    func roundTrips(_ message: PeerMessage) {
        #expect(PeerMessage(ArraySlice(message.encoded)) == message)
    }

    @Test(arguments: ["", "published\np\nfirebase\nx", "metrics?\nx\n1", "adoption?\n1\n2\nonly-project", "hello\n1\n2"])
    func rejectsMalformedMessages(_ text: String) {
        #expect(PeerMessage(ArraySlice(Array(text.utf8))) == nil)
    }

    @Test func mergedExpositionKeepsEachFamilyInOneGroup() {
        let worker0 = "# HELP a A.\n# TYPE a counter\na{worker=\"0\"} 1\n# HELP b B.\n# TYPE b gauge\nb{worker=\"0\"} 2\n"
        let worker1 = "# HELP a A.\n# TYPE a counter\na{worker=\"1\"} 3\n# HELP b B.\n# TYPE b gauge\nb{worker=\"1\"} 4\n"
        #expect(Exposition.merge([worker0, worker1]) == """
            # HELP a A.
            # TYPE a counter
            a{worker="0"} 1
            a{worker="1"} 3
            # HELP b B.
            # TYPE b gauge
            b{worker="0"} 2
            b{worker="1"} 4

            """)
    }

    @Test func adoptionCountsSumOverWorkers() throws {
        var first = AdoptionCounts()
        first.versions[3] = .init(heldClients: 2, recentFetches: 5, fetchedClients: 2)
        first.minutes[100] = [3: 5]
        var second = AdoptionCounts()
        second.versions[3] = .init(heldClients: 1, recentFetches: 0)
        second.versions[4] = .init(heldClients: 7, recentFetches: 1, fetchedClients: 1)
        second.minutes[101] = [4: 1]
        let decoded = try #require(AdoptionCounts(encoded: second.encoded))
        #expect(decoded == second)
        let sum = first + decoded
        #expect(String(decoding: sum.json(currentVersion: 4, workersReporting: 2, workers: 2, nowMinute: 101), as: UTF8.self) ==
            "{\"currentVersion\":\"4\",\"fetchWindowSeconds\":600,\"workers\":2,\"workersReporting\":2,\"versions\":["
            + "{\"versionNumber\":\"4\",\"heldClients\":7,\"recentFetches\":1,\"fetchedClients\":1},"
            + "{\"versionNumber\":\"3\",\"heldClients\":3,\"recentFetches\":5,\"fetchedClients\":2}],"
            + "\"history\":[{\"minutesAgo\":1,\"versions\":[{\"versionNumber\":\"3\",\"fetches\":5}]},"
            + "{\"minutesAgo\":0,\"versions\":[{\"versionNumber\":\"4\",\"fetches\":1}]}]}")
    }
}
