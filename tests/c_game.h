/* c_game.h: one game of C players with its CSV log, as the engine's, the
 * log checker's and the replay's tests play it (tests/engine/
 * test_invariants.c, tests/logcheck/test_gzlog.c, tests/replay/
 * test_replay_roundtrip.c, and the options for tests/roles/test_extra_role.c;
 * include after test.h). Needs game, gamelog and core's protocol. */
#ifndef TESTS_C_GAME_H
#define TESTS_C_GAME_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "game.h"
#include "gamelog.h"
#include "protocol.h"

/* A talk validator: the protocol's check, without a parsed form (the C
 * players never read one). */
static __attribute__((unused)) int c_game_validate(void *ud, const char *text, size_t len, aw_validation mode,
                                                   void **parsed, aw_error *err)
{
    (void)ud;
    *parsed = NULL;
    return aw_protocol_validate(text, len, mode, err);
}

/* Clears *go and sets the game's rules, seed and log (NULL: none). */
static __attribute__((unused)) void c_game_opts(aw_game_opts *go, const aw_settings *set, uint64_t seed, aw_gamelog *log)
{
    memset(go, 0, sizeof *go);
    go->settings = set;
    go->seed = seed;
    go->log = log;
}

/* Plays one game of seats[1..] (borrowed) under set and seed, talks checked
 * by validate, its CSV log written to csv and flushed (checked); fills *res
 * and returns what aw_game_play returned. */
static __attribute__((unused)) int c_game_play(const aw_settings *set, uint64_t seed, aw_seat **seats,
                                               aw_validate_fn *validate, FILE *csv, aw_game_result *res,
                                               aw_error *err)
{
    aw_gamelog log;
    aw_gamelog_init(&log, csv, NULL, NULL);
    aw_game_opts go;
    c_game_opts(&go, set, seed, &log);
    go.talk.validate = validate;
    int rc = aw_game_play(&go, seats, res, err);
    CHECK_INT(aw_gamelog_flush(&log), 0);
    aw_gamelog_free(&log);
    return rc;
}

#endif
