import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs one of the repository's `scripts/*-scratch.sh` (a throwaway PostgreSQL or S3 server)
/// through `system(3)`, which waits for exactly its own child: the daemons such a script starts
/// must not keep a pipe of ours open, and Foundation's `Process` never saw such a script exit
/// (it was left a zombie while `waitUntilExit` waited). Returns its output, trimmed.
func runScratchScript(_ name: String, _ arguments: String) throws -> String {
    let script = URL(fileURLWithPath: Fixtures.root).deletingLastPathComponent().appendingPathComponent("scripts/" + name).path
    let output = NSTemporaryDirectory() + "pdfgate-\(name)-\(UUID().uuidString).out"
    defer { unlink(output) }
    let status = system("bash '\(script)' \(arguments) >'\(output)' 2>&1 </dev/null")
    let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    guard status == 0 else { throw ScratchScriptError(message: "\(name) \(arguments) failed: \(text)") }
    return text.trimmingCharacters(in: .whitespacesAndNewlines)
}

public struct ScratchScriptError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
