/// The memory the supervisor shares with its workers (one memfd, inherited): the stream
/// counters, then the change counters.
enum SharedRegion {
    static let bytes = StreamAdmission.regionBytes + ChangeCounters.regionBytes

    static func admission(in base: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer { base }

    static func changes(in base: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        base + StreamAdmission.regionBytes
    }
}
