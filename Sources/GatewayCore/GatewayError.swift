/// An error a person can act on: a stable machine-readable `code` and a sentence saying what
/// went wrong and how to fix it. Every adapter (CLI, HTTP) reports these the same way.
public protocol GatewayError: Error, CustomStringConvertible, Sendable {
    /// Stable snake_case identifier, e.g. `not_a_pdf`. Never changes once published.
    var code: String { get }
    /// Human-readable explanation, including what to do about it.
    var message: String { get }
}

extension GatewayError {
    public var description: String { message }
}
