import Foundation
import GatewayCore
import GatewayProcess

/// How every local converter process is sealed (DESIGN §8): a bubblewrap sandbox with a network
/// namespace of its own (so nothing in a document can open a connection), the system read-only,
/// only the directories a conversion needs writable, no capabilities, and resource limits.
///
/// Documents are hostile input to large C++ programs (LibreOffice, Chromium, Qt WebEngine):
/// linked images, fields, formulas and stylesheets make them fetch URLs, and `file://` links
/// make them read files. Inside the sandbox there is no route anywhere and no store to read.
public struct ConverterSandbox: Sendable {
    /// How tools are isolated.
    public enum Isolation: Sendable, Equatable {
        /// bubblewrap (Debian's `bubblewrap`) at this path.
        case bubblewrap(String)
        /// The operator's explicit `--unsandboxed-converters`: plain children, limits still watched.
        case none
    }

    public let isolation: Isolation
    public let limits: ResourceLimits
    /// Paths no tool may see even when they lie inside a directory bound into the sandbox: the
    /// store and the configuration file (which may hold secrets).
    public let hiddenPaths: [String]
    /// The `pdfgate` executable, which applies rlimits inside the sandbox (`sandbox-exec`).
    public let helper: String
    /// The gateway's fontconfig file and the operator's font folder, when set: every tool sees
    /// the same fonts, sealed or not.
    public let fonts: SandboxFonts?
    /// bubblewrap's options that are the same for every tool: worked out once (they read the
    /// file system and this process's mappings), not per conversion.
    private let systemArguments: [String]
    /// `helper` with symlinks resolved: what runs inside the sandbox, bound at its real path.
    private let sealedHelper: String
    /// util-linux's `prlimit`, when installed: it sets a tool's rlimits and runs it, a small C
    /// program where the helper loads all of `pdfgate` first. The helper still starts Chromium,
    /// whose proxy listener it binds in the sandbox.
    private let limiter: String?

    /// Sandboxed with Debian's bubblewrap, default limits.
    public init(
        isolation: Isolation = .bubblewrap(ConverterSandbox.defaultBubblewrap),
        limits: ResourceLimits = ResourceLimits(),
        hiddenPaths: [String] = [],
        helper: String = HelperExecutable.path,
        fonts: SandboxFonts? = nil
    ) {
        self.isolation = isolation
        self.limits = limits
        self.hiddenPaths = hiddenPaths
        self.helper = helper
        self.fonts = fonts
        sealedHelper = Self.realPath(helper)
        limiter = FileManager.default.isExecutableFile(atPath: Self.defaultLimiter) ? Self.defaultLimiter : nil
        systemArguments = Self.systemArguments(helper: sealedHelper, hiddenPaths: hiddenPaths)
    }

    /// The same sandbox, hiding `paths` as well.
    public func hiding(_ paths: [String]) -> ConverterSandbox {
        ConverterSandbox(isolation: isolation, limits: limits, hiddenPaths: hiddenPaths + paths, helper: helper, fonts: fonts)
    }

    /// The same sandbox, its tools seeing `fonts`.
    public func with(fonts: SandboxFonts) -> ConverterSandbox {
        ConverterSandbox(isolation: isolation, limits: limits, hiddenPaths: hiddenPaths, helper: helper, fonts: fonts)
    }

    /// The font generation a tool starting now sees (0 without fonts of the gateway's own).
    package var fontGeneration: Int { fonts?.generation.current ?? 0 }

    public static let defaultBubblewrap = "/usr/bin/bwrap"
    /// Debian's util-linux, which every Debian system has (it is essential).
    static let defaultLimiter = "/usr/bin/prlimit"

    /// What one tool process needs besides the read-only system.
    package struct Mounts: Sendable {
        /// Bound read-write at the same path (profiles, the job's exchange directory).
        package var writable: [String]
        /// Bound read-only at the same path.
        package var readable: [String] = []

        package init(writable: [String], readable: [String] = []) {
            self.writable = writable
            self.readable = readable
        }
    }

