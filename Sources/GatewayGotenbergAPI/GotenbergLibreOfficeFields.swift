import GatewayJobModel

extension GotenbergFields {
    /// The rest of Gotenberg's LibreOffice fields (`skipEmptyPages`, `initialView`,
    /// `nativeWatermarkText`…), as LibreOffice's export settings by its names
    /// (`LibreOfficeExportSetting`), checked in Gotenberg's words. Nil when none is sent.
    mutating func libreOfficeExport() -> [String: OfficeExportValue]? {
        var settings: [String: OfficeExportValue] = [:]
        for setting in LibreOfficeExportSetting.all {
            let field = setting.gotenbergField
            switch setting.kind {
            case .flag:
                if let value = bool(field) { settings[setting.name] = .flag(value) }
            case .text:
                // Gotenberg's default font is Helvetica, which it then leaves to LibreOffice.
                if let value = string(field), !(field == "nativeWatermarkFontName" && value == "Helvetica") {
                    settings[setting.name] = .text(value)
                }
            case .number(let range):
                let value = int(field) { value in
                    if field == "nativeWatermarkColor" || field == "nativeWatermarkRotateAngle" { return nil }
                    return value < range.lowerBound ? "value is inferior to \(range.lowerBound)" : nil
                }
                // Gotenberg sends a font height above 0 and an angle or colour other than 0 only.
                if let value, !(["nativeWatermarkColor", "nativeWatermarkRotateAngle"].contains(field) && value == 0) {
                    settings[setting.name] = .number(value)
                }
            case .choice(let values):
                let value = int(field) { value in values.contains(value) ? nil : Self.notAmong(values) }
                if let value { settings[setting.name] = .number(value) }
            }
        }
        return settings.isEmpty ? nil : settings
    }

    /// Gotenberg's words: "value is not 0, 1 or 2", "value is not -1 or between 1 and 10".
    private static func notAmong(_ values: [Int]) -> String {
        if values.first == -1 { return "value is not -1 or between 1 and 10" }
        let words = values.map(String.init)
        return "value is not " + words.dropLast().joined(separator: ", ") + " or " + (words.last ?? "")
    }
}
