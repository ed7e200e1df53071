import HTTP1

/// `/healthz` (the process answers) and `/readyz` (it can serve what it is asked).
package struct HealthEndpoint: Sendable {
    let storeHealth: StoreHealth
    let board: CatchUpBoard

    package init(storeHealth: StoreHealth, board: CatchUpBoard) {
        self.storeHealth = storeHealth
        self.board = board
    }

    func live(_ exchange: Exchange) {
        exchange.respond(.json(Array("{\"status\":\"ok\"}".utf8)))
    }

    /// 503 while the store cannot be read (its last poll failed), or the node is behind it.
    func ready(_ exchange: Exchange) throws {
        guard !board.isBehind else {
            throw APIError(503, "This node is catching up with the store: it serves the versions it holds and refuses writes until its workers have read what the store announced.")
        }
        guard storeHealth.isAvailable else {
            throw APIError(503, "The store is unavailable: fetches and streams are served from the versions known; publishes are refused.")
        }
        exchange.respond(.json(Array("{\"status\":\"ready\"}".utf8)))
    }
}
