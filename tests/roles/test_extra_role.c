/* test_extra_role: a role added by one line (extra_roles.def: ORACLE, a
 * second role with the seer's night action) works through the role table
 * alone: settings, the engine's divine phase, the views, the game log, the
 * protocol and the log checker, with no other change. Built with core, game
 * and log compiled anew with AW_EXTRA_ROLES (tests/roles/CMakeLists.txt). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cseat.h"
#include "engine.h"
#include "game.h"
#include "gamelog.h"
#include "logcheck.h"
#include "protocol.h"
#include "settings.h"
#include "test.h"
#include "c_game.h"
#include "view.h"

static void test_table(void)
{
    CHECK_INT(AW_NROLES, 9);
    CHECK_INT(AW_ORACLE, 8);
    CHECK(aw_role_parse("ORACLE") == AW_ORACLE);
    CHECK_STR(aw_role_name(AW_ORACLE), "ORACLE");
    const aw_role_info *o = aw_role_info_of(AW_ORACLE);
    CHECK(o->night == AW_NIGHT_DIVINE && o->team == AW_TEAM_VILLAGER && o->species == AW_HUMAN && !o->wolf);
    CHECK(aw_role_team(AW_ORACLE) == AW_TEAM_VILLAGER);

    aw_role by_name[AW_NROLES];
    aw_roles_by_name(by_name);
    aw_buf b;
    aw_buf_init(&b);
    for (int i = 0; i < AW_NROLES; i++)
        aw_buf_printf(&b, "%s%s", i ? "," : "", aw_role_name(by_name[i]));
    CHECK_STR(b.data, "BODYGUARD,FOX,FREEMASON,MEDIUM,ORACLE,POSSESSED,SEER,VILLAGER,WEREWOLF");
    aw_buf_free(&b);

    char names[256];
    aw_role_list(names, sizeof names, " ", true);
    CHECK_STR(names, "BODYGUARD FREEMASON MEDIUM POSSESSED SEER VILLAGER WEREWOLF ORACLE");
    aw_role_list(names, sizeof names, ", ", false);
    CHECK_STR(names, "BODYGUARD, FREEMASON, MEDIUM, POSSESSED, SEER, VILLAGER, WEREWOLF, FOX, ORACLE");
    aw_role_list(names, 12, " ", false); /* truncated, still terminated */
    CHECK(strlen(names) < 12);
}

static void test_settings(void)
{
    int counts[AW_NROLES], players = 0;
    aw_error err;
    CHECK_INT(aw_parse_roles("oracle=1,WEREWOLF=1,VILLAGER=3", counts, &players, &err), 0);
    CHECK_INT(players, 5);
    CHECK_INT(counts[AW_ORACLE], 1);
    CHECK(aw_parse_roles("PRIEST=1", counts, &players, &err) < 0);
    CHECK_MSG(strstr(err.msg, "ORACLE") != NULL, "%s", err.msg);

    aw_settings s;
    CHECK_INT(aw_settings_preset(&s, "aiwolf", 5, &err), 0);
    CHECK_INT(aw_parse_roles("ORACLE=1,WEREWOLF=1,VILLAGER=3", s.role_count, &s.players, &err), 0);
    CHECK_INT(aw_settings_check_playable(&s, &err), 0);
    aw_buf b;
    aw_buf_init(&b);
    aw_settings_describe(&s, &b);
    CHECK_MSG(strstr(b.data, "\nroles=VILLAGER=3,WEREWOLF=1,ORACLE=1\n") != NULL, "%s", b.data);
    aw_buf_free(&b);
}

