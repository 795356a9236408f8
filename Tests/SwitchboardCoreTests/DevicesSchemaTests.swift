import Foundation
import SwitchboardTesting
import Testing

/// devices.schema.json is a valid JSON Schema that accepts the sample and rejects broken files,
/// checked with Python's jsonschema (installed by the test command).
@Suite struct DevicesSchemaTests {
    @Test func schemaAcceptsTheSampleAndRejectsBrokenFiles() {
        let script = """
        import json, sys, jsonschema
        schema = json.load(open(sys.argv[1] + '/devices.schema.json'))
        jsonschema.Draft202012Validator.check_schema(schema)
        validator = jsonschema.Draft202012Validator(schema)
        print('sample', len(list(validator.iter_errors(json.load(open(sys.argv[1] + '/devices.json'))))))
        for name in ['wrong-types', 'unknown-keys', 'missing-fields']:
            document = json.load(open(sys.argv[1] + '/Tests/SwitchboardCoreTests/Corpus/' + name + '.json'))
            print(name, len(list(validator.iter_errors(document))) > 0)
        """
        let result = DaemonHarness.run("/usr/bin/env", ["python3", "-c", script, RepositoryFiles.root])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "sample 0\nwrong-types True\nunknown-keys True\nmissing-fields True\n")
    }
}
