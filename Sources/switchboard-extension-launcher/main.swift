import SwitchboardSupport
#if canImport(Glibc)
import Glibc
#endif

func fail(_ message: String) -> Never {
    writeLine("switchboard-extension-launcher: \(message)", to: 2)
    exit(2)
}

// switchboard-extension-launcher [--allow DIR]...: the main process of a
// switchboard-extension@.service instance (deploy/switchboard-extension@.service). Each --allow
// names a folder extensions may be run from; without any, /usr/local/libexec/switchboard and
// /usr/libexec/switchboard.
var folders: [String] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--allow":
        guard let folder = arguments.popFirst(), folder.hasPrefix("/") else {
            fail("--allow needs an absolute folder")
        }
        folders.append(folder)
    case "-h", "--help":
        print("""
        usage: switchboard-extension-launcher [--allow DIR]...

        Runs one switchboardd control extension on its standard input and output (a connection
        from switchboardd, passed by systemd's switchboard-extension.socket): reads the daemon's
        launch request, refuses an executable outside the allowed folders, and stays until the
        extension exits or the daemon's end closes.
          --allow DIR   a folder extensions may be run from (default /usr/local/libexec/switchboard
                        and /usr/libexec/switchboard); may be given more than once
        """)
        exit(0)
    default:
        fail("unknown argument \"\(argument)\" (see --help)")
    }
}
exit(ExtensionLauncher(allowedFolders: folders.isEmpty ? ExtensionLauncher.defaultFolders : folders).run())
