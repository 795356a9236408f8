import Foundation
import SwitchboardCore

exit(await SwitchboardDaemon.main(bundle: GardenBundle.self))
