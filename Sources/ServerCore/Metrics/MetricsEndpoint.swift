import HTTP1

/// `/metrics` speaks for the whole worker group: the worker that takes the request gathers
/// its peers' numbers first.
package struct MetricsEndpoint: Sendable {
    let metrics: ServerMetrics
    let peerGather: PeerGather

    package init(metrics: ServerMetrics, peerGather: PeerGather) {
        self.metrics = metrics
        self.peerGather = peerGather
    }

    /// This worker's numbers, as it answers a peer that gathers them.
    package func localAnswer() -> [UInt8] {
        Array(metrics.render().utf8)
    }

    func answer(_ exchange: Exchange) {
        peerGather.gather(.metrics, local: localAnswer()) { answers in
            let texts = answers.map { String(decoding: $0, as: UTF8.self) }
            let text = Exposition.merge(texts)
                + Exposition.gauge("rcs_workers_reporting", help: "Workers whose numbers are in this scrape.", value: answers.count)
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "text/plain; version=0.0.4; charset=utf-8")
            exchange.respond(HTTPResponse(status: 200, headers: headers, body: Array(text.utf8)))
        }
    }
}
