#ifndef PODCAST_CLIBXML2_SHIM_H
#define PODCAST_CLIBXML2_SHIM_H

// Debian builds libxml2 with ICU, so <libxml/encoding.h> would include the system's ICU headers,
// whose UErrorCode clashes with the copy inside Foundation ("has different definitions in
// different modules") in every Swift module that sees both. podcast never touches the
// ICU-dependent fields of xmlCharEncodingHandler (encodings are only named by string, and the
// parser context holds handlers by pointer), so the ICU part of the headers is switched off.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>
#include <libxml/HTMLparser.h>
#include <libxml/tree.h>

// xmlFree is a C global function pointer, which Swift 6 rejects as shared mutable state.
static inline void podcast_xml_free(void *pointer) {
    xmlFree(pointer);
}

// xmlParserVersion is a macro over a function call that Swift does not import.
static inline const char *podcast_xml_parser_version(void) {
    return xmlParserVersion;
}

// Generic error handlers are variadic, which Swift cannot define. libxml2 prints some
// messages (encoding conversion failures among them) through this handler straight to
// stderr; podcast reports parse errors itself, through the structured handler.
static void podcast_xml_ignore_generic_error(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

static inline void podcast_xml_silence_generic_errors(void) {
    xmlSetGenericErrorFunc(NULL, podcast_xml_ignore_generic_error);
}

#endif
