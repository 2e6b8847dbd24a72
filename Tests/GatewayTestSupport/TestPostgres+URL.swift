import Foundation
import GatewayPostgres

extension TestPostgres {
    /// The URL of the database `database` is connected to, to open it again as another node.
    public static func url(of database: PostgresDatabase) throws -> String {
        let location = database.location
        var components = URLComponents()
        components.scheme = "postgres"
        components.user = location.user
        components.password = location.password
        components.host = location.host
        components.port = location.port
        components.path = "/" + location.database
        guard let url = components.string else { throw TestPostgresError(message: "no URL for \(location)") }
        return url
    }
}
