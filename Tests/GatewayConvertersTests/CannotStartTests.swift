import Foundation
import GatewayJobModel
import GatewayTestSupport
import Testing

@testable import GatewaySandbox

/// A local tool that cannot start (its sandbox refused, its program missing) fails the
/// conversion within seconds as `.cannotStart`, naming the cause and its fix; the same problem
/// is what the engine's re-check finds.
@Suite("local tools that cannot start")
struct CannotStartTests {
    @Test func aMissingProgramFailsAtOnceNamingThePackage() async throws {
        let started = ContinuousClock.now
        try await withConverter(.init(sofficePath: "/nonexistent/soffice")) { converter in
            let job = JobFixture()
            let error = await conversionError {
                try await converter.convert(job.request(.docToPDF, job.file(Fixtures.office("sample.docx"))), events: { _ in })
            }
            let failure = try #require(error as? JobFailure, "\(String(describing: error))")
            #expect(failure.kind == .cannotStart && failure.code == JobFailure.cannotStartCode)
            #expect(failure.message.contains("soffice is not installed") && failure.message.contains("libreoffice-writer"), "\(failure.message)")
            #expect(ContinuousClock.now - started < .seconds(30), "failed within seconds, not at the 60 s deadline")
            #expect(await converter.startProblem(for: .docToPDF) == failure, "the re-check finds the same cause")
            #expect(await converter.startProblem(for: .ebookToPDF) == nil, "Calibre is installed: ebooks still start")
        }
    }

    @Test func aSandboxThatCannotStartFailsEveryToolAtOnce() async throws {
        let sandbox = ConverterSandbox(isolation: .bubblewrap("/nonexistent/bwrap"))
        try await withConverter(.init(sandbox: sandbox)) { converter in
            let job = JobFixture()
            let error = await conversionError {
                try await converter.convert(job.request(.ebookToPDF, job.file(Fixtures.ebook("sample.epub"))), events: { _ in })
            }
            let failure = try #require(error as? JobFailure, "\(String(describing: error))")
            #expect(failure.kind == .cannotStart)
            #expect(failure.message.contains("bubblewrap is not installed"), "\(failure.message)")
            #expect(await converter.startProblem(for: .urlToPDF)?.kind == .cannotStart)
        }
    }

    @Test(arguments: [
        ("bwrap: execvp /tmp/x/pdfgate: No such file or directory", "cannot run its helper"),
        (
            "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces",
            "refuses the namespaces"
        ),
        ("bwrap: setting up uid map: Permission denied", "refuses the namespaces"),
    ])
    func bubblewrapsWordsAreReadForTheirCause(said: String, cause: String) {
        let diagnosis = ConverterSandbox.diagnosis(said, helper: "/tmp/x/pdfgate")
        #expect(diagnosis.contains(cause), "\(diagnosis)")
        #expect(diagnosis.contains(said))
    }
}
