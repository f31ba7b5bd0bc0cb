#!/usr/bin/env python3
"""Writes the feeds and episodes the update benchmarks serve.

Usage: make-update-feeds.py WWW FEEDS ITEMS GAINING ROUND PORT HOSTS

Writes WWW/feeds/F.xml for F in 0 .. FEEDS-1: an RSS 2.0 feed of ITEMS items whose titles and
show notes mix German, French, Japanese, Arabic and emoji with HTML and entities, as real feeds
do (about 1.3 KB an item). Feed F is served by 127.0.0.(F mod HOSTS + 1):PORT, and its enclosures
point there too. In ROUND 3 the first GAINING feeds have one item more. A feed whose bytes would
not change is not written again, so it keeps its mtime, and with it its ETag and Last-Modified:
in round 3 only the GAINING feeds answer a conditional GET with 200.

Only the episodes someone downloads exist in WWW/media, each 4 KiB of random bytes: the newest
of each feed, and round 3's new ones. Standard library only.
"""

import datetime
import os
import sys

www, feeds, items, gaining, round_, port, hosts = (
    sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6], int(sys.argv[7]))
titles = ["Nachrichten am Morgen: Wirtschaft &amp; Börse", "Le journal de 8 h — édition spéciale", "今日のニュース：東京と大阪",
          "نشرة الأخبار المسائية", "Science Friday 🔬 — «Quantum» cats", "Über Größen, Maße &amp; Gewichte"]
notes = ("<p>Heute: <b>Größere</b> Themen &amp; Gäste. Ça marche très bien&nbsp;! "
         "<a href=\"https://example.com/notes\">Shownotes</a> — 詳しくはウェブサイトで。</p>") * 3
start = datetime.datetime(2026, 1, 1, 6, 0, tzinfo=datetime.timezone.utc)
os.makedirs(os.path.join(www, "feeds"), exist_ok=True)
os.makedirs(os.path.join(www, "media"), exist_ok=True)
for f in range(feeds):
    host = f"127.0.0.{f % hosts + 1}:{port}"
    count = items + (1 if round_ == 3 and f < gaining else 0)
    out = [f'<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" '
           f'xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel><title>Show {f} — {titles[f % len(titles)]}</title>'
           f'<link>https://example.com/show/{f}</link><description>Ein Podcast über alles. Un podcast sur tout. 何でもポッドキャスト。</description>'
           f'<itunes:author>Redaktion {f} &amp; Équipe</itunes:author>']
    for i in range(count, 0, -1):
        date = (start + datetime.timedelta(days=i)).strftime("%a, %d %b %Y %H:%M:%S +0000")
        media = f"f{f}-i{i}.mp3"
        out.append(f'<item><title>{titles[(f + i) % len(titles)]} #{i}</title><guid isPermaLink="false">show-{f}-item-{i}</guid>'
                   f'<pubDate>{date}</pubDate><description><![CDATA[{notes}]]></description>'
                   f'<itunes:duration>{1800 + i}</itunes:duration>'
                   f'<enclosure url="http://{host}/media/{media}" length="4096" type="audio/mpeg"/></item>')
        if i == count:
            path = os.path.join(www, "media", media)
            if not os.path.exists(path):
                with open(path, "wb") as file:
                    file.write(os.urandom(4096))
    out.append("</channel></rss>\n")
    data = "".join(out).encode("utf-8")
    path = os.path.join(www, "feeds", f"{f}.xml")
    try:
        with open(path, "rb") as file:
            if file.read() == data:
                continue
    except FileNotFoundError:
        pass
    with open(path, "wb") as file:
        file.write(data)
