/* jsonw: the one JSON writer of the reports (play's summary for tools,
 * results.json with its rating and provenance, the JSON inside
 * report.html). Every string a report writes goes through aw_json_str
 * (util's escaping: UTF-8 checked, a bad byte as \ufffd, '"' '\' and control
 * bytes escaped), every fractional number through aw_json_num (a fixed number
 * of digits; null for a value that is not finite, which JSON cannot hold).
 * The layout (spaces, line breaks) stays the caller's: the writer appends
 * to an aw_buf and keeps no state.
 *
 * Uses core (util) only. Ownership: the caller owns every buffer and
 * stream. */
#ifndef AW_JSONW_H
#define AW_JSONW_H

#include <stddef.h>
#include <stdio.h>

#include "util.h"

/* s as a JSON string; NULL as null. */
void aw_json_str(aw_buf *b, const char *s);
/* sep (may be NULL: none), then "key": (the key escaped as a string). */
void aw_json_key(aw_buf *b, const char *sep, const char *key);
/* v with `digits` digits after the point (printf's %.*f); null when v is
 * NaN or infinite. */
void aw_json_num(aw_buf *b, double v, int digits);
/* An integer. */
void aw_json_int(aw_buf *b, long long v);
/* Shorthands: sep "key": value. */
void aw_json_kstr(aw_buf *b, const char *sep, const char *key, const char *s);
void aw_json_knum(aw_buf *b, const char *sep, const char *key, double v, int digits);
void aw_json_kint(aw_buf *b, const char *sep, const char *key, long long v);

/* Writes len bytes of JSON to out with every '<', '>' and '&' as \u003c,
 * \u003e, \u0026, so that it can sit inside an HTML <script> element: no
 * text in it ("</script>", "<!--") ends the element or starts markup.
 * Outside strings none of the three is valid JSON, so valid JSON stays
 * valid with the same value. Returns 0, or -1 when a write fails. */
int aw_json_write_html_safe(FILE *out, const char *json, size_t len);

#endif
