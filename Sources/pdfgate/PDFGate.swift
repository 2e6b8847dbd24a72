import ArgumentParser

/// `pdfgate`: the gateway's command line. Every subcommand drives the same library and
/// inspector the server uses.
@main
struct PDFGate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pdfgate",
        abstract: "Convert documents to PDF and keep them in a folder-organized library.",
        subcommands: [
            InspectCommand.self, AddCommand.self, ListCommand.self, InfoCommand.self, RenameCommand.self,
            MoveCommand.self, RemoveCommand.self, MakeFolderCommand.self, RemoveFolderCommand.self, FsckCommand.self,
            ConvertCommand.self, ScanCommand.self, MergeCommand.self, SplitCommand.self, PDFACommand.self, MetaCommand.self,
            RotateCommand.self, EncryptCommand.self, WatermarkCommand.self, OptimizeCommand.self, OCRCommand.self, JobsCommand.self,
            SearchCommand.self, ServeCommand.self, GotenbergCommand.self, TokenCommand.self,
            InspectWorkerCommand.self,
            SandboxExecCommand.self, StampPageCommand.self,
        ]
    )
}
