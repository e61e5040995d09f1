/* separation: --until-separated's decisions from games.tsv, read a piece
 * at a time (see separation.h). */
#include "separation.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rating.h"
#include "rating_report.h"

/* A parsed line whose unit no round has brought yet: what the rating and
 * the fault policy need of it. */
typedef struct later_game {
    long index;
    int unit, game, players;
    uint64_t seed;
    aw_team winner;
    bool abandoned;
    int entry[AW_MAX_PLAYERS + 1];
    aw_role role[AW_MAX_PLAYERS + 1];
    int calls[AW_MAX_PLAYERS + 1];
    int faults[AW_MAX_PLAYERS + 1][AW_NFAULTS];
} later_game;

struct aw_separation {
    int nentries;
    aw_contest_format format;
    dev_t dev;
    ino_t ino;
    off_t off;              /* bytes of the file read (whole lines) */
    bool *seen;             /* [game index]: a line of the game counts */
    long nseen;
    int *have;              /* [unit]: its games that count */
    int nhave;
    aw_rating_data *data;   /* the games that count */
    aw_contest_stats stats; /* their calls and faults (the fault policy) */
    later_game *later;      /* lines of units not in the schedule yet */
    long nlater, cap_later;
    aw_game_record *rec;
};

static void start_over(aw_separation *s)
{
    free(s->seen);
    free(s->have);
    free(s->later);
    s->seen = NULL;
    s->have = NULL;
    s->later = NULL;
    s->nseen = s->nlater = s->cap_later = 0;
    s->nhave = 0;
    s->off = 0;
    aw_rating_data_free(s->data);
    s->data = aw_rating_data_new(s->nentries);
    aw_contest_stats_free(&s->stats);
    aw_contest_stats_init(&s->stats, s->nentries);
}

aw_separation *aw_separation_new(int nentries, aw_contest_format format)
{
    aw_separation *s = aw_xcalloc(1, sizeof *s);
    s->nentries = nentries;
    s->format = format;
    s->rec = aw_xcalloc(1, sizeof *s->rec);
    aw_contest_stats_init(&s->stats, nentries);
    s->data = aw_rating_data_new(nentries);
    return s;
}

void aw_separation_free(aw_separation *s)
{
    if (!s)
        return;
    free(s->seen);
    free(s->have);
    free(s->later);
    free(s->rec);
    aw_rating_data_free(s->data);
    aw_contest_stats_free(&s->stats);
    free(s);
}

/* The arrays cover the schedule's games and units. */
static void grow(aw_separation *s, const aw_schedule *sched)
{
    if (sched->ngames > s->nseen) {
        s->seen = aw_xrealloc(s->seen, (size_t)sched->ngames * sizeof *s->seen);
        memset(s->seen + s->nseen, 0, (size_t)(sched->ngames - s->nseen) * sizeof *s->seen);
        s->nseen = sched->ngames;
    }
    if (sched->nunits > s->nhave) {
        s->have = aw_xrealloc(s->have, (size_t)sched->nunits * sizeof *s->have);
        memset(s->have + s->nhave, 0, (size_t)(sched->nunits - s->nhave) * sizeof *s->have);
        s->nhave = sched->nunits;
    }
}

/* rec, of a unit the schedule holds: counted when it is that unit's game
 * and its first line. */
static void count(aw_separation *s, const aw_schedule *sched, const aw_settings *set, const aw_game_record *rec)
{
    const aw_sched_unit *u = &sched->units[rec->unit];
    if (rec->game >= u->ngames || rec->index != u->first + rec->game || rec->players != u->players ||
        s->seen[rec->index])
        return;
    s->seen[rec->index] = true;
    s->have[rec->unit]++;
    uint64_t cluster = s->format == AW_FORMAT_REGULATION ? (uint64_t)rec->unit : rec->seed;
    aw_rating_data_add(s->data, rec->players, rec->entry, rec->role, rec->winner, cluster, rec->index);
    aw_contest_stats_add(&s->stats, rec, set[rec->players].role_count);
}

