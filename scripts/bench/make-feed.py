#!/usr/bin/env python3
"""Writes a realistic RSS 2.0 podcast feed for the feed-parsing benchmark.

Usage: make-feed.py N OUT

N items of about 1.5 KB each (10,000 items make about 15 MB), shaped like the feeds of
podcast hosts: a channel with itunes: tags, items with HTML show notes in CDATA, content:encoded,
an enclosure, itunes:duration in its three forms, season/episode numbers, and now and then a
podcast:transcript. Seeded, so the same N always writes the same bytes. Standard library only.
"""

import random
import sys
from email.utils import format_datetime
from datetime import datetime, timedelta, timezone
from xml.sax.saxutils import escape

WORDS = (
    "interview history science garden coffee jazz startup bicycle ocean language memory "
    "kitchen library signal weather mountain election football satellite river archive "
    "design rhythm market village engine theory camera winter harbour festival poetry"
).split()

SHOW = "https://example.com/show"
CDN = "https://cdn.example.com/audio"


def sentence(rng, low, high):
    words = [rng.choice(WORDS) for _ in range(rng.randint(low, high))]
    return " ".join(words).capitalize()


def duration(rng, index):
    # The three forms feeds use: seconds ("3600"), minutes ("59:12"), hours ("1:02:03").
    form = index % 3
    if form == 0:
        return str(rng.randint(600, 7200))
    if form == 1:
        seconds = rng.randint(600, 3599)
        return "%d:%02d" % (seconds // 60, seconds % 60)
    seconds = rng.randint(3600, 10800)
    return "%d:%02d:%02d" % (seconds // 3600, seconds // 60 % 60, seconds % 60)


def summary(rng, number):
    # HTML inside CDATA, as hosts write it: a paragraph and a link.
    return '<p>%s.</p><p>More at <a href="%s/episodes/%d">the episode page</a>.</p>' % (
        sentence(rng, 10, 16), SHOW, number)


def show_notes(rng, number):
    # The longer notes of content:encoded: paragraphs, an entity and a list of links.
    links = "".join(
        '<li><a href="https://example.org/%s/%d">%s</a></li>' % (rng.choice(WORDS), number, sentence(rng, 2, 4))
        for _ in range(3)
    )
    return "<p>%s.</p><p>%s &amp; %s.</p><ul>%s</ul>" % (
        sentence(rng, 12, 18), sentence(rng, 6, 10), sentence(rng, 3, 6).lower(), links)


def item(rng, number, published, season):
    title = "%d: %s" % (number, sentence(rng, 3, 7))
    lines = [
        "    <item>",
        "      <title>%s</title>" % escape(title),
        '      <guid isPermaLink="false">%08x-%04x-%04x-%04x-%012x</guid>' % (
            rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(48)),
        "      <pubDate>%s</pubDate>" % format_datetime(published),
        "      <link>%s/episodes/%d</link>" % (SHOW, number),
        "      <description><![CDATA[%s]]></description>" % summary(rng, number),
        "      <content:encoded><![CDATA[%s]]></content:encoded>" % show_notes(rng, number),
        '      <enclosure url="%s/ep%05d.mp3?source=feed" length="%d" type="audio/mpeg"/>' % (
            CDN, number, rng.randint(5_000_000, 120_000_000)),
        "      <itunes:duration>%s</itunes:duration>" % duration(rng, number),
        "      <itunes:episode>%d</itunes:episode>" % number,
        "      <itunes:season>%d</itunes:season>" % season,
        "      <itunes:episodeType>%s</itunes:episodeType>" % ("bonus" if number % 25 == 0 else "full"),
        "      <itunes:explicit>%s</itunes:explicit>" % ("true" if number % 7 == 0 else "false"),
        '      <itunes:image href="%s/art/%d.jpg"/>' % (SHOW, number),
    ]
    if number % 10 == 0:
        lines.append('      <podcast:transcript url="%s/transcripts/%d.vtt" type="text/vtt"/>' % (SHOW, number))
    lines.append("    </item>")
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) != 3 or not sys.argv[1].isdigit():
        sys.exit("usage: make-feed.py N OUT")
    count, out = int(sys.argv[1]), sys.argv[2]
    rng = random.Random(20240611)
    newest = datetime(2024, 6, 11, 6, 0, tzinfo=timezone(timedelta(hours=-4)))
    with open(out, "w", encoding="utf-8", newline="\n") as feed:
        feed.write(
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            '<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"'
            ' xmlns:content="http://purl.org/rss/1.0/modules/content/"'
            ' xmlns:podcast="https://podcastindex.org/namespace/1.0"'
            ' xmlns:atom="http://www.w3.org/2005/Atom">\n'
            "  <channel>\n"
            "    <title>The Benchmark Hour</title>\n"
            "    <link>%s</link>\n"
            '    <atom:link href="%s/feed.xml" rel="self" type="application/rss+xml"/>\n'
            "    <language>en-us</language>\n"
            "    <description>%s</description>\n"
            "    <itunes:author>Example Media</itunes:author>\n"
            "    <itunes:owner><itunes:name>Example Media</itunes:name>"
            "<itunes:email>feeds@example.com</itunes:email></itunes:owner>\n"
            '    <itunes:image href="%s/art.jpg"/>\n'
            '    <itunes:category text="Society &amp; Culture"><itunes:category text="Documentary"/></itunes:category>\n'
            "    <itunes:explicit>false</itunes:explicit>\n"
            "    <itunes:type>episodic</itunes:type>\n"
            "    <podcast:guid>%s</podcast:guid>\n"
            % (SHOW, SHOW, escape(sentence(rng, 20, 30) + "."), SHOW, "917393e3-1b1e-5cef-ace4-edaa54e1f810")
        )
        episodes_per_season = 100
        for index in range(count):
            number = count - index
            published = newest - timedelta(days=index, minutes=rng.randint(0, 600))
            feed.write(item(rng, number, published, (number - 1) // episodes_per_season + 1))
        feed.write("  </channel>\n</rss>\n")


if __name__ == "__main__":
    main()
