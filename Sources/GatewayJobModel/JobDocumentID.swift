import Foundation

/// The ids of the documents a job files, derived from the job id: a retried job finds what it
/// filed before, and a discard finds every part.
extension Job {
    /// The id the job's document gets: derived from the job id so filing twice finds the first.
    public static func documentID(for jobID: UUID) -> UUID {
        var bytes = jobID.uuid
        // Flip bits outside the version (byte 6) and variant (byte 8) fields, so it stays a v4 UUID.
        bytes.0 ^= 0x5A
        bytes.15 ^= 0xA5
        return UUID(uuid: bytes)
    }

    /// The id of part `part` (0-based) of what a job filed: part 0 is `documentID(for:)`, the
    /// others differ from it in bytes that carry the part number, so a retried split files the
    /// same documents again and a discard finds them all.
    public static func documentID(for jobID: UUID, part: Int) -> UUID {
        var bytes = documentID(for: jobID).uuid
        guard part > 0 else { return UUID(uuid: bytes) }
        bytes.12 ^= 0x3C
        bytes.13 ^= UInt8(truncatingIfNeeded: part >> 8)
        bytes.14 ^= UInt8(truncatingIfNeeded: part)
        return UUID(uuid: bytes)
    }

    /// The job that filed document `id`, if a job did: `documentID(for:)` backwards (flipping the
    /// same bits again restores them).
    public static func jobID(forDocument id: UUID) -> UUID { documentID(for: id) }
}
