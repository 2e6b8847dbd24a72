import Foundation
import GatewayEngine
import GatewayJobModel
import GatewayLibraryModel
import Testing

/// Which errors mean "the disk is full" (507, `insufficient_storage`), and which only quote a
/// client's words that happen to say so.
@Suite("disk-full errors")
struct DiskFullTests {
    struct SQLiteLike: Error, CustomStringConvertible {
        var description: String { "SQLite error 13: database or disk is full - while executing `INSERT INTO jobs …`" }
    }

    @Test func whatTheSystemSaysIsRead() {
        let enospc = NSError(domain: NSPOSIXErrorDomain, code: Int(ENOSPC))
        #expect(DiskFull.matches(enospc))
        #expect(DiskFull.matches(NSError(domain: NSPOSIXErrorDomain, code: Int(EDQUOT))))
        #expect(DiskFull.matches(CocoaError(.fileWriteUnknown, userInfo: [NSUnderlyingErrorKey: enospc])), "wrapped")
        #expect(DiskFull.matches(CocoaError(.fileWriteOutOfSpace)))
        #expect(DiskFull.matches(SQLiteLike()))
        #expect(DiskFull.matches(LibraryError(.storage, "cannot write Invoice.pdf: No space left on device")))
        #expect(DiskFull.matches(StagingError(.storage, "cannot stage the upload: No space left on device")))
        #expect(DiskFull.matches(JobFailure(.transient, code: DiskFull.code, DiskFull.message)))
    }

    @Test func aClientsOwnWordsAreNot() {
        let quoted = "No space left on device.xyz"
        #expect(!DiskFull.matches(IntakeError(.unsupportedFormat, code: "unsupported_format", "\(quoted) is not a format DOC_TO_PDF converts")))
        #expect(!DiskFull.matches(LibraryError(.nameConflict, "\(quoted) already exists in Inbox")))
        #expect(!DiskFull.matches(JobFailure(.rejected, code: "conversion_rejected", "LibreOffice refused \(quoted)")))
        #expect(!DiskFull.matches(NSError(domain: NSPOSIXErrorDomain, code: Int(EACCES))))
    }
}
