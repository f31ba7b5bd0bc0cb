#ifndef PODCAST_CLIBXML2_SHIM_H
#define PODCAST_CLIBXML2_SHIM_H

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlversion.h>

// xmlFree is a C global function pointer, which Swift 6 rejects as shared mutable state.
static inline void podcast_xml_free(void *pointer) {
    xmlFree(pointer);
}

// xmlParserVersion is a macro over a function call that Swift does not import.
static inline const char *podcast_xml_parser_version(void) {
    return xmlParserVersion;
}

#endif
