public import Foundation

extension Migrator {
    /// The environment variable that names the migrations directory explicitly.
    public static let directoryEnvironmentVariable = "RCS_MIGRATIONS_DIR"

    /// The migrations of one engine: `sqlite` or `postgres` under `defaultMigrationsDirectory()`.
    public static func defaultMigrationsDirectory(engine: String) -> URL? {
        defaultMigrationsDirectory()?.appendingPathComponent(engine, isDirectory: true)
    }

    /// Finds the migrations directory, which holds one folder per engine. Searched in order:
    /// 1. `$RCS_MIGRATIONS_DIR` (returned even if missing, so the error names it),
    /// 2. `./migrations`,
    /// 3. `migrations` next to the 1st to 4th parent of the executable's directory
    ///    (`<repo>/.build/<triple>/debug/exe` finds `<repo>/migrations`),
    /// 4. `/usr/share/remote-config-server/migrations`.
    /// - Returns: the first existing directory, or nil.
    public static func defaultMigrationsDirectory() -> URL? {
        searchMigrationsDirectory(
            environment: ProcessInfo.processInfo.environment,
            currentDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true),
            executable: currentExecutable(),
            isDirectory: { path in
                var isDirectory: ObjCBool = false
                return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
            })
    }

    /// The search of `defaultMigrationsDirectory()` with its inputs injected.
    static func searchMigrationsDirectory(
        environment: [String: String],
        currentDirectory: URL,
        executable: URL?,
        isDirectory: (String) -> Bool
    ) -> URL? {
        if let explicit = environment[directoryEnvironmentVariable], !explicit.isEmpty {
            return URL(fileURLWithPath: explicit, isDirectory: true, relativeTo: currentDirectory).standardizedFileURL
        }
        var candidates = [currentDirectory.appendingPathComponent("migrations", isDirectory: true)]
        if let executable {
            var parent = executable.deletingLastPathComponent()
            for _ in 1...4 {
                parent = parent.deletingLastPathComponent()
                candidates.append(parent.appendingPathComponent("migrations", isDirectory: true))
            }
        }
        candidates.append(URL(fileURLWithPath: "/usr/share/remote-config-server/migrations", isDirectory: true))
        return candidates.map(\.standardizedFileURL).first { isDirectory($0.path) }
    }

    private static func currentExecutable() -> URL? {
        // /proc/self/exe already has every symlink (.build/debug -> triple/debug) resolved.
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return URL(fileURLWithPath: path)
        }
        return Bundle.main.executableURL?.resolvingSymlinksInPath()
    }
}
