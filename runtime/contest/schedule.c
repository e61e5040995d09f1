/* schedule: the whole contest drawn from its master seed (see schedule.h). */
#include "schedule.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

/* Streams of the master seed (aw_rng_derive): one per purpose, so adding a
 * player count or a set never shifts another's draws. */
#define STREAM_SEATS 0x5345415400000000ull /* + players */
#define STREAM_ROLES 0x524f4c4500000000ull /* + players */
#define STREAM_GAME 0x47414d4500000000ull  /* + the game's index */
#define STREAM_ROUND 0x524f554e00000000ull /* + the round (aw_schedule_extend) */

/* The upcoming entries: random permutations of all entries, one after the
 * other. A group takes the first entries it may hold, leaving the rest in
 * front for the next group, so every entry's seats stay within one or two
 * of every other's. */
typedef struct seat_stream {
    aw_rng rng;
    int n;
    int *q;
    int len, cap;
} seat_stream;

static void stream_refill(seat_stream *st)
{
    if (st->len + st->n > st->cap) {
        st->cap = (st->len + st->n) * 2;
        st->q = aw_xrealloc(st->q, (size_t)st->cap * sizeof *st->q);
    }
    int *p = st->q + st->len;
    for (int i = 0; i < st->n; i++)
        p[i] = i;
    aw_rng_shuffle(&st->rng, p, st->n);
    st->len += st->n;
}

/* Takes `players` entries, each at most `limit` times. */
static void stream_group(seat_stream *st, int players, int limit, int *out)
{
    int taken = 0;
    int *held = aw_xcalloc((size_t)st->n, sizeof *held);
    while (taken < players) {
        if (st->len < players + st->n)
            stream_refill(st);
        int w = 0;
        for (int i = 0; i < st->len; i++) {
            int e = st->q[i];
            if (taken < players && held[e] < limit) {
                held[e]++;
                out[taken++] = e;
            } else {
                st->q[w++] = e;
            }
        }
        st->len = w;
    }
    free(held);
}

/* Per entry: seats held and roles played so far, and the share of each role
 * its seats lead one to expect. */
typedef struct role_ledger {
    int n;
    double *expected; /* [n][AW_NROLES] */
    int *played;      /* [n][AW_NROLES] */
} role_ledger;

/* Deals the roles of one game to positions 0..players-1 held by entry[]:
 * the rarest roles first, each to the position whose entry is furthest
 * below its expected count of that role (ties at random). */
