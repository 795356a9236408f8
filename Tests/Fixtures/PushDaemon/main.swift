import Foundation
import PushedControl
import SwitchboardCore

exit(await SwitchboardDaemon.main(bundle: PushedBundle.self))
