/* --until-separated's reading of games.tsv (separation.h): read in pieces
 * as the file grows, with a line cut short, lines of a later round already
 * on disk, a duplicate line and a file replaced by a reordered copy, it
 * takes the same decision as reading the whole file at once; and an entry
 * the fault policy does not rank is never in doubt. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results.h"
#include "schedule.h"
#include "separation.h"
#include "settings.h"
#include "test.h"

#define N 4 /* entries; entry 2 faults in 3 calls of 4 */

static char path[] = "/tmp/aw_sepXXXXXX";

static void build(aw_schedule *s)
{
    aw_schedule_opts o;
    memset(&o, 0, sizeof o);
    o.format = AW_FORMAT_SEED2015;
    o.nentries = N;
    o.players[o.nplayers++] = 5;
    o.games_per_entry = 40;
    o.seed = 99;
    aw_error err;
    aw_default_roles(5, o.role_count[5], &err);
    CHECK_INT(aw_schedule_build(s, &o, &err), 0);
}

/* The lines of units [from, s->nunits): entry 0 wins for its team most
 * often, entry 2 faults in 3 calls of 4. */
static void lines_of(const aw_schedule *s, int from, aw_buf *out)
{
    aw_game_record rec;
    for (int u = from; u < s->nunits; u++) {
        const aw_sched_unit *un = &s->units[u];
        for (int g = 0; g < un->ngames; g++) {
            memset(&rec, 0, sizeof rec);
            rec.index = un->first + g;
            rec.unit = u;
            rec.game = g;
            rec.seed = un->games[g].seed;
            rec.players = un->players;
            int score = (int)(rec.index % 3) - 1;
            for (int a = 1; a <= un->players; a++) {
                rec.entry[a] = un->entry[a];
                rec.role[a] = un->games[g].role[a];
                rec.calls[a] = 40;
                if (rec.entry[a] == 2)
                    rec.faults[a][1] = 30;
                if (rec.entry[a] == 0)
                    score += aw_role_team(rec.role[a]) == AW_TEAM_VILLAGER ? 2 : -2;
            }
            rec.winner = score > 0 ? AW_TEAM_VILLAGER : AW_TEAM_WEREWOLF;
            rec.days = 3;
            snprintf(rec.log, sizeof rec.log, "logs/%ld.log.gz", rec.index);
            aw_record_format(&rec, out);
        }
    }
}

static void write_file(const char *p, const char *data, size_t len, const char *mode)
{
    FILE *f = fopen(p, mode);
    CHECK(f != NULL);
    if (!f)
        return;
    fwrite(data, 1, len, f);
    fclose(f);
}

/* A fresh reading of the whole file. */
static int at_once(const aw_schedule *s, const aw_settings *set, const aw_fault_policy *pol, bool *favour)
{
    aw_separation *x = aw_separation_new(N, AW_FORMAT_SEED2015);
    memset(favour, 0, N * sizeof *favour);
    int u = aw_separation_check(x, path, s, set, pol, favour);
    aw_separation_free(x);
    return u;
}

