import Foundation
import GatewayTestSupport
import Testing

@testable import GatewayLocalConverters

/// Readiness starts each tool: a missing program or a Python without `uno` is named with the
/// Debian package that brings it, and a working install passes.
extension LocalConverterTests {
    @Suite(.serialized) struct ToolChecks {
        @Test func aWorkingInstallStartsEveryTool() async throws {
            try await withConverter { converter in
                for tool in [LocalTool.libreOffice, .chromium, .calibre] {
                    let problem = await converter.toolProblem(tool)
                    #expect(problem == nil, "\(tool): \(problem ?? "")")
                }
            }
        }

        @Test func aBrokenToolIsNamedWithThePackageToInstall() async throws {
            // A python3 that cannot import uno (like a pyenv one), and no Chromium at all.
            let directory = TemporaryDirectory("pdfgate-toolcheck")
            let python = directory.file("python3")
            try "#!/bin/sh\necho 'ModuleNotFoundError: No module named uno' >&2\nexit 1\n".write(toFile: python, atomically: true, encoding: .utf8)
            chmod(python, 0o755)
            let configuration = LocalConverter.Configuration(pythonPath: python, chromiumPath: directory.file("chromium"))
            try await withConverter(configuration) { converter in
                let office = try #require(await converter.toolProblem(.libreOffice))
                #expect(office.contains("python3 -c import uno exited with status 1") && office.contains("python3-uno"), "\(office)")
                let chromium = try #require(await converter.toolProblem(.chromium))
                #expect(chromium.contains("chromium is not installed") && chromium.contains("install Debian's chromium"), "\(chromium)")
                #expect(!office.contains(directory.path) && !chromium.contains(directory.path), "no paths in a public answer")
                #expect(await converter.toolProblem(.calibre) == nil)
            }
        }
    }
}
