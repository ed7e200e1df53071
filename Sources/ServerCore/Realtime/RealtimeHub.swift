import ConfigCore
package import ConfigStore
package import EventLoop
import Foundation
import HTTP1
package import Logging

/// The held real-time streams of one worker (spec §4), in either encoding: Firebase's
/// `streamFetchInvalidations` or OFREP's event stream (``StreamEncoding``), under the same caps.
///
/// Loop thread only: `TemplateUpdates` hops there to call ``notify(_:)``. A held stream costs an entry in
/// ``HeldStreams`` and one slot in a timing wheel that the loop's 1 Hz tick walks: no thread,
/// timer or buffer per connection. Heartbeats resend the current version (iOS cannot take an empty
/// chunk, and a present version never triggers a fetch); streams end cleanly before their
/// lifetime (under iOS's 330 s timeout), spread by jitter.
package final class RealtimeHub: @unchecked Sendable {
    // @unchecked: the fields are immutable but for the streams and counters, which only the
    // methods that assert they run on `loop`'s thread touch.
    let settings: RealtimeSettings
    let loop: EventLoop
    let templates: TemplateRegistry
    let admission: StreamAdmission
    let metrics: ServerMetrics
    let logger: Logger
    private var held = HeldStreams<ResponseStream>()
    /// Due second → streams to visit then (heartbeat or end of life).
    private var wheel: [Int64: [ResponseStream]] = [:]
    private var lastSweep: Int64
    /// Invalidations waiting for the pacing budget.
    private var pending: [(ResponseStream, Int64)] = []
    private let adoption = AdoptionStats()
    private var lastInvalidation: (version: Int64, chunk: EncodedChunk)?
    /// An event-stream message also names when its version was published, which differs by
    /// template.
    private var lastEventStreamInvalidation: (key: TemplateKey, version: Int64, chunk: EncodedChunk)?
    /// Fan-outs still being written, oldest first (see ``FanOut``).
    private var fanOuts: [FanOut] = []
    /// How many fan-outs each template started: a slice of an older one checks each stream,
    /// which a newer fan-out may have moved past the slice's version.
    private var fanOutGenerations: [TemplateKey: Int] = [:]

    /// One message to many streams, written a slice at a time: between two slices the loop
    /// answers what waits (a publisher's answer, requests), so nothing waits for a whole
    /// fan-out of tens of thousands of streams.
    private struct FanOut {
        let key: TemplateKey
        let generation: Int
        let version: Int64
        let chunk: EncodedChunk
        let streams: [ResponseStream]
        var next = 0
    }

    package init(settings: RealtimeSettings, loop: EventLoop, templates: TemplateRegistry, admission: StreamAdmission,
         metrics: ServerMetrics, logger: Logger) {
        self.settings = settings
        self.loop = loop
        self.templates = templates
        self.admission = admission
        self.metrics = metrics
        self.logger = logger
        self.lastSweep = loop.now
    }

    var heldCount: Int { held.count }

    /// Starts the tick work; call once before the loop runs.
    package func start() {
        loop.preconditionInLoopOrNotStarted()
        loop.onTick { [self] in tick() }
    }

    // MARK: Opening

    /// Answers a stream request whose project and body were checked (spec §4.7). `instance`
    /// (the request's `appInstanceId`, or OFREP's targeting key; empty when none) decides
    /// whether a running canary's version is the one the client should know.
    package func open(_ exchange: Exchange, key: TemplateKey, lastKnown: Int64, instance: String,
              encoding: StreamEncoding = .firebase) {
        loop.preconditionInLoop()
        let target = templates.streamTarget(key, instance: instance)
        guard let bucket = admission.acquire(project: key.project) else {
            // At the cap: the stale client still learns of its update (the stale-client
            // exception); a fresh one is told when to come back; both are then closed.
            let stale = !target.isCurrent(lastKnown)
            if stale { metrics.recordStaleException() } else { metrics.recordRefusal() }
            guard let stream = exchange.startStream(headers: encoding.headers, onClose: {}) else { return }
            let version = stale ? target.version : lastKnown
            stream.write(chunk: encoding.farewell(version: version, stale: stale, lastModified: publishedSeconds(key, version),
                                                  retryAfter: jitteredRetry()))
            stream.finish()
            return
        }
        var opened: ResponseStream?
        let stream = exchange.startStream(headers: encoding.headers) { [weak self] in
            guard let self, let opened else { return }
            self.closed(opened)
        }
        guard let stream else {
            // No stream (the client was gone, perhaps while its head was written): nothing
            // will be forgotten on close, so the place is given back here.
            admission.release(bucket: bucket)
            return
        }
        opened = stream
        let lifetime = Int64(settings.maxLifetimeSeconds) - Int64.random(in: 0...Int64(max(0, settings.lifetimeJitterSeconds)))
        let expires = loop.now + max(lifetime, 5)
        held.insert(stream, key: key, encoding: encoding, lastKnown: lastKnown, instance: instance, expires: expires, bucket: bucket)
        metrics.setHeld(heldCount)
        adoption.held(version: lastKnown, delta: 1, key: key)
        if !target.isCurrent(lastKnown) {
            send(stream, version: target.version)
            if target.version == templates.canary(key)?.version { metrics.recordCanaryInvalidations(1) }
        }
        scheduleVisit(stream, expires: expires)
    }

    private func closed(_ stream: ResponseStream) {
        guard let (entry, lastKnown) = held.remove(stream) else { return }
        admission.release(bucket: entry.bucket)
        adoption.held(version: lastKnown, delta: -1, key: entry.key)
        metrics.setHeld(heldCount)
    }

    // MARK: Publishing

    /// Tells every held stream of `key` the version it should know, if it has an older one:
    /// the active version, or the canary version for the instances in a running canary's share.
    func notify(_ key: TemplateKey) {
        guard let active = templates.active(key) else { return }
        let canary = templates.canary(key)
        guard canary != nil || active.equivalent != nil else {
            notify(key, version: active.versionNumber)
            return
        }
        let stable = StreamTarget(version: active.versionNumber, equivalent: active.equivalent)
        let canaryTarget = canary.map { StreamTarget(version: $0.version, equivalent: nil) }
        if settings.notificationsPerSecond > 0 {
            for stream in held.streams(of: key, olderThan: max(stable.version, canaryTarget?.version ?? 0)) {
                let target = templates.streamTarget(key, instance: held.instance(of: stream))
                if let (_, lastKnown) = held.entry(stream), !target.isCurrent(lastKnown) { pending.append((stream, target.version)) }
            }
            drainPending()
            return
        }
        var generation: Int?
        for encoding in StreamEncoding.allCases {
            let (moved, from) = held.advance(key, encoding: encoding, seed: canary?.stored.seed) { bucket in
                if let canary, let canaryTarget, let bucket, canary.includes(bucket: bucket) { return canaryTarget }
                return stable
            }
            guard !moved.isEmpty else { continue }
            for (old, count) in from {
                adoption.held(version: old, delta: -count, key: key)
            }
            metrics.recordInvalidations(moved.count)
            if let canary { metrics.recordCanaryInvalidations(moved.lazy.filter { $0.version == canary.version }.count) }
            // Two versions at most (the canary's and the active one): one fan-out each.
            var byVersion: [Int64: [ResponseStream]] = [:]
            for (stream, version) in moved {
                adoption.held(version: version, delta: 1, key: key)
                byVersion[version, default: []].append(stream)
            }
            let current = generation ?? nextFanOutGeneration(key)
            generation = current
            for (version, streams) in byVersion.sorted(by: { $0.key < $1.key }) {
                startFanOut(FanOut(key: key, generation: current, version: version,
                                   chunk: invalidation(version, key: key, encoding: encoding), streams: streams))
            }
        }
    }

    /// Sends `version` to every held stream of `key` that has an older one.
    private func notify(_ key: TemplateKey, version: Int64) {
        loop.preconditionInLoop()
        if settings.notificationsPerSecond > 0 {
            for stream in held.streams(of: key, olderThan: version) {
                pending.append((stream, version))
            }
            drainPending()
            return
        }
        // The hot loop of a publish: the table is brought up to date in one pass over packed
        // arrays, then one pre-framed message is sent to each stream, a slice at a time, in a
        // loop that does nothing else, so the sends run back to back.
        var generation: Int?
        for encoding in StreamEncoding.allCases {
            let (streams, from) = held.advance(key, encoding: encoding, to: version)
            guard !streams.isEmpty else { continue }
            for (old, count) in from {
                adoption.held(version: old, delta: -count, key: key)
            }
            adoption.held(version: version, delta: streams.count, key: key)
            metrics.recordInvalidations(streams.count)
            let current = generation ?? nextFanOutGeneration(key)
            generation = current
            startFanOut(FanOut(key: key, generation: current, version: version,
                               chunk: invalidation(version, key: key, encoding: encoding), streams: streams))
        }
    }

    private func nextFanOutGeneration(_ key: TemplateKey) -> Int {
        let generation = fanOutGenerations[key, default: 0] + 1
        fanOutGenerations[key] = generation
        return generation
    }

    /// Writes the first slice at once when no fan-out is under way, else after those before.
    private func startFanOut(_ fanOut: FanOut) {
        fanOuts.append(fanOut)
        if fanOuts.count == 1 { writeFanOutSlice() }
    }

    /// Writes one slice, then leaves the rest for after what the loop has waiting.
    private func writeFanOutSlice() {
        var budget = settings.fanOutSliceStreams
        while budget > 0, var fanOut = fanOuts.first {
            let end = min(fanOut.streams.count, fanOut.next + budget)
            // A newer fan-out of the template may have taken a stream further meanwhile.
            let current = fanOutGenerations[fanOut.key] == fanOut.generation
            for index in fanOut.next..<end {
                let stream = fanOut.streams[index]
                if current || held.entry(stream)?.lastKnown == fanOut.version { stream.write(fanOut.chunk) }
            }
            budget -= end - fanOut.next
            fanOut.next = end
            if end == fanOut.streams.count { fanOuts.removeFirst() } else { fanOuts[0] = fanOut }
        }
        // After what the loop has waiting: new connections, requests, answers.
        if !fanOuts.isEmpty { loop.deferUntilEndOfIteration { [self] in writeFanOutSlice() } }
    }

    private func send(_ stream: ResponseStream, version: Int64) {
        guard let (entry, lastKnown) = held.entry(stream) else { return }
        if lastKnown != version {
            adoption.held(version: lastKnown, delta: -1, key: entry.key)
            adoption.held(version: version, delta: 1, key: entry.key)
            held.setLastKnown(stream, to: version)
        }
        metrics.recordInvalidations(1)
        stream.write(invalidation(version, key: entry.key, encoding: entry.encoding))
    }

    /// The framed message for `version` of `key`, kept for the next stream that needs the same
    /// one.
    private func invalidation(_ version: Int64, key: TemplateKey, encoding: StreamEncoding) -> EncodedChunk {
        switch encoding {
        case .firebase:
            if let last = lastInvalidation, last.version == version { return last.chunk }
            let chunk = EncodedChunk(Self.message(version: version, retryAfter: nil))
            lastInvalidation = (version, chunk)
            return chunk
        case .serverSentEvents:
            if let last = lastEventStreamInvalidation, last.version == version, last.key == key { return last.chunk }
            let chunk = EncodedChunk(encoding.invalidation(version: version, lastModified: publishedSeconds(key, version)))
            lastEventStreamInvalidation = (key, version, chunk)
            return chunk
        }
    }

    /// When `version` of `key` was published (seconds since 1970), if it is in memory.
    private func publishedSeconds(_ key: TemplateKey, _ version: Int64) -> Int64? {
        let template = templates.active(key).flatMap { $0.versionNumber == version ? $0 : nil }
            ?? templates.canary(key).flatMap { $0.version == version ? $0.template : nil }
        return template?.template.version?.updateTime.map(\.seconds)
    }

    private func drainPending() {
        var budget = settings.notificationsPerSecond
        var taken = 0
        while budget > 0, taken < pending.count {
            let (stream, version) = pending[taken]
            taken += 1
            if let (_, lastKnown) = held.entry(stream), lastKnown < version {
                send(stream, version: version)
                budget -= 1
            }
        }
        // One move of the rest per tick, not one per stream sent.
        pending.removeFirst(taken)
    }

    // MARK: Heartbeats, lifetimes, shutdown

    private func scheduleVisit(_ stream: ResponseStream, expires: Int64) {
        let due = min(loop.now + Int64(settings.heartbeatSeconds), expires)
        wheel[due, default: []].append(stream)
    }

    private func tick() {
        let now = loop.now
        while lastSweep <= now {
            if let due = wheel.removeValue(forKey: lastSweep) {
                for stream in due { visit(stream, now: now) }
            }
            lastSweep += 1
        }
        if settings.notificationsPerSecond > 0 { drainPending() }
        adoption.expireFetches(now: now)
    }

    private func visit(_ stream: ResponseStream, now: Int64) {
        guard let (entry, lastKnown) = held.entry(stream) else { return }
        if now >= entry.expires {
            stream.finish()
            return
        }
        let target = templates.streamTarget(entry.key, instance: held.instance(of: stream))
        if target.isCurrent(lastKnown) {
            switch entry.encoding {
            case .firebase: stream.write(invalidation(lastKnown, key: entry.key, encoding: .firebase))
            case .serverSentEvents: stream.write(StreamEncoding.eventStreamHeartbeat)
            }
        } else {
            send(stream, version: target.version)
        }
        if held.entry(stream) != nil { scheduleVisit(stream, expires: entry.expires) }
    }

    /// At shutdown every held client is told to come back later (jittered) and closed.
    package func sayGoodbye() {
        loop.preconditionInLoop()
        for (stream, key, encoding, lastKnown) in held.all {
            let target = templates.streamTarget(key, instance: held.instance(of: stream))
            let stale = !target.isCurrent(lastKnown)
            let version = stale ? target.version : lastKnown
            stream.write(chunk: encoding.farewell(version: version, stale: stale, lastModified: publishedSeconds(key, version),
                                                  retryAfter: jitteredRetry()))
            stream.finish()
        }
    }

    private func jitteredRetry() -> Int {
        let base = max(1, settings.retryIntervalSeconds)
        return Int.random(in: max(1, base / 2)...(base + base / 2))
    }

    // MARK: Adoption

    /// Counts a fetch that got `version`; `instance` (the app instance or randomization id,
    /// nil when none was sent) lets the same client count once.
    package func recordFetch(key: TemplateKey, version: Int64, instance: String? = nil) {
        loop.preconditionInLoop()
        adoption.fetched(version: version, key: key, instance: instance, now: loop.now)
    }

    /// The minute (of the loop's clock) adoption history counts back from.
    var currentMinute: Int64 { loop.now / 60 }

    func adoptionCounts(key: TemplateKey) -> AdoptionCounts {
        loop.preconditionInLoop()
        return adoption.counts(key: key)
    }

    // MARK: Wire format

    /// One flat JSON object ending in a newline, its own chunk (spec §4.3).
    static func message(version: Int64, retryAfter: Int?) -> [UInt8] {
        var text = "{\"latestTemplateVersionNumber\": \"\(version)\""
        if let retryAfter { text += ", \"retryIntervalSeconds\": \(retryAfter)" }
        return Array((text + "}\n").utf8)
    }
}
