/* pages: the browser pages compiled into the binary (runtime/web/pages/,
 * each embedded by cmake/embed_text.cmake as aw_page_<file name>), and a
 * route that serves them under /static/. Uses web and util.
 *
 * Ownership: everything here is static. */
#ifndef AW_WEB_PAGES_H
#define AW_WEB_PAGES_H

#include <stddef.h>

#include "web.h"

/* One per file in runtime/web/pages (add a line here for a new file, and
 * one to the table in pages.c). */
extern const char *const aw_page_viewer_html;
extern const size_t aw_page_viewer_html_len;
extern const char *const aw_page_viewer_js;
extern const size_t aw_page_viewer_js_len;
extern const char *const aw_page_viewer_css;
extern const size_t aw_page_viewer_css_len;
extern const char *const aw_page_events_js;
extern const size_t aw_page_events_js_len;

typedef struct aw_web_page {
    const char *name;        /* the file name: "viewer.js" */
    const char *type;        /* its content type */
    const char *const *data; /* its bytes */
    const size_t *len;       /* their count */
} aw_web_page;

/* The page called name, or NULL. */
const aw_web_page *aw_web_page_find(const char *name);

/* Serves every page at /static/NAME (the loop thread runs it: see web.h). */
void aw_web_serve_pages(aw_web *w);

/* Fills res with the page called name (404 when there is none). */
void aw_web_page_respond(const char *name, aw_web_response *res);

#endif
