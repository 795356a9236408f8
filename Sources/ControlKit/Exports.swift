// Backoff and AnyClock appear in ControlCenter's initialiser; clients get them with ControlKit.
@_exported import SwitchboardSupport
