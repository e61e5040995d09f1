/* wsclient: a WebSocket client on libwebsockets (see wsclient.h). */
#include "wsclient.h"

#include <libwebsockets.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEF_MESSAGE (4u << 20)

typedef struct outmsg {
    struct outmsg *next;
    size_t len;
    unsigned char data[]; /* LWS_PRE bytes, then the message */
} outmsg;

typedef struct client {
    const aw_wsclient_opts *o;
    size_t max;
    aw_buf in;
    bool in_msg;
    outmsg *head, *tail;
    bool done, failed, connected;
    aw_error err;
    aw_buf reply;
    long messages_in, messages_out;
} client;

static void fail(client *c, const char *fmt, const char *arg)
{
    if (c->failed)
        return;
    c->failed = true;
    aw_fail(&c->err, AW_EIO, fmt, arg);
}

static void emit(int level, const char *line)
{
    (void)level;
    char b[512];
    snprintf(b, sizeof b, "%s", line);
    b[strcspn(b, "\n")] = 0;
    fprintf(stderr, "aiwolf wsclient: %s\n", aw_term(b).s);
}

static void enqueue(client *c, const char *s, size_t len)
{
    outmsg *m = aw_xmalloc(sizeof *m + LWS_PRE + len + 1);
    m->next = NULL;
    m->len = len;
    memcpy(m->data + LWS_PRE, s, len);
    if (c->tail)
        c->tail->next = m;
    else
        c->head = m;
    c->tail = m;
}

static int on_receive(client *c, struct lws *wsi, const void *in, size_t len)
{
    if (lws_frame_is_binary(wsi)) {
        fail(c, "the server sent a binary message%s (the NLP server sends text)", "");
        return -1;
    }
    if (!c->in_msg) {
        aw_buf_clear(&c->in);
        c->in_msg = true;
    }
    if (len > c->max || c->in.len > c->max - len) {
        char lim[32];
        snprintf(lim, sizeof lim, "%zu", c->max);
        fail(c, "the server sent a message longer than %s bytes", lim);
        return -1;
    }
    aw_buf_add(&c->in, in, len);
    if (!lws_is_final_fragment(wsi) || lws_remaining_packet_payload(wsi) != 0)
        return 0;
    c->in_msg = false;
    c->messages_in++;
    aw_buf_clear(&c->reply);
    aw_error err = {{0}, 0, 0};
    int rc = c->o->on_message(c->o->ud, c->in.data ? c->in.data : "", c->in.len, &c->reply, &err);
    if (rc < 0) {
        fail(c, "%s", err.msg);
        return -1;
    }
    if (rc > 0) {
        enqueue(c, c->reply.data ? c->reply.data : "", c->reply.len);
        lws_callback_on_writable(wsi);
    }
    return 0;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    (void)user;
    struct lws_context *ctx = lws_get_context(wsi);
    client *c = ctx ? lws_context_user(ctx) : NULL;
    if (!c)
        return 0;
    switch (reason) {
    case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
        if (c->o->token) {
            unsigned char **p = in, *end = *p + len;
            aw_buf v;
            aw_buf_init(&v);
            aw_buf_adds(&v, "Bearer ");
            aw_buf_adds(&v, c->o->token);
            int bad = lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_AUTHORIZATION, (unsigned char *)v.data,
                                                   (int)v.len, p, end);
            aw_buf_free(&v);
            if (bad) {
                fail(c, "the token is too long for the handshake%s", "");
                return -1;
            }
        }
        break;
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        c->connected = true;
        break;
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR: {
        /* the reason may quote the server: made printable */
        aw_buf r;
        aw_buf_init(&r);
        aw_buf_add_term(&r, in ? (const char *)in : "connection failed", in ? strnlen(in, len ? len : 200) : 17);
        aw_buf_printf(&r, " (%s:%d)", c->o->url.host, c->o->url.port); /* where, after the reason */
        fail(c, "cannot connect: %s", r.data);
        aw_buf_free(&r);
        c->done = true;
        break;
    }
    case LWS_CALLBACK_CLIENT_RECEIVE:
        return on_receive(c, wsi, in, len);
    case LWS_CALLBACK_CLIENT_WRITEABLE:
        if (c->head) {
            outmsg *m = c->head;
            int n = lws_write(wsi, m->data + LWS_PRE, m->len, LWS_WRITE_TEXT);
            c->head = m->next;
            if (!c->head)
                c->tail = NULL;
            free(m);
            if (n < 0) {
                fail(c, "cannot send to the server%s", "");
                return -1;
            }
            c->messages_out++;
            if (c->head)
                lws_callback_on_writable(wsi);
        }
        break;
    case LWS_CALLBACK_CLIENT_CLOSED:
    case LWS_CALLBACK_WSI_DESTROY:
        c->done = true;
        break;
    default:
        break;
    }
    return 0;
}