/* The one list of what a later game keeps of its record: copied from r
 * into g when keep, else from g into r. */
static void later_copy(later_game *g, aw_game_record *r, bool keep)
{
#define LATER_FIELD(f) (keep ? (void)(g->f = r->f) : (void)(r->f = g->f))
#define LATER_ARRAY(f)                                                                                                 \
    do {                                                                                                               \
        _Static_assert(sizeof g->f == sizeof r->f, "later_game." #f " holds the record's");                            \
        memcpy(keep ? (void *)g->f : (void *)r->f, keep ? (const void *)r->f : (const void *)g->f, sizeof g->f);       \
    } while (0)
    LATER_FIELD(index);
    LATER_FIELD(unit);
    LATER_FIELD(game);
    LATER_FIELD(players);
    LATER_FIELD(seed);
    LATER_FIELD(winner);
    LATER_FIELD(abandoned);
    LATER_ARRAY(entry);
    LATER_ARRAY(role);
    LATER_ARRAY(calls);
    LATER_ARRAY(faults);
#undef LATER_FIELD
#undef LATER_ARRAY
}

static void keep_for_later(aw_separation *s, aw_game_record *r)
{
    if (s->nlater == s->cap_later) {
        s->cap_later = s->cap_later ? 2 * s->cap_later : 64;
        s->later = aw_xrealloc(s->later, (size_t)s->cap_later * sizeof *s->later);
    }
    later_copy(&s->later[s->nlater++], r, true);
}

/* The lines kept aside whose units the schedule now holds. */
static void bring_later(aw_separation *s, const aw_schedule *sched, const aw_settings *set)
{
    long k = 0;
    for (long i = 0; i < s->nlater; i++) {
        if (s->later[i].unit >= sched->nunits) {
            s->later[k++] = s->later[i];
            continue;
        }
        aw_game_record *r = s->rec;
        memset(r, 0, sizeof *r);
        later_copy(&s->later[i], r, false);
        count(s, sched, set, r);
    }
    s->nlater = k;
}

/* Reads the whole lines added to path since the last call. -1: it cannot
 * be read. */
static int read_more(aw_separation *s, const char *path, const aw_schedule *sched, const aw_settings *set)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) < 0) {
        close(fd);
        return -1;
    }
    if (st.st_dev != s->dev || st.st_ino != s->ino || st.st_size < s->off) {
        start_over(s);
        s->dev = st.st_dev;
        s->ino = st.st_ino;
    }
    grow(s, sched);
    bring_later(s, sched, set);
    size_t len = (size_t)(st.st_size - s->off);
    char *text = aw_xcalloc(len + 1, 1);
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(fd, text + got, len - got, s->off + (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    const char *p = text, *end = text + got;
    aw_error err;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            break; /* not whole yet: read again next time */
        aw_game_record *r = s->rec;
        if (aw_record_parse(p, (size_t)(nl - p), s->nentries, r, &err) == 0) {
            if (r->unit < sched->nunits)
                count(s, sched, set, r);
            else
                keep_for_later(s, r);
        }
        p = nl + 1;
    }
    s->off += (off_t)(p - text);
    free(text);
    return 0;
}

int aw_separation_check(aw_separation *s, const char *path, const aw_schedule *sched, const aw_settings *set,
                        const aw_fault_policy *policy, bool *favour)
{
    if (read_more(s, path, sched, set) < 0)
        return -1;
    for (int u = 0; u < sched->nunits; u++)
        if (s->have[u] < sched->units[u].ngames)
            return -1;
    /* Only the entries the policy ranks are rated: a pair with an unranked
     * entry is in nobody's doubt. */
    aw_rating r;
    int unresolved = aw_rating_fit_report(s->data, &s->stats, policy, &r) ? aw_rating_unresolved(&r, 0.95, favour) : -1;
    aw_rating_free(&r);
    return unresolved;
}

long aw_separation_games(const aw_separation *s)
{
    return aw_rating_data_games(s->data);
}
