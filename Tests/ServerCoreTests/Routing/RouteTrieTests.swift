import Testing

@testable import ServerCore

/// The trie over paths, on patterns made for the purpose: which pattern a path reaches, and
/// what its parameters captured.
@Suite struct RouteTrieTests {
    /// The pattern `path` reaches among `patterns`, and its parameters; nil for none.
    private func match(_ path: String, _ patterns: [String]) -> (pattern: String, parameters: [String])? {
        let trie = RouteTrie(patterns.map(RoutePattern.init))
        var text = path
        var captures = RouteCaptures()
        guard let index = text.withUTF8({ trie.match($0, captures: &captures) }) else { return nil }
        let parameters = RouteParameters(captures)
        let pattern = patterns.indices.first { trie.patternPaths[$0] == index }.map { patterns[$0] } ?? ""
        return (pattern, (0..<parameters.count).map { parameters.value(at: $0, in: path) })
    }

    @Test func aLiteralWinsOverAParameterAndBacktracksWhenItLeadsNowhere() {
        let patterns = ["/a/lit/c", "/a/{x}/b"]
        #expect(match("/a/lit/c", patterns)?.pattern == "/a/lit/c")
        #expect(match("/a/lit/b", patterns)?.parameters == ["lit"], "the literal led nowhere: the parameter takes it")
        #expect(match("/a/other/b", patterns)?.parameters == ["other"])
        #expect(match("/a/other/c", patterns) == nil)
    }

    @Test func customMethodsSplitAtTheFirstColon() {
        let patterns = ["/r/{id}", "/r/{id}:go", "/r/{id}:{verb}", "/s/name:{verb}", "/s/name:exact"]
        #expect(match("/r/7:go", patterns)?.pattern == "/r/{id}:go")
        #expect(match("/r/7:stop", patterns)?.parameters == ["7", "stop"])
        #expect(match("/r/7:", patterns)?.parameters == ["7", ""], "a method may be empty")
        #expect(match("/r/:go", patterns)?.parameters == [":go"], "an id may not: the whole segment is one")
        #expect(match("/r/7", patterns)?.pattern == "/r/{id}")
        #expect(match("/r/a:b:go", patterns)?.parameters == ["a", "b:go"])
        #expect(match("/s/name:exact", patterns)?.pattern == "/s/name:exact")
        #expect(match("/s/name:other", patterns)?.parameters == ["other"])
        #expect(match("/s/names:other", patterns) == nil)
    }

    @Test func aRestParameterTakesSlashesAndMayBeEmpty() {
        let patterns = ["/files", "/files/{path...}"]
        #expect(match("/files", patterns)?.pattern == "/files")
        #expect(match("/files/", patterns)?.parameters == [""])
        #expect(match("/files/a/b/", patterns)?.parameters == ["a/b/"])
        #expect(match("/filesx", patterns) == nil)
    }

    /// Paths without parameters are looked up by their length first; the others, and those
    /// that only share a length with one, walk the trie.
    @Test func pathsWithoutParametersAreFoundByTheirLength() {
        let patterns = ["/ab", "/cd", "/{x}", "/ab/{y}"]
        #expect(match("/cd", patterns)?.pattern == "/cd")
        #expect(match("/ef", patterns)?.parameters == ["ef"])
        #expect(match("/ab/z", patterns)?.parameters == ["z"])
        #expect(match("/abc", patterns)?.parameters == ["abc"])
    }

    @Test func patternsThatDifferOnlyInNamesArePathsOfOne() {
        let trie = RouteTrie(["/a/{x}", "/a/{y}", "/a/{x}/b"].map(RoutePattern.init))
        #expect(trie.pathCount == 2 && trie.patternPaths[0] == trie.patternPaths[1])
    }

    @Test(arguments: ["", "a", "/", "//", "/a//", "/a/x/b/", "/b"])
    func malformedOrUnknownPathsMatchNothing(_ path: String) {
        #expect(match(path, ["/a/{x}", "/a/{x}/b"]) == nil)
    }
}
