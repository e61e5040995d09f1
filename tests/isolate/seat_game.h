/* seat_game.h: what the tests of child seats share (test_childseat.c,
 * test_notify.c; include after test.h): a C random player's factory for
 * aw_childseat_new, one game's CSV log and events kept in memory, and
 * writing an agent's file. */
#ifndef TESTS_ISOLATE_SEAT_GAME_H
#define TESTS_ISOLATE_SEAT_GAME_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cseat.h"
#include "game.h"
#include "gamelog.h"

/* An aw_childseat_make: the C random player seeded by *(uint64_t *)ud. */
static __attribute__((unused)) aw_seat *seat_game_crandom(void *ud, FILE *out, aw_error *err)
{
    (void)out;
    (void)err;
    return aw_cseat_random(*(uint64_t *)ud);
}

/* One game's record: its CSV log and events (malloc'd), its result, and
 * what aw_game_play returned. */
typedef struct played {
    char *csv, *events;
    size_t csv_len, events_len;
    aw_game_result res;
    int rc;
} played;

/* The open streams a game writes its played record through. */
typedef struct played_log {
    FILE *csv, *ev;
    aw_gamelog log;
} played_log;

/* Opens out's CSV log and events in memory and a game log writing both. */
static __attribute__((unused)) void played_log_open(played *out, played_log *pl)
{
    pl->csv = open_memstream(&out->csv, &out->csv_len);
    pl->ev = open_memstream(&out->events, &out->events_len);
    aw_gamelog_init(&pl->log, pl->csv, NULL, pl->ev);
}

/* Flushes and frees the game log and closes the streams: the played
 * record's buffers then hold all the game wrote. */
static __attribute__((unused)) void played_log_close(played_log *pl)
{
    aw_gamelog_flush(&pl->log);
    aw_gamelog_free(&pl->log);
    fclose(pl->csv);
    fclose(pl->ev);
}

static __attribute__((unused)) void played_free(played *p)
{
    free(p->csv);
    free(p->events);
}

/* Writes text to path (checked to open). */
static __attribute__((unused)) void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

#endif
