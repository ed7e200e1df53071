/// Default values in the platforms' in-app defaults formats (spec §2.7).
enum DefaultsDocument {
    /// Android's `res/xml` defaults map.
    static func androidXML(_ defaults: [(String, String)]) -> String {
        var text = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<defaultsMap>\n"
        for (key, value) in defaults.sorted(by: { $0.0 < $1.0 }) {
            text += "  <entry>\n    <key>\(escape(key))</key>\n    <value>\(escape(value))</value>\n  </entry>\n"
        }
        return text + "</defaultsMap>\n"
    }

    /// An iOS property list dictionary of strings.
    static func plist(_ defaults: [(String, String)]) -> String {
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n"
            + "<plist version=\"1.0\">\n<dict>\n"
        for (key, value) in defaults.sorted(by: { $0.0 < $1.0 }) {
            text += "  <key>\(escape(key))</key>\n  <string>\(escape(value))</string>\n"
        }
        return text + "</dict>\n</plist>\n"
    }

    static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default: result.append(character)
            }
        }
        return result
    }
}
