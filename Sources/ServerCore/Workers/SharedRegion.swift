/// The memory the supervisor shares with its workers (one memfd, inherited): the stream
/// counters, the change counters, then the catch-up board.
package enum SharedRegion {
    package static let bytes = StreamAdmission.regionBytes + ChangeCounters.regionBytes + CatchUpBoard.regionBytes

    package static func admission(in base: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer { base }

    package static func changes(in base: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        base + StreamAdmission.regionBytes
    }

    package static func catchUp(in base: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        base + StreamAdmission.regionBytes + ChangeCounters.regionBytes
    }
}