int main(void)
{
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    aw_settings set[AW_MAX_PLAYERS + 1];
    aw_error err;
    CHECK_INT(aw_settings_from(&set[5], "seed2015", 5, NULL, 0, &err), 0);
    aw_fault_policy pol;
    CHECK_INT(aw_fault_policy_parse(AW_FAULT_POLICY_DEFAULT, &pol, &err), 0);
    aw_schedule s;
    build(&s);
    long base = s.ngames;
    aw_buf all;
    aw_buf_init(&all);
    lines_of(&s, 0, &all);

    /* In pieces: half the file, then all but half a line, then the rest. */
    aw_separation *sep = aw_separation_new(N, AW_FORMAT_SEED2015);
    bool fav[N] = {false}, fav1[N];
    size_t half = all.len / 2;
    write_file(path, all.data, half, "w");
    CHECK_INT(aw_separation_check(sep, path, &s, set, &pol, fav), -1);
    write_file(path, all.data + half, all.len - 20 - half, "a");
    CHECK_INT(aw_separation_check(sep, path, &s, set, &pol, fav), -1);
    CHECK(aw_separation_games(sep) == base - 1);
    write_file(path, all.data + all.len - 20, 20, "a");
    int u = aw_separation_check(sep, path, &s, set, &pol, fav);
    CHECK(u >= 0);
    CHECK(aw_separation_games(sep) == base);
    CHECK_INT(at_once(&s, set, &pol, fav1), u);
    CHECK(memcmp(fav, fav1, sizeof fav) == 0);
    CHECK_MSG(!fav[2], "the entry the policy does not rank is in doubt");
    /* Ranked (policy none), it is in a pair in doubt here. */
    aw_fault_policy none = {0};
    bool fav_none[N];
    CHECK(at_once(&s, set, &none, fav_none) > 0);
    CHECK_MSG(fav_none[2], "ranked, the faulting entry should be in doubt in this contest");

    /* A duplicate of a line with another winner does not count. */
    {
        const char *nl = memchr(all.data, '\n', all.len);
        char *dup = aw_xcalloc((size_t)(nl - all.data) + 2, 1);
        memcpy(dup, all.data, (size_t)(nl - all.data) + 1);
        char *w = strstr(dup, "\tVILLAGER\t");
        if (w)
            memcpy(w, "\tWEREWOLF\t", 10);
        else if ((w = strstr(dup, "\tWEREWOLF\t")))
            memcpy(w, "\tVILLAGER\t", 10);
        write_file(path, dup, strlen(dup), "a");
        free(dup);
    }
    bool fav2[N] = {false};
    CHECK_INT(aw_separation_check(sep, path, &s, set, &pol, fav2), u);
    CHECK(aw_separation_games(sep) == base);

    /* A round; its lines on disk before the schedule holds it (a contest
     * continued): kept aside, then counted when the round is drawn. */
    bool every[N] = {true, true, true, true};
    aw_schedule s2;
    build(&s2);
    CHECK(aw_schedule_extend(&s, every, 10, 0) == 10);
    size_t before = all.len;
    lines_of(&s, s2.nunits, &all);
    write_file(path, all.data + before, all.len - before, "a");
    aw_separation *later = aw_separation_new(N, AW_FORMAT_SEED2015);
    bool fav3[N] = {false};
    CHECK_INT(aw_separation_check(later, path, &s2, set, &pol, fav3), u);
    CHECK(aw_separation_games(later) == base);
    CHECK(aw_schedule_extend(&s2, every, 10, 0) == 10);
    bool fav4[N] = {false};
    int u2 = aw_separation_check(later, path, &s2, set, &pol, fav4);
    CHECK(aw_separation_games(later) == base + 10);
    bool fav5[N];
    CHECK_INT(at_once(&s, set, &pol, fav5), u2);
    CHECK(memcmp(fav4, fav5, sizeof fav4) == 0);
    /* The first reader, told of the round, reads only the new lines. */
    bool fav6[N] = {false};
    CHECK_INT(aw_separation_check(sep, path, &s, set, &pol, fav6), u2);
    CHECK(aw_separation_games(sep) == base + 10);
    CHECK(memcmp(fav4, fav6, sizeof fav4) == 0);

    /* The file replaced by a copy in another order (as sort_games does):
     * read again from the start, the same decision. */
    {
        char tmp[sizeof path + 8];
        snprintf(tmp, sizeof tmp, "%s.tmp", path);
        aw_buf rev;
        aw_buf_init(&rev);
        const char *end = all.data + all.len, *p = end;
        while (p > all.data) {
            const char *q = p - 1;
            while (q > all.data && q[-1] != '\n')
                q--;
            aw_buf_add(&rev, q, (size_t)(p - q));
            p = q;
        }
        write_file(tmp, rev.data, rev.len, "w");
        CHECK_INT(rename(tmp, path), 0);
        aw_buf_free(&rev);
    }
    bool fav7[N] = {false};
    CHECK_INT(aw_separation_check(sep, path, &s, set, &pol, fav7), u2);
    CHECK(aw_separation_games(sep) == base + 10);
    CHECK(memcmp(fav4, fav7, sizeof fav4) == 0);

    aw_separation_free(sep);
    aw_separation_free(later);
    aw_schedule_free(&s);
    aw_schedule_free(&s2);
    aw_buf_free(&all);
    unlink(path);
    return test_done();
}
