#!/usr/bin/env python3
"""Writes a realistic RSS 2.0 podcast feed for the feed-parsing benchmark.

Usage: make-feed.py N OUT [ascii|multilingual|cdata]

N items shaped like the feeds of podcast hosts: a channel with itunes: tags, items with HTML show
notes, content:encoded, an enclosure, itunes:duration in its three forms, season/episode numbers,
and now and then a podcast:transcript. Seeded, so the same arguments always write the same bytes.
Standard library only. The kinds:

- ascii (the default): English words, show notes in CDATA; about 1.5 KB an item.
- multilingual: German, French and Japanese in titles, show notes and authors (as the feeds of
  tagesschau, Deutsche Welle or NHK have them), descriptions as escaped HTML full of entities
  (`&amp;nbsp;`, `&amp;eacute;`, `&amp;#8222;`), content:encoded in CDATA; about 1.5 KB an item.
- cdata: long show notes in CDATA (chapters, links, credits in the three languages and English),
  about 7.5 KB an item.
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


# The words of the multilingual feeds: German, French and Japanese, accents and all.
LANGUAGES = {
    "de": {
        "words": (
            "Bundesregierung Gespräch Übersicht Straßenbahn Müller Größe Abstimmung Wähler Bürger "
            "Energiewende Klimaschutz Hochwasser Öffentlichkeit Kulturerbe Bäckerei Fußball Gemeinderat "
            "Forschung Tagesschau Ärztin Schüler Zukunft Nachrichten Wirtschaft Verkehr Grenzübergang"
        ).split(),
        "authors": ("Jürgen Müller", "Anna-Lena Weiß", "Björn Schäfer", "Redaktion Tagesgespräch"),
        "more": "Mehr zur Sendung",
        "space": " ",
        "stop": ".",
    },
    "fr": {
        "words": (
            "élection député économie société théâtre cœur forêt été hôpital réfugiés "
            "écologie musée château littérature sécurité étudiants grève pêcheurs "
            "fraîcheur naïveté Noël Orléans Québec œuvre garçon façade déjà"
        ).split(),
        "authors": ("Hélène Lefèvre", "François Dupré", "Zoé Bécquet", "La rédaction d'Île-de-France"),
        "more": "En savoir plus sur l'émission",
        "space": " ",
        "stop": ".",
    },
    "ja": {
        "words": (
            "東京 ニュース 経済 政府 地震 天気予報 選挙 番組 特集 文化 科学 技術 "
            "教育 国際 スポーツ 台風 物価 首相 国会 研究者 北海道 大阪 沖縄 解説"
        ).split(),
        "authors": ("山田 太郎", "佐藤 花子", "NHKワールド 編集部", "鈴木 一郎"),
        "more": "番組の詳細はこちら",
        "space": "、",
        "stop": "。",
    },
}
LANGUAGE_ORDER = ("de", "fr", "ja")


def phrase(rng, language, low, high):
    words = [rng.choice(language["words"]) for _ in range(rng.randint(low, high))]
    return language["space"].join(words)


def multilingual_summary(rng, language, number):
    # HTML as the hosts write it into a plain <description>: escaped once by the XML (`&lt;p&gt;`)
    # and full of HTML entities (escaped again: `&amp;nbsp;`).
    html = '<p>%s&nbsp;&ndash; %s%s</p><p>&bdquo;%s&ldquo; &amp; &#171;%s&#187; &eacute;t&eacute;</p>' \
        '<p><a href="%s/episodes/%d">%s&nbsp;&raquo;</a></p>' % (
            phrase(rng, language, 4, 7), phrase(rng, language, 3, 6), language["stop"],
            phrase(rng, language, 2, 3), phrase(rng, language, 2, 3), SHOW, number, language["more"])
    return escape(html)


def multilingual_notes(rng, language, number):
    links = "".join(
        '<li><a href="https://example.org/%d/%d">%s</a> &mdash; %s</li>' % (
            number, link, phrase(rng, language, 2, 4), rng.choice(language["authors"]))
        for link in range(3)
    )
    return "<p>%s%s</p><p>%s &amp; %s&hellip;</p><ul>%s</ul>" % (
        phrase(rng, language, 10, 14), language["stop"], phrase(rng, language, 4, 6), phrase(rng, language, 3, 5), links)


def long_notes(rng, number):
    # Show notes as long as a talk show's: chapters with timestamps, links, credits, several languages.
    parts = []
    for chapter in range(12):
        language = LANGUAGES[LANGUAGE_ORDER[(number + chapter) % 3]]
        parts.append("<p><strong>%02d:%02d:%02d</strong> %s%s %s</p>" % (
            chapter // 4, chapter * 5 % 60, rng.randint(0, 59), phrase(rng, language, 8, 14), language["stop"],
            sentence(rng, 6, 10)))
    links = "".join(
        '<li><a href="https://example.org/%s/%d?ref=feed&amp;n=%d">%s</a></li>' % (
            rng.choice(WORDS), number, link, phrase(rng, LANGUAGES[LANGUAGE_ORDER[link % 3]], 2, 4))
        for link in range(10)
    )
    credits = ", ".join(rng.choice(LANGUAGES[code]["authors"]) for code in LANGUAGE_ORDER)
    return "%s<h3>Links</h3><ul>%s</ul><p>Credits: %s &mdash; &copy; Example Media</p>" % ("".join(parts), links, credits)


def item_head(rng, title, published, number):
    """The lines every kind of item starts with: its title, a random guid, its date and link."""
    return [
        "    <item>",
        "      <title>%s</title>" % escape(title),
        '      <guid isPermaLink="false">%08x-%04x-%04x-%04x-%012x</guid>' % (
            rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(48)),
        "      <pubDate>%s</pubDate>" % format_datetime(published),
        "      <link>%s/episodes/%d</link>" % (SHOW, number),
    ]


def multilingual_item(rng, number, published, season, long):
    language = LANGUAGES[LANGUAGE_ORDER[number % 3]]
    title = "%d: %s" % (number, phrase(rng, language, 3, 6))
    if long:
        description = "<![CDATA[%s]]>" % long_notes(rng, number)
        notes = "<![CDATA[%s]]>" % long_notes(rng, number)
    else:
        description = multilingual_summary(rng, language, number)
        notes = "<![CDATA[%s]]>" % multilingual_notes(rng, language, number)
    lines = item_head(rng, title, published, number) + [
        "      <description>%s</description>" % description,
        "      <content:encoded>%s</content:encoded>" % notes,
        "      <itunes:author>%s</itunes:author>" % escape(rng.choice(language["authors"])),
        '      <enclosure url="%s/ep%05d.mp3" length="%d" type="audio/mpeg"/>' % (
            CDN, number, rng.randint(5_000_000, 120_000_000)),
        "      <itunes:duration>%s</itunes:duration>" % duration(rng, number),
        "      <itunes:episode>%d</itunes:episode>" % number,
        "      <itunes:season>%d</itunes:season>" % season,
        "      <itunes:explicit>false</itunes:explicit>",
        "    </item>",
    ]
    return "\n".join(lines) + "\n"


def item(rng, number, published, season):
    title = "%d: %s" % (number, sentence(rng, 3, 7))
    lines = item_head(rng, title, published, number) + [
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
    kinds = ("ascii", "multilingual", "cdata")
    if len(sys.argv) not in (3, 4) or not sys.argv[1].isdigit() or sys.argv[3:] and sys.argv[3] not in kinds:
        sys.exit("usage: make-feed.py N OUT [ascii|multilingual|cdata]")
    count, out = int(sys.argv[1]), sys.argv[2]
    kind = sys.argv[3] if len(sys.argv) == 4 else "ascii"
    title, author = "The Benchmark Hour", "Example Media"
    if kind != "ascii":
        title, author = "Weltspiegel · Le Monde en direct · 世界のニュース", "Jürgen Müller, Hélène Lefèvre, 山田 太郎"
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
            "    <title>%s</title>\n"
            "    <link>%s</link>\n"
            '    <atom:link href="%s/feed.xml" rel="self" type="application/rss+xml"/>\n'
            "    <language>en-us</language>\n"
            "    <description>%s</description>\n"
            "    <itunes:author>%s</itunes:author>\n"
            "    <itunes:owner><itunes:name>Example Media</itunes:name>"
            "<itunes:email>feeds@example.com</itunes:email></itunes:owner>\n"
            '    <itunes:image href="%s/art.jpg"/>\n'
            '    <itunes:category text="Society &amp; Culture"><itunes:category text="Documentary"/></itunes:category>\n'
            "    <itunes:explicit>false</itunes:explicit>\n"
            "    <itunes:type>episodic</itunes:type>\n"
            "    <podcast:guid>%s</podcast:guid>\n"
            % (escape(title), SHOW, SHOW, escape(sentence(rng, 20, 30) + "."), escape(author), SHOW,
               "917393e3-1b1e-5cef-ace4-edaa54e1f810")
        )
        episodes_per_season = 100
        for index in range(count):
            number = count - index
            published = newest - timedelta(days=index, minutes=rng.randint(0, 600))
            season = (number - 1) // episodes_per_season + 1
            if kind == "ascii":
                feed.write(item(rng, number, published, season))
            else:
                feed.write(multilingual_item(rng, number, published, season, long=kind == "cdata"))
        feed.write("  </channel>\n</rss>\n")


if __name__ == "__main__":
    main()
