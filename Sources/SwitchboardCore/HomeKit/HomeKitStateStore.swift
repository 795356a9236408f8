#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SwitchboardHomeKit
import SwitchboardSupport

/// The bridge's ``HomeKitState`` in memory and on storage: every change is saved before it
/// counts (a pairing that a restart would forget is refused). It is the HAP server's
/// ``PairingStore``, and what `switchboard homekit` and `switchboard status` read.
public final class HomeKitStateStore: PairingStore, @unchecked Sendable {
    // @unchecked Sendable: `state` is a `Locked`; `file` is immutable.
    private let file: HomeKitStateFile
    private let state: Locked<HomeKitState>

    /// Loads the state, or makes a new identity and saves it; makes a setup code too when
    /// `needsSetupCode` and the state has none.
    /// - Returns: the store, and whether it was made now.
    /// - Throws: ``HomeKitStateError`` when the file is unreadable or cannot be saved.
    public static func open(_ file: HomeKitStateFile, needsSetupCode: Bool) throws -> (store: HomeKitStateStore, created: Bool, madeSetupCode: Bool) {
        var created = false, madeCode = false
        var state: HomeKitState
        if let saved = try file.load() {
            state = saved
        } else {
            state = try HomeKitState.new()
            created = true
        }
        if needsSetupCode, state.setupCode == nil {
            state.setupCode = HomeKitState.randomSetupCode()
            madeCode = true
        }
        var madeID = false
        if state.setupID.flatMap({ try? HAPSetupID($0) }) == nil {
            state.setupID = try HAPSetupID.random().description
            madeID = true
        }
        if created || madeCode || madeID { try file.save(state) }
        return (HomeKitStateStore(file: file, state: state), created, madeCode)
    }

    init(file: HomeKitStateFile, state: HomeKitState) {
        self.file = file
        self.state = Locked(state)
    }

    /// The state now.
    public var current: HomeKitState { state.withLock { $0 } }

    /// Called after each saved change, with the new state (outside the store's lock).
    let changed = Locked<(@Sendable (HomeKitState) -> Void)?>(nil)

    /// Changes the state and saves it; when it cannot be saved the change is taken back.
    @discardableResult
    public func update<T>(_ change: (inout HomeKitState) throws -> T) throws -> T {
        let (result, saved) = try state.withLock { state -> (T, HomeKitState?) in
            var next = state
            let result = try change(&next)
            guard next != state else { return (result, nil) }
            try file.save(next)
            state = next
            return (result, next)
        }
        if let saved, let changed = changed.withLock({ $0 }) { changed(saved) }
        return result
    }

    /// The accessory's identity for pairing.
    public func identity() throws -> AccessoryIdentity {
        let current = self.current
        guard let seed = Data(base64Encoded: current.longTermKey) else {
            throw HomeKitStateError(path: file.path, reason: "holds no valid long-term key; restore it from a backup, or move it aside to start as a new accessory")
        }
        return AccessoryIdentity(pairingIdentifier: current.pairingIdentifier, longTermKey: try Ed25519PrivateKey(rawRepresentation: Array(seed)))
    }

    // MARK: PairingStore

    public var pairings: [Pairing] {
        current.pairings.compactMap { stored in
            guard let identifier = Data(base64Encoded: stored.identifier), let key = Data(base64Encoded: stored.publicKey),
                  let publicKey = try? Ed25519PublicKey(rawRepresentation: Array(key)) else { return nil }
            return Pairing(identifier: Array(identifier), publicKey: publicKey, isAdmin: stored.admin)
        }
    }

    public func add(_ pairing: Pairing) throws {
        let stored = HomeKitState.StoredPairing(
            identifier: Data(pairing.identifier).base64EncodedString(), publicKey: Data(pairing.publicKey.rawRepresentation).base64EncodedString(), admin: pairing.isAdmin)
        try update { state in
            if let index = state.pairings.firstIndex(where: { $0.identifier == stored.identifier }) {
                state.pairings[index] = stored
            } else {
                state.pairings.append(stored)
            }
        }
    }

    public func remove(identifier: [UInt8]) {
        let encoded = Data(identifier).base64EncodedString()
        try? update { $0.pairings.removeAll { $0.identifier == encoded } }
    }

    public var failedPairSetupAttempts: Int {
        get { current.failedPairSetupAttempts }
        set { try? update { $0.failedPairSetupAttempts = newValue } }
    }

    /// The paired controllers' identifiers, as they sent them (text).
    public var controllerIdentifiers: [String] {
        pairings.map { String(decoding: $0.identifier, as: UTF8.self) }
    }
}
