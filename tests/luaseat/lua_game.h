/* lua_game.h: what the Lua seat tests share (include after test.h): a
 * 5-player game of the aiwolf preset with the seat under test in seat 1
 * and C random players in seats 2..5, its CSV log kept in memory; the
 * name seat 1 gave, read from that log; and writing an agent's file.
 * lua_game_play_calls also hands every seat call to call (aw_game_opts). */
#ifndef AW_TEST_LUA_GAME_H
#define AW_TEST_LUA_GAME_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cseat.h"
#include "game.h"

/* Plays the game (checked to end without a host error); returns its CSV log
 * (malloc'd) and fills *res. Not inlined: GCC 12 takes the log that
 * open_memstream filled for a pointer to the local it was written through
 * (-Wdangling-pointer). */
static __attribute__((unused, noinline)) char *lua_game_play_calls(aw_seat *seat1, uint64_t seed, aw_game_result *res,
                                                                  void (*call)(void *, int, aw_req_kind, uint64_t,
                                                                               const aw_seat_fault *),
                                                                  void *call_ud)
{
    aw_settings set;
    aw_error err;
    aw_settings_preset(&set, "aiwolf", 5, &err);
    aw_seat *seats[6];
    seats[1] = seat1;
    for (int a = 2; a <= 5; a++)
        seats[a] = aw_cseat_random((uint64_t)a);
    char *buf = NULL;
    size_t len = 0;
    FILE *csv = open_memstream(&buf, &len);
    aw_gamelog log;
    aw_gamelog_init(&log, csv, NULL, NULL);
    aw_game_opts go;
    memset(&go, 0, sizeof go);
    go.settings = &set;
    go.seed = seed;
    go.log = &log;
    go.call = call;
    go.call_ud = call_ud;
    memset(res, 0, sizeof *res);
    CHECK(aw_game_play(&go, seats, res, &err) == 0);
    aw_gamelog_free(&log);
    fclose(csv);
    for (int a = 2; a <= 5; a++)
        seats[a]->ops->free(seats[a]);
    return buf;
}

static __attribute__((unused)) char *lua_game_play(aw_seat *seat1, uint64_t seed, aw_game_result *res)
{
    return lua_game_play_calls(seat1, seed, res, NULL, NULL);
}

/* The name seat 1 gave, from the log's "0,status,1,ROLE,ALIVE,NAME,NAME"
 * line (empty when there is none). */
static __attribute__((unused)) void lua_game_name(const char *log, char *name, size_t cap)
{
    name[0] = '\0';
    const char *p = strstr(log, "0,status,1,");
    if (p) {
        const char *end = strchr(p, '\n');
        const char *comma = end;
        while (comma > p && comma[-1] != ',')
            comma--;
        snprintf(name, cap, "%.*s", (int)(end - comma), comma);
    }
}

/* Writes text to file (an agent's file or module). */
static __attribute__((unused)) void lua_game_write(const char *file, const char *text)
{
    FILE *f = fopen(file, "w");
    fputs(text, f);
    fclose(f);
}

#endif
