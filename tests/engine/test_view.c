/* test_view: aw_view_build gives each seat exactly what view.h says it may
 * know, at every request of whole games (C players, the step API), under
 * the presets, five and fifteen players, and a deal with freemasons (the
 * other role with fellows): each agent's status, talks left and (for
 * werewolves) whispers left, as the engine holds them; a role only for the
 * seat itself, its fellows (same role, a role with fellows) and everyone at
 * FINISH; the entries of agent 0 and past the players none (the view is
 * built into memory full of garbage first, so every entry must be
 * written). The expected view is worked out here agent by agent, apart
 * from view.c's way of building it. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

#include "c_game.h"
#include "cseat.h"
#include "view.h"

static long views, fellows_seen, hidden_seen;

/* Checks in, agent a's view at a request of kind, against the state. */
static void check_view(const aw_state *st, int a, aw_req_kind kind, const aw_info *in, const char *ctx)
{
    aw_role me = st->role[a];
    const aw_role_info *mine = aw_role_info_of(me);
    CHECK_INT(in->agent, a);
    CHECK_INT(in->n, st->n);
    CHECK_INT(in->day, st->day);
    CHECK_INT((int)in->my_role, (int)me);
    for (int b = 0; b <= AW_MAX_PLAYERS; b++) {
        bool player = b >= 1 && b <= st->n;
        bool known = player && (kind == AW_REQ_FINISH || b == a || (mine->fellows && st->role[b] == me));
        aw_role want = known ? st->role[b] : AW_ROLE_NONE;
        CHECK_MSG(in->role[b] == want, "%s: agent %d sees agent %d as %s, not %s", ctx, a, b,
                  aw_role_name(in->role[b]), aw_role_name(want));
        CHECK_MSG(in->alive[b] == (player && st->alive[b]), "%s: agent %d, status of %d", ctx, a, b);
        CHECK_MSG(in->remain_talk[b] == (player ? st->remain_talk[b] : -1), "%s: agent %d, talks left of %d: %d",
                  ctx, a, b, in->remain_talk[b]);
        int whisper = player && mine->wolf ? st->remain_whisper[b] : -1;
        CHECK_MSG(in->remain_whisper[b] == whisper, "%s: agent %d, whispers left of %d: %d", ctx, a, b,
                  in->remain_whisper[b]);
        if (known && b != a && kind != AW_REQ_FINISH)
            fellows_seen++;
        if (player && !known)
            hidden_seen++;
    }
    CHECK(mine->wolf ? in->whispers == st->whispers && in->nwhispers == st->nwhispers
                     : in->whispers == NULL && in->nwhispers == 0);
    CHECK(in->talks == st->talks && in->ntalks == st->ntalks);
    CHECK_INT(in->nlast_dead, st->nlast_dead);
    CHECK(memcmp(in->last_dead, st->last_dead, sizeof in->last_dead) == 0);
    views++;
}

static void play(const aw_settings *set, uint64_t seed)
{
    aw_seat *seats[AW_MAX_PLAYERS + 1] = {0};
    for (int a = 1; a <= set->players; a++)
        seats[a] = a % 4 == 0 ? aw_cseat_chaos(seed * 31 + (uint64_t)a) : aw_cseat_random(seed * 17 + (uint64_t)a);
    aw_game_opts go;
    c_game_opts(&go, set, seed, NULL);
    go.talk.validate = c_game_validate;
    aw_error err;
    aw_game *gm = aw_game_start(&go, seats, &err);
    CHECK_MSG(gm != NULL, "%s", err.msg);
    char ctx[96];
    aw_request req;
    while (gm && aw_game_next(gm, &req) == 0) {
        const aw_state *st = aw_engine_state(aw_game_engine(gm));
        snprintf(ctx, sizeof ctx, "%s %dp seed %llu day %d", set->preset, set->players, (unsigned long long)seed,
                 st->day);
        for (int i = 0; i < req.nseats; i++) {
            int a = req.seats[i];
            aw_info *in = malloc(sizeof *in);
            memset(in, 0xa5, sizeof *in); /* garbage: every entry must be written */
            aw_view_build(aw_game_engine(gm), a, req.kind, in);
            check_view(st, a, req.kind, in, ctx);
            free(in);
            CHECK_INT(aw_game_ask(gm, a), 0); /* C seats answer at once */
        }
    }
    if (gm) {
        aw_game_result res;
        aw_game_end(gm, &res);
    }
    for (int a = 1; a <= set->players; a++)
        seats[a]->ops->free(seats[a]);
}

int main(void)
{
    static const struct {
        const char *preset;
        int players;
        const char *roles; /* NULL: the preset's */
    } runs[] = {
        {"aiwolf", 5, NULL},
        {"aiwolf", 15, NULL},
        {"regulation", 5, NULL},
        {"regulation", 15, NULL},
        {"aiwolf", 9, "FREEMASON=2,WEREWOLF=2,SEER=1,MEDIUM=1,VILLAGER=3"},
    };
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        aw_settings set;
        aw_error err;
        CHECK_MSG(aw_settings_preset(&set, runs[r].preset, runs[r].players, &err) == 0, "%s", err.msg);
        if (runs[r].roles) {
            CHECK_MSG(aw_parse_roles(runs[r].roles, set.role_count, &set.players, &err) == 0, "%s", err.msg);
            CHECK_MSG(aw_settings_check_playable(&set, &err) == 0, "%s", err.msg);
        }
        for (uint64_t seed = 1; seed <= 6; seed++)
            play(&set, seed * 1000 + r);
    }
    /* the games reached what is checked: fellows seen, roles hidden */
    CHECK(views > 1000);
    CHECK(fellows_seen > 100);
    CHECK(hidden_seen > 1000);
    return test_done();
}
