/* report_html: the contest's report, one self-contained HTML page (no
 * network, no external files) that draws a results.json (docs/contest.md)
 * with its own JavaScript. The page is report.html in this folder, compiled
 * into the library as a C string (cmake/embed_text.cmake); this module only
 * puts the JSON into it (made safe for the page by jsonw.h).
 *
 * Ownership: the caller owns `out` and `results_json`. */
#ifndef AW_REPORT_HTML_H
#define AW_REPORT_HTML_H

#include <stddef.h>
#include <stdio.h>

/* Writes the page to `out` with the `len` bytes of `results_json` inside its
 * <script type="application/json"> element. Every '<', '>' and '&' is written
 * as \u003c, \u003e, \u0026, so no text in the data (a name holding
 * "</script>" or "<!--") can end the element or start markup, and valid JSON
 * stays valid JSON with the same value. The bytes are not checked: the page
 * itself says when they are not results it can read (NULL or empty: the page
 * says there are no results). Returns 0, or -1 when a write fails (errno is
 * the stream's). Does not close or flush `out` beyond what fwrite does. */
int aw_contest_write_html(FILE *out, const char *results_json, size_t len);

#endif
