/* web: HTTP and WebSocket for the browser pages (`aiwolf view`, the live
 * spectator, the human seat), on libwebsockets running on a libuv loop that
 * the caller owns (or on a loop of its own on its own thread). No parser of
 * ours: libwebsockets reads the requests and the frames.
 *
 * What is served is only what the caller registers: GET routes (a handler
 * per path prefix fills a body, its type and a status) and WebSocket
 * channels (one path each). Every other path is 404; nothing is read from
 * disk here.
 *
 * Channels: aw_web_publish() sends a text message to every client of a
 * channel. Each client has a bounded queue: a client that does not keep up
 * is closed, the publisher never waits. A channel may keep a backlog (what
 * was published before) that a client joining late gets first. Messages
 * from clients (text, at most max_message bytes; a bigger or binary
 * message closes that client) go to the channel's on_message callback. An
 * access hook sees the query string of each client that asks to join and
 * may refuse it (a secret token for a human seat).
 *
 * Threads: the loop runs on one thread (the "loop thread"). Marked [any]
 * below: callable from any thread (a mutex guards the shared state and a
 * uv_async_t wakes the loop). Marked [loop]: only on the loop thread (from
 * a callback of this module, or a libuv callback of the same loop). Every
 * callback (route handlers, on_message, on_join, access) runs on the loop
 * thread, never while this module holds its lock, so a callback may call
 * anything here.
 *
 * Ownership: the aw_web owns its channels (freed by aw_web_stop: no call on
 * w or its channels after it, so stop publishers first); strings in the
 * options are copied; a message given to aw_web_publish is copied, so the
 * caller keeps its buffer; user data (ud) is borrowed until aw_web_stop. */
#ifndef AW_WEB_H
#define AW_WEB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

typedef struct uv_loop_s uv_loop_t;
typedef struct aw_web aw_web;
typedef struct aw_web_chan aw_web_chan;

typedef struct aw_web_opts {
    uv_loop_t *loop;         /* the loop to run on (aw_web_start); ignored by aw_web_start_thread */
    const char *host;        /* IPv4 address to bind; NULL: "127.0.0.1" ("localhost" means that too) */
    int port;                /* 0: any free port (aw_web_port tells which) */
    size_t max_header;       /* bytes of request headers; 0: 4096 (larger: refused) */
    size_t max_message;      /* bytes of one message from a client; 0: 64 KiB (larger: closed) */
    size_t max_queue;        /* bytes waiting for one WebSocket client; 0: 8 MiB (more: closed) */
    unsigned timeout_s;      /* a request or handshake must complete in this; 0: 10 s */
    unsigned max_clients;    /* connections at once; 0: 256 (more: refused) */
} aw_web_opts;

/* Starts serving on o->loop (which the caller runs). [loop] (or before the
 * loop runs). NULL with err filled when the address cannot be bound (then
 * nothing was left on the loop). */
aw_web *aw_web_start(const aw_web_opts *o, aw_error *err);

/* Starts serving on a new loop run by a new thread, for callers that do not
 * run a loop (`aiwolf play --http`). NULL with err filled on failure. */
aw_web *aw_web_start_thread(const aw_web_opts *o, aw_error *err);

/* The port it listens on. [any] */
int aw_web_port(const aw_web *w);

/* Stops serving: closes every connection and frees w and its channels.
 * For aw_web_start: [loop]; the caller keeps running its loop until it has
 * no more handles (libwebsockets' own handles close in the next turns of
 * the loop; the last of them frees w). For aw_web_start_thread: call from
 * any thread but the web's own; returns when the thread has ended. */
void aw_web_stop(aw_web *w);

/* --- connections --- */

/* Each connection as it is accepted, before anything of it is read (for a
 * server that counts them: `serve --nlp`). accept(ud, addr, id, &refusal)
 * returns true to take it; false closes it at once, after `refusal` (when
 * set: a static line) as the text of an HTTP 503. id is the connection's,
 * unique for the aw_web's life and never 0; it is also its client id on a
 * channel it joins. closed(ud, id) when a taken connection has gone (not
 * told while aw_web_stop closes everything). */
struct sockaddr;
typedef struct aw_web_conn_hooks {
    bool (*accept)(void *ud, const struct sockaddr *addr, uint64_t id, const char **refusal);
    void (*closed)(void *ud, uint64_t id);
    void *ud;
} aw_web_conn_hooks;
/* Sets the hooks (copied). [loop], before connections come. */
void aw_web_on_conn(aw_web *w, const aw_web_conn_hooks *h);
/* Closes connection id at once, joined to a channel or not, whatever is
 * queued for it (closed() follows when it has gone); nothing when it has
 * gone. [loop] */
void aw_web_conn_drop(aw_web *w, uint64_t id);

/* --- GET routes --- */

typedef struct aw_web_request {
    const char *path;   /* the path as libwebsockets decoded and normalised it (no "..") */
    const char *rest;   /* path after the route's prefix */
    const char *query;  /* the decoded query string ("a=1&b=2"), "" when none */
} aw_web_request;

