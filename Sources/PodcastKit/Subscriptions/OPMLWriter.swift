import FoundationEssentials
import PodcastText

/// Writes subscriptions as an OPML 2.0 document that other podcast apps import.
///
/// Each subscription is a flat `<outline type="rss" text title xmlUrl htmlUrl/>` in `<body>`, which
/// is what the strictest importers look for: gPodder takes only `type` `rss` or `link` and reads
/// `title`, else `text`; podcast-archiver takes only `type='rss'` with a non-empty `xmlUrl`;
/// AntennaPod needs `xmlUrl` and shows `title`, else `text`. A subscription without a title is
/// written with its feed URL as `text` (OPML requires `text`) and no `title`.
public enum OPMLWriter {
    /// The OPML document listing `outlines`, titled `title`, dated `created`; one outline a line.
    public static func document(title: String, outlines: [OPMLOutline], created: Date) -> String {
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<opml version="2.0">"#,
            "  <head>",
            "    <title>\(escaped(title))</title>",
            "    <dateCreated>\(UTCDate.rfc822(created))</dateCreated>",
            "  </head>",
            "  <body>",
        ]
        lines.reserveCapacity(lines.count + outlines.count + 3)
        for outline in outlines {
            lines.append("    " + element(for: outline))
        }
        lines += ["  </body>", "</opml>", ""]
        return lines.joined(separator: "\n")
    }

    private static func element(for outline: OPMLOutline) -> String {
        var attributes = [("type", "rss"), ("text", outline.title ?? outline.feedURL)]
        if let title = outline.title { attributes.append(("title", title)) }
        attributes.append(("xmlUrl", outline.feedURL))
        if let htmlURL = outline.htmlURL { attributes.append(("htmlUrl", htmlURL)) }
        return "<outline " + attributes.map { "\($0.0)=\"\(escaped($0.1))\"" }.joined(separator: " ") + "/>"
    }

    /// `text` safe inside an attribute value or an element: markup characters escaped, white
    /// space controls (tab, newline) as spaces, as a reader's attribute normalisation would make
    /// them, and every other control character (and U+FFFE, U+FFFF) removed, since XML 1.0
    /// forbids them and importers built on strict parsers (expat) would reject the whole file.
    private static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "\t", "\n", "\r": result += " "
            case "\u{0}"..."\u{1F}", "\u{7F}"..."\u{9F}", "\u{FFFE}", "\u{FFFF}": continue
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
