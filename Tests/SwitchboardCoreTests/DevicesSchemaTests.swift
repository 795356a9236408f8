import Foundation
import SwitchboardTesting
import Testing

/// devices.schema.json is a valid JSON Schema that accepts the sample and rejects broken files,
/// checked with Python's jsonschema (installed by the test command).
@Suite struct DevicesSchemaTests {
    @Test func schemaAcceptsTheSampleAndRejectsBrokenFiles() async {
        let script = """
        import json, sys, jsonschema
        schema = json.load(open(sys.argv[1] + '/devices.schema.json'))
        jsonschema.Draft202012Validator.check_schema(schema)
        validator = jsonschema.Draft202012Validator(schema)
        print('sample', len(list(validator.iter_errors(json.load(open(sys.argv[1] + '/devices.json'))))))
        for name in ['wrong-types', 'unknown-keys', 'missing-fields']:
            document = json.load(open(sys.argv[1] + '/Tests/SwitchboardCoreTests/Corpus/' + name + '.json'))
            print(name, len(list(validator.iter_errors(document))) > 0)
        node = {'id': 'shed-light', 'type': 'node', 'node': 'shed-pi', 'control': 'porch', 'timeout': '3s'}
        print('node device', len(list(validator.iter_errors({'node': 'garage-pi', 'devices': [node]}))))
        print('node device with a line', len(list(validator.iter_errors({'node': 'garage-pi', 'devices': [dict(node, gpio={'chip': 'main', 'line': 4})]}))))
        print('relay with a node', len(list(validator.iter_errors({'node': 'garage-pi', 'devices': [{'id': 'r', 'type': 'relay', 'gpio': {'chip': 'main', 'line': 4}, 'node': 'shed-pi'}]}))))
        for homekit in [{}, {'name': 'Garage', 'port': 51826, 'setupCode': '031-45-154'}, {'setupCode': '123-45-678'}, {'setupCode': '03145154'}, {'pin': '031-45-154'}]:
            print('homekit', len(list(validator.iter_errors({'node': 'garage-pi', 'homekit': homekit}))))
        """
        let result = await DaemonHarness.run("/usr/bin/env", ["python3", "-c", script, RepositoryFiles.root])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "sample 0\nwrong-types True\nunknown-keys True\nmissing-fields True\nnode device 0\nnode device with a line 1\nrelay with a node 1\nhomekit 0\nhomekit 0\nhomekit 1\nhomekit 1\nhomekit 1\n")
    }

    /// The schema allows what the loader allows of inputs: a toggle showing a pulled-up contact
    /// passes both, and each key the loader refuses on an input (drive, restore, onShutdown),
    /// on an output (debounce, a relay's pulse) or on an Action button (drive) the schema refuses
    /// too. (That a button cannot press an input is a reference: the loader's alone.)
    @Test func schemaAndLoaderAgreeOnInputs() async throws {
        let valid = NSTemporaryDirectory() + "switchboard-inputs-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: valid) }
        try InputDeviceTests.configuration.write(toFile: valid, atomically: true, encoding: .utf8)
        #expect(ConfigurationCorpusTests.problems(valid) == [])
        let script = """
        import json, sys, jsonschema
        validator = jsonschema.Draft202012Validator(json.load(open(sys.argv[1] + '/devices.schema.json')))
        for path in sys.argv[2:]:
            errors = validator.iter_errors(json.load(open(path)))
            print(path.split('/')[-1], len(list(errors)))
            # A key refused by a false schema is reported at the key by jsonschema 4.10 (Debian 12's)
            # and at the object holding it by 4.19 (Debian 13's) and later: name the object.
            def where(e):
                path = list(e.absolute_path)
                if e.message.startswith('False schema') and path and isinstance(path[-1], str):
                    path = path[:-1]
                return '/'.join(map(str, path))
            for error in sorted(validator.iter_errors(json.load(open(path))), key=lambda e: (where(e), e.message)):
                print(' ', where(error) + ':', error.message)
        """
        let broken = ConfigurationCorpusTests.corpus.appendingPathComponent("inputs.json").path
        let result = await DaemonHarness.run("/usr/bin/env", ["python3", "-c", script, RepositoryFiles.root, valid, broken])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == """
        \(valid.split(separator: "/").last!) 0
        inputs.json 6
          actionButtons/0/gpio: Additional properties are not allowed ('drive' was unexpected)
          devices/1: False schema does not allow 'last'
          devices/1/gpio: Additional properties are not allowed ('drive' was unexpected)
          devices/2: False schema does not allow '1s'
          devices/2/gpio: Additional properties are not allowed ('debounce' was unexpected)
          devices/3: False schema does not allow 'off'

        """)
    }
}
