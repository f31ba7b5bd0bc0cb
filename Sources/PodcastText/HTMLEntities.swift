/// The named character references of HTML, for descriptions and for entities an XML parser meets
/// undeclared (`&nbsp;` in an RSS `<description>`).
public enum HTMLEntities {
    /// The text `&name;` stands for, or nil when HTML defines no such entity. Names are case-sensitive
    /// (`&Eacute;` is not `&eacute;`) and given without the `&` and `;`.
    public static func character(named name: String) -> String? {
        table[name].map { String($0) }
    }

    /// The character `&name;` stands for, from the name's UTF-8 bytes, or nil when HTML defines
    /// no such entity. Nearly every name fits in one word, which is looked up without making a
    /// string (descriptions hold thousands of references).
    public static func scalar(named name: some Collection<UInt8>) -> Unicode.Scalar? {
        guard name.count <= 8 else { return table[String(decoding: name, as: UTF8.self)] }
        return byWord[name.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }]
    }

    /// The names of up to eight bytes, each packed into a word (first byte highest).
    private static let byWord = PackedNameTable(
        table.filter { $0.key.utf8.count <= 8 }.map { name, scalar in
            (key: name.utf8.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }, value: scalar)
        })

    /// Every HTML 4.01 entity (ISO Latin-1, symbols and Greek, and the special set), `apos`, and the HTML5
    /// names for ASCII punctuation and common typography. HTML5's 2,000 mathematical and legacy names
    /// are left out: descriptions do not use them, and an unknown reference is kept as written.
    static let table: [String: Unicode.Scalar] = [
        // ISO 8859-1 characters, U+00A0 to U+00FF.
        "nbsp": "\u{A0}", "iexcl": "\u{A1}", "cent": "\u{A2}", "pound": "\u{A3}", "curren": "\u{A4}",
        "yen": "\u{A5}", "brvbar": "\u{A6}", "sect": "\u{A7}", "uml": "\u{A8}", "copy": "\u{A9}",
        "ordf": "\u{AA}", "laquo": "\u{AB}", "not": "\u{AC}", "shy": "\u{AD}", "reg": "\u{AE}",
        "macr": "\u{AF}", "deg": "\u{B0}", "plusmn": "\u{B1}", "sup2": "\u{B2}", "sup3": "\u{B3}",
        "acute": "\u{B4}", "micro": "\u{B5}", "para": "\u{B6}", "middot": "\u{B7}", "cedil": "\u{B8}",
        "sup1": "\u{B9}", "ordm": "\u{BA}", "raquo": "\u{BB}", "frac14": "\u{BC}", "frac12": "\u{BD}",
        "frac34": "\u{BE}", "iquest": "\u{BF}", "Agrave": "\u{C0}", "Aacute": "\u{C1}", "Acirc": "\u{C2}",
        "Atilde": "\u{C3}", "Auml": "\u{C4}", "Aring": "\u{C5}", "AElig": "\u{C6}", "Ccedil": "\u{C7}",
        "Egrave": "\u{C8}", "Eacute": "\u{C9}", "Ecirc": "\u{CA}", "Euml": "\u{CB}", "Igrave": "\u{CC}",
        "Iacute": "\u{CD}", "Icirc": "\u{CE}", "Iuml": "\u{CF}", "ETH": "\u{D0}", "Ntilde": "\u{D1}",
        "Ograve": "\u{D2}", "Oacute": "\u{D3}", "Ocirc": "\u{D4}", "Otilde": "\u{D5}", "Ouml": "\u{D6}",
        "times": "\u{D7}", "Oslash": "\u{D8}", "Ugrave": "\u{D9}", "Uacute": "\u{DA}", "Ucirc": "\u{DB}",
        "Uuml": "\u{DC}", "Yacute": "\u{DD}", "THORN": "\u{DE}", "szlig": "\u{DF}", "agrave": "\u{E0}",
        "aacute": "\u{E1}", "acirc": "\u{E2}", "atilde": "\u{E3}", "auml": "\u{E4}", "aring": "\u{E5}",
        "aelig": "\u{E6}", "ccedil": "\u{E7}", "egrave": "\u{E8}", "eacute": "\u{E9}", "ecirc": "\u{EA}",
        "euml": "\u{EB}", "igrave": "\u{EC}", "iacute": "\u{ED}", "icirc": "\u{EE}", "iuml": "\u{EF}",
        "eth": "\u{F0}", "ntilde": "\u{F1}", "ograve": "\u{F2}", "oacute": "\u{F3}", "ocirc": "\u{F4}",
        "otilde": "\u{F5}", "ouml": "\u{F6}", "divide": "\u{F7}", "oslash": "\u{F8}", "ugrave": "\u{F9}",
        "uacute": "\u{FA}", "ucirc": "\u{FB}", "uuml": "\u{FC}", "yacute": "\u{FD}", "thorn": "\u{FE}",
        "yuml": "\u{FF}",
        // Symbols, mathematical symbols and Greek letters.
        "fnof": "\u{192}", "Alpha": "\u{391}", "Beta": "\u{392}", "Gamma": "\u{393}", "Delta": "\u{394}",
        "Epsilon": "\u{395}", "Zeta": "\u{396}", "Eta": "\u{397}", "Theta": "\u{398}", "Iota": "\u{399}",
        "Kappa": "\u{39A}", "Lambda": "\u{39B}", "Mu": "\u{39C}", "Nu": "\u{39D}", "Xi": "\u{39E}",
        "Omicron": "\u{39F}", "Pi": "\u{3A0}", "Rho": "\u{3A1}", "Sigma": "\u{3A3}", "Tau": "\u{3A4}",
        "Upsilon": "\u{3A5}", "Phi": "\u{3A6}", "Chi": "\u{3A7}", "Psi": "\u{3A8}", "Omega": "\u{3A9}",
        "alpha": "\u{3B1}", "beta": "\u{3B2}", "gamma": "\u{3B3}", "delta": "\u{3B4}", "epsilon": "\u{3B5}",
        "zeta": "\u{3B6}", "eta": "\u{3B7}", "theta": "\u{3B8}", "iota": "\u{3B9}", "kappa": "\u{3BA}",
        "lambda": "\u{3BB}", "mu": "\u{3BC}", "nu": "\u{3BD}", "xi": "\u{3BE}", "omicron": "\u{3BF}",
        "pi": "\u{3C0}", "rho": "\u{3C1}", "sigmaf": "\u{3C2}", "sigma": "\u{3C3}", "tau": "\u{3C4}",
        "upsilon": "\u{3C5}", "phi": "\u{3C6}", "chi": "\u{3C7}", "psi": "\u{3C8}", "omega": "\u{3C9}",
        "thetasym": "\u{3D1}", "upsih": "\u{3D2}", "piv": "\u{3D6}", "bull": "\u{2022}", "hellip": "\u{2026}",
        "prime": "\u{2032}", "Prime": "\u{2033}", "oline": "\u{203E}", "frasl": "\u{2044}", "image": "\u{2111}",
        "weierp": "\u{2118}", "real": "\u{211C}", "trade": "\u{2122}", "alefsym": "\u{2135}",
        "larr": "\u{2190}", "uarr": "\u{2191}", "rarr": "\u{2192}", "darr": "\u{2193}", "harr": "\u{2194}",
        "crarr": "\u{21B5}", "lArr": "\u{21D0}", "uArr": "\u{21D1}", "rArr": "\u{21D2}", "dArr": "\u{21D3}",
        "hArr": "\u{21D4}", "forall": "\u{2200}", "part": "\u{2202}", "exist": "\u{2203}", "empty": "\u{2205}",
        "nabla": "\u{2207}", "isin": "\u{2208}", "notin": "\u{2209}", "ni": "\u{220B}", "prod": "\u{220F}",
        "sum": "\u{2211}", "minus": "\u{2212}", "lowast": "\u{2217}", "radic": "\u{221A}", "prop": "\u{221D}",
        "infin": "\u{221E}", "ang": "\u{2220}", "and": "\u{2227}", "or": "\u{2228}", "cap": "\u{2229}",
        "cup": "\u{222A}", "int": "\u{222B}", "there4": "\u{2234}", "sim": "\u{223C}", "cong": "\u{2245}",
        "asymp": "\u{2248}", "ne": "\u{2260}", "equiv": "\u{2261}", "le": "\u{2264}", "ge": "\u{2265}",
        "sub": "\u{2282}", "sup": "\u{2283}", "nsub": "\u{2284}", "sube": "\u{2286}", "supe": "\u{2287}",
        "oplus": "\u{2295}", "otimes": "\u{2297}", "perp": "\u{22A5}", "sdot": "\u{22C5}", "lceil": "\u{2308}",
        "rceil": "\u{2309}", "lfloor": "\u{230A}", "rfloor": "\u{230B}", "lang": "\u{2329}", "rang": "\u{232A}",
        "loz": "\u{25CA}", "spades": "\u{2660}", "clubs": "\u{2663}", "hearts": "\u{2665}", "diams": "\u{2666}",
        // Markup-significant and internationalisation characters.
        "quot": "\u{22}", "amp": "\u{26}", "lt": "\u{3C}", "gt": "\u{3E}", "OElig": "\u{152}",
        "oelig": "\u{153}", "Scaron": "\u{160}", "scaron": "\u{161}", "Yuml": "\u{178}", "circ": "\u{2C6}",
        "tilde": "\u{2DC}", "ensp": "\u{2002}", "emsp": "\u{2003}", "thinsp": "\u{2009}", "zwnj": "\u{200C}",
        "zwj": "\u{200D}", "lrm": "\u{200E}", "rlm": "\u{200F}", "ndash": "\u{2013}", "mdash": "\u{2014}",
        "lsquo": "\u{2018}", "rsquo": "\u{2019}", "sbquo": "\u{201A}", "ldquo": "\u{201C}", "rdquo": "\u{201D}",
        "bdquo": "\u{201E}", "dagger": "\u{2020}", "Dagger": "\u{2021}", "permil": "\u{2030}",
        "lsaquo": "\u{2039}", "rsaquo": "\u{203A}", "euro": "\u{20AC}",
        // HTML5 additions (and `apos` from XML).
        "apos": "\u{27}", "AMP": "\u{26}", "LT": "\u{3C}", "GT": "\u{3E}", "QUOT": "\u{22}", "COPY": "\u{A9}",
        "REG": "\u{AE}", "TRADE": "\u{2122}", "excl": "\u{21}", "quest": "\u{3F}", "num": "\u{23}",
        "dollar": "\u{24}", "percnt": "\u{25}", "lpar": "\u{28}", "rpar": "\u{29}", "ast": "\u{2A}",
        "plus": "\u{2B}", "comma": "\u{2C}", "period": "\u{2E}", "sol": "\u{2F}", "colon": "\u{3A}",
        "semi": "\u{3B}", "equals": "\u{3D}", "lsqb": "\u{5B}", "lbrack": "\u{5B}", "rsqb": "\u{5D}",
        "rbrack": "\u{5D}", "bsol": "\u{5C}", "lowbar": "\u{5F}", "grave": "\u{60}", "lcub": "\u{7B}",
        "lbrace": "\u{7B}", "rcub": "\u{7D}", "rbrace": "\u{7D}", "verbar": "\u{7C}", "vert": "\u{7C}",
        "commat": "\u{40}", "hyphen": "\u{2010}", "dash": "\u{2010}", "horbar": "\u{2015}", "mldr": "\u{2026}",
        "nldr": "\u{2025}", "lsquor": "\u{201A}", "rsquor": "\u{2019}", "ldquor": "\u{201E}",
        "rdquor": "\u{201D}", "bullet": "\u{2022}", "check": "\u{2713}", "cross": "\u{2717}",
        "star": "\u{2606}", "starf": "\u{2605}", "phone": "\u{260E}", "female": "\u{2640}", "male": "\u{2642}",
        "sharp": "\u{266F}", "flat": "\u{266D}", "natural": "\u{266E}", "half": "\u{BD}", "frac13": "\u{2153}",
        "frac23": "\u{2154}", "frac15": "\u{2155}", "frac25": "\u{2156}", "frac35": "\u{2157}",
        "frac45": "\u{2158}", "frac16": "\u{2159}", "frac56": "\u{215A}", "frac18": "\u{215B}",
        "frac38": "\u{215C}", "frac58": "\u{215D}", "frac78": "\u{215E}", "numsp": "\u{2007}",
        "puncsp": "\u{2008}", "hairsp": "\u{200A}", "emsp13": "\u{2004}", "emsp14": "\u{2005}",
        "ThinSpace": "\u{2009}", "NonBreakingSpace": "\u{A0}", "ZeroWidthSpace": "\u{200B}",
        "incare": "\u{2105}", "copysr": "\u{2117}",
    ]
}
