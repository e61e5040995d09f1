/* cmd_serve_nlp: the WebSocket transport of `aiwolf serve --nlp` (see
 * serve_nlp.h): every client of the channel /ws is an agent; its messages
 * go to the netserver, which speaks the NLP protocol to it. */
#define _DEFAULT_SOURCE /* explicit_bzero */
#include "serve_nlp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "nlprules.h"

#define SECRET_MAX 4096
#define PROFILE_MAX 4096

/* A client joins: told with what its request said (its token, if any),
 * before on_join(true), which has nothing left to say. */
/* Each connection as it comes, before its handshake: counted (and maybe
 * refused) by the netserver's limits. */
static bool on_accept(void *ud, const struct sockaddr *addr, uint64_t id, const char **refusal)
{
    serve_nlp *n = ud;
    *refusal = aw_netserver_connected(n->srv, id, addr);
    return !*refusal;
}

static void on_closed(void *ud, uint64_t id)
{
    serve_nlp *n = ud;
    aw_netserver_disconnected(n->srv, id);
}

static void on_hello(void *ud, aw_web_chan *c, uint64_t client, const aw_web_hello *h)
{
    serve_nlp *n = ud;
    (void)c;
    aw_netserver_joined_with(n->srv, client, h->query, h->authorization);
}

static void on_join(void *ud, aw_web_chan *c, uint64_t client, bool joined)
{
    serve_nlp *n = ud;
    (void)c;
    if (!joined)
        aw_netserver_left(n->srv, client);
}

static void on_message(void *ud, aw_web_chan *c, uint64_t client, const char *msg, size_t len)
{
    serve_nlp *n = ud;
    (void)c;
    aw_netserver_message(n->srv, client, msg, len);
}

static void *start(void *ud, uv_loop_t *loop, aw_netserver *srv, int *port, aw_error *err)
{
    serve_nlp *n = ud;
    aw_web_opts wo = {0};
    wo.loop = loop;
    wo.host = n->host;
    wo.port = n->port;
    wo.max_message = n->max_message;
    wo.max_clients = n->max_clients;
    n->srv = srv;
    if (!(n->web = aw_web_start(&wo, err)))
        return NULL;
    aw_web_conn_hooks hooks = {on_accept, on_closed, n};
    aw_web_on_conn(n->web, &hooks);
    n->chan = aw_web_channel(n->web, "/ws");
    aw_web_on_hello(n->chan, on_hello, n);
    aw_web_on_join(n->chan, on_join, n);
    aw_web_on_message(n->chan, on_message, n);
    *port = aw_web_port(n->web);
    return n;
}

static void send_msg(void *tp, uint64_t client, const char *msg, size_t len)
{
    serve_nlp *n = tp;
    aw_web_send(n->chan, client, msg, len);
}

static void close_client(void *tp, uint64_t client)
{
    serve_nlp *n = tp;
    aw_web_chan_kick(n->chan, client);
}

static void drop_client(void *tp, uint64_t client)
{
    serve_nlp *n = tp;
    aw_web_conn_drop(n->web, client);
}

static void stop(void *tp)
{
    serve_nlp *n = tp;
    aw_web_stop(n->web);
    n->web = NULL;
    n->chan = NULL;
}

void serve_nlp_transport(serve_nlp *n, const char *host, int port, size_t max_message, unsigned max_clients)
{
    n->host = host;
    n->port = port;
    n->max_message = max_message;
    n->max_clients = max_clients;
    n->tp.start = start;
    n->tp.send = send_msg;
    n->tp.close = close_client;
    n->tp.stop = stop;
    n->tp.drop = drop_client;
    n->tp.ud = n;
}

