/* netserver: an AIWolf server on a libuv loop. Agents connect over TCP and
 * speak the official wire format (the official Java and Python agents, or
 * `aiwolf connect`); seats may also be filled by agents in this process
 * (in practice sandboxed Lua agents). Each connection is asked its NAME as
 * it arrives and waits in the lobby; a game starts whenever enough agents
 * are waiting, up to `parallel` games at once, until `games` have started.
 * Every request to a remote agent has a deadline; a late or missing answer,
 * a broken line or a dropped connection gives that agent the rules'
 * substitute (and, for a connection that is gone, for the rest of the game)
 * while the game goes on. Uses game, wireseat, wire, seat, util and libuv.
 *
 * Ownership: everything in the options is borrowed for the run. */
#ifndef AW_NETSERVER_H
#define AW_NETSERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "game.h"
#include "match.h"

typedef struct uv_loop_s uv_loop_t;
/* The running server, as a message transport sees it (below). */
typedef struct aw_netserver aw_netserver;

/* Agents over a message transport instead of TCP: `serve --nlp`, where
 * NLP-division agents come over WebSocket (runtime/web) and speak the NLP
 * protocol (nlp_server.h) — a whole message is a request or an answer, and
 * agents go by the characters' names of the settings. start() begins
 * listening on the server's loop and says where (*port); from then on the
 * transport calls aw_netserver_joined/_message/_left on the loop's thread
 * for its clients (ids that are never 0 and never reused). send() sends one
 * message to a client (nothing when it has gone), close() closes one,
 * stop() ends the transport (then no more calls either way). */
typedef struct aw_netserver_transport {
    void *(*start)(void *ud, uv_loop_t *loop, aw_netserver *srv, int *port, aw_error *err);
    void (*send)(void *tp, uint64_t client, const char *msg, size_t len);
    void (*close)(void *tp, uint64_t client);
    void (*stop)(void *tp);
    /* Closes one connection at once, joined or not (NULL: nothing). */
    void (*drop)(void *tp, uint64_t client);
    void *ud;
} aw_netserver_transport;

/* A transport that counts its connections (the WebSocket one does) tells
 * each as it is accepted, before it costs anything, with the same id it
 * will join with, and again when it has gone: the server applies
 * max_connections and max_per_address as over TCP, with the same policy
 * (connlimit.h): when one is full the oldest connection of that limit not
 * yet named is dropped (drop above) to make room, and the new one is
 * refused only when every one is named. aw_netserver_connected returns NULL to take it, or the line to
 * refuse it with (static). */
struct sockaddr;
const char *aw_netserver_connected(aw_netserver *srv, uint64_t client, const struct sockaddr *addr);
void aw_netserver_disconnected(aw_netserver *srv, uint64_t client);

void aw_netserver_joined(aw_netserver *srv, uint64_t client);
/* aw_netserver_joined for a client whose request said this: its decoded
 * query string and its Authorization header (NULL: none), where its token
 * is (jwt_secret below). */
void aw_netserver_joined_with(aw_netserver *srv, uint64_t client, const char *query, const char *authorization);
void aw_netserver_message(aw_netserver *srv, uint64_t client, const char *msg, size_t len);
void aw_netserver_left(aw_netserver *srv, uint64_t client);

