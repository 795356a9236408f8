import Foundation
import SwitchboardCore

@main
struct HomeDaemon {
    static func main() async {
        exit(await SwitchboardDaemon.main(bundle: HomeBundle.self))
    }
}
