import ArgumentParser
import Foundation
import GatewayAssembly
import GatewayLibrary
import GatewayLibraryModel
import GatewayServer
import GatewayStore

/// `pdfgate token create|list|revoke`: API bearer tokens. Only a hash is stored.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Create, list and revoke API tokens.",
        subcommands: [Create.self, List.self, Revoke.self, WebhookSecret.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a token for an owner and print it once.")

        @Option(help: "The owner whose jobs, documents and folders the token reaches.")
        var owner: String

        @Option(help: "A label to recognise the token by in `token list`.")
        var name: String = ""

        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await reporting(json: output.json) {
                let (tokens, _) = try await store.tokens()
                let (token, secret) = try await tokens.create(owner: owner, name: name)
                if output.json {
                    Output.printJSON(["id": token.id, "owner": token.owner, "name": token.name, "token": secret])
                } else {
                    print(secret)
                    FileHandle.standardError.write(Data("token \(token.id) for owner '\(token.owner)'; it is shown only this once\n".utf8))
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List tokens (never their secrets).")

        @Option(help: "Only this owner's tokens.")
        var owner: String?

        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await reporting(json: output.json) {
                let (tokens, _) = try await store.tokens()
                let list = try await tokens.list(owner: owner)
                if output.json {
                    Output.printJSON(list)
                } else {
                    Output.printTable(
                        ["ID", "OWNER", "NAME", "CREATED", "REVOKED"],
                        list.map { [$0.id, $0.owner, $0.name, Output.shortDate($0.createdAt), $0.revokedAt.map(Output.shortDate) ?? "-"] }
                    )
                }
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a token; requests with it get 401 within seconds.")

        @Argument(help: "The token's id, as `token list` shows it.")
        var id: String

        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await reporting(json: output.json) {
                try await store.tokens().0.revoke(id: id)
                if !output.json { print("revoked \(id)") }
            }
        }
    }

    struct WebhookSecret: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "webhook-secret",
            abstract: "Print the secret webhook receivers verify signatures with (Standard Webhooks, whsec_…)."
        )

        @OptionGroup var store: StoreOptions

        func run() async throws {
            try await reporting(json: false) {
                let stores = try await store.openStores()
                print(try await ServerSecrets.load(for: stores).webhookSecret)
            }
        }
    }
}

extension StoreOptions {
    /// The store's API tokens, and its library (for the webhook secret kept beside it).
    func tokens() async throws -> (any APITokens, Library) {
        let stores = try await openStores()
        return (stores.tokens, stores.library)
    }
}
