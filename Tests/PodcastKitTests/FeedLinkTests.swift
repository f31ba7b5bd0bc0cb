@testable import PodcastKit
import Testing

/// What feed a link names, decided without a server: Apple and Overcast links by the id they
/// carry, other pages by the links libxml2's HTML parser reads from them.
@Suite(.timeLimit(.minutes(5))) struct FeedLinkTests {
    @Test(arguments: [
        ("https://podcasts.apple.com/us/podcast/the-daily/id1200361736", 1200361736),
        ("https://podcasts.apple.com/us/podcast/the-daily/id1200361736?i=1000680000000", 1200361736),
        ("https://podcasts.apple.com/gb/podcast/id42", 42),
        ("http://itunes.apple.com/us/podcast/some-show/id123?mt=2", 123),
        ("https://itunes.apple.com/WebObjects/MZStore.woa/wa/viewPodcast?id=77", 77),
        ("https://Podcasts.Apple.COM:443/us/podcast/x/id9", 9),
        ("https://overcast.fm/itunes1200361736/the-daily", 1200361736),
        ("https://www.overcast.fm/itunes5", 5),
    ])
    func appleAndOvercastLinksCarryTheAppleID(link: String, id: Int) {
        #expect(FeedLink.appleID(in: link) == id)
    }

    @Test(arguments: [
        "https://example.com/podcast/id123", "https://podcasts.apple.com/us/podcast/the-daily",
        "https://podcasts.apple.com/us/podcast/x/id0", "https://podcasts.apple.com/us/podcast/x/id12ab",
        "https://overcast.fm/+AbCdEf", "https://overcast.fm/podcasts/itunes12", "https://pca.st/abcd",
        "https://apple.com.example.net/id5", "ftp://podcasts.apple.com/id5",
    ])
    func otherLinksCarryNone(link: String) {
        #expect(FeedLink.appleID(in: link) == nil)
    }

    @Test func anAppleLinkArgumentIsLookedUpNotFetched() throws {
        let link = "https://podcasts.apple.com/us/podcast/the-daily/id1200361736?i=1"
        #expect(try FeedSource(argument: link) == .appleLink(link, id: 1200361736))
        #expect(try FeedSource(argument: "https://example.com/show") == .url("https://example.com/show"))
    }

    @Test func oneAlternateLinkIsMadeAbsoluteAgainstThePage() {
        let links = [FeedLink.PageLink(.link(rel: "alternate", type: "application/rss+xml"), href: "feed.xml")]
        let found = FeedLink.choose(from: links, pageURL: "https://example.com/shows/daily")
        #expect(found == FeedLink.Found(feeds: ["https://example.com/shows/feed.xml"], chosen: "https://example.com/shows/feed.xml", origin: .alternate))
        let rooted = [FeedLink.PageLink(.link(rel: "alternate", type: "application/atom+xml"), href: "/atom.xml")]
        #expect(FeedLink.choose(from: rooted, pageURL: "https://example.com/shows/daily")?.chosen == "https://example.com/atom.xml")
    }

    @Test func aBaseHrefIsWhatRelativeLinksAreRelativeTo() {
        let links = [
            FeedLink.PageLink(.base, href: "https://cdn.example.net/site/"),
            FeedLink.PageLink(.link(rel: "alternate", type: "application/rss+xml"), href: "podcast.rss"),
        ]
        #expect(FeedLink.choose(from: links, pageURL: "https://example.com/show")?.chosen == "https://cdn.example.net/site/podcast.rss")
    }

    @Test func ofSeveralAlternatesThePodcastLookingOneIsChosenAndAllAreListed() {
        let links = [
            FeedLink.PageLink(.link(rel: "alternate", type: "application/rss+xml"), href: "/feed", title: "Blog » Feed"),
            FeedLink.PageLink(.link(rel: "alternate", type: "application/rss+xml"), href: "/comments/feed", title: "Blog » Comments Feed"),
            FeedLink.PageLink(.link(rel: "Alternate", type: "application/rss+xml; charset=UTF-8"), href: "/podcast.xml", title: "The Show"),
            FeedLink.PageLink(.link(rel: "alternate", type: "application/rss+xml"), href: "https://example.com/feed"),
        ]
        let found = FeedLink.choose(from: links, pageURL: "https://example.com/")
        #expect(found?.feeds == ["https://example.com/feed", "https://example.com/comments/feed", "https://example.com/podcast.xml"])
        #expect(found?.chosen == "https://example.com/podcast.xml")
    }

    @Test func withoutAPodcastLookingOneTheFirstThatIsNotCommentsIsChosen() {
        let links = [
            FeedLink.PageLink(.link(rel: "alternate", type: "application/rss+xml"), href: "/comments/feed", title: "Comments"),
            FeedLink.PageLink(.link(rel: "alternate", type: "application/atom+xml"), href: "/atom", title: "Posts"),
        ]
        #expect(FeedLink.choose(from: links, pageURL: "https://example.com/")?.chosen == "https://example.com/atom")
    }

    @Test func otherLinksAreNoFeeds() {
        let links = [
            FeedLink.PageLink(.link(rel: "alternate", type: "text/html"), href: "/fr/"),
            FeedLink.PageLink(.link(rel: "stylesheet", type: "text/css"), href: "/style.css"),
            FeedLink.PageLink(.link(rel: "alternate", type: "application/rss+xml"), href: "mailto:rss@example.com"),
            FeedLink.PageLink(.link(rel: "alternate", type: "application/rss+xml"), href: "https://example.com/show#top"),
            FeedLink.PageLink(.anchor, href: "/about"),
            FeedLink.PageLink(.anchor, href: "/sitemap.xml"),
            FeedLink.PageLink(.anchor, href: "#rss"),
        ]
        #expect(FeedLink.choose(from: links, pageURL: "https://example.com/show") == nil)
    }

    @Test func withoutAlternatesAnAnchorEndingInRssXmlOrFeedIsTaken() {
        let links = [
            FeedLink.PageLink(.anchor, href: "/about"),
            FeedLink.PageLink(.anchor, href: "https://twitter.example/show"),
            FeedLink.PageLink(.anchor, href: "episodes/feed/", title: "Subscribe"),
            FeedLink.PageLink(.anchor, href: "/show.RSS?format=audio", title: "RSS"),
        ]
        let found = FeedLink.choose(from: links, pageURL: "https://example.com/show/")
        #expect(found == FeedLink.Found(
            feeds: ["https://example.com/show/episodes/feed/", "https://example.com/show.RSS?format=audio"],
            chosen: "https://example.com/show/episodes/feed/", origin: .anchor))
        #expect(FeedLink.looksLikeFeedAnchor("/rss"))
        #expect(FeedLink.looksLikeFeedAnchor("/podcast.xml"))
        #expect(!FeedLink.looksLikeFeedAnchor("/rss/episode-1.html"))
    }

    @Test func anAlternateWinsOverAnchors() {
        let links = [
            FeedLink.PageLink(.anchor, href: "/old.rss"),
            FeedLink.PageLink(.link(rel: "alternate", type: "application/rss+xml"), href: "/new.rss"),
        ]
        #expect(FeedLink.choose(from: links, pageURL: "https://example.com/")?.feeds == ["https://example.com/new.rss"])
    }

    @Test func libxml2ReadsTheLinksOfASloppyPage() {
        let page = """
            <!doctype html><HTML><head><title>Show</title>
            <LINK REL=alternate TYPE="application/rss+xml" HREF=/feed.xml title='The Show'>
            <base href="https://example.com/">
            <body><p>Listen <a href="/episodes/feed/">via RSS <b>now</b></a><p>unclosed<div><a href=x.html>x</a>
            """
        let links = HTMLPageLinks.read(Array(page.utf8), url: "https://example.com/show", encoding: nil)
        #expect(links == [
            FeedLink.PageLink(.link(rel: "alternate", type: "application/rss+xml"), href: "/feed.xml", title: "The Show"),
            FeedLink.PageLink(.base, href: "https://example.com/"),
            FeedLink.PageLink(.anchor, href: "/episodes/feed/", title: "via RSS now"),
            FeedLink.PageLink(.anchor, href: "x.html", title: "x"),
        ])
    }

    @Test func aDeeplyNestedPageIsWalkedWithoutRecursion() {
        let page = String(repeating: "<div>", count: 5_000) + #"<a href="/feed.rss">feed</a>"#
        let links = HTMLPageLinks.read(Array(page.utf8), url: "https://example.com/", encoding: "utf-8")
        #expect(links.count <= 1)
        #expect(HTMLPageLinks.read([], url: "https://example.com/", encoding: nil).isEmpty)
        #expect(HTMLPageLinks.read(Array("<a href=/a.rss>".utf8), url: "https://example.com/", encoding: "no-such-charset").map(\.href) == ["/a.rss"])
    }

    @Test func theNoteSaysWhatTheLinkResolvedTo() {
        let one = FeedResolution(link: "https://example.com/show", feeds: ["https://example.com/feed.xml"], chosen: "https://example.com/feed.xml", way: .alternate)
        #expect(one.note == "https://example.com/show → https://example.com/feed.xml (from the page's alternate link)")
        let apple = FeedResolution(link: "https://overcast.fm/itunes5/x", feeds: ["https://a.example/f"], chosen: "https://a.example/f", way: .appleLookup(id: 5))
        #expect(apple.note == "https://overcast.fm/itunes5/x → https://a.example/f (from the iTunes lookup of id 5)")
        let several = FeedResolution(link: "https://example.com/", feeds: ["https://example.com/a", "https://example.com/b"], chosen: "https://example.com/b", way: .anchor)
        #expect(several.note == "https://example.com/ → https://example.com/b (the first podcast feed of 2 feed links on the page); it also names https://example.com/a")
    }

    @Test func theCharsetComesFromTheContentType() {
        #expect(FeedPage.charset(of: "text/html; charset=\"ISO-8859-1\"") == "ISO-8859-1")
        #expect(FeedPage.charset(of: "text/html") == nil)
        #expect(FeedPage.charset(of: nil) == nil)
    }
}
