/* wsclient: a WebSocket client on libwebsockets (its own poll loop, one
 * connection): `aiwolf connect --nlp` plays on the NLP division's server
 * with it. Text messages in are handed to a callback one whole message at a
 * time (fragments joined, bounded); what the callback answers goes out as
 * one text message, in order. Binary messages, messages past the bound and
 * a failed handshake end the connection with an error; a close from the
 * server ends it as it should. libwebsockets' own log is off (AIWOLF_WEB_DEBUG
 * turns it on, through aw_term). Uses util and libwebsockets (private to
 * aw_web, like web.c).
 *
 * Ownership: opts and everything in it are borrowed for the call. */
#ifndef AW_WSCLIENT_H
#define AW_WSCLIENT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* A ws:// or wss:// address taken apart. */
typedef struct aw_ws_url {
    bool tls;
    char host[256];
    int port;       /* 80 or 443 when not written */
    char path[1024]; /* "/" when not written; with the query if any */
} aw_ws_url;

/* Parses ws://HOST[:PORT][/PATH] or wss://... (HOST a name, an IPv4
 * address, or an IPv6 one in brackets). 0, or negative with err saying what
 * is wrong. */
int aw_ws_url_parse(const char *url, aw_ws_url *out, aw_error *err);

typedef struct aw_wsclient_opts {
    aw_ws_url url;
    const char *token;  /* sent as "Authorization: Bearer TOKEN"; NULL: none */
    size_t max_message; /* bytes of one message in (0: 4 MiB) */
    /* One whole text message in. Appends the answer to reply and returns 1
     * to send it, 0 to send nothing, or a negative value with err filled to
     * end the connection (the message was not what the server should send). */
    int (*on_message)(void *ud, const char *msg, size_t len, aw_buf *reply, aw_error *err);
    void *ud;
    /* Set (from a signal handler) to end the connection; checked between
     * events (poll is woken by the signal). May be NULL. */
    volatile sig_atomic_t *stop;
} aw_wsclient_opts;

typedef struct aw_wsclient_stats {
    long messages_in, messages_out;
    bool connected; /* the handshake succeeded */
} aw_wsclient_stats;

/* Connects, then serves messages until the server closes the connection
 * (0), *stop is set (0), or something goes wrong (negative, err filled:
 * the server could not be reached, refused the handshake, sent a binary
 * message or one past max_message, or on_message failed). stats may be
 * NULL. */
int aw_wsclient_run(const aw_wsclient_opts *opts, aw_wsclient_stats *stats, aw_error *err);

#endif