typedef struct aw_netserver_opts {
    const char *bind;   /* address to listen on (default 127.0.0.1) */
    int port;           /* 0: any free port (see ready) */
    aw_game_opts game;  /* settings, validate hooks, deal; seed = the first game's; log set per game */
    long games;         /* how many games in all */
    int parallel;       /* at most this many at once (at least 1) */
    int time_limit_ms;  /* deadline of each answer from a remote agent */
    /* Ask each remote agent ROLE before a game, as the official server does
     * with enableRoleRequest: requests are honoured first come (in an order
     * shuffled every game, as the official server's) while the role table
     * has room; the rest is dealt at random. */
    bool role_requests;
    const aw_role *deal; /* roles fixed by the caller, or NULL */
    /* Seats filled in this process: local[k] says slot k (1..players) is
     * one; make_local(ud, k, err) makes slot k's seat for one game (called
     * once per game and slot; the server frees it after the game). Agent
     * numbers are the official server's: each slot and each connection
     * gets one at random (from the seed's shuffle of 1..players, local
     * slots first, each connection when it gives its name) and keeps it for
     * the whole run; fixed_seats: local slot k is agent k, and the
     * connections take the other numbers as before. */
    aw_seat *(*make_local)(void *ud, int slot, aw_error *err);
    bool local[AW_MAX_PLAYERS + 1];
    bool fixed_seats;
    /* Local seats that answer later (request() gives AW_SEAT_PENDING, e.g.
     * a person on a web page, humanseat.h) are taken when they say so, never
     * polled. local_watch(ud, seat, ready, ready_ud): from now on seat calls
     * ready(ready_ud), from any thread, whenever an answer may be there;
     * with ready NULL: no more calls, and none under way once it returns.
     * The server sets it on each local seat it makes, before the game, and
     * clears it before freeing the seat. local_take gives the pending
     * answer as request() would have, or AW_SEAT_PENDING while there is none
     * yet, with *deadline (aw_now_ns clock; 0: none) set to when it will
     * give up waiting (and give the time-out). The server takes once when
     * the seat asks, then after each ready() call and at the deadline.
     * Without local_take a local seat that answers later gets no answer but
     * a fault; without local_watch it is taken at its deadline only. */
    void (*local_watch)(void *ud, aw_seat *seat, void (*ready)(void *ready_ud), void *ready_ud);
    int (*local_take)(void *ud, aw_seat *seat, aw_seat_reply *reply, aw_seat_fault *fault, uint64_t *deadline);
    /* Per game: set up the log (as in match.h), then close it; finished is
     * false for a game abandoned by a stop (SIGINT/SIGTERM). before returns
     * 0, a negative value to stop the run (nothing can be written), or
     * AW_NETSERVER_RETRY when it lacks resources for now (a descriptor,
     * memory): the game waits with its agents seated and is tried again
     * later, as when make_local fails. */
    int (*before)(void *ud, long gno, uint64_t seed, aw_gamelog **log);
    int (*after)(void *ud, long gno, aw_gamelog *log, bool finished);
    void *ud;
    /* Connections (docs/network.md). At max_connections open at once, or
     * max_per_address from one address (IPv4, or an IPv6 /64), the oldest
     * connection of that limit not yet named is closed to make room for a
     * new one (connlimit.h); only when every one is named does a new
     * connection get one line saying so and is closed. The server logs
     * each kind at most once every 10 s. 0: a default
     * (aw_netserver_max_connections; 2 * the remote seats of parallel games,
     * at least 2). A connection must answer NAME within name_timeout_ms
     * (0: 5000), and a named connection that waits in the lobby more than
     * lobby_timeout_ms without a game is closed (0: 600000). The lobby is
     * first come, first served; an agent back from a game queues again. */
    int max_connections;
    int max_per_address;
    int name_timeout_ms;
    int lobby_timeout_ms;
    /* A remote agent that lets this many answers in a row pass their
     * deadline is out of its game and closed, as one that went away (0:
     * never). */
    int max_timeouts;
    /* Called once the server listens, with its port. May be NULL. */
    void (*ready)(void *ud, int port);
    FILE *log; /* connections, games, problems; NULL: silent */
    /* Non-NULL: remote agents come over this transport (and speak the NLP
     * protocol), not over TCP: bind and port are the transport's
     * business, max_connections and max_per_address count what it tells
     * (aw_netserver_connected), role_requests is ignored. A name given twice gets a number (kanolab, kanolab2, ...).
     * As on the official NLP server, each agent is closed after its game
     * (its FINISH sent first) and connects again to play another. */
    const aw_netserver_transport *nlp;
    /* NLP only. Non-NULL: each agent must come with a JSON Web Token
     * signed HS256 with jwt_secret[0..jwt_secret_len) for its team
     * (nlp_auth.h), checked once it has answered NAME, as the official NLP
     * server checks it; an agent without one is closed. */
    const unsigned char *jwt_secret;
    size_t jwt_secret_len;
    /* NLP only: the profile text INITIALIZE carries for each agent
     * (nlp_server.h's profiles: [1..AW_MAX_PLAYERS], NULL entry core's
     * default, "" none); NULL: core's defaults. */
    const char *const *nlp_profiles;
} aw_netserver_opts;

#define AW_NETSERVER_RETRY 1

/* The default max_connections: the soft descriptor limit (RLIMIT_NOFILE)
 * less what the process needs besides connections (64, 4 per parallel game,
 * and extra_fds for the caller's own, e.g. a web server's clients), at least
 * 16. */
int aw_netserver_max_connections(int parallel, int extra_fds);

/* Runs the server until `games` games have been played (or SIGINT/SIGTERM,
 * which abandon the games under way: their logs end where they stopped).
 * Tallies every finished game into t (entry 0: remote agents, entry 1:
 * local seats). Returns 0, or a negative value with err filled
 * when the server could not start. */
int aw_netserver_run(const aw_netserver_opts *o, aw_tally *t, aw_error *err);

#endif
