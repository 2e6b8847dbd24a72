// Drives a library with random mutations until killed. The crash-consistency test runs this
// in a child process and SIGKILLs it at random instants.
//
// usage: library-churn STORE SEED PDF
import Foundation
import GatewayLibrary
import GatewayLibraryModel
import GatewayStore

/// Small, seedable, good enough to scatter operations (SplitMix64).
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let seed = UInt64(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: library-churn STORE SEED PDF\n".utf8))
    exit(2)
}
let store = arguments[1]
let pdf = arguments[3]
var random = SplitMix(state: seed)
let library = try await Library.open(root: store)
let info = PDFInfo(pageCount: 1, pdfVersion: "1.4", pageWidth: 595, pageHeight: 842)
let owners = ["churn", "other"]
let names = ["Alpha", "Beta", "Gamma", "Delta", "Épsilon", "Zeta 01"]
// `a` beside `A`: folder names are case-sensitive, and subtree queries must not mix them up.
let folders = ["", "A", "A/B", "A/B/C", "a", "a/B", "D", "D/E"]
let incoming = store + "/../incoming"
try FileManager.default.createDirectory(atPath: incoming, withIntermediateDirectories: true)
FileHandle.standardOutput.write(Data("ready\n".utf8))

@MainActor func someDocument(_ owner: String) async throws -> Document? {
    try await library.listDocuments(DocumentQuery(owner: owner, recursive: true, sort: DocumentSort(.name), limit: 50)).documents
        .randomElement(using: &random)
}

@MainActor func someFolder(_ owner: String) async throws -> Folder? {
    try await library.listFolders(owner: owner, recursive: true).randomElement(using: &random)
}

while true {
    let owner = owners.randomElement(using: &random)!
    let folder = folders.randomElement(using: &random)!
    let name = names.randomElement(using: &random)!
    do {
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<30:
            _ = try await library.file(pdf, owner: owner, folder: .path(folder), name: name, conflict: .rename, info: info)
        case 30..<40:
            let source = incoming + "/\(UUID().uuidString).pdf"
            try FileManager.default.copyItem(atPath: pdf, toPath: source)
            _ = try await library.file(source, mode: .move, owner: owner, folder: .path(folder), name: name, conflict: .rename, info: info)
        case 40..<55:
            if let document = try await someDocument(owner) {
                try await library.updateDocument(id: document.id, owner: owner, name: name, conflict: .rename)
            }
        case 55..<70:
            if let document = try await someDocument(owner) {
                try await library.updateDocument(id: document.id, owner: owner, folder: .path(folder), conflict: .rename)
            }
        case 70..<80:
            if let document = try await someDocument(owner) { try await library.deleteDocument(id: document.id, owner: owner) }
        case 80..<85:
            if !folder.isEmpty { try await library.createFolder(path: folder, owner: owner) }
        case 85..<90:
            if let target = try await someFolder(owner) {
                try await library.updateFolder(.id(target.id), owner: owner, name: name, conflict: .rename)
            }
        case 90..<95:
            if let target = try await someFolder(owner), let parent = try await someFolder(owner) {
                try await library.updateFolder(.id(target.id), owner: owner, parent: .id(parent.id), conflict: .rename)
            }
        default:
            if let target = try await someFolder(owner) { try await library.deleteFolder(.id(target.id), owner: owner, recursive: true) }
        }
    } catch let error as LibraryError where [.nameConflict, .invalidMove, .folderNotFound, .documentNotFound].contains(error.kind) {
        continue  // expected refusals of random requests
    }
}