static void test_protocol(void)
{
    aw_error err;
    const char *text = "COMINGOUT Agent[02] ORACLE";
    aw_sentence *s = aw_protocol_parse(text, strlen(text), AW_VALIDATE_STRICT, &err);
    CHECK_MSG(s != NULL, "%s", err.msg);
    if (!s)
        return;
    CHECK(s->role == AW_ORACLE);
    char *back = aw_protocol_to_string(s);
    CHECK_STR(back, text);
    free(back);
    aw_buf b;
    aw_buf_init(&b);
    aw_protocol_describe(s, 1, "en", &b);
    CHECK_MSG(strstr(b.data, "an oracle") != NULL, "%s", b.data);
    aw_buf_clear(&b);
    aw_protocol_describe(s, 1, "ja", &b);
    CHECK_MSG(strstr(b.data, "預言者") != NULL, "%s", b.data);
    aw_buf_free(&b);
    aw_sentence_free(s);
}

typedef struct tally {
    int divine_asks, results;
} tally;

/* Plays one game with the step API and checks, at every request, what the
 * view of the asked seat holds about the diviner `diviner` (SEER or ORACLE).
 * Fills res; returns the CSV log (caller frees). */
static char *play(const aw_settings *set, uint64_t seed, const aw_role *deal, aw_role diviner, bool chaos,
                  aw_game_result *res, tally *t)
{
    aw_seat *seats[AW_MAX_PLAYERS + 1];
    for (int a = 1; a <= set->players; a++)
        seats[a] = chaos && a % 3 == 0 ? aw_cseat_chaos(seed * 31 + (uint64_t)a) : aw_cseat_random(seed * 17 + (uint64_t)a);
    char *buf = NULL;
    size_t len = 0;
    FILE *csv = open_memstream(&buf, &len);
    aw_gamelog log;
    aw_gamelog_init(&log, csv, NULL, NULL);
    aw_game_opts go;
    c_game_opts(&go, set, seed, &log);
    go.deal = deal;
    aw_error err;
    aw_game *gm = aw_game_start(&go, seats, &err);
    CHECK_MSG(gm != NULL, "%s", err.msg);
    aw_request req;
    while (gm && aw_game_next(gm, &req) == 0) {
        const aw_state *st = aw_engine_state(aw_game_engine(gm));
        for (int i = 0; i < req.nseats; i++) {
            int a = req.seats[i];
            aw_role mine = st->role[a];
            if (req.kind == AW_REQ_DIVINE) {
                CHECK_MSG(mine == diviner, "a %s was asked to divine", aw_role_name(mine));
                t->divine_asks++;
            }
            aw_info in;
            aw_view_build(aw_game_engine(gm), a, req.kind, &in);
            if (mine == diviner && in.divine_result.agent) {
                CHECK_INT(in.divine_result.agent, a);
                CHECK(in.divine_result.result == aw_role_species(st->role[in.divine_result.target]));
                t->results++;
            } else {
                CHECK_MSG(in.divine_result.agent == 0, "a %s saw a divination", aw_role_name(mine));
            }
            for (int b = 1; b <= st->n && req.kind != AW_REQ_FINISH; b++)
                if (b != a && st->role[b] == diviner)
                    CHECK_MSG(in.role[b] == AW_ROLE_NONE, "a %s saw the %s", aw_role_name(mine), aw_role_name(diviner));
            CHECK_INT(aw_game_ask(gm, a), 0); /* C seats answer at once */
        }
    }
    if (gm)
        aw_game_end(gm, res);
    aw_gamelog_free(&log);
    fclose(csv);
    for (int a = 1; a <= set->players; a++)
        seats[a]->ops->free(seats[a]);
    return buf;
}

/* A copy of text with every f replaced by t (caller frees). */
static char *replace_all(const char *text, const char *f, const char *t)
{
    aw_buf b;
    aw_buf_init(&b);
    size_t n = strlen(f);
    for (const char *p = text, *q; *p; p = q + n) {
        q = strstr(p, f);
        if (!q) {
            aw_buf_adds(&b, p);
            break;
        }
        aw_buf_printf(&b, "%.*s%s", (int)(q - p), p, t);
    }
    aw_buf_addc(&b, '\0');
    return b.data;
}

/* A copy of a CSV log with the role from renamed to to in every field
 * (caller frees). */
