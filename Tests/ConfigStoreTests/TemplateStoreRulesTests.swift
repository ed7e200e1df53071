import ConfigStore
import Foundation
import Testing

/// The engine-independent rules both stores use.
@Suite struct TemplateStoreRulesTests {
    @Test func wholeMillisecondsReadBackExactly() {
        // Today, 2004 and 2038: for some dates of the last two, a plain floor of `seconds * 1000`
        // lost a millisecond, and a version or canary was stored 1 ms before the time returned.
        for start: Int64 in [1_700_000_000_000, 1_098_119_230_000, 2_152_498_210_000] {
            let lost = (start..<start + 20_000).filter {
                TemplateStoreRules.milliseconds(TemplateStoreRules.date(milliseconds: $0)) != $0
            }
            #expect(lost.isEmpty, "\(lost.count) lost a millisecond, the first \(lost.first ?? 0)")
        }
    }

    @Test func otherDatesRoundDownToTheMillisecond() {
        let date = Date(timeIntervalSince1970: 1_700_000_000.1239)
        #expect(TemplateStoreRules.milliseconds(date) == 1_700_000_000_123)
        #expect(TemplateStoreRules.milliseconds(Date(timeIntervalSince1970: -0.0005)) == -1)
    }
}
