import ConfigStore
import EventLoop
import HTTP1

/// `/metrics` and `remoteConfig:adoption` speak for the whole worker group: the worker that
/// takes the request gathers its peers' numbers first.
extension Application {
    /// What this worker answers a peer's question with.
    func localAnswer(_ question: PeerQuestion) -> [UInt8] {
        switch question {
        case .metrics: Array(metrics.render().utf8)
        case .adoption(let key): realtime.adoptionCounts(key: key).encoded
        }
    }

    func respondWithMetrics(_ exchange: Exchange) {
        peerGather.gather(.metrics, local: localAnswer(.metrics)) { answers in
            let texts = answers.map { String(decoding: $0, as: UTF8.self) }
            let text = Exposition.merge(texts)
                + Exposition.gauge("rcs_workers_reporting", help: "Workers whose numbers are in this scrape.", value: answers.count)
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "text/plain; version=0.0.4; charset=utf-8")
            exchange.respond(HTTPResponse(status: 200, headers: headers, body: Array(text.utf8)))
        }
    }

    func respondWithAdoption(_ exchange: Exchange, key: TemplateKey) {
        peerGather.gather(.adoption(key), local: localAnswer(.adoption(key))) { [self] answers in
            let counts = answers.compactMap(AdoptionCounts.init(encoded:))
            let merged = counts.reduce(AdoptionCounts(), +)
            let canary = templates.canary(key).map { ($0.version, Double($0.stored.microPercent) / 1_000_000) }
            exchange.respond(.json(merged.json(currentVersion: templates.currentVersion(key), canary: canary,
                                               workersReporting: counts.count, workers: peerGather.workers)))
        }
    }
}
