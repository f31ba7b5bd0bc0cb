import Foundation
import PodcastKit
import PodcastTestSupport
import PodcastText
import Testing

@Suite(.timeLimit(.minutes(5))) struct FeedDateTests {
    /// Inputs whose fixture expectation conflicts with another case once one parser reads every form,
    /// with the behaviour chosen and why.
    static let resolvedConflicts: [String: (expected: Int?, reason: String)] = [
        "03335": (
            nil, "iso8601's compact YYDDD reads like w3dtf's \"22013\", which must be rejected; \"03-335\" still parses"
        ),
    ]

    @Test func iso8601PadsEveryFieldAndKeepsYearsPastNineThousandNineHundredNinetyNine() {
        #expect(UTCDate.iso8601(Date(timeIntervalSince1970: -60_836_381_633)) == "0042-03-04T05:06:07Z")
        #expect(UTCDate.iso8601(Date(timeIntervalSince1970: 1_718_074_680.9)) == "2024-06-11T02:58:00Z")
        #expect(UTCDate.iso8601(Date(timeIntervalSince1970: 253_402_300_800)) == "10000-01-01T00:00:00Z")
    }

    @Test func fixtureHoldsEveryCase() {
        #expect(Case.all.count == 74)
    }

    @Test func everyResolvedConflictIsAFixtureCaseDecidedOtherwise() {
        for (input, conflict) in Self.resolvedConflicts {
            let fixtureCase = Case.all.first { $0.input == input }
            #expect(fixtureCase != nil, "\(input) is not in the fixture")
            #expect(fixtureCase?.expectedSeconds != conflict.expected, "\(input) needs no exception")
        }
    }

    @Test(arguments: Case.all)
    func parsesFeedparserCase(_ testCase: Case) {
        guard let input = testCase.input else { return }  // feedparser's None: a String cannot be nil here.
        let parsed = FeedDate.parse(input).map { Int($0.timeIntervalSince1970) }
        if let conflict = Self.resolvedConflicts[input] {
            #expect(parsed == conflict.expected, "\(conflict.reason)")
            return
        }
        #expect(parsed == testCase.expectedSeconds)
        if let date = FeedDate.parse(input) {
            #expect(date.timeIntervalSince1970 == date.timeIntervalSince1970.rounded(.down), "whole seconds")
        }
    }

    @Test func rfc1123WithGMT() {
        #expect(seconds("Tue, 10 Jun 2003 04:00:00 GMT") == 1_055_217_600)
    }

    @Test func w3cWithMillisecondsAndZ() {
        #expect(seconds("2026-11-20T08:00:00.000Z") == 1_795_161_600)
    }

    @Test func oneDigitDayAndHourWithOffset() {
        #expect(seconds("Mon, 2 Nov 2026 8:00:00 +0100") == 1_793_602_800)
    }

    @Test func lowercaseMonthAndWeekday() {
        #expect(seconds("mon, 02 nov 2026 08:00:00 +0100") == 1_793_602_800)
    }

    @Test func surroundingWhitespaceAndNewlinesAreIgnored() {
        #expect(seconds("\n    Tue, 10 Jun 2003 04:00:00 GMT\n  ") == 1_055_217_600)
        #expect(seconds("\t2026-11-20T08:00:00Z\r\n") == 1_795_161_600)
    }

    @Test func pacificTimeAsPodcastHostsWriteIt() {
        #expect(seconds("Tue, 04 Jun 2024 17:00:00 PST") == seconds("Wed, 05 Jun 2024 01:00:00 +0000"))
        #expect(seconds("Tue, 04 Jun 2024 17:00:00 PDT") == seconds("Wed, 05 Jun 2024 00:00:00 GMT"))
    }

    @Test func offsetWithColonAndNamedEuropeanZones() {
        #expect(seconds("Mon, 02 Nov 2026 08:00:00 +01:00") == 1_793_602_800)
        #expect(seconds("Mon, 02 Nov 2026 08:00:00 CET") == 1_793_602_800)
        #expect(seconds("Mon, 02 Nov 2026 08:00:00 BST") == 1_793_602_800)
    }

    @Test func unknownZoneReadsAsUTC() {
        #expect(seconds("Mon, 02 Nov 2026 07:00:00 XYZ") == 1_793_602_800)
    }

    @Test func fullWeekdayAndSeptAbbreviation() {
        #expect(seconds("Thursday, 03 Sept. 2026 10:00:00 +0000") == seconds("2026-09-03T10:00:00Z"))
    }

    @Test func portugueseWeekdayAndMonth() {
        #expect(seconds("Seg, 24 Set 2018 19:42:40 -0300") == seconds("2018-09-24T22:42:40Z"))
    }

    @Test func twelveHourClockAndTrailingComment() {
        #expect(seconds("Mon, 02 Nov 2026 8:00 PM +0000") == seconds("2026-11-02T20:00:00Z"))
        #expect(seconds("Mon, 02 Nov 2026 12:30 AM GMT") == seconds("2026-11-02T00:30:00Z"))
        #expect(seconds("Mon, 02 Nov 2026 08:00:00 -0800 (PST)") == seconds("2026-11-02T16:00:00Z"))
    }

    @Test func w3cVariantsFeedsWrite() {
        #expect(seconds("2026-11-20T08:00:00+0100") == seconds("2026-11-20T07:00:00Z"))
        #expect(seconds("2026-11-20t08:00:00z") == seconds("2026-11-20T08:00:00Z"))
        #expect(seconds("2026-11-20T08:00Z") == seconds("2026-11-20T08:00:00Z"))
        #expect(seconds("20261120") == seconds("2026-11-20"))
        #expect(seconds("2003-335") == seconds("2003-12-01"))
        #expect(seconds("03-335") == seconds("2003-12-01"))
    }

    @Test func tzDatabaseEtcZonesUsePOSIXSigns() {
        #expect(seconds("Mon, 02 Nov 2026 08:00:00 Etc/GMT+5") == seconds("2026-11-02T13:00:00Z"))
        #expect(seconds("Mon, 02 Nov 2026 08:00:00 GMT+5") == seconds("2026-11-02T03:00:00Z"))
    }

    @Test func outOfRangeOffsetIsAppliedAsWrittenLikeFeedparser() {
        // Apple's sample podcast feed has "+3000"; feedparser reads it as thirty hours east.
        #expect(seconds("Tue, 12 Apr 2016 01:15:00 +3000") == seconds("2016-04-10T19:15:00Z"))
    }

    @Test func colonlessTimeOfTheRSS092Sample() {
        #expect(seconds("03 Apr 02 1500 GMT") == seconds("2002-04-03T15:00:00Z"))
    }

    @Test func leapDayOnlyInLeapYears() {
        #expect(seconds("2024-02-29") == 1_709_164_800)
        #expect(seconds("2023-02-29") == nil)
        #expect(seconds("1900-02-29") == nil)
    }

    @Test func datesBeforeTheEpoch() {
        #expect(seconds("1969-12-31T23:59:59Z") == -1)
        #expect(seconds("0001-01-01T00:00:00Z") == -62_135_596_800)
    }

    @Test func yearTenThousandAfterTheOffsetIsRejected() {
        #expect(seconds("Fri, 31 Dec 9999 23:00:00 -0100") == nil)
        #expect(seconds("Fri, 31 Dec 9999 22:59:59 -0100") == 253_402_300_799)
    }

    @Test func garbageIsRejected() {
        for text in [
            "", "   ", "garbage", "Tue", "12345678901234567890", "2026-13-01", "2026-11-20T", "Mon, 02 Nov",
            "Mon, 02 Nov 2026 13:00 PM GMT", "Mon, 02 Nov 2026 08:00:00 +0100 trailing", "-", "2026-", "2026-11-",
            "31/12/2026", "Mon, 02 Nov 2026 08:00:00 +123456",
        ] {
            #expect(seconds(text) == nil, "\(text)")
        }
    }

    private func seconds(_ text: String) -> Int? {
        FeedDate.parse(text).map { Int($0.timeIntervalSince1970) }
    }
}

