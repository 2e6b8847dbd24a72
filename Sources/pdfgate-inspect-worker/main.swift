import Foundation
import GatewayPDF

// Started by PDFInspectorPool; see InspectWorkerMain for the protocol.
InspectWorkerMain.run(arguments: CommandLine.arguments, environment: ProcessInfo.processInfo.environment)
