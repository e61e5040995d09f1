/* seat: what the driver needs from a player, whatever it is — a Lua agent in
 * this process, a remote agent over TCP, an agent in a child process, a
 * trivial C player for benchmarks. A seat is told or asked one request at a
 * time, with the view (aw_info) the view module built for it, and answers
 * with a text (TALK, WHISPER) or a target (VOTE, DIVINE, GUARD, ATTACK).
 * Uses engine and view types only. */
#ifndef AW_SEAT_H
#define AW_SEAT_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "view.h"

/* A seat's faults are the sandbox's kinds (util.h: error, timeout, memory,
 * reply) plus AW_FAULT_LOST: the seat is gone (connection closed, process
 * died). */
typedef struct aw_seat_fault {
    aw_fault_kind kind;
    char msg[512]; /* one line, printable */
} aw_seat_fault;

typedef struct aw_seat_reply {
    const char *text; /* borrowed from the seat until its next call; NULL = no answer */
    size_t len;
    int target; /* AW_NO_AGENT = none */
} aw_seat_reply;

typedef struct aw_seat aw_seat;

/* The outcome of a notification (INITIALIZE, DAILY_INITIALIZE, DAILY_FINISH)
 * that a seat took at once — request() returned 0 before the agent had it —
 * and delivered later: a child seat sends it together with the seat's next
 * request, in one write, and learns how it went from that request's answer
 * (docs/isolation.md). */
typedef struct aw_seat_late {
    aw_req_kind kind;
    int day;              /* the day of the view it was sent with */
    bool cpu_known;       /* the agent's CPU time on it is known (cpu_ns) */
    uint64_t cpu_ns;
    aw_seat_fault fault;  /* AW_FAULT_NONE: it went well */
} aw_seat_late;

/* request() sent the request; the answer comes later (see request). */
#define AW_SEAT_PENDING 1

typedef struct aw_seat_ops {
    /* Starts a game: the seat plays agent `agent`. agent_seed is this seat's
     * own seed for the game, aw_rng_derive(game_seed, agent): the agent's
     * randomSeed and math.random come from it. It is one-way: it tells the
     * seat nothing about the game's seed, the deal or any other seat's seed,
     * and the game's seed itself never reaches a seat. Returns the
     * agent's name for the log (getName), borrowed until the next call, or
     * NULL (with *fault filled) when the seat cannot play; the driver then
     * names it after its index and every request to it gets the rules'
     * substitute. Called once per game, before INITIALIZE. */
    const char *(*begin)(aw_seat *s, int agent, uint64_t agent_seed, aw_seat_fault *fault);
    /* Tells (notifications) or asks the seat. Returns 0 with *reply filled
     * (answered at once, as seats in this process do); a negative value with
     * *fault filled (the driver then uses the rules' substitute); or
     * AW_SEAT_PENDING: the request is on its way (a remote agent, a child
     * process) and the answer comes later — through `wait`, or, for a driver
     * on an event loop, straight to aw_game_answer (game.h). info is only
     * valid during the call; it is NULL when reads_view said the seat would
     * not read it. */
    int (*request)(aw_seat *s, aw_req_kind kind, const aw_info *info, const aw_settings *set, aw_seat_reply *reply,
                   aw_seat_fault *fault);
    /* What version of the agent plays this game (e.g. a content hash of its
     * code), for the record; borrowed. May be NULL. */
    const char *(*version)(aw_seat *s);
    /* Frees the seat. */
    void (*free)(aw_seat *s);
    /* For seats that return AW_SEAT_PENDING: blocks until the pending
     * request's answer is there (or its deadline passed) and returns it as
     * request would have. May be NULL for seats that always answer at once. */
    int (*wait)(aw_seat *s, aw_seat_reply *reply, aw_seat_fault *fault);
    /* For seats that take notifications at once and deliver them later:
     * the oldest outcome not yet taken (1 with *out filled), or 0. The
     * driver takes them before it applies the seat's next answer and at
     * the game's end (game.c). May be NULL. */
    int (*late)(aw_seat *s, aw_seat_late *out);
    /* Whether the seat's request() of this kind, called next, reads its
     * view: false (only when certain) and the driver builds none and passes
     * info NULL (game.c). May be NULL: every request gets its view. */
    bool (*reads_view)(aw_seat *s, aw_req_kind kind);
} aw_seat_ops;

struct aw_seat {
    const aw_seat_ops *ops;
};

#endif
