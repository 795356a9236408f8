import SwitchboardHomeKit
import Testing

/// The setup URI and the setup hash against values HAP-python 5.0.0 computed: its own
/// `Accessory.xhm_uri()` (with `base36`) on a bridge (category 2) or a lock (8) whose driver state
/// held the code and setup ID below, and its `AccessoryDriver._setup_hash()` recipe (base64 of
/// the first 4 bytes of SHA-512 of setup ID + device ID) on the IDs below.
@Suite struct HAPSetupPayloadTests {
    @Test(arguments: [
        ("031-45-154", "7OSX", UInt8(2), "X-HM://0023ISYWY7OSX"),
        ("518-08-582", "ABCD", UInt8(2), "X-HM://0024BRZUUABCD"),
        ("001-02-003", "0000", UInt8(2), "X-HM://0023GZQSZ0000"),
        ("031-45-154", "7OSX", UInt8(8), "X-HM://0080M54UA7OSX"),
    ])
    func setupURIIsHAPPythons(code: String, id: String, category: UInt8, uri: String) throws {
        let payload = HAPSetupPayload(setupCode: try SetupCode(code), setupID: try HAPSetupID(id), category: category)
        #expect(payload.uri == uri)
    }

    @Test func payloadBitsAreCategoryFlagsAndCode() throws {
        let payload = HAPSetupPayload(setupCode: try SetupCode("031-45-154"), setupID: try HAPSetupID("7OSX"))
        #expect(payload.payload >> 31 == 2) // category; version and reserved bits 0
        #expect(payload.payload >> 27 & 0xF == 2) // IP
        #expect(payload.payload & 0x7FF_FFFF == 3_145_154)
    }

    @Test(arguments: [("7OSX", "AA:BB:CC:DD:EE:FF", "XIonQA=="), ("ABCD", "12:34:56:78:9A:BC", "UL5fEg==")])
    func setupHashIsHAPPythons(id: String, deviceID: String, hash: String) throws {
        #expect(HAPServiceRecord.setupHash(setupID: try HAPSetupID(id), deviceID: deviceID) == hash)
    }

    @Test(arguments: ["abcd", "ABC", "ABCDE", "AB-D", ""])
    func setupIDsOutsideTheAlphabetAreRefused(id: String) {
        #expect(throws: HAPSetupIDError.self) { try HAPSetupID(id) }
    }

    @Test func randomSetupIDsAreFourCharactersOfTheAlphabet() throws {
        for _ in 0..<50 {
            let id = try HAPSetupID.random()
            #expect(try HAPSetupID(id.description) == id)
        }
    }

    @Test func instanceNameIsCutToSixtyThreeBytesOnACharacter() {
        let record = HAPServiceRecord(name: String(repeating: "é", count: 40), port: 1, deviceID: "AA:BB:CC:DD:EE:FF", model: "m")
        #expect(record.instanceName == String(repeating: "é", count: 31)) // 62 bytes; a 32nd would make 64
        #expect(HAPServiceRecord(name: "Porch", port: 1, deviceID: "", model: "").instanceName == "Porch")
    }

    @Test func txtRecordHasHAPsKeysAndFlagsPairing() throws {
        var record = HAPServiceRecord(name: "Switchboard", port: 51826, deviceID: "AA:BB:CC:DD:EE:FF", model: "Switchboard",
                                      configurationNumber: 3, setupID: try HAPSetupID("7OSX"))
        #expect(record.txt.map(\.key) == ["c#", "ff", "id", "md", "pv", "s#", "sf", "ci", "sh"])
        #expect(record.txt.map(\.value) == ["3", "0", "AA:BB:CC:DD:EE:FF", "Switchboard", "1.1", "1", "1", "2", "XIonQA=="])
        record.isPaired = true
        #expect(record.txt.first { $0.key == "sf" }?.value == "0")
    }
}
