import ArgumentParser

/// `--version N`: which stored version `get` and `export` read (the current one when omitted).
struct TemplateSelection: ParsableArguments {
    @Option(name: .customLong("version"), help: "Version number to read instead of the current one.")
    var versionNumber: Int64?

    func validate() throws {
        if let versionNumber, versionNumber <= 0 { throw ValidationError("--version must be a positive version number") }
    }
}
