/* gamelog: writes what happens in a game, from the engine's events, to up to
 * three places: the official CSV game log (byte-compatible with the official
 * server's), a readable record for people, and a JSON-lines event file that
 * also carries what the CSV cannot (faults, substitutes and why, time per
 * call). Uses engine, seat (fault kinds) and util; no JSON library is needed
 * for this flat output.
 *
 * Ownership: the FILE pointers are borrowed; the caller opens and closes
 * them. Each output may be NULL. */
#ifndef AW_GAMELOG_H
#define AW_GAMELOG_H

#include <stdbool.h>
#include <stdio.h>

#include "engine.h"
#include "seat.h"

/* Optional: sees what the log writes, as it is written (the live
 * spectator stream, spectate.h). Each callback may be NULL. */
typedef struct aw_gamelog_observer {
    void (*begin)(void *ud, const aw_engine *g, int game_no);
    void (*version)(void *ud, int agent, const char *version);
    void (*event)(void *ud, const aw_event *ev);
    void (*call)(void *ud, int agent, aw_req_kind kind, uint64_t elapsed_ns, const aw_seat_fault *fault);
    /* a notification's late fault (aw_gamelog_call_late) */
    void (*late)(void *ud, int agent, aw_req_kind kind, int day, const aw_seat_fault *fault);
    void *ud;
} aw_gamelog_observer;

typedef struct aw_gamelog {
    FILE *csv;
    FILE *record;
    FILE *events;
    const aw_engine *game; /* borrowed, set by aw_gamelog_begin */
    int record_day;        /* last day printed in the record */
    bool result_only;      /* the record gets the result line only (play --quiet, one game) */
    int game_no;           /* echoed in JSON events */
    aw_buf line;
    int write_errors;      /* count of failed writes (disk full, closed pipe) */
    /* Optional: the record shows what each talk means instead of its text
     * (appends a description of t to out; see talkhooks.h). */
    void (*describe)(void *ud, const aw_talk *t, aw_buf *out);
    void *describe_ud;
    /* The record leaves out the talks and whispers that say only Over or
     * Skip (play --hide-over). */
    bool hide_over;
    /* record state: the turn last marked (talk, whisper) and the vote
     * round being counted for its tally line */
    int talk_turn, whisper_turn;
    int tally_kind, tally_round, tally_votes;
    int tally[AW_MAX_PLAYERS + 1];
    aw_gamelog_observer observer; /* zero: none */
} aw_gamelog;

void aw_gamelog_init(aw_gamelog *l, FILE *csv, FILE *record, FILE *events);
void aw_gamelog_free(aw_gamelog *l);

/* Starts a game's output (record header, JSON "game" event). */
void aw_gamelog_begin(aw_gamelog *l, const aw_engine *g, int game_no);

/* Which version of its code agent `agent` plays this game with (JSON events
 * only). */
void aw_gamelog_version(aw_gamelog *l, int agent, const char *version);

/* The engine's event hook (ud is the aw_gamelog). */
void aw_gamelog_event(void *ud, const aw_event *ev);

/* One call to a seat: its duration, and its fault if it failed (NULL if not).
 * Timings go to the JSON events only; faults also to the record. */
void aw_gamelog_call(aw_gamelog *l, int agent, aw_req_kind kind, uint64_t elapsed_ns, const aw_seat_fault *fault);
/* The fault of a notification whose call was logged earlier without one
 * (the seat took it at once and learnt its outcome later, seat.h's
 * aw_seat_late): a second call line for it, marked "late", on the
 * notification's day, and the record's '!' line; the observer's late. */
void aw_gamelog_call_late(aw_gamelog *l, int agent, aw_req_kind kind, int day, const aw_seat_fault *fault);

/* Flushes all outputs; returns 0, or -AW_EIO if any write failed. */
int aw_gamelog_flush(aw_gamelog *l);

/* Appends the official CSV line for ev (with its newline) to out; appends
 * nothing for events the CSV does not carry. */
void aw_gamelog_csv_line(const aw_event *ev, const aw_state *st, aw_buf *out);

/* The JSON event lines (docs/events.schema.json), each one object and its
 * newline appended to out: what --events writes. flags 0 writes them in
 * full; the live spectator (spectate.h) leaves out what is secret while the
 * game runs: AW_JSON_NO_ROLES drops the roles of status, execute and begin
 * lines and begin's seed; AW_JSON_NO_MESSAGE drops a call's fault message;
 * AW_JSON_NO_TIME drops a call's time ("us"); AW_JSON_LATE marks a call
 * line as a notification's outcome that came after its own line ("late":
 * true, "us" 0: aw_gamelog_call_late). */
enum { AW_JSON_NO_ROLES = 1u, AW_JSON_NO_MESSAGE = 2u, AW_JSON_NO_TIME = 4u, AW_JSON_LATE = 8u };
void aw_gamelog_json_begin(const aw_engine *g, int game_no, unsigned flags, aw_buf *out);
void aw_gamelog_json_version(int game_no, int agent, const char *version, aw_buf *out);
void aw_gamelog_json_event(int game_no, const aw_event *ev, unsigned flags, aw_buf *out);
void aw_gamelog_json_call(int game_no, int day, int agent, aw_req_kind kind, uint64_t elapsed_ns,
                          const aw_seat_fault *fault, unsigned flags, aw_buf *out);

#endif
