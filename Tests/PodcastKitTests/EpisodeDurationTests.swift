import PodcastKit
import Testing

@Suite(.timeLimit(.minutes(5))) struct EpisodeDurationTests {
    @Test(arguments: [
        ("3600", 3_600),
        ("0", 0),
        ("62:05", 3_725),
        ("00:45", 45),
        ("75:00", 4_500),
        ("1:02:05", 3_725),
        ("01:02:05.500", 3_725),
        ("1:2:3", 3_723),
        ("00:04:60", 300),
        ("00:60:05", 3_605),
        ("0:90", 90),
        ("1234.5", 1_234),
        ("59.999", 59),
        ("  1:02:05 \n", 3_725),
        ("\t3600\r\n", 3_600),
        ("1h 2m 3s", 3_723),
        ("1h2m3s", 3_723),
        ("45 min", 2_700),
        ("45 mins", 2_700),
        ("45 Minutes", 2_700),
        ("1 hr 30 min", 5_400),
        ("2 hours", 7_200),
        ("1.5 hours", 5_400),
        ("90 sec", 90),
    ])
    func readsDuration(_ text: String, _ seconds: Int) {
        #expect(EpisodeDuration.seconds(text) == seconds)
    }

    @Test(arguments: [
        "", "   ", "abc", "-5", "-1:00", "1:2:3:4", "12:xx", "12:", ":30", "1::2", "1:2:",
        "3600 seconds extra", "3s 2m", "1m 1m", "45 lightyears", "1.", "1,5", "12345678901234", "PT1H2M",
    ])
    func rejectsGarbage(_ text: String) {
        #expect(EpisodeDuration.seconds(text) == nil)
    }
}