unsigned char *serve_nlp_secret(const char *path, size_t *len, aw_error *err)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > SECRET_MAX) {
        (void)aw_fail(err, AW_EINVAL, "%s: more than %d bytes: not a secret for --jwt-secret", path, SECRET_MAX);
        return NULL;
    }
    size_t n;
    char *s = aw_read_file(path, &n, err);
    if (!s)
        return NULL;
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        n--; /* `echo secret > FILE` is the secret */
    if (n == 0 || n > SECRET_MAX) {
        (void)aw_fail(err, AW_EINVAL, "%s: %s", path, n ? "too long for a secret" : "empty: no secret for --jwt-secret");
        explicit_bzero(s, n);
        free(s);
        return NULL;
    }
    if (stat(path, &st) == 0 && (st.st_mode & 077))
        fprintf(stderr, "aiwolf serve: warning: %s can be read by other users (chmod 600 it)\n", aw_term(path).s);
    *len = n;
    return (unsigned char *)s;
}

void serve_nlp_secret_free(unsigned char *secret, size_t len)
{
    if (secret) {
        explicit_bzero(secret, len);
        free(secret);
    }
}

/* Whether s[0..n) is UTF-8 throughout. */
static bool utf8_text(const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t k = aw_utf8_char_len(s + i, n - i);
        if (k == 0)
            return false;
        i += k;
    }
    return true;
}

int serve_nlp_profiles(const char *path, const aw_settings *set, const char *out[AW_MAX_PLAYERS + 1], char **store,
                       aw_error *err)
{
    *store = NULL;
    for (int a = 0; a <= AW_MAX_PLAYERS; a++)
        out[a] = NULL;
    if (strcmp(path, "none") == 0) {
        for (int a = 1; a <= AW_MAX_PLAYERS; a++)
            out[a] = "";
        return 0;
    }
    size_t n;
    char *s = aw_read_file(path, &n, err);
    if (!s)
        return -1;
    if (memchr(s, '\0', n) || !utf8_text(s, n)) {
        free(s);
        return aw_fail(err, AW_EINVAL, "%s: not UTF-8 text", aw_term(path).s);
    }
    /* in place: each block's name and text end with a NUL */
    char *p = s, *end = s + n;
    int line = 1, blocks = 0;
    while (p < end) {
        while (p < end && (*p == '\n' || *p == '\r'))
            line += *p++ == '\n';
        if (p >= end)
            break;
        char *name = p, *nl = memchr(p, '\n', (size_t)(end - p));
        char *name_end = nl ? nl : end;
        int name_line = line;
        p = nl ? nl + 1 : end;
        line++;
        char *text = p, *text_end = p;
        /* the text: up to a blank line or the end */
        while (p < end && *p != '\n' && !(*p == '\r' && p + 1 < end && p[1] == '\n')) {
            char *e = memchr(p, '\n', (size_t)(end - p));
            text_end = e ? e : end;
            if (text_end > p && text_end[-1] == '\r')
                text_end[-1] = '\n'; /* CRLF: the \r goes with the line break */
            p = e ? e + 1 : end;
            line++;
        }
        if (name_end > name && name_end[-1] == '\r')
            name_end--;
        *name_end = '\0';
        while (text_end > text && (text_end[-1] == '\n' || text_end[-1] == '\r'))
            text_end--;
        if (text_end < end)
            *text_end = '\0';
        int a = aw_nlp_agent_of(set, set->players, name, strlen(name));
        const char *why = !a ? "is no character of the game (the names the preset gives, or Agent[NN])"
                          : out[a] ? "has two profiles"
                          : text_end == text ? "has no text"
                          : (size_t)(text_end - text) > PROFILE_MAX ? "has a profile past 4096 bytes"
                                                                     : NULL;
        if (why) {
            aw_fail(err, AW_EINVAL, "%s:%d: '%s' %s", aw_term(path).s, name_line, aw_term(name).s, why);
            free(s);
            return -1;
        }
        out[a] = text;
        blocks++;
    }
    if (!blocks) {
        free(s);
        return aw_fail(err, AW_EINVAL, "%s: no profile (blocks: a character's name, then its text)", aw_term(path).s);
    }
    *store = s;
    return 0;
}
