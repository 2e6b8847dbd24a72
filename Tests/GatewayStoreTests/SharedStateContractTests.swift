import Foundation
import GatewayJobModel
import GatewayLibraryModel
import GatewayPostgres
import GatewayStore
import GatewayTestSupport
import Testing

/// Tokens, the webhook outbox and the creation rate: the same behaviour on the embedded store and
/// on the PostgreSQL a cluster shares.
@Suite("Tokens, webhook claims and the creation rate on both backends")
struct SharedStateContractTests {
    /// The three ports of one backend, each opened twice as two processes or nodes would.
    struct Ports {
        let tokens: [any APITokens]
        let outboxes: [any WebhookDeliveries]
        let pacing: [any CreationPacing]
        let keepAlive: any Sendable
    }

    static func open(_ backend: StoreBackend) async throws -> Ports {
        switch backend {
        case .sqlite:
            let fixture = try await LibraryFixture()
            let databases = await [try fixture.library.embeddedDatabase(), try fixture.reopen().embeddedDatabase()]
            // The embedded store's rate lives in its one serving process.
            let rate = CreationRate()
            return Ports(
                tokens: databases.map(TokenStore.init(database:)),
                outboxes: databases.map(WebhookOutbox.init(database:)),
                pacing: [rate, rate],
                keepAlive: fixture
            )
        case .postgres:
            let url = try TestPostgres.freshDatabaseURL()
            let databases = [try await PostgresDatabase.open(url: url), try await PostgresDatabase.open(url: url)]
            return Ports(
                tokens: databases.map(PostgresTokenStore.init(database:)),
                outboxes: databases.map(PostgresWebhookOutbox.init(database:)),
                pacing: databases.map(PostgresCreationRate.init(database:)),
                keepAlive: databases
            )
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func aTokenMadeOnOneWorksOnTheOtherUntilRevoked(_ backend: StoreBackend) async throws {
        let ports = try await Self.open(backend)
        let (a, b) = (ports.tokens[0], ports.tokens[1])
        #expect(try await !b.hasLiveTokens())
        let (token, secret) = try await a.create(owner: "alice", name: "laptop")
        #expect(try await b.owner(forSecret: secret) == "alice")
        #expect(try await b.owner(forSecret: secret + "x") == nil)
        #expect(try await b.list(owner: "alice").map(\.id) == [token.id])
        #expect(try await b.hasLiveTokens())
        try await b.revoke(id: token.id)
        #expect(try await a.owner(forSecret: secret) == nil, "revoked everywhere")
        #expect(try await a.list(owner: "alice").first?.revokedAt != nil)
        await #expect(throws: LibraryError.self) { try await a.revoke(id: "nope") }
    }

    @Test(arguments: StoreBackend.allCases)
    func aDeliveryIsClaimedByOneNodeUntilItsClaimLapses(_ backend: StoreBackend) async throws {
        let ports = try await Self.open(backend)
        let (a, b) = (ports.outboxes[0], ports.outboxes[1])
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let delivery = PendingWebhook(
            messageID: "msg_1",
            jobID: UUID(),
            url: "http://127.0.0.1:9/hook",
            body: Data("{\"a\":1}".utf8),
            notBefore: now,
            expiresAt: now.addingTimeInterval(3600)
        )
        try await a.add(delivery, claim: JobLease(node: "a", expires: now.addingTimeInterval(60)))
        try await a.add(delivery, claim: JobLease(node: "a", expires: now.addingTimeInterval(60)))  // owed once
        #expect(try await b.claimLapsed(now: now, claim: JobLease(node: "b", expires: now.addingTimeInterval(60)), limit: 10).isEmpty)

        // a reschedules: its claim now runs past the next attempt.
        try await a.reschedule(
            "msg_1",
            attempts: 1,
            notBefore: now.addingTimeInterval(30),
            claim: JobLease(node: "a", expires: now.addingTimeInterval(90))
        )
        await #expect(
            try b.claimLapsed(now: now.addingTimeInterval(61), claim: JobLease(node: "b", expires: now.addingTimeInterval(121)), limit: 10).isEmpty
        )

        // a dies: once its claim lapses b takes the delivery, whole, and only b has it.
        let taken = try await b.claimLapsed(
            now: now.addingTimeInterval(91),
            claim: JobLease(node: "b", expires: now.addingTimeInterval(151)),
            limit: 10
        )
        #expect(taken.count == 1 && taken.first?.messageID == "msg_1" && taken.first?.attempts == 1 && taken.first?.body == delivery.body)
        await #expect(
            try a.claimLapsed(now: now.addingTimeInterval(92), claim: JobLease(node: "a", expires: now.addingTimeInterval(152)), limit: 10).isEmpty
        )

        try await b.remove("msg_1")
        #expect(try await a.claimLapsed(now: .distantFuture, claim: JobLease(node: "a", expires: .distantFuture), limit: 10).isEmpty)
    }

    @Test(arguments: StoreBackend.allCases)
    func theCreationRateIsOneAllowancePerOwner(_ backend: StoreBackend) async throws {
        let ports = try await Self.open(backend)
        var answers: [Int?] = []
        for i in 0..<6 { await answers.append(try ports.pacing[i % 2].take(owner: "alice", perMinute: 4)) }
        #expect(answers.prefix(4).allSatisfy { $0 == nil }, "a burst up to the minute's allowance passes: \(answers)")
        #expect(answers.suffix(2).allSatisfy { ($0 ?? 0) >= 1 }, "then each waits for a refill: \(answers)")
        #expect(try await ports.pacing[1].take(owner: "bob", perMinute: 4) == nil, "owners do not share a bucket")
    }
}
