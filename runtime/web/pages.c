/* pages: the embedded browser pages, served under /static/ (see pages.h). */
#include "pages.h"

#include <string.h>

static const aw_web_page pages[] = {
    {"viewer.html", AW_WEB_HTML, &aw_page_viewer_html, &aw_page_viewer_html_len},
    {"viewer.js", AW_WEB_JS, &aw_page_viewer_js, &aw_page_viewer_js_len},
    {"viewer.css", AW_WEB_CSS, &aw_page_viewer_css, &aw_page_viewer_css_len},
    {"events.js", AW_WEB_JS, &aw_page_events_js, &aw_page_events_js_len},
};

const aw_web_page *aw_web_page_find(const char *name)
{
    for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++)
        if (strcmp(pages[i].name, name) == 0)
            return &pages[i];
    return NULL;
}

void aw_web_page_respond(const char *name, aw_web_response *res)
{
    const aw_web_page *p = aw_web_page_find(name);
    if (!p) {
        res->status = 404;
        aw_buf_adds(&res->body, "not found\n");
        return;
    }
    res->type = p->type;
    aw_buf_add(&res->body, *p->data, *p->len);
}

static void serve_static(void *ud, const aw_web_request *req, aw_web_response *res)
{
    (void)ud;
    aw_web_page_respond(req->rest, res);
}

void aw_web_serve_pages(aw_web *w)
{
    aw_web_route(w, "/static/", serve_static, NULL);
}