typedef struct aw_web_response {
    int status;         /* 200 unless the handler says otherwise */
    const char *type;   /* content type; "text/plain; charset=utf-8" unless set (a static string) */
    aw_buf body;        /* the body; owned by the module */
    bool sandbox;       /* a page that is not ours (a contest's report.html): served with a
                           sandboxing policy, so its scripts cannot reach this server */
} aw_web_response;

/* Fills res (the body starts empty). [loop] */
typedef void (*aw_web_get_fn)(void *ud, const aw_web_request *req, aw_web_response *res);

/* Routes GET (and HEAD) requests whose path starts with prefix to fn. The
 * longest matching prefix wins; a prefix that ends without '/' matches only
 * that exact path ("/" is the exact root; "/api/" any path under it).
 * Registering a prefix again replaces it. [any] */
void aw_web_route(aw_web *w, const char *prefix, aw_web_get_fn fn, void *ud);

/* Some content types, for handlers. */
#define AW_WEB_HTML "text/html; charset=utf-8"
#define AW_WEB_JSON "application/json; charset=utf-8"
#define AW_WEB_JS "text/javascript; charset=utf-8"
#define AW_WEB_CSS "text/css; charset=utf-8"
#define AW_WEB_TEXT "text/plain; charset=utf-8"

/* --- WebSocket channels --- */

/* The channel at path (exact, e.g. "/ws/game/3"), made on the first call;
 * later calls return the same channel. [any] */
aw_web_chan *aw_web_channel(aw_web *w, const char *path);

/* Keeps the last max_messages published messages (0: none, the default)
 * and gives them, in order, to each client that joins before anything
 * published later. [any] */
void aw_web_chan_backlog(aw_web_chan *c, size_t max_messages);

/* Who may join: fn sees the decoded query string of the request ("" when
 * none) and returns true to accept. NULL (the default): everyone. [any] */
typedef bool (*aw_web_access_fn)(void *ud, const char *query);
void aw_web_chan_access(aw_web_chan *c, aw_web_access_fn fn, void *ud);
/* aw_web_channel and aw_web_chan_access at once: no client can join the
 * channel before its check is set (made on a running server, a channel
 * is open to everyone until aw_web_chan_access). [any] */
aw_web_chan *aw_web_channel_guarded(aw_web *w, const char *path, aw_web_access_fn fn, void *ud);

/* A client joined (after its backlog was queued) or left (not told while
 * aw_web_stop closes everything). client is an id unique for the aw_web's
 * life (never 0). NULL: not told. [any] */
typedef void (*aw_web_join_fn)(void *ud, aw_web_chan *c, uint64_t client, bool joined);
void aw_web_on_join(aw_web_chan *c, aw_web_join_fn fn, void *ud);

/* What a client's upgrade request said, for a channel that checks more
 * than its query (a token in a header): told on the loop thread as the
 * client joins, just before on_join(true). query is decoded ("" when
 * none); authorization is its Authorization header ("" when none, or when
 * longer than 4 KiB). Both are borrowed for the call. NULL: not told. */
typedef struct aw_web_hello {
    const char *query;
    const char *authorization;
} aw_web_hello;
typedef void (*aw_web_hello_fn)(void *ud, aw_web_chan *c, uint64_t client, const aw_web_hello *h);
void aw_web_on_hello(aw_web_chan *c, aw_web_hello_fn fn, void *ud);

/* A text message from a client (msg is NUL-terminated, borrowed for the
 * call). NULL: messages are read and dropped. [any] */
typedef void (*aw_web_message_fn)(void *ud, aw_web_chan *c, uint64_t client, const char *msg, size_t len);
void aw_web_on_message(aw_web_chan *c, aw_web_message_fn fn, void *ud);

/* Sends msg[0..len) to every client of c (and keeps it in the backlog).
 * Never waits on a client. [any] */
void aw_web_publish(aw_web_chan *c, const char *msg, size_t len);

/* Sends msg to one client of c (not kept in the backlog); nothing when it
 * has gone. [any] */
void aw_web_send(aw_web_chan *c, uint64_t client, const char *msg, size_t len);

/* How many clients are joined to c now. [any] */
size_t aw_web_chan_clients(aw_web_chan *c);

/* How many clients of c were dropped for falling behind: a message would
 * have made more than max_queue bytes wait for them (what the kernel's
 * socket buffers hold is not counted: only our queue). Counted when the
 * message is offered, so as soon as the aw_web_publish or aw_web_send that
 * overflowed returns; the loop then closes the client (until it has,
 * aw_web_chan_clients still counts it). [any] */
size_t aw_web_chan_dropped(aw_web_chan *c);

/* Closes one client of c once what is queued for it has been sent (its
 * on_join(false) comes when it has gone); nothing when it has gone. [any] */
void aw_web_chan_kick(aw_web_chan *c, uint64_t client);

/* Forgets the backlog and closes every client of c once what is queued for
 * it has been sent; the channel stays (a later client may join it). [any] */
void aw_web_chan_close(aw_web_chan *c);

#endif
