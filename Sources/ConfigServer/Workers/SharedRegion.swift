/// The memory the supervisor shares with its workers (one memfd, inherited): the stream
/// counters, the change counters, then the catch-up board.
enum SharedRegion {
    static let bytes = StreamAdmission.regionBytes + ChangeCounters.regionBytes + CatchUpBoard.regionBytes

    static func admission(in base: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer { base }

    static func changes(in base: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        base + StreamAdmission.regionBytes
    }

    static func catchUp(in base: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        base + StreamAdmission.regionBytes + ChangeCounters.regionBytes
    }
}
