import ConfigCore
import ConfigStore
import Foundation
import StoreTestSupport
import Testing
import TestSupport

/// A project's environments: production made with the project and kept last, others in the order
/// made, renamed and given a soak rule, deleted only while they hold no template and no key; every
/// change announced to the workers, on each engine.
extension StoreContract {
    @Suite struct Environments {
        let fresh = FreshData()

        @Test(arguments: StoreEngine.allCases) func environmentsAreOrderedChangedAndDeletedOnlyWhenEmpty(engine: StoreEngine) throws {
            let database = try fresh.fixture(engine).make(clock: ManualClock(Date(timeIntervalSince1970: 1_800_000_000)))
            let projects = database.projects
            let staging = try #require(EnvironmentID(rawValue: "staging")), development = try #require(EnvironmentID(rawValue: "dev"))
            #expect(try projects.allEnvironments()["p1"]?.map(\.id) == [.production], "a project is made with production")
            let token = try database.changeToken()
            _ = try projects.createEnvironment(project: "p1", id: staging, displayName: "Staging")
            #expect(try database.changeToken() != token, "an environment is announced")
            _ = try projects.createEnvironment(project: "p1", id: development, displayName: "Dev")
            #expect(try projects.allEnvironments()["p1"]?.map(\.id) == [staging, development, .production])
            #expect(throws: StoreError.environmentExists(project: "p1", id: "staging")) {
                try projects.createEnvironment(project: "p1", id: staging, displayName: "Again")
            }
            #expect(throws: StoreError.self) { try projects.createEnvironment(project: "p1", id: .production, displayName: "P") }
            #expect(throws: StoreError.projectNotFound("ghost")) { try projects.createEnvironment(project: "ghost", id: staging, displayName: "S") }
            let renamed = try projects.updateEnvironment(project: "p1", id: staging, displayName: "Pre-production", soakSeconds: 3_600)
            #expect(renamed.displayName == "Pre-production" && renamed.soakSeconds == 3_600)
            #expect(try projects.updateEnvironment(project: "p1", id: staging, displayName: nil, soakSeconds: nil).displayName == "Pre-production")
            #expect(throws: StoreError.self) { try projects.updateEnvironment(project: "p1", id: staging, displayName: nil, soakSeconds: -1) }
            #expect(throws: StoreError.environmentNotFound(project: "p1", id: "qa")) {
                try projects.updateEnvironment(project: "p1", id: EnvironmentID(rawValue: "qa")!, displayName: "QA", soakSeconds: nil)
            }
            try projects.addAPIKey(project: "p1", keyHash: "h", name: "app", environment: development)
            #expect(try projects.apiKeys(project: "p1").map(\.environment) == [development])
            #expect(throws: StoreError.self) { try projects.deleteEnvironment(project: "p1", id: development) }
            _ = try database.templates.publish(project: "p1", namespace: TemplateNamespace(.client, in: staging), templateJSON: Array("{}".utf8),
                                               expectedVersion: 0, metadata: PublishMetadata())
            #expect(throws: StoreError.self) { try projects.deleteEnvironment(project: "p1", id: staging) }
            #expect(throws: StoreError.self) { try projects.deleteEnvironment(project: "p1", id: .production) }
            #expect(try projects.removeAPIKey(project: "p1", keyHash: "h"))
            try projects.deleteEnvironment(project: "p1", id: development)
            #expect(try projects.allEnvironments()["p1"]?.map(\.id) == [staging, .production])
            #expect(throws: StoreError.environmentNotFound(project: "p1", id: "dev")) {
                try projects.addAPIKey(project: "p1", keyHash: "h2", name: "app", environment: development)
            }
        }
    }
}