extension FeedDateTests {
    /// One case of feedparser's date tests, as extracted into `feeds/feedparser/dates/date_parser_cases.json`.
    struct Case: Decodable, Sendable, CustomTestStringConvertible {
        let parser: String
        let input: String?
        let expectedStructTimeUTC: [Int]?
        let expectedUnixTimestamp: Int?
        let sourceLine: Int

        enum CodingKeys: String, CodingKey {
            case parser, input
            case expectedStructTimeUTC = "expected_struct_time_utc"
            case expectedUnixTimestamp = "expected_unix_timestamp"
            case sourceLine = "source_line"
        }

        var testDescription: String { "\(parser) line \(sourceLine): \(input.map { "\"\($0)\"" } ?? "nil")" }

        /// The expected instant: the fixture's timestamp, or one counted from the struct_time's year and
        /// day of year (for the year-100 case, which has none), independently of the parser's own arithmetic.
        var expectedSeconds: Int? {
            if let expectedUnixTimestamp { return expectedUnixTimestamp }
            guard let fields = expectedStructTimeUTC, fields.count == 9 else { return nil }
            let isLeap = { (year: Int) in year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }
            var days = fields[7] - 1
            if fields[0] >= 1970 {
                for year in 1970..<fields[0] { days += isLeap(year) ? 366 : 365 }
            } else {
                for year in fields[0]..<1970 { days -= isLeap(year) ? 366 : 365 }
            }
            return days * 86_400 + fields[3] * 3_600 + fields[4] * 60 + fields[5]
        }

        static let all: [Case] = {
            struct File: Decodable { let cases: [Case] }
            guard let data = try? Fixtures.data("feeds/feedparser/dates/date_parser_cases.json"),
                let file = try? JSONDecoder().decode(File.self, from: data)
            else { return [] }
            return file.cases
        }()
    }
}