    /// Which rlimits the helper sets before it runs the tool. Chromium and Qt WebEngine reserve
    /// terabytes of address space, so they get no address-space cap (the watchdog's memory cap
    /// still applies); a warm tool gets no CPU rlimit, since it accumulates over many jobs.
    package struct Backstops: Sendable {
        package var addressSpace: Bool
        package var cpu: Bool

        package init(addressSpace: Bool, cpu: Bool) {
            self.addressSpace = addressSpace
            self.cpu = cpu
        }
    }

    /// `spec` run inside the sandbox. `listenerChannel`, when given, is a socket on which the
    /// helper sends back a TCP listener it bound to 127.0.0.1 inside the sandbox's network
    /// namespace: the one address Chromium may reach, answered by the gateway's vetting proxy.
    /// Other tools start through `prlimit` unless `throughHelper` asks for the helper (the probe,
    /// which checks that Chromium's way in works).
    package func wrap(
        _ spec: ChildSpec,
        mounts: Mounts,
        backstops: Backstops,
        listenerChannel: Int32? = nil,
        throughHelper: Bool = false
    ) -> ChildSpec {
        let rlimits = RLimits(limits: limits, backstops: backstops, root: getuid() == 0)
        let launcher: [String]
        if listenerChannel == nil, !throughHelper, let limiter {
            launcher = [limiter] + rlimits.prlimitOptions
        } else {
            var helperArguments = [isSealed ? sealedHelper : helper, HelperExecutable.Subcommand.sandboxExec.rawValue]
            helperArguments += rlimits.helperOptions
            if listenerChannel != nil {
                helperArguments += ["--send-listener", String(Self.listenerDescriptor), "--listen-port", String(Self.proxyPort)]
            }
            launcher = helperArguments
        }
        let command = launcher + ["--", spec.executable] + spec.arguments

        var wrapped = spec
        wrapped.inherited = listenerChannel.map { [Self.listenerDescriptor: $0] } ?? [:]
        if let fonts { wrapped.environment.merge(fonts.environment) { $1 } }
        switch isolation {
        case .none:
            wrapped.executable = command[0]
            wrapped.arguments = Array(command.dropFirst())
        case .bubblewrap(let bubblewrap):
            wrapped.executable = bubblewrap
            wrapped.arguments = bubblewrapArguments(mounts: mounts, workingDirectory: spec.workingDirectory) + ["--"] + command
        }
        return wrapped
    }

    /// The port the proxy listener is bound to inside a sandbox: the network namespace is the
    /// sandbox's own, so it is always free, and Chromium's flags can name it before it starts.
    package static let proxyPort = 3128

    /// Whether tools run in bubblewrap (else as plain children, by the operator's choice).
    public var isSealed: Bool { isolation != .none }

    /// Where the listener channel sits in the child: the first descriptor after stderr, so the
    /// spawn can close everything above it. The helper closes it before the tool starts (which
    /// frees 3 for Chromium's DevTools pipe).
    static let listenerDescriptor: Int32 = 3

    /// Address space an idle LibreOffice or Python maps beyond what it uses.
    static let addressSpaceHeadroom = 2 << 30

    /// bubblewrap's options for one tool: the system's, then its own directories.
    func bubblewrapArguments(mounts: Mounts, workingDirectory: String?) -> [String] {
        var arguments = systemArguments
        // After the covers over the store: the gateway's font file may live in it.
        for path in fonts?.readable ?? [] { arguments += ["--ro-bind-try", path, path] }
        for path in mounts.readable { arguments += ["--ro-bind", path, path] }
        for path in mounts.writable { arguments += ["--bind", path, path] }
        if let workingDirectory { arguments += ["--chdir", workingDirectory] }
        return arguments
    }

