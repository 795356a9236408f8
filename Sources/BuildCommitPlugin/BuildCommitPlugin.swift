import Foundation
import PackagePlugin

/// Records the commit a target is built from, for `--version`: before each build, a small shell
/// script asks git for the package's `HEAD` (12 hex digits, with `-modified` when tracked files
/// differ from it) and writes `BuildCommit.swift` only when that changed, so an unchanged commit
/// recompiles nothing. Built outside a git checkout (a release tarball), or where git is missing or
/// refuses the folder, the commit is empty and `--version` says "commit unknown".
@main
struct BuildCommitPlugin: BuildToolPlugin {
    /// The script: `$1` the package folder, `$2` the folder of the generated file.
    static let script = #"""
        package=$1 out=$2
        mkdir -p "$out"
        commit=$(git -C "$package" rev-parse --short=12 HEAD 2>/dev/null) || commit=""
        if [ -n "$commit" ] && ! git -C "$package" diff --quiet HEAD -- 2>/dev/null; then
            commit="$commit-modified"
        fi
        text="// Generated before each build by BuildCommitPlugin; not to be edited.
        extension Switchboard {
            /// The commit this program was built from, \"\" when unknown.
            public static let buildCommit = \"$commit\"
        }"
        if [ "$(cat "$out/BuildCommit.swift" 2>/dev/null)" != "$text" ]; then
            printf '%s\n' "$text" > "$out/BuildCommit.swift.new" && mv "$out/BuildCommit.swift.new" "$out/BuildCommit.swift"
        fi
        """#

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("generated")
        return [
            .prebuildCommand(
                displayName: "Recording the commit \(target.name) is built from",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", Self.script, "build-commit", context.package.directoryURL.path, output.path],
                outputFilesDirectory: output
            ),
        ]
    }
}
