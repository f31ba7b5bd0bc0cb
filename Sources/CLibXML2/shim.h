#ifndef PODCAST_CLIBXML2_SHIM_H
#define PODCAST_CLIBXML2_SHIM_H

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlversion.h>
#include <libxml/encoding.h>

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
