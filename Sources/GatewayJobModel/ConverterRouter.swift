/// Picks the backend for a job: job type → converter, from configuration (DESIGN §4).
public struct ConverterRouter: Sendable {
    /// One entry per backend, with how many jobs it may run at once.
    public struct Route: Sendable {
        public var converter: any Converter
        public var slots: Int

        public init(converter: any Converter, slots: Int) {
            self.converter = converter
            self.slots = max(1, slots)
        }
    }

    public var routes: [JobType: Route]

    public init(routes: [JobType: Route]) {
        self.routes = routes
    }

    /// The same backend for every type, e.g. the embedded local converters.
    public init(everything converter: any Converter, slots: Int) {
        let route = Route(converter: converter, slots: slots)
        routes = Dictionary(uniqueKeysWithValues: JobType.allCases.map { ($0, route) })
    }

    public func route(for type: JobType) -> Route? { routes[type] }
}
