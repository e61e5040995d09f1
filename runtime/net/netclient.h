/* netclient: an agent (any seat, in practice a sandboxed Lua agent) playing
 * on an AIWolf server over TCP — the official server or ours — on a libuv
 * loop. It speaks the official wire format through wireagent: one JSON
 * packet per line in, one reply line out for the requests that want one.
 * One connection plays game after game; each INITIALIZE starts the agent
 * afresh. Uses wireagent, wire, seat, util and libuv (the only library
 * that may).
 *
 * Ownership: the agent seat is borrowed for the call. */
#ifndef AW_NETCLIENT_H
#define AW_NETCLIENT_H

#include <stdbool.h>
#include <stdio.h>

#include "seat.h"

typedef struct aw_netclient_opts {
    const char *host;  /* name or address */
    int port;
    const char *name;  /* the answer to NAME, or NULL for the agent's own getName */
    const char *role;  /* the answer to ROLE (a role the agent asks for), or NULL for "none" */
    /* Keep trying while the server is not up, and connect again when it goes
     * away, waiting 0.25 s, 0.5 s, ... up to 8 s between tries. Without it a
     * refused or closed connection ends the run. */
    bool reconnect;
    /* How talks get their parsed form for the agent (talkhooks.h), or none. */
    aw_talk_hooks talk;
    FILE *log;         /* progress and problems, one line each; NULL: silent */
} aw_netclient_opts;

/* Results of a run. */
typedef struct aw_netclient_stats {
    long games;       /* FINISH requests seen */
    long requests;    /* packets taken */
    long connections; /* successful connects */
} aw_netclient_stats;

/* Connects and plays until the server closes the connection (without
 * reconnect), or until SIGINT/SIGTERM. Returns 0 when the run ended as it
 * should (the server closed the connection, or a signal), or a negative
 * value with err saying why: the server could not be reached (without
 * reconnect), or it sent something that is not the AIWolf wire format (a
 * line that is not a packet, or longer than 16 MiB). stats may be NULL.
 * From the moment it starts to stop, SIGINT is ignored (a second Ctrl-C
 * changes nothing); it stays so when this returns (the caller's to undo). */
int aw_netclient_run(aw_seat *agent, const aw_netclient_opts *opts, aw_netclient_stats *stats, aw_error *err);

#endif
