import SwitchboardCore
#if canImport(Glibc)
import Glibc
#endif

// switchboardd is the daemon with no Swift bundle: its options and its run are SwitchboardCore's,
// the same a program embedding a bundle gets from `SwitchboardDaemon.main(bundle:)`.
exit(await SwitchboardDaemon.main())
