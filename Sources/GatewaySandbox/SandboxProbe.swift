import Foundation
import GatewayProcess

extension ConverterSandbox {
    /// Whether the sandbox can start here: nil when a sealed `/bin/true` ran, else what is wrong
    /// and how to fix it. Some container runtimes refuse the namespaces bubblewrap needs.
    package func problem() async -> String? {
        guard case .bubblewrap(let bubblewrap) = isolation else { return nil }
        guard FileManager.default.isExecutableFile(atPath: bubblewrap) else {
            return "bubblewrap is not installed (\(bubblewrap)); install Debian's bubblewrap (scripts/install-deps.sh), "
                + "or start with --unsandboxed-converters (documents could then reach the network and the store)"
        }
        guard FileManager.default.isExecutableFile(atPath: helper) else {
            return "the sandbox helper \(helper) is missing; set PDFGATE_EXECUTABLE to the pdfgate binary"
        }
        let directory = FileManager.default.temporaryDirectory.path + "/pdfgate-sandbox-probe-\(getpid())-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = directory + "/probe.log"
        let spec = wrap(
            ChildSpec(executable: "/bin/true", arguments: [], environment: [:], workingDirectory: directory, stdout: .file(log), stderr: .file(log)),
            mounts: .init(writable: [directory]),
            backstops: .init(addressSpace: false, cpu: true),
            // The helper's way in, which Chromium takes: `prlimit` is a file of the system.
            throughHelper: true
        )
        let outcome: OneShotOutcome
        do throws(SpawnFailure) {
            outcome = try await runOneShot(spec, deadline: .now + .seconds(20), limits: limits)
        } catch {
            return "bubblewrap could not be started: \(error.message)"
        }
        if outcome == .finished(.exited(0)) { return nil }
        let said = OutputCheck.lastLines(OutputCheck.tail(ofFile: log), count: 2)
        return Self.diagnosis(said.isEmpty ? "\(outcome)" : said, helper: helper)
    }

    /// What bubblewrap's words mean, and what to do: a helper it cannot run is a file the sandbox
    /// does not show; only a refused namespace is the kernel's or the container's doing.
    static func diagnosis(_ said: String, helper: String) -> String {
        let refused = ["namespace", "uid map", "Operation not permitted", "Permission denied", "unshare", "No permissions"]
        if said.contains("execvp") || said.contains("No such file") {
            return "the converter sandbox starts but cannot run its helper \(helper) (\(said)): a file it needs is not "
                + "visible inside the sandbox; set PDFGATE_EXECUTABLE to a pdfgate installed elsewhere (e.g. /usr/local/bin/pdfgate) "
                + "and report this as a bug with the path"
        }
        if refused.contains(where: said.contains) {
            return "the converter sandbox does not start here (\(said)): the kernel or container refuses the namespaces "
                + "bubblewrap needs (in Docker: cap_add SYS_ADMIN, security_opt apparmor=unconfined; or allow unprivileged "
                + "user namespaces: sysctl kernel.unprivileged_userns_clone=1), or start with --unsandboxed-converters "
                + "(documents could then reach the network and the store)"
        }
        return "the converter sandbox does not start here (\(said)); check that Debian's bubblewrap works "
            + "(bwrap --ro-bind / / /bin/true), or start with --unsandboxed-converters (documents could then reach the network and the store)"
    }
}
