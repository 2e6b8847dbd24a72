import Foundation
import GatewayTestSupport

/// (d) A converter peer for the 200 MB run: it reads the whole multipart upload (so the
/// gateway really streams it) and answers with a small PDF, like Gotenberg's LibreOffice route.
/// With `delay`, each conversion takes that long (the cluster's takeover needs a job mid-run).
func fakeGotenberg(pdf: String, delay: Double = 0) async throws {
    let pdfBytes = Array(FileManager.default.contents(atPath: pdf) ?? Data())
    let server = try LoopbackHTTPServer { request, response in
        if request.path == "/health" {
            try response.respond(status: 200, headers: [("Content-Type", "application/json")], text: #"{"status":"up"}"#)
        } else if request.method == "POST" && request.path.hasPrefix("/forms/") {
            let received = try request.discardBody()
            if received > 1 << 20 { FileHandle.standardError.write(Data("fake-gotenberg: received \(received) bytes\n".utf8)) }
            if delay > 0 { Thread.sleep(forTimeInterval: delay) }
            try response.respond(status: 200, headers: [("Content-Type", "application/pdf")], body: pdfBytes)
        } else {
            _ = try request.discardBody()
            try response.respond(status: 404)
        }
    }
    FileHandle.standardOutput.write(Data("\(server.port)\n".utf8))
    while true { try await Task.sleep(for: .seconds(3600)) }
}