static void deal_balanced(role_ledger *lg, aw_rng *rng, const int *count, int players, const int *entry,
                          aw_role *out)
{
    for (int i = 0; i < players; i++) {
        out[i] = AW_ROLE_NONE;
        for (int r = 0; r < AW_NROLES; r++)
            lg->expected[entry[i] * AW_NROLES + r] += (double)count[r] / players;
    }
    int order[AW_NROLES], nr = 0;
    for (int r = 0; r < AW_NROLES; r++)
        if (count[r] > 0)
            order[nr++] = r;
    for (int i = 1; i < nr; i++) /* rarest first; enum order among equals */
        for (int j = i; j > 0 && count[order[j]] < count[order[j - 1]]; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (int k = 0; k < nr; k++) {
        int r = order[k];
        for (int c = 0; c < count[r]; c++) {
            int best[AW_MAX_PLAYERS], nb = 0;
            double bd = 0;
            for (int i = 0; i < players; i++) {
                if (out[i] != AW_ROLE_NONE)
                    continue;
                double d = lg->played[entry[i] * AW_NROLES + r] - lg->expected[entry[i] * AW_NROLES + r];
                if (nb == 0 || d < bd - 1e-9) {
                    bd = d;
                    nb = 0;
                    best[nb++] = i;
                } else if (fabs(d - bd) <= 1e-9) {
                    best[nb++] = i;
                }
            }
            int pick = best[nb > 1 ? aw_rng_below(rng, (uint32_t)nb) : 0];
            out[pick] = (aw_role)r;
            lg->played[entry[pick] * AW_NROLES + r]++;
        }
    }
}

static int add_unit(aw_schedule *s, int *cap)
{
    if (s->nunits == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        s->units = aw_xrealloc(s->units, (size_t)*cap * sizeof *s->units);
    }
    memset(&s->units[s->nunits], 0, sizeof s->units[0]);
    return s->nunits++;
}

/* ---- duplicate deals ------------------------------------------------------- */

static int by_team_role(const void *a, const void *b, const aw_role *roles)
{
    int i = *(const int *)a, j = *(const int *)b;
    int ti = aw_role_team(roles[i]), tj = aw_role_team(roles[j]);
    if (ti != tj)
        return ti - tj;
    if (roles[i] != roles[j])
        return (int)roles[i] - (int)roles[j];
    return i - j;
}

/* Appends the k copies of one deal for the entries group[0..p) (seats in
 * that order, already shuffled): roles dealt by the ledger for the first
 * copy, the others rotated through the seats by team and role. */
static void add_deal(aw_schedule *s, int *cap, role_ledger *lg, aw_rng *rr, const aw_schedule_opts *o, int p,
                     const int *group, int k, long *index)
{
    aw_role roles[AW_MAX_PLAYERS];
    deal_balanced(lg, rr, o->role_count[p], p, group, roles);
    /* The seats by team and role (insertion sort: at most 18). */
    int ord[AW_MAX_PLAYERS];
    for (int a = 0; a < p; a++)
        ord[a] = a;
    for (int a = 1; a < p; a++)
        for (int b = a; b > 0 && by_team_role(&ord[b - 1], &ord[b], roles) > 0; b--) {
            int t = ord[b];
            ord[b] = ord[b - 1];
            ord[b - 1] = t;
        }
    uint64_t seed = aw_rng_derive(o->seed, STREAM_GAME + (uint64_t)*index);
    for (int c = 0; c < k; c++) {
        int ui = add_unit(s, cap);
        aw_sched_unit *un = &s->units[ui];
        un->players = p;
        un->ngames = 1;
        un->first = (*index)++;
        int off = (int)((long)c * p / k);
        for (int j = 0; j < p; j++)
            un->entry[ord[j] + 1] = group[ord[(j + off) % p]];
        un->games = aw_xcalloc(1, sizeof *un->games);
        un->games[0].seed = seed;
        un->games[0].role[0] = AW_ROLE_NONE;
        for (int a = 1; a <= p; a++)
            un->games[0].role[a] = roles[a - 1];
        if (c == 0)
            continue; /* deal_balanced counted the first copy */
        for (int a = 1; a <= p; a++) {
            for (int r = 0; r < AW_NROLES; r++)
                lg->expected[un->entry[a] * AW_NROLES + r] += (double)o->role_count[p][r] / p;
            lg->played[un->entry[a] * AW_NROLES + roles[a - 1]]++;
        }
    }
}

/* Duplicate deals for p players: ceil(U / K) deals, U the units plain
 * games would take, each played K times (add_deal). */
static void add_duplicates(aw_schedule *s, int *cap, role_ledger *lg, seat_stream *st, aw_rng *rr,
                           const aw_schedule_opts *o, int p, int limit, long *index)
{
    long per = (o->games_per_entry + o->nplayers - 1) / o->nplayers;
    long plain = (o->nentries * per + p - 1) / p;
    long deals = (plain + o->duplicate - 1) / o->duplicate;
    for (long dl = 0; dl < deals; dl++) {
        int group[AW_MAX_PLAYERS];
        stream_group(st, p, limit, group);
        aw_rng_shuffle(rr, group, p);
        add_deal(s, cap, lg, rr, o, p, group, o->duplicate, index);
    }
}

/* The checks every schedule makes of its options. */
static int check_opts(const aw_schedule_opts *o, aw_error *err)
{
    if (o->nentries < 1)
        return aw_fail(err, AW_EINVAL, "a contest needs at least one entry");
    if (o->nplayers < 1 || o->nplayers > 4)
        return aw_fail(err, AW_EINVAL, "give one to four player counts");
    for (int i = 0; i < o->nplayers; i++) {
        int p = o->players[i];
        if (p < 3 || p > AW_MAX_PLAYERS)
            return aw_fail(err, AW_EINVAL, "%d players: a game has 3 to %d", p, AW_MAX_PLAYERS);
        int sum = 0;
        for (int r = 0; r < AW_NROLES; r++)
            sum += o->role_count[p][r];
        if (sum != p)
            return aw_fail(err, AW_EINVAL, "no role table for %d players", p);
    }
    if (o->duplicate > 1 && o->format != AW_FORMAT_SEED2015)
        return aw_fail(err, AW_EINVAL, "duplicate deals are for the seed2015 format (a regulation set keeps its seats)");
    return 0;
}

int aw_schedule_build(aw_schedule *s, const aw_schedule_opts *o, aw_error *err)
{
    memset(s, 0, sizeof *s);
    s->opts = *o;
    if (check_opts(o, err) < 0)
        return -1;
    role_ledger lg = {o->nentries, aw_xcalloc((size_t)o->nentries * AW_NROLES, sizeof(double)),
                      aw_xcalloc((size_t)o->nentries * AW_NROLES, sizeof(int))};
    int cap = 0;
    long index = 0;
    for (int i = 0; i < o->nplayers; i++) {
        int p = o->players[i];
        int limit = (p + o->nentries - 1) / o->nentries;
        if (limit > s->max_copies)
            s->max_copies = limit;
        seat_stream st = {.n = o->nentries};
        aw_rng_seed(&st.rng, aw_rng_derive(o->seed, STREAM_SEATS + (uint64_t)p));
        aw_rng rr;
        aw_rng_seed(&rr, aw_rng_derive(o->seed, STREAM_ROLES + (uint64_t)p));
        if (o->duplicate > 1) {
            add_duplicates(s, &cap, &lg, &st, &rr, o, p, limit, &index);
            free(st.q);
            continue;
        }
        long nunits, ngames;
        if (o->format == AW_FORMAT_SEED2015) {
            long per = (o->games_per_entry + o->nplayers - 1) / o->nplayers;
            nunits = (o->nentries * per + p - 1) / p;
            ngames = 1;
        } else {
            nunits = o->sets;
            ngames = o->set_games;
        }
        for (long u = 0; u < nunits; u++) {
            int ui = add_unit(s, &cap);
            aw_sched_unit *un = &s->units[ui];
            un->players = p;
            un->ngames = (int)ngames;
            un->first = index;
            int group[AW_MAX_PLAYERS];
            stream_group(&st, p, limit, group);
            /* Seat numbers at random. */
            aw_rng_shuffle(&rr, group, p);
            for (int a = 1; a <= p; a++)
                un->entry[a] = group[a - 1];
            un->games = aw_xcalloc((size_t)ngames, sizeof *un->games);
            for (long g = 0; g < ngames; g++) {
                aw_sched_game *gm = &un->games[g];
                gm->seed = aw_rng_derive(o->seed, STREAM_GAME + (uint64_t)index);
                aw_role roles[AW_MAX_PLAYERS];
                deal_balanced(&lg, &rr, o->role_count[p], p, group, roles);
                gm->role[0] = AW_ROLE_NONE;
                for (int a = 1; a <= p; a++)
                    gm->role[a] = roles[a - 1];
                index++;
            }
        }
        free(st.q);
    }
    s->ngames = index;
    free(lg.expected);
    free(lg.played);
    return 0;
}

void aw_schedule_free(aw_schedule *s)
{
    for (int i = 0; i < s->nunits; i++)
        free(s->units[i].games);
    free(s->units);
    memset(s, 0, sizeof *s);
}

long aw_schedule_extend(aw_schedule *s, const bool *favour, long games, int round)
{
    const aw_schedule_opts *o = &s->opts;
    int n = o->nentries, k = o->duplicate > 1 ? o->duplicate : 1;
    /* The ledger of roles so far. */
    role_ledger lg = {n, aw_xcalloc((size_t)n * AW_NROLES, sizeof(double)),
                      aw_xcalloc((size_t)n * AW_NROLES, sizeof(int))};
    for (int u = 0; u < s->nunits; u++) {
        const aw_sched_unit *un = &s->units[u];
        for (int g = 0; g < un->ngames; g++)
            for (int a = 1; a <= un->players; a++) {
                for (int r = 0; r < AW_NROLES; r++)
                    lg.expected[un->entry[a] * AW_NROLES + r] += (double)o->role_count[un->players][r] / un->players;
                lg.played[un->entry[a] * AW_NROLES + un->games[g].role[a]]++;
            }
    }
    int cap = s->nunits;
    long index = s->ngames, added = 0;
    aw_rng rng;
    aw_rng_seed(&rng, aw_rng_derive(o->seed, STREAM_ROUND + (uint64_t)round));
    int *fav = aw_xcalloc((size_t)n, sizeof *fav), *rest = aw_xcalloc((size_t)n, sizeof *rest);
    int nf = 0, nr = 0;
    for (int e = 0; e < n; e++)
        if (favour[e])
            fav[nf++] = e;
        else
            rest[nr++] = e;
    for (long dl = 0; added + k <= games; dl++) {
        int p = o->players[dl % o->nplayers];
        int limit = (p + n - 1) / n;
        /* The favoured entries first, then the others, each at most
         * `limit` times: a fresh shuffle of each for every pass. */
        int group[AW_MAX_PLAYERS], taken = 0;
        int *held = aw_xcalloc((size_t)n, sizeof *held);
        for (int pass = 0; taken < p; pass++) {
            int *list = pass % 2 == 0 ? fav : rest, len = pass % 2 == 0 ? nf : nr;
            aw_rng_shuffle(&rng, list, len);
            for (int i = 0; i < len && taken < p; i++)
                if (held[list[i]] < limit) {
                    held[list[i]]++;
                    group[taken++] = list[i];
                }
        }
        free(held);
        aw_rng_shuffle(&rng, group, p);
        if (limit > s->max_copies)
            s->max_copies = limit;
        add_deal(s, &cap, &lg, &rng, o, p, group, k, &index);
        added += k;
    }
    s->ngames = index;
    free(fav);
    free(rest);
    free(lg.expected);
    free(lg.played);
    return added;
}
