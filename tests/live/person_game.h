/* What the tests of a person's seat share (test_humanseat.c, test_night.c):
 * reading a view's fields, and one game with a person in seat 1 answered by
 * a thread of the test's own. */
#ifndef TESTS_PERSON_GAME_H
#define TESTS_PERSON_GAME_H

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "talkhooks.h"

/* The number after key in a view's JSON, or -1. */
static long field(const char *json, const char *key)
{
    const char *q = strstr(json, key);
    return q ? strtol(q + strlen(key), NULL, 10) : -1;
}

/* The first living agent of a view other than me, or 0. */
static int alive_other(const char *json, int me)
{
    const char *q = strstr(json, "\"alive\":[");
    if (!q)
        return 0;
    q += 9;
    while (*q && *q != ']') {
        int a = (int)strtol(q, (char **)&q, 10);
        if (a != me)
            return a;
        if (*q == ',')
            q++;
    }
    return 0;
}

/* The person's thread and how to tell it the game is over (*over set under
 * mu, cv broadcast). */
typedef struct person_thread {
    void *(*run)(void *arg);
    void *arg;
    pthread_mutex_t *mu;
    pthread_cond_t *cv;
    bool *over;
} person_thread;

/* Plays one game of seats[1..] under set and seed, seat 1 dealt role,
 * written to log, while the person's thread runs; aw_game_play's result. */
static int play_with_person(const aw_settings *set, uint64_t seed, aw_role role, aw_gamelog *log, aw_seat **seats,
                            const person_thread *pt, aw_game_result *res, aw_error *err)
{
    aw_role deal[AW_MAX_PLAYERS + 1];
    for (int a = 0; a <= AW_MAX_PLAYERS; a++)
        deal[a] = AW_ROLE_NONE;
    deal[1] = role;
    aw_game_opts go;
    memset(&go, 0, sizeof go);
    go.settings = set;
    go.seed = seed;
    go.deal = deal;
    go.log = log;
    aw_talkhooks_game(&go);
    pthread_t th;
    pthread_create(&th, NULL, pt->run, pt->arg);
    int rc = aw_game_play(&go, seats, res, err);
    pthread_mutex_lock(pt->mu);
    *pt->over = true;
    pthread_cond_broadcast(pt->cv);
    pthread_mutex_unlock(pt->mu);
    pthread_join(th, NULL);
    return rc;
}

#endif
