import Testing
@testable import ConfigClient

@Suite struct UpdateDiffTests {
    private func keys(_ old: ConfigValues, _ new: ConfigValues) -> Set<String> {
        UpdateDiff.updatedKeys(from: old, to: new)
    }

    @Test func nothingChanged() {
        let values = ConfigValues(remote: ["a": "1"], defaults: ["b": "2"])
        #expect(keys(values, values).isEmpty)
    }

    @Test func addedRemovedAndChangedValues() {
        let old = ConfigValues(remote: ["same": "1", "changed": "x", "removed": "r"])
        let new = ConfigValues(remote: ["same": "1", "changed": "y", "added": "n"])
        #expect(keys(old, new) == ["changed", "removed", "added"])
    }

    @Test func sourceChangeWithTheSameStringCounts() {
        // The server now sends exactly the in-app default: the source moves from default to remote.
        let old = ConfigValues(remote: [:], defaults: ["flag": "true"])
        let new = ConfigValues(remote: ["flag": "true"], defaults: ["flag": "true"])
        #expect(keys(old, new) == ["flag"])
        #expect(keys(new, old) == ["flag"])
    }

    @Test func remoteRemovalRevealingADefault() {
        let old = ConfigValues(remote: ["title": "Hi"], defaults: ["title": "Hello"])
        let new = ConfigValues(remote: [:], defaults: ["title": "Hello"])
        #expect(keys(old, new) == ["title"])
    }

    @Test func aChangedRolloutAssignmentCountsEvenWithTheSameValue() {
        let outside = ConfigValues(remote: ["flag": "on", "other": "1"])
        let enabled = ConfigValues(remote: ["flag": "on", "other": "1"], rollouts: ["flag": ["r1": "enabled"]])
        #expect(keys(outside, enabled) == ["flag"])
        #expect(keys(enabled, outside) == ["flag"])
        #expect(keys(enabled, ConfigValues(remote: ["flag": "on", "other": "1"], rollouts: ["flag": ["r1": "control"]])) == ["flag"])
        #expect(keys(enabled, enabled).isEmpty)
    }

    @Test func emptyStringIsAValue() {
        #expect(keys(ConfigValues(), ConfigValues(remote: ["k": ""])) == ["k"])
    }
}
