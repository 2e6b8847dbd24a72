import GatewayCore

/// A setting that cannot work, with what to change.
public struct ConfigurationError: GatewayError {
    public var message: String
    public var code: String { "invalid_configuration" }

    public init(_ message: String) { self.message = message }
}
