package import ConfigStore
import HTTP1

/// `GET …/remoteConfig:adoption`: which versions the held streams and recent fetches know,
/// for the whole worker group (the worker that takes the request gathers its peers' counts).
package struct AdoptionEndpoint: Sendable {
    let realtime: RealtimeHub
    let templates: TemplateRegistry
    let peerGather: PeerGather

    package init(realtime: RealtimeHub, templates: TemplateRegistry, peerGather: PeerGather) {
        self.realtime = realtime
        self.templates = templates
        self.peerGather = peerGather
    }

    /// This worker's counts for `key`, as it answers a peer that gathers them.
    package func localAnswer(_ key: TemplateKey) -> [UInt8] {
        realtime.adoptionCounts(key: key).encoded
    }

    func answer(_ exchange: Exchange, key: TemplateKey) {
        peerGather.gather(.adoption(key), local: localAnswer(key)) { [self] answers in
            let counts = answers.compactMap(AdoptionCounts.init(encoded:))
            let merged = counts.reduce(AdoptionCounts(), +)
            let canary = templates.canary(key).map { ($0.version, Double($0.stored.microPercent) / 1_000_000) }
            exchange.respond(.json(merged.json(currentVersion: templates.currentVersion(key), canary: canary,
                                               workersReporting: counts.count, workers: peerGather.workers,
                                               nowMinute: realtime.currentMinute)))
        }
    }
}
