import Foundation
import GatewayJobModel

/// A `SCREENSHOT` job's capture, where a print job calls `Page.printToPDF`: the viewport is set
/// before the page loads (it lays out at that width), then `Page.captureScreenshot` takes the
/// viewport, the viewport-sized `clip`, or the box of the element `selector` names — Gotenberg's
/// three cases, with its defaults (`ScreenshotOptions`).
extension ChromiumDevToolsPrint {
    /// The viewport the page is laid out in.
    static func setViewport(_ options: ScreenshotOptions, session: String, pipe: DevToolsPipe) async throws {
        try await pipe.call(
            "Emulation.setDeviceMetricsOverride",
            ["width": options.width, "height": options.height, "deviceScaleFactor": options.deviceScaleFactor, "mobile": false],
            session: session
        )
    }

    /// Captures the page into `output`; a selector that matches nothing visible refuses the job
    /// in Gotenberg's words.
    static func capture(_ options: ScreenshotOptions, session: String, pipe: DevToolsPipe, output: String) async throws -> JobFailure? {
        var parameters: [String: Any] = [
            "format": options.format.rawValue,
            "captureBeyondViewport": true,
            "fromSurface": true,
            "optimizeForSpeed": options.optimizeForSpeed,
        ]
        if options.format == .jpeg { parameters["quality"] = options.quality }
        if let selector = options.selector {
            guard let box = try await elementBox(selector, session: session, pipe: pipe) else {
                return JobFailure(
                    .rejected,
                    code: "screenshot_selector_not_found",
                    "The selector '\(selector)' (selector) matched no element with a visible box"
                )
            }
            parameters["clip"] = box
        } else if options.clip {
            parameters["clip"] = ["x": 0, "y": 0, "width": options.width, "height": options.height, "scale": 1]
        }
        let shot = try await pipe.call("Page.captureScreenshot", parameters, session: session)
        guard let text = shot["data"] as? String, let image = Data(base64Encoded: text) else {
            throw DevToolsPipe.Failure(description: "Page.captureScreenshot returned no image")
        }
        guard FileManager.default.createFile(atPath: output, contents: image) else {
            throw DevToolsPipe.Failure(description: "cannot write \(output)")
        }
        return nil
    }

    /// The first element matching `selector`, as a clip in page coordinates (its viewport box
    /// moved by the scroll offset); nil when none matches or it has no area.
    private static func elementBox(_ selector: String, session: String, pipe: DevToolsPipe) async throws -> [String: Any]? {
        // A JSON string is a JavaScript string literal: the selector cannot break out of it.
        let literal = String(decoding: try JSONSerialization.data(withJSONObject: [selector]), as: UTF8.self).dropFirst().dropLast()
        let expression = """
            (() => {
              let element = null;
              try { element = document.querySelector(\(literal)); } catch (e) { return null; }
              if (!element) return null;
              const box = element.getBoundingClientRect();
              return { x: box.left + window.scrollX, y: box.top + window.scrollY, width: box.width, height: box.height };
            })()
            """
        let answer = try await pipe.call("Runtime.evaluate", ["expression": expression, "returnByValue": true], session: session)
        guard let box = (answer["result"] as? [String: Any])?["value"] as? [String: Any],
            let width = box["width"] as? Double, let height = box["height"] as? Double, width > 0, height > 0
        else { return nil }
        return ["x": box["x"] as? Double ?? 0, "y": box["y"] as? Double ?? 0, "width": width, "height": height, "scale": 1]
    }
}
