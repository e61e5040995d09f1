/* serve_nlp: `aiwolf serve --nlp`'s transport — NLP-division agents over
 * WebSocket at ws://HOST:PORT/ws, on the web module (libwebsockets on the
 * netserver's libuv loop), handed to netserver as an
 * aw_netserver_transport. Uses web and netserver.
 *
 * Ownership: the caller owns the serve_nlp (zeroed, then filled by
 * serve_nlp_transport) and keeps it for the run; host is borrowed. */
#ifndef AW_SERVE_NLP_H
#define AW_SERVE_NLP_H

#include <stddef.h>

#include "netserver.h"
#include "settings.h"
#include "web.h"

typedef struct serve_nlp {
    aw_netserver_transport tp;
    const char *host;
    int port;
    size_t max_message; /* bytes of one answer (larger: the agent is closed) */
    unsigned max_clients;
    aw_web *web;
    aw_web_chan *chan;
    aw_netserver *srv;
} serve_nlp;

/* Fills n->tp for a WebSocket server on host:port (port 0: any free one). */
void serve_nlp_transport(serve_nlp *n, const char *host, int port, size_t max_message, unsigned max_clients);

/* The secret of --jwt-secret: the file's bytes less its trailing line
 * breaks (at most 4096, not none), to free (zero it first) after the run;
 * NULL with err filled when it cannot be. Warns when others may read it. */
unsigned char *serve_nlp_secret(const char *path, size_t *len, aw_error *err);
/* --profiles FILE: the profile text each character's INITIALIZE carries,
 * instead of the defaults (core's aw_nlp_profile). FILE holds blocks
 * separated by blank lines: a block's first line is a character's name in
 * the game under set (Minato, ミナト, Agent[01]), its other lines the
 * profile (joined with line breaks; at most 4096 bytes, UTF-8). "none":
 * no profile at all. Fills out[1..AW_MAX_PLAYERS] (NULL: the default,
 * "": none) with strings in *store (to free); 0, or negative with err
 * saying what is wrong and where. */
int serve_nlp_profiles(const char *path, const aw_settings *set, const char *out[AW_MAX_PLAYERS + 1], char **store,
                       aw_error *err);

/* Zeroes and frees what serve_nlp_secret gave (NULL: nothing). */
void serve_nlp_secret_free(unsigned char *secret, size_t len);

#endif