static char *swap_role(const char *log, const char *from, const char *to)
{
    char f[32], t[32];
    snprintf(f, sizeof f, ",%s,", from);
    snprintf(t, sizeof t, ",%s,", to);
    char *once = replace_all(log, f, t);
    snprintf(f, sizeof f, ",%s\n", from);
    snprintf(t, sizeof t, ",%s\n", to);
    char *twice = replace_all(once, f, t);
    free(once);
    return twice;
}

static aw_logcheck_verdict check(const char *log, const aw_settings *set, const int *roles, aw_logcheck_report *rep)
{
    aw_logcheck_options opt;
    memset(&opt, 0, sizeof opt);
    opt.roles = roles;
    aw_error err;
    return (aw_logcheck_verdict)aw_logcheck(log, strlen(log), set, &opt, rep, &err);
}

/* Games with the ORACLE instead of the SEER under each preset: the oracle is
 * asked to divine, learns true results, is hidden from the others, the log
 * checker finds the games legal, and each game is the same game as with a
 * SEER in its seat (a role of an existing night action behaves as that
 * action does, nothing else). */
static void test_games(const char *preset, int players, bool chaos)
{
    tally t = {0, 0};
    int games = 0, same = 0;
    for (uint64_t seed = 1; seed <= 12; seed++) {
        aw_settings seer, oracle;
        aw_error err;
        CHECK_INT(aw_settings_preset(&seer, preset, players, &err), 0);
        oracle = seer;
        oracle.role_count[AW_ORACLE] = oracle.role_count[AW_SEER];
        oracle.role_count[AW_SEER] = 0;

        /* the deal of a seer game, then the same deal with the oracle */
        aw_game_result res;
        tally ignore = {0, 0};
        free(play(&seer, seed, NULL, AW_SEER, chaos, &res, &ignore));
        aw_role deal[AW_MAX_PLAYERS + 1];
        deal[0] = AW_ROLE_NONE;
        for (int a = 1; a <= players; a++)
            deal[a] = res.role[a] == AW_SEER ? AW_ORACLE : res.role[a];
        char *with_oracle = play(&oracle, seed, deal, AW_ORACLE, chaos, &res, &t);
        for (int a = 1; a <= players; a++)
            deal[a] = res.role[a] == AW_ORACLE ? AW_SEER : res.role[a];
        char *with_seer = play(&seer, seed, deal, AW_SEER, chaos, &res, &ignore);

        aw_logcheck_report rep;
        CHECK_MSG(check(with_oracle, &oracle, oracle.role_count, &rep) == AW_LOG_LEGAL, "%s seed %llu: line %ld: %s",
                  preset, (unsigned long long)seed, rep.line, rep.reason);
        CHECK_INT(rep.role_count[AW_ORACLE], oracle.role_count[AW_ORACLE]);
        CHECK(strstr(with_oracle, ",ORACLE,") != NULL);
        /* The checker knows only the oracle divines. */
        if (strstr(with_oracle, ",divine,")) {
            char *wrong = swap_role(with_oracle, "ORACLE", "VILLAGER");
            CHECK(check(wrong, &oracle, NULL, &rep) == AW_LOG_ILLEGAL);
            CHECK_MSG(strstr(rep.reason, "divines but is a VILLAGER") != NULL, "%s", rep.reason);
            free(wrong);
        }
        char *renamed = swap_role(with_oracle, "ORACLE", "SEER");
        same += strcmp(renamed, with_seer) == 0;
        free(renamed);
        games++;
        free(with_oracle);
        free(with_seer);
    }
    printf("%s, %d players%s: %d games, %d divine requests to the oracle, %d results seen, %d the same as with a "
           "seer\n",
           preset, players, chaos ? " (erratic seats)" : "", games, t.divine_asks, t.results, same);
    CHECK(t.divine_asks >= games);
    CHECK(t.results > 0);
    CHECK_INT(same, games);
}

int main(void)
{
    test_table();
    test_settings();
    test_protocol();
    const char *presets[] = {"aiwolf", "seed2015", "regulation"};
    for (int i = 0; i < 3; i++) {
        test_games(presets[i], 5, false);
        test_games(presets[i], 15, true);
    }
    return test_done();
}
