/* wire_json: jansson helpers that wire.c shares with the other codecs of
 * this library (nlp_server.c). Private to runtime/wire: it names jansson's
 * types, so no header outside this folder includes it. */
#ifndef AW_WIRE_JSON_H
#define AW_WIRE_JSON_H

#include <jansson.h>

#include "util.h"

/* A JSON string of text[0..len); bytes that are not UTF-8 (or NUL) become
 * U+FFFD, which jansson would refuse. */
json_t *aw_wire_json_text(const char *s, size_t len);

/* Appends v (consumed) compactly to out, `<` and `>` escaped. */
int aw_wire_json_dump(json_t *v, aw_buf *out, aw_error *err);

#endif