static const struct lws_protocols protocols[] = {
    {"aiwolf-nlp", callback, 0, 4096, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

int aw_ws_url_parse(const char *url, aw_ws_url *out, aw_error *err)
{
    memset(out, 0, sizeof *out);
    const char *p;
    if (!strncmp(url, "ws://", 5)) {
        p = url + 5;
    } else if (!strncmp(url, "wss://", 6)) {
        p = url + 6;
        out->tls = true;
    } else {
        return aw_fail(err, AW_EINVAL, "not a WebSocket address (ws://HOST:PORT/PATH or wss://...)");
    }
    const char *hs = p, *he;
    if (*p == '[') {
        he = strchr(p, ']');
        if (!he)
            return aw_fail(err, AW_EINVAL, "an IPv6 address without its ']'");
        hs = p + 1;
        p = he + 1;
    } else {
        he = p + strcspn(p, ":/?#");
        p = he;
    }
    size_t hl = (size_t)(he - hs);
    if (hl == 0 || hl >= sizeof out->host)
        return aw_fail(err, AW_EINVAL, "the host is missing or too long");
    for (size_t i = 0; i < hl; i++) {
        char ch = hs[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
              ch == '-' || ch == '_' || ch == ':'))
            return aw_fail(err, AW_EINVAL, "the host has a character a host name cannot have");
    }
    memcpy(out->host, hs, hl);
    out->port = out->tls ? 443 : 80;
    if (*p == ':') {
        p++;
        long port = 0;
        int digits = 0;
        while (*p >= '0' && *p <= '9' && digits < 6) {
            port = port * 10 + (*p++ - '0');
            digits++;
        }
        if (!digits || port < 1 || port > 65535)
            return aw_fail(err, AW_EINVAL, "the port is not a number from 1 to 65535");
        out->port = (int)port;
    }
    if (*p && *p != '/' && *p != '?')
        return aw_fail(err, AW_EINVAL, "something after the port that is not a path");
    const char *path = *p ? p : "/";
    if (*path == '?')
        snprintf(out->path, sizeof out->path, "/%s", path);
    else if (strlen(path) >= sizeof out->path)
        return aw_fail(err, AW_EINVAL, "the path is too long");
    else
        snprintf(out->path, sizeof out->path, "%s", path);
    for (const char *c = out->path; *c; c++)
        if ((unsigned char)*c <= 0x20 || *c == 0x7f || *c == '#')
            return aw_fail(err, AW_EINVAL, "the path has a space, a control character or a '#'");
    return 0;
}

int aw_wsclient_run(const aw_wsclient_opts *o, aw_wsclient_stats *stats, aw_error *err)
{
    static bool log_set;
    if (!log_set) {
        lws_set_log_level(getenv("AIWOLF_WEB_DEBUG") ? LLL_ERR | LLL_WARN | LLL_NOTICE : 0, emit);
        log_set = true;
    }
    if (o->token)
        for (const char *t = o->token; *t; t++)
            if ((unsigned char)*t < 0x21 || *t == 0x7f)
                return aw_fail(err, AW_EINVAL, "the token has a space or a control character");
    client c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.max = o->max_message ? o->max_message : DEF_MESSAGE;
    aw_buf_init(&c.in);
    aw_buf_init(&c.reply);

    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = protocols;
    info.gid = (gid_t)-1;
    info.uid = (uid_t)-1;
    info.user = &c;
    info.timeout_secs = 30;
    if (o->url.tls)
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
    struct lws_context *ctx = lws_create_context(&info);
    if (!ctx) {
        aw_buf_free(&c.in);
        aw_buf_free(&c.reply);
        return aw_fail(err, AW_EIO, "cannot start the WebSocket client");
    }
    char hostport[300];
    if (strchr(o->url.host, ':'))
        snprintf(hostport, sizeof hostport, "[%s]:%d", o->url.host, o->url.port);
    else
        snprintf(hostport, sizeof hostport, "%s:%d", o->url.host, o->url.port);
    struct lws_client_connect_info ci;
    memset(&ci, 0, sizeof ci);
    ci.context = ctx;
    ci.address = o->url.host;
    ci.port = o->url.port;
    ci.path = o->url.path;
    ci.host = hostport;
    ci.origin = hostport;
    ci.ssl_connection = o->url.tls ? LCCSCF_USE_SSL : 0;
    ci.local_protocol_name = protocols[0].name;
    struct lws *wsi = NULL;
    ci.pwsi = &wsi;
    if (!lws_client_connect_via_info(&ci) && !c.failed)
        fail(&c, "cannot connect to %s", hostport);
    while (!c.done && !c.failed && !(o->stop && *o->stop))
        if (lws_service(ctx, 0) < 0)
            break;
    lws_context_destroy(ctx);
    while (c.head) {
        outmsg *m = c.head;
        c.head = m->next;
        free(m);
    }
    aw_buf_free(&c.in);
    aw_buf_free(&c.reply);
    if (stats) {
        stats->messages_in = c.messages_in;
        stats->messages_out = c.messages_out;
        stats->connected = c.connected;
    }
    if (c.failed) {
        if (err)
            *err = c.err;
        return -AW_EIO;
    }
    if (!c.connected && !(o->stop && *o->stop))
        return aw_fail(err, AW_EIO, "the server closed the connection before the WebSocket handshake ended");
    return 0;
}
