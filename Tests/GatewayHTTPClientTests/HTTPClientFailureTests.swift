import Foundation
import GatewayHTTPClient
import GatewayTestSupport
import Testing

@Suite("HTTPClient failures are classified")
struct HTTPClientFailureTests {
    @Test func closedPortIsATransientConnectFailure() async throws {
        let port = try closedPort()
        let error = await #expect(throws: HTTPClientError.self) {
            try await loopbackClient().execute(HTTPRequest(url: "http://127.0.0.1:\(port)/health"))
        }
        #expect(error?.kind == .connectFailed)
        #expect(error?.isTransient == true)
        #expect(error?.message.contains("127.0.0.1:\(port)") == true)
        #expect(error?.message.contains("curl:") == true)
    }

    @Test func aHungServerHitsTheTotalTimeout() async throws {
        let server = try LoopbackHTTPServer { _, response in response.hang() }
        defer { server.stop() }

        let started = ContinuousClock.now
        let error = await #expect(throws: HTTPClientError.self) {
            try await loopbackClient().execute(HTTPRequest(url: server.url("/slow")), timeout: .seconds(1))
        }
        let elapsed = ContinuousClock.now - started

        #expect(error?.kind == .timedOut)
        #expect(error?.isTransient == true)
        #expect(elapsed >= .milliseconds(900))
        #expect(elapsed < .seconds(8), "a timeout plus slack for a loaded machine, never a hang")
    }

    @Test func aTrickleBelowTheLowSpeedLimitIsTooSlow() async throws {
        let server = try LoopbackHTTPServer { _, response in
            try response.startBody(status: 200, contentLength: nil)
            try response.trickleForever([UInt8](repeating: 46, count: 10), every: .milliseconds(200))
        }
        defer { server.stop() }
        let client = loopbackClient { $0.lowSpeedLimit = .init(bytesPerSecond: 1_000, duration: .seconds(1)) }

        let started = ContinuousClock.now
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.execute(HTTPRequest(url: server.url("/trickle")), timeout: .seconds(10))
        }

        #expect(error?.kind == .tooSlow)
        #expect(error?.isTransient == true)
        #expect(ContinuousClock.now - started < .seconds(9), "the low-speed window plus slack, well before the 10 s timeout")
    }

    @Test func aResetConnectionIsTransient() async throws {
        let server = try LoopbackHTTPServer { request, response in
            try request.discardBody()
            response.reset()
        }
        defer { server.stop() }

        let error = await #expect(throws: HTTPClientError.self) {
            try await loopbackClient().execute(HTTPRequest(url: server.url("/reset")))
        }
        #expect(error?.kind == .connectionReset)
        #expect(error?.isTransient == true)
    }

    @Test func aTruncatedBodyFailsAndLeavesNoFile() async throws {
        let directory = TemporaryDirectory()
        let destination = directory.file("partial.pdf")
        let server = try LoopbackHTTPServer { _, response in
            try response.startBody(status: 200, contentLength: 100_000)
            try response.write([UInt8](repeating: 37, count: 1_000))
            response.close()
        }
        defer { server.stop() }

        let error = await #expect(throws: HTTPClientError.self) {
            try await loopbackClient().execute(HTTPRequest(url: server.url("/cut")), sink: .file(path: destination))
        }
        #expect(error?.kind == .truncated)
        #expect(error?.isTransient == true)
        #expect(!FileManager.default.fileExists(atPath: destination))
    }

    @Test func aMissingBodyFileIsALocalError() async throws {
        let error = await #expect(throws: HTTPClientError.self) {
            try await loopbackClient().execute(
                HTTPRequest(method: "PUT", url: "http://127.0.0.1:9/x", body: .file(path: "/nonexistent/input.docx"))
            )
        }
        #expect(error?.kind == .localFile)
        #expect(error?.message.contains("/nonexistent/input.docx") == true)
    }

    @Test func cancellingMidDownloadStopsPromptlyAndRemovesThePartialFile() async throws {
        let directory = TemporaryDirectory()
        let destination = directory.file("endless.bin")
        let clientGone = Recorder(false)
        let server = try LoopbackHTTPServer { _, response in
            try response.startBody(status: 200, contentLength: nil)
            do {
                try response.trickleForever([UInt8](repeating: 120, count: 1_024), every: .milliseconds(20))
            } catch {
                clientGone.set(true)
                throw error
            }
        }
        defer { server.stop() }

        let download = Task {
            try await loopbackClient().execute(HTTPRequest(url: server.url("/endless")), sink: .file(path: destination))
        }
        // Wait until bytes are landing in the file, so the cancel hits a transfer in progress.
        try await eventually("4 KiB in the file", within: .seconds(5)) {
            (try? FileManager.default.attributesOfItem(atPath: destination)[.size] as? Int) ?? 0 >= 4_096
        }
        let cancelled = ContinuousClock.now
        download.cancel()
        let result = await download.result
        let elapsed = ContinuousClock.now - cancelled
        print("cancellation returned after \(elapsed)")

        #expect(throws: CancellationError.self) { try result.get() }
        #expect(elapsed < .seconds(1))
        #expect(!FileManager.default.fileExists(atPath: destination))
        try await eventually("the server sees the connection closed", within: .seconds(2)) { clientGone.value }
    }

    @Test func cancellingBeforeStartThrowsAtOnce() async throws {
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await loopbackClient().execute(HTTPRequest(url: "http://127.0.0.1:9/never"))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}