    /// New namespaces for everything but the user, no capabilities, the system read-only with
    /// its secrets and `hiddenPaths` covered, a private /tmp and a minimal /dev without a terminal.
    ///
    /// Order matters: bubblewrap mounts in the order given, and a later mount hides whatever an
    /// earlier one put beneath it. So the private directories (/tmp, /run, /dev) come first, the
    /// covers over secrets and the store next, and what the tool must see last: the helper and
    /// its runtime libraries, wherever they live (a checkout under /tmp, a store beside them), and
    /// then each tool's own directories (`bubblewrapArguments`).
    private static func systemArguments(helper: String, hiddenPaths: [String]) -> [String] {
        var arguments = [
            "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--cap-drop", "ALL", "--hostname", "pdfgate-sandbox",
        ]
        let fileManager = FileManager.default
        for top in ["/usr", "/etc", "/opt"] where fileManager.fileExists(atPath: top) && !isSymlink(top) {
            arguments += ["--ro-bind", top, top]
        }
        // Debian's merged /usr makes these symlinks; older layouts have real directories.
        for top in ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"] where fileManager.fileExists(atPath: top) {
            if let target = try? fileManager.destinationOfSymbolicLink(atPath: top) {
                arguments += ["--symlink", target, top]
            } else {
                arguments += ["--ro-bind", top, top]
            }
        }
        // Fontconfig's cache spares every start a scan of all fonts.
        arguments += ["--ro-bind-try", "/var/cache/fontconfig", "/var/cache/fontconfig"]
        arguments += ["--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/run"]
        arguments += ["--tmpfs", "/dev", "--tmpfs", "/dev/shm"]
        for device in ["null", "zero", "full", "random", "urandom"] {
            arguments += ["--dev-bind", "/dev/" + device, "/dev/" + device]
        }
        arguments += ["--symlink", "/proc/self/fd", "/dev/fd"]
        for (index, name) in ["stdin", "stdout", "stderr"].enumerated() {
            arguments += ["--symlink", "/proc/self/fd/\(index)", "/dev/" + name]
        }
        // Secrets of the system itself, readable by uid 0 even without capabilities.
        for path in systemSecrets + hiddenPaths { arguments += hide(path) }
        // The helper and the libraries it was linked against (a debug build's Swift runtime), at
        // their real paths: a symlink on the way could point into a directory covered above.
        for path in [helper] + runtimeLibraryDirectories() {
            arguments += ["--ro-bind-try", path, path]
        }
        return arguments
    }

    static let systemSecrets = [
        "/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/ssh", "/etc/ssl/private", "/etc/sudoers",
        "/etc/sudoers.d", "/etc/security/opasswd",
    ]

    /// Covers `path` inside the sandbox (an empty directory or an empty file), if it exists: at
    /// the path as given and, when a symlink leads there, at its real path too.
    static func hide(_ path: String) -> [String] {
        let given = URL(fileURLWithPath: path).standardizedFileURL.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: given, isDirectory: &isDirectory) else { return [] }
        let paths = Set([given, realPath(given)]).sorted()
        return paths.flatMap { isDirectory.boolValue ? ["--tmpfs", $0] : ["--ro-bind", "/dev/null", $0] }
    }

    /// `path` with every symlink resolved (`realpath(3)`), or `path` itself when it does not resolve.
    static func realPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func isSymlink(_ path: String) -> Bool {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) != nil
    }

    /// Directories outside the read-only system that hold shared libraries this process loaded
    /// (a Swift toolchain's runtime when `pdfgate` is not statically linked): the helper needs them.
    static func runtimeLibraryDirectories() -> [String] {
        guard let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8) else { return [] }
        var directories = Set<String>()
        for line in maps.split(separator: "\n") {
            guard let slash = line.firstIndex(of: "/") else { continue }
            let path = String(line[slash...])
            guard path.contains(".so"), !["/usr/", "/lib", "/etc/", "/opt/"].contains(where: path.hasPrefix) else { continue }
            directories.insert((path as NSString).deletingLastPathComponent)
        }
        return directories.sorted()
    }
}
