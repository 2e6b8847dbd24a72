import Foundation
import GatewayJobModel

/// The decoded `spec` and `state` of recently read jobs, reused while a row holds the same
/// text: a client polls one job many times over, and decoding its two JSON columns is the
/// largest share of what a poll costs this process. Only equal text is reused, so it never
/// answers anything a fresh decode would not; a new spec or state is decoded and replaces the
/// entry.
final class DecodedJobColumns: Sendable {
    private struct Entry: Sendable {
        var specText: String
        var spec: JobSpec
        var stateText: String
        var state: JobStateMachine
    }

    private let entries = BoundedMemo<Entry>()

    func decode(id: UUID, spec specText: String, state stateText: String) throws -> (JobSpec, JobStateMachine) {
        let known = entries[id]
        if let known, known.specText == specText, known.stateText == stateText { return (known.spec, known.state) }
        let spec = try known.flatMap { $0.specText == specText ? $0.spec : nil } ?? StoredJob.decodeSpec(specText)
        let state = try StoredJob.decodeState(stateText)
        entries[id] = Entry(specText: specText, spec: spec, stateText: stateText, state: state)
        return (spec, state)
    }
}
