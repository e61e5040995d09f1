/* aiwolf contest: many games between sandboxed entries, with fair seating,
 * resumable results and a report (docs/contest.md). The schedule is drawn
 * here from the master seed; workers (this same program, started afresh
 * with --worker, so they never hold the seed) play it on confined children;
 * the runner collects their lines into DIR/games.tsv unit by unit. */
#define _GNU_SOURCE /* nftw's FTW_PHYS */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "aiwolf_version.h"
#include "cli.h"
#include "contestcfg.h"
#include "contestmerge.h"
#include "options.h"
#include "gzlog.h"
#include "logrules.h"
#include "provenance.h"
#include "rating.h"
#include "rating_report.h"
#include "reports.h"
#include "results.h"
#include "rng.h"
#include "runner.h"
#include "schedule.h"
#include "separation.h"
#include "settings.h"
#include "util.h"
#include "worker.h"

#define MAX_ENTRIES AW_CONTEST_MAX_ENTRIES
#define MAX_SETS AW_CONTEST_MAX_SETS

/* --help: the head, the options (the table in cmd_contest), the foot. */
static const char contest_head[] =
    "usage: aiwolf contest [OPTIONS] --out DIR ENTRY...\n"
    "       aiwolf contest merge --out DIR SHARD_DIR...\n"
    "       aiwolf contest report [--fault-policy P] DIR\n"
    "       aiwolf contest verify [--sample N] DIR\n"
    "\n"
    "Plays a contest between sandboxed entries and writes its results and report\n"
    "to DIR. An ENTRY is a Lua agent file or a folder with main.lua; each runs in\n"
    "its own confined process that may read only its own folder. Running the same\n"
    "command again continues an interrupted contest where it stopped.\n"
    "\n"
    "options:\n";
static const char contest_foot[] =
    "\n"
    "DIR receives contest.cfg, games.tsv (one line per game), logs/ (every game's\n"
    "official CSV log, and aiwolf.rules: the rules 'aiwolf check' and 'replay'\n"
    "read), provenance.tsv (the program's version, each entry's SHA-256, when\n"
    "each run started and ended), report.md, results.csv, results.json and\n"
    "report.html. 'contest report' writes the reports again; 'contest verify'\n"
    "plays games again from their seeds and compares their logs byte for byte\n"
    "(aiwolf contest verify --help).\n"
    "The report ranks by win rate and gives beside it each entry's skill apart\n"
    "from the luck of the deal (a team model fitted on games.tsv) with its 95 %%\n"
    "interval, the probability that one entry really outranks another, and skill\n"
    "by role (docs/contest.md).\n"
    "Exit status: 0 when every game was played, 1 when the contest stopped\n"
    "(interrupted or failed; run it again to continue), 2 for bad usage.\n";


static int bad(const char *fmt, const char *arg)
{
    fprintf(stderr, "aiwolf contest: ");
    fprintf(stderr, fmt, aw_term(arg).s); /* the value as typed, escaped */
    fprintf(stderr, " (aiwolf contest --help)\n");
    return 2;
}

/* ---- the contest's configuration (DIR/contest.cfg) ------------------------ */

/* The contest's configuration and entries: runtime/contest/contestcfg.h. */
typedef aw_contest_entry entry;
typedef aw_contest_cfg cfg;

/* ---- the schedule and the statistics ---------------------------------------- */

static int build_schedule(const cfg *c, aw_schedule *s, aw_settings *sets_by_players, aw_error *err)
{
    aw_schedule_opts so;
    memset(&so, 0, sizeof so);
    so.format = c->format;
    so.nplayers = c->nplayers;
    memcpy(so.players, c->players, sizeof so.players);
    so.nentries = c->nentries;
    so.games_per_entry = c->games_per_entry;
    so.sets = c->sets;
    so.set_games = c->set_games;
    so.seed = c->seed;
    so.duplicate = c->duplicate;
    for (int i = 0; i < c->nplayers; i++) {
        int p = c->players[i];
        if (aw_settings_from(&sets_by_players[p], c->preset, p, c->sets_kv, c->nsets_kv, err) < 0)
            return -1;
        memcpy(so.role_count[p], sets_by_players[p].role_count, sizeof so.role_count[p]);
    }
    return aw_schedule_build(s, &so, err);
}

static bool in_shard(const cfg *c, int unit)
{
    return unit % c->nshards == c->shard - 1;
}

typedef struct contest {
    cfg c;
    const char *dir;
    aw_schedule sched;
    aw_settings set[AW_MAX_PLAYERS + 1];
    aw_contest_stats stats;
    long total;          /* games of this shard */
    long done_at_start;
    int games_fd;
    uint64_t t0;
    bool tty, quiet;
    int ticks;
    const char **names, **paths;
    aw_rating_data *rating; /* every game played, for the skill rating */
    int unresolved;         /* --until-separated: adjacent pairs not yet separated (-1: not known) */
    int round;              /* --until-separated: rounds added to the schedule */
    long base_games;        /* the games of the schedule before any round */
    aw_fault_policy round_policy; /* --until-separated: contest.cfg's policy (who counts in a round) */
    aw_separation *sep;     /* --until-separated: games.tsv as read so far */
    aw_provenance prov; /* DIR/provenance.tsv, and the report's options */
} contest;

static void info_of(const contest *k, aw_contest_info *ci)
{
    memset(ci, 0, sizeof *ci);
    ci->format = aw_contest_format_name(k->c.format);
    ci->players = k->c.players;
    ci->nplayers = k->c.nplayers;
    ci->seed = k->c.seed;
    ci->games_total = k->total;
    ci->limits = k->c.limits;
    ci->shard = k->c.shard;
    ci->nshards = k->c.nshards;
    ci->names = k->names;
    ci->paths = k->paths;
    ci->policy = &k->c.policy;
    ci->prov = &k->prov;
}

/* A game for the rating: games that share a deal (duplicate copies, one
 * seed) or a regulation set (one unit) share their luck. */
static void rating_add_to(const contest *k, aw_rating_data *d, const aw_game_record *rec)
{
    uint64_t cluster = k->c.format == AW_FORMAT_REGULATION ? (uint64_t)rec->unit : rec->seed;
    aw_rating_data_add(d, rec->players, rec->entry, rec->role, rec->winner, cluster, rec->index);
}

static void rating_add(contest *k, const aw_game_record *rec)
{
    rating_add_to(k, k->rating, rec);
}

/* Reads games.tsv: the units played whole (done[]), their lines into the
 * statistics. Lines of a unit played in part, a last line cut short and
 * lines that do not parse are dropped (the file is rewritten without
 * them), so the units they belong to are played again. Returns the number
 * of lines dropped, or -1. */
static long load_games(contest *k, bool *done, aw_buf *kept)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/games.tsv", k->dir);
    size_t len = 0;
    aw_error err;
    char *text = aw_read_input(path, &len, &err);
    if (!text)
        return errno == ENOENT || access(path, F_OK) != 0 ? 0 : -1;
    int n = k->sched.nunits;
    int *have = aw_xcalloc((size_t)n, sizeof *have);
    long dropped = 0;
    aw_game_record *rec = aw_xcalloc(1, sizeof *rec);
    /* One pass when every unit with a line is whole (a file no crash cut
     * short): each line parsed once, kept as it is read. Otherwise (or on
     * statistics that already hold games) two: which units are whole, then
     * their lines. */
    bool one = k->stats.games == 0 && aw_rating_data_games(k->rating) == 0;
    for (int pass = one ? -1 : 0; pass < 2; pass++) {
        const char *p = text, *end = text + len;
        while (p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            if (!nl) {
                dropped += pass <= 0; /* cut short by a crash or a power loss */
                break;
            }
            size_t ll = (size_t)(nl - p);
            bool ok = aw_record_parse(p, ll, k->c.nentries, rec, &err) == 0 && rec->unit >= 0 && rec->unit < n &&
                      in_shard(&k->c, rec->unit) && rec->game < k->sched.units[rec->unit].ngames &&
                      rec->index == k->sched.units[rec->unit].first + rec->game &&
                      rec->players == k->sched.units[rec->unit].players;
            if (pass == -1) {
                if (ok) {
                    have[rec->unit]++;
                    aw_contest_stats_add(&k->stats, rec, k->set[rec->players].role_count);
                    rating_add(k, rec);
                    aw_buf_add(kept, p, ll + 1);
                } else {
                    dropped++;
                }
            } else if (pass == 0) {
                if (ok)
                    have[rec->unit]++;
                else
                    dropped++;
            } else if (ok && have[rec->unit] == k->sched.units[rec->unit].ngames) {
                aw_contest_stats_add(&k->stats, rec, k->set[rec->players].role_count);
                rating_add(k, rec);
                aw_buf_add(kept, p, ll + 1);
                done[rec->unit] = true;
            } else if (ok) {
                dropped++;
            }
            p = nl + 1;
        }
        if (pass == -1) {
            bool whole = true;
            for (int u = 0; u < n && whole; u++)
                whole = have[u] == 0 || have[u] == k->sched.units[u].ngames;
            if (whole) {
                for (int u = 0; u < n; u++)
                    done[u] = have[u] > 0;
                break;
            }
            /* A unit played in part: start again with two passes. */
            aw_contest_stats_free(&k->stats);
            aw_contest_stats_init(&k->stats, k->c.nentries);
            aw_rating_data_free(k->rating);
            k->rating = aw_rating_data_new(k->c.nentries);
            aw_buf_clear(kept);
            memset(have, 0, (size_t)n * sizeof *have);
            dropped = 0;
        }
    }
    free(rec);
    free(have);
    free(text);
    return dropped;
}

/* --until-separated. The decision to play another round is taken from
 * games.tsv alone, its games in game order, so that a contest continued
 * after an interruption draws the same rounds. */

/* When every unit of the schedule so far is in games.tsv: fits the rating
 * on those games and returns how many pairs adjacent in the skill order are
 * not separated at 95 %, marking the entries of those pairs in favour[].
 * -1 when units are missing or the file cannot be read. */
static int separation(contest *k, bool *favour)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/games.tsv", k->dir);
    if (!k->sep)
        k->sep = aw_separation_new(k->c.nentries, k->c.format);
    return aw_separation_check(k->sep, path, &k->sched, k->set, &k->round_policy, favour);
}

/* The most games --until-separated plays in all. */
static long games_cap(const contest *k)
{
    return k->c.until_separated > 0 ? k->c.until_separated : 10 * k->base_games;
}

/* Appends the next round to the schedule when games.tsv holds every game so
 * far, some adjacent pair is not separated and the cap leaves room: about
 * ten more games for every entry in doubt (whole deals with --duplicate).
 * Returns the games added. */
static long next_round(contest *k)
{
    if (!k->c.until_separated)
        return 0;
    bool *favour = aw_xcalloc((size_t)k->c.nentries, sizeof *favour);
    int u = separation(k, favour);
    long added = 0;
    if (u >= 0)
        k->unresolved = u;
    if (u > 0) {
        int nf = 0, copies = k->c.duplicate > 1 ? k->c.duplicate : 1;
        for (int e = 0; e < k->c.nentries; e++)
            nf += favour[e];
        long want = (10L * nf + k->c.players[0] - 1) / k->c.players[0];
        if (want < 10)
            want = 10;
        want = (want + copies - 1) / copies * copies;
        long room = games_cap(k) - k->sched.ngames;
        if (want > room)
            want = room;
        if (want > 0)
            added = aw_schedule_extend(&k->sched, favour, want, k->round);
        if (added > 0) {
            k->round++;
            k->total = k->sched.ngames;
        }
    }
    free(favour);
    return added;
}

static void write_reports(contest *k, bool to_stdout)
{
    aw_contest_info ci;
    info_of(k, &ci);
    aw_rating rating;
    ci.rating = aw_rating_fit_report(k->rating, &k->stats, &k->c.policy, &rating) ? &rating : NULL;
    aw_contest_write_reports(k->dir, &k->stats, &ci, to_stdout ? stdout : NULL);
    aw_rating_free(&rating);
}

/* Writes games.tsv in game order (a finished contest's file is the same
 * however many workers or shards played it). */
static int sort_games(const char *dir, int nentries)
{
    char path[PATH_MAX], tmp[PATH_MAX + 8];
    snprintf(path, sizeof path, "%s/games.tsv", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    size_t len;
    aw_error err;
    char *text = aw_read_input(path, &len, &err);
    if (!text)
        return -1;
    long n = 0, cap = 0;
    struct lrec {
        long index;
        const char *p;
        size_t len;
    } *v = NULL;
    aw_game_record *rec = aw_xcalloc(1, sizeof *rec);
    for (const char *p = text, *end = text + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            break;
        if (aw_record_parse(p, (size_t)(nl - p), nentries, rec, &err) == 0) {
            if (n == cap) {
                cap = cap ? cap * 2 : 1024;
                v = aw_xrealloc(v, (size_t)cap * sizeof *v);
            }
            v[n++] = (struct lrec){rec->index, p, (size_t)(nl - p) + 1};
        }
        p = nl + 1;
    }
    free(rec);
    /* Insertion into order: the file is nearly sorted already. */
    for (long i = 1; i < n; i++)
        for (long j = i; j > 0 && v[j].index < v[j - 1].index; j--) {
            struct lrec t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    FILE *f = fopen(tmp, "we");
    int rc = f ? 0 : -1;
    for (long i = 0; f && i < n; i++)
        fwrite(v[i].p, 1, v[i].len, f);
    if (f && (fflush(f) != 0 || fsync(fileno(f)) != 0))
        rc = -1;
    if (f && fclose(f) != 0)
        rc = -1;
    if (rc == 0 && rename(tmp, path) != 0)
        rc = -1;
    free(v);
    free(text);
    return rc;
}

/* ---- running -------------------------------------------------------------- */

static void progress_line(contest *k, bool final)
{
    long done = k->stats.games;
    double secs = (double)(aw_now_ns() - k->t0) / 1e9;
    double rate = secs > 0 ? (double)(done - k->done_at_start) / secs : 0;
    long faults = 0;
    int lead = -1, nlead = 0;
    double best = -1;
    for (int i = 0; i < k->stats.n; i++) {
        const aw_entry_stats *e = &k->stats.e[i];
        for (int f = 1; f < AW_NFAULTS; f++)
            faults += e->faults[f];
        /* The leader is one the report would rank (fault policy). */
        if (!e->seats || !aw_contest_eligible(&k->stats, i, &k->c.policy, NULL, 0))
            continue;
        double r = (double)e->wins / (double)e->seats;
        if (r > best) {
            best = r;
            lead = i;
            nlead = 1;
        } else if (r == best) {
            nlead++;
        }
    }
    char eta[32] = "-";
    if (rate > 0 && done < k->total) {
        long s = (long)((double)(k->total - done) / rate);
        snprintf(eta, sizeof eta, "%ld:%02ld", s / 60, s % 60);
    }
    char leader[240] = "", rs[32];
    if (lead >= 0 && nlead == 1)
        snprintf(leader, sizeof leader, "  leader %.60s %.3f", aw_term(k->names[lead]).s, best);
    else if (lead >= 0)
        snprintf(leader, sizeof leader, "  leaders %d tied at %.3f", nlead, best);
    if (k->c.until_separated && k->unresolved >= 0)
        snprintf(leader + strlen(leader), sizeof leader - strlen(leader), "  unresolved %d", k->unresolved);
    if (k->tty) {
        int width = 24, fill = k->total ? (int)(width * done / k->total) : width;
        char bar[32];
        for (int i = 0; i < width; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[width] = 0;
        fprintf(stderr, "\r\033[K[%s] %ld/%ld games  %s games/s  ETA %s  faults %ld%s%s", bar, done, k->total,
                aw_cli_rate(rs, sizeof rs, rate), eta, faults, leader, final ? "\n" : "");
    } else {
        fprintf(stderr, "aiwolf contest: %ld/%ld games, %s games/s, ETA %s, faults %ld%s\n", done, k->total,
                aw_cli_rate(rs, sizeof rs, rate), eta, faults, leader);
    }
    fflush(stderr);
}

static void on_tick(void *ud)
{
    contest *k = ud;
    k->ticks++;
    if (k->quiet)
        return;
    if (k->tty || k->ticks % 10 == 0)
        progress_line(k, false);
}

static int on_unit(void *ud, int unit, const char *lines, size_t len)
{
    contest *k = ud;
    /* Check every line before any is kept. */
    aw_game_record *rec = aw_xcalloc(1, sizeof *rec);
    aw_error err;
    int count = 0;
    for (const char *p = lines, *end = lines + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl || aw_record_parse(p, (size_t)(nl - p), k->c.nentries, rec, &err) < 0 || rec->unit != unit) {
            free(rec);
            fprintf(stderr, "aiwolf contest: a worker sent a bad game line for unit %d\n", unit);
            return -1;
        }
        count++;
        p = nl + 1;
    }
    if (count != k->sched.units[unit].ngames) {
        free(rec);
        fprintf(stderr, "aiwolf contest: a worker sent %d games for unit %d of %d\n", count, unit,
                k->sched.units[unit].ngames);
        return -1;
    }
    /* One write: the unit is in the file whole, or (cut short by a crash)
     * dropped at the next start. */
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(k->games_fd, lines + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            free(rec);
            fprintf(stderr, "aiwolf contest: cannot write games.tsv: %s\n", strerror(errno));
            return -1;
        }
        off += (size_t)w;
    }
    for (const char *p = lines, *end = lines + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        aw_record_parse(p, (size_t)(nl - p), k->c.nentries, rec, &err);
        aw_contest_stats_add(&k->stats, rec, k->set[rec->players].role_count);
        rating_add(k, rec);
        p = nl + 1;
    }
    free(rec);
    return 0;
}

/* --keep-instance 1 (any other value: 0). */
static int keep_instance_opt(void *to, const char *v)
{
    *(bool *)to = strcmp(v, "1") == 0;
    return 0;
}

/* `contest --worker --dir DIR --budget MS ... -- ENTRY...`: the arguments
 * worker_args_make writes, read with a table like a command's (internal:
 * it has no --help). */
static int worker_main(int argc, char **argv)
{
    aw_worker_opts o;
    memset(&o, 0, sizeof o);
    const char *sets[MAX_SETS];
    aw_opt_list set_list = {sets, 0, MAX_SETS, "too many --set options"};
    o.preset = "seed2015";
    o.copies = 1;
    aw_cli_limits_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.limits.budget_ms = 100;
    aw_limits_set_memory_mib(&lo.limits, 64);
    aw_opt *limit_rows = aw_cli_limits_group(&lo, AW_LIMIT_BUDGET | AW_LIMIT_MEMORY | AW_LIMIT_WORK);
    /* The runner sends the contest's figures as its folder keeps them
     * (contest.cfg; 0: the default) and --work 0 when there is none. */
    aw_opts_set_range(limit_rows, "--budget", 0, INT_MAX, NULL);
    aw_opts_set_range(limit_rows, "--memory", 0, 100000000, NULL);
    aw_opts_set_range(limit_rows, "--work", 0, 0, NULL);
    const char **args = aw_xcalloc((size_t)argc, sizeof *args);
    aw_opt_list entry_list = {args, 0, argc, NULL};
    const aw_opt opts[] = {
        {.name = "--dir", .arg = "DIR", .kind = AW_OPT_STR, .to = &o.dir},
        {.kind = AW_OPT_GROUP, .to = limit_rows},
        {.name = "--copies", .arg = "N", .kind = AW_OPT_INT, .to = &o.copies, .min = 1, .max = INT_MAX},
        {.name = "--preset", .arg = "P", .kind = AW_OPT_STR, .to = &o.preset},
        {.name = "--set", .arg = "NAME=VALUE", .kind = AW_OPT_LIST, .to = &set_list},
        {.name = "--keep-instance", .arg = "0|1", .kind = AW_OPT_CALL, .to = &o.keep_instance,
         .call = keep_instance_opt},
        {0},
    };
    const aw_opts_cmd cmd = {"contest --worker", NULL, opts, NULL, &entry_list, 0};
    if (aw_opts_parse(&cmd, argc, argv, 2) != AW_OPTS_OK) {
        free(args);
        return 2;
    }
    o.limits = lo.limits;
    o.sets = sets;
    o.nsets = set_list.n;
    o.nentries = entry_list.n;
    if (!o.dir || o.nentries < 1) {
        free(args);
        return bad("%s", "worker: missing arguments");
    }
    const char **dirs = aw_xcalloc((size_t)o.nentries, sizeof *dirs);
    const char **names = aw_xcalloc((size_t)o.nentries, sizeof *names);
    for (int e = 0; e < o.nentries; e++) {
        /* "main file \x1f folder \x1f name", resolved by the runner; cut
         * in place (the operands are argv's own strings), args[e] keeps
         * the main file. */
        char *arg = (char *)args[e];
        char *s1 = strchr(arg, '\x1f'), *s2 = s1 ? strchr(s1 + 1, '\x1f') : NULL;
        if (!s2) {
            free(args);
            free(dirs);
            free(names);
            return bad("%s", "worker: bad entry argument");
        }
        *s1 = *s2 = 0;
        dirs[e] = s1 + 1;
        names[e] = s2 + 1;
    }
    o.entries = args;
    o.read_dirs = dirs;
    o.names = names;
    /* Die with the runner. */
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    int rc = aw_contest_worker(&o, stdin, stdout);
    free(args);
    free(dirs);
    free(names);
    return rc;
}

/* The workers' command line: this program afresh, told everything but the
 * seed, with its logs under dir (k's entries resolved: main, read_dir). */
typedef struct worker_args {
    char self[PATH_MAX];
    char nb[4][32];
    char **argv; /* NULL-terminated, for aw_runner */
    char **owned;
    int nowned;
} worker_args;

static int worker_args_make(const contest *k, const char *dir, worker_args *wa)
{
    const cfg *c = &k->c;
    memset(wa, 0, sizeof *wa);
    ssize_t sl = readlink("/proc/self/exe", wa->self, sizeof wa->self - 1);
    if (sl <= 0)
        return -1;
    wa->self[sl] = 0;
    snprintf(wa->nb[0], sizeof wa->nb[0], "%d", c->limits.budget_ms);
    snprintf(wa->nb[1], sizeof wa->nb[1], "%d", aw_limits_memory_mib(&c->limits));
    snprintf(wa->nb[2], sizeof wa->nb[2], "%d", k->sched.max_copies);
    snprintf(wa->nb[3], sizeof wa->nb[3], "%llu", (unsigned long long)c->limits.work_budget);
    int na = 0;
    char **wargv = aw_xcalloc((size_t)(18 + 2 * c->nsets_kv + c->nentries + 1), sizeof *wargv);
    char **owned = aw_xcalloc((size_t)c->nentries + 1, sizeof *owned);
    wargv[na++] = wa->self;
    wargv[na++] = (char *)"contest";
    wargv[na++] = (char *)"--worker";
    wargv[na++] = (char *)"--dir";
    wargv[na++] = (char *)dir;
    wargv[na++] = (char *)"--budget";
    wargv[na++] = wa->nb[0];
    wargv[na++] = (char *)"--memory";
    wargv[na++] = wa->nb[1];
    wargv[na++] = (char *)"--copies";
    wargv[na++] = wa->nb[2];
    wargv[na++] = (char *)"--work";
    wargv[na++] = wa->nb[3];
    wargv[na++] = (char *)"--preset";
    wargv[na++] = (char *)c->preset;
    wargv[na++] = (char *)"--keep-instance";
    wargv[na++] = (char *)(c->format == AW_FORMAT_REGULATION ? "1" : "0");
    for (int i = 0; i < c->nsets_kv; i++) {
        wargv[na++] = (char *)"--set";
        wargv[na++] = (char *)c->sets_kv[i];
    }
    wargv[na++] = (char *)"--";
    for (int i = 0; i < c->nentries; i++) {
        size_t l = strlen(c->entries[i].main) + strlen(c->entries[i].read_dir) + strlen(c->entries[i].name) + 3;
        owned[i] = aw_xcalloc(l, 1);
        snprintf(owned[i], l, "%s\x1f%s\x1f%s", c->entries[i].main, c->entries[i].read_dir, c->entries[i].name);
        wargv[na++] = owned[i];
    }
    wargv[na] = NULL;
    wa->argv = wargv;
    wa->owned = owned;
    wa->nowned = c->nentries;
    return 0;
}

static void worker_args_free(worker_args *wa)
{
    for (int i = 0; i < wa->nowned; i++)
        free(wa->owned[i]);
    free(wa->owned);
    free(wa->argv);
    memset(wa, 0, sizeof *wa);
}


static void contest_free(contest *k)
{
    aw_schedule_free(&k->sched);
    aw_contest_stats_free(&k->stats);
    aw_rating_data_free(k->rating);
    aw_separation_free(k->sep);
    free(k->names);
    free(k->paths);
    aw_provenance_free(&k->prov);
    aw_contest_cfg_free(&k->c);
}

/* ---- provenance (provenance.h) ------------------------------------------------ */

/* k's provenance: DIR/provenance.tsv's sessions and digests, the options. */
static void prepare_provenance(contest *k)
{
    aw_provenance_init(&k->prov, k->c.nentries);
    aw_error err;
    if (aw_provenance_load(&k->prov, k->dir, &err) < 0)
        aw_cli_line(stderr, "aiwolf contest: warning: %s", err.msg);
    k->prov.version = AIWOLF_VERSION;
    k->prov.preset = k->c.preset;
    k->prov.sets = k->c.sets_kv;
    k->prov.nsets = k->c.nsets_kv;
    k->prov.games_per_entry = k->c.games_per_entry;
    k->prov.sets_per_count = k->c.sets;
    k->prov.set_games = k->c.set_games;
}

/* Every entry's SHA-256, as its files are now (at the start of a session:
 * the contest refuses entries changed since it began). */
static void hash_entries(contest *k)
{
    for (int i = 0; i < k->c.nentries; i++) {
        aw_error err;
        if (aw_entry_sha256(k->c.entries[i].path, k->prov.sha256[i], &err) < 0) {
            aw_cli_line(stderr, "aiwolf contest: warning: %s", err.msg);
            k->prov.sha256[i][0] = 0;
        }
    }
}

/* The session that ends now, into DIR/provenance.tsv. */
static void end_session(contest *k, const char *start, int jobs, int status)
{
    aw_contest_session s;
    memset(&s, 0, sizeof s);
    snprintf(s.shard, sizeof s.shard, "%d/%d", k->c.shard, k->c.nshards);
    snprintf(s.start, sizeof s.start, "%s", start);
    aw_utc_now(s.end);
    snprintf(s.version, sizeof s.version, "%s", AIWOLF_VERSION);
    s.cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    s.jobs = jobs;
    s.games = k->stats.games - k->done_at_start;
    snprintf(s.status, sizeof s.status, "%s",
             status == AW_RUNNER_DONE ? "complete" : status == AW_RUNNER_INTERRUPTED ? "interrupted" : "stopped");
    aw_provenance_add_session(&k->prov, &s);
    aw_error err;
    if (aw_provenance_save(&k->prov, k->dir, k->names, &err) < 0)
        aw_cli_line(stderr, "aiwolf contest: %s", err.msg);
}


/* Sets up k from its cfg: schedule, statistics, names. */
static int contest_prepare(contest *k)
{
    aw_error err;
    if (build_schedule(&k->c, &k->sched, k->set, &err) < 0) {
        fprintf(stderr, "aiwolf contest: %s\n", aw_term(err.msg).s);
        return -1;
    }
    aw_contest_stats_init(&k->stats, k->c.nentries);
    k->rating = aw_rating_data_new(k->c.nentries);
    k->names = aw_xcalloc((size_t)k->c.nentries, sizeof *k->names);
    k->paths = aw_xcalloc((size_t)k->c.nentries, sizeof *k->paths);
    for (int i = 0; i < k->c.nentries; i++) {
        k->names[i] = k->c.entries[i].name;
        k->paths[i] = k->c.entries[i].path;
    }
    k->base_games = k->sched.ngames;
    k->round_policy = k->c.policy;
    k->unresolved = -1;
    k->total = 0;
    for (int u = 0; u < k->sched.nunits; u++)
        if (in_shard(&k->c, u))
            k->total += k->sched.units[u].ngames;
    prepare_provenance(k);
    return 0;
}

/* Whether a folder without contest.cfg may take a new contest (a run's or a
 * merge's): it holds none of the files a contest writes (another contest's
 * games.tsv with its contest.cfg lost, or a person's own report.md, would be
 * appended to or overwritten). Says why not on standard error, after who
 * ("aiwolf contest", "aiwolf contest merge"). */
static bool fresh_folder(const char *dir, const char *who)
{
    static const char *const written[] = {"games.tsv",    "logs",        "provenance.tsv", "report.md",
                                          "results.csv", "results.json", "report.html"};
    for (size_t i = 0; i < sizeof written / sizeof *written; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, written[i]);
        if (access(path, F_OK) == 0) {
            aw_cli_line(stderr,
                        "%s: %s has no contest.cfg but holds %s, which a contest writes: give a new or empty folder "
                        "to --out (nothing was changed)",
                        who, dir, written[i]);
            return false;
        }
    }
    return true;
}

/* Locks a contest's folder for this command (a lock the kernel drops when
 * the command ends, however it ends; a run's workers, started afresh, do
 * not hold it): exclusive for what writes into it (a run, a merge, a
 * report), shared for what only reads it (verify, a merge's slices). Its
 * descriptor, or -1 when another command holds it or it cannot be locked,
 * said on standard error after who. */
static int lock_folder(const char *dir, const char *who, bool shared)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0 && flock(fd, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB) == 0)
        return fd;
    int e = errno;
    if (fd >= 0)
        close(fd);
    if (e == EWOULDBLOCK)
        aw_cli_line(stderr,
                    "%s: another aiwolf contest is playing into %s now (or a contest merge, report or verify is "
                    "using it); wait for it to end (a run stops with Ctrl-C and writes its reports for the games "
                    "played), then run this again",
                    who, dir);
    else
        aw_cli_line(stderr, "%s: cannot lock the folder %s: %s", who, dir, strerror(e));
    return -1;
}

/* The folder a run or a merge writes into: made if need be, and locked
 * for this command alone (lock_folder). Its lock's descriptor, or -1, said
 * on standard error after who. */
static int out_folder(const char *dir, const char *who)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        aw_cli_line(stderr, "%s: cannot create the folder %s: %s", who, dir, strerror(errno));
        return -1;
    }
    return lock_folder(dir, who, false);
}

static const char report_head[] =
    "usage: aiwolf contest report [--fault-policy P] DIR\n"
    "\n"
    "Writes the reports of the contest in DIR again from its games.tsv:\n"
    "report.md, results.csv, results.json and report.html (and the table on\n"
    "standard output). A DIR that a contest run is playing into (or a merge,\n"
    "report or verify is using) is refused: a run writes the reports of the\n"
    "games played when it ends, and Ctrl-C stops it (the same command\n"
    "continues it).\n"
    "\n"
    "options:\n";
static const char report_foot[] = "\nExit status: 0 written, 2 bad usage, a folder that holds no contest or one\n"
                                  "in use.\n";

static int report_main(int argc, char **argv)
{
    const char *dir = NULL, *policy = NULL;
    aw_opt_list dirs = {&dir, 0, 1, "report takes one contest folder (and --fault-policy P)"};
    const aw_opt opts[] = {
        {.name = "--fault-policy", .arg = "P", .kind = AW_OPT_STR, .to = &policy,
         .help = "which entries are ranked, for this report only (contest.cfg\n"
                 "keeps its own; aiwolf contest --help)"},
        {.name = "--help", .alias = "-h", .kind = AW_OPT_HELP, .help = "this text"},
        {0},
    };
    const aw_opts_cmd cmd = {"contest report", report_head, opts, report_foot, &dirs, 0};
    int prc = aw_opts_parse(&cmd, argc, argv, 2);
    if (prc != AW_OPTS_OK)
        return prc == AW_OPTS_EXIT ? 0 : 2;
    if (!dir)
        return bad("%s", "report takes one contest folder (and --fault-policy P)");
    contest k;
    memset(&k, 0, sizeof k);
    k.dir = dir;
    char why[600];
    if (aw_contest_cfg_read(k.dir, &k.c, why, sizeof why) < 0) {
        aw_cli_line(stderr, "aiwolf contest report: %s", why);
        return 2;
    }
    /* Not while a run plays into the folder (its games.tsv may end in a
     * line being written, and the run writes the reports itself when it
     * ends) or another command writes it. */
    int lock_fd = lock_folder(dir, "aiwolf contest report", false);
    if (lock_fd < 0) {
        aw_contest_cfg_free(&k.c);
        return 2;
    }
    /* Another policy for this report only (contest.cfg keeps its own, and
     * the rounds of --until-separated were drawn under it). */
    aw_error perr;
    aw_fault_policy report_policy = k.c.policy;
    if (policy && aw_fault_policy_parse(policy, &report_policy, &perr) < 0) {
        aw_contest_cfg_free(&k.c);
        close(lock_fd);
        return bad("%s", perr.msg);
    }
    if (contest_prepare(&k) < 0) {
        contest_free(&k);
        close(lock_fd);
        return 2;
    }
    k.c.policy = report_policy;
    while (next_round(&k) > 0) /* --until-separated: the rounds its games asked for */
        ;
    bool *done = aw_xcalloc((size_t)k.sched.nunits + 1, sizeof *done);
    aw_buf kept;
    aw_buf_init(&kept);
    long dropped = load_games(&k, done, &kept);
    if (dropped > 0)
        fprintf(stderr, "aiwolf contest: %ld game lines of units not played whole are left out\n", dropped);
    write_reports(&k, true);
    aw_buf_free(&kept);
    free(done);
    contest_free(&k);
    close(lock_fd);
    return 0;
}


/* Links (or copies) a log of a shard into the merged folder. */

static const char merge_head[] =
    "usage: aiwolf contest merge --out DIR SHARD_DIR...\n"
    "\n"
    "Combines the folders of a contest's slices (each played with --shard I/N,\n"
    "the same --seed and entries) into DIR: its games, logs, provenance and\n"
    "reports, as if one run had played them all. Its progress, a line per\n"
    "slice and one before the reports, is on standard error.\n"
    "DIR is new, empty, or holds nothing a contest writes (its own report.md\n"
    "or games.tsv is refused, not overwritten). A DIR that another contest\n"
    "command is using, or a slice that a run is playing into (or a merge or\n"
    "report is writing), is refused.\n"
    "\n"
    "options:\n";
static const char merge_foot[] = "\nExit status: 0 merged, 1 games missing (a slice unfinished or not given) or\n"
                                 "a write failed, 2 bad usage, slices that do not fit together or a DIR\n"
                                 "refused.\n";

static int merge_main(int argc, char **argv)
{
    const char *dir = NULL;
    const char *shards[256];
    aw_opt_list shard_list = {shards, 0, 256, "too many shard folders (256 at most)"};
    bool quiet = false;
    const aw_opt opts[] = {
        {.name = "--out", .arg = "DIR", .kind = AW_OPT_STR, .to = &dir,
         .help = "the folder that receives the whole contest"},
        {.name = "--quiet", .kind = AW_OPT_FLAG, .to = &quiet,
         .help = "no progress on standard error (warnings stay)"},
        {.name = "--help", .alias = "-h", .kind = AW_OPT_HELP, .help = "this text"},
        {0},
    };
    const aw_opts_cmd cmd = {"contest merge", merge_head, opts, merge_foot, &shard_list, 0};
    int prc = aw_opts_parse(&cmd, argc, argv, 2);
    if (prc != AW_OPTS_OK)
        return prc == AW_OPTS_EXIT ? 0 : 2;
    int n = shard_list.n;
    if (!dir || n < 1)
        return bad("%s", "merge needs --out DIR and the shards' folders");
    cfg first;
    bool *seen = NULL;
    int rc = 2, lock_fd = -1, slice_fd[256];
    for (int i = 0; i < n; i++)
        slice_fd[i] = -1;
    aw_provenance prov; /* the slices' sessions and digests */
    memset(&prov, 0, sizeof prov);
    contest k;
    memset(&k, 0, sizeof k);
    aw_buf all;
    aw_buf_init(&all);
    char why[600], from[PATH_MAX * 2], to[PATH_MAX * 2], path[PATH_MAX];
    aw_error merr;
    if (aw_contest_merge_slices(shards, n, &first, &seen, &merr) < 0) {
        aw_cli_line(stderr, "aiwolf contest merge: %s", merr.msg);
        goto out;
    }
    /* DIR locked for the merge (no run, report or other merge writes into
     * it meanwhile) and holding no contest (one of the slices, say) or
     * anything a contest writes (someone's games.tsv or report.md would be
     * overwritten). */
    if ((lock_fd = out_folder(dir, "aiwolf contest merge")) < 0)
        goto out;
    snprintf(path, sizeof path, "%s/contest.cfg", dir);
    if (access(path, F_OK) == 0) {
        aw_cli_line(stderr, "aiwolf contest merge: %s holds a contest already; merge into a new folder", dir);
        goto out;
    }
    if (!fresh_folder(dir, "aiwolf contest merge"))
        goto out;
    /* No slice is being played into (its games.tsv may end in a line
     * being written) or rewritten while it is read. */
    for (int i = 0; i < n; i++)
        if ((slice_fd[i] = lock_folder(shards[i], "aiwolf contest merge", true)) < 0)
            goto out;
    aw_provenance_init(&prov, first.nentries);
    for (int s = 1; s <= first.nshards; s++)
        if (!seen[s])
            fprintf(stderr, "aiwolf contest: warning: shard %d/%d is missing; the merged results lack its games\n", s,
                    first.nshards);
    if (aw_contest_merge_folder(dir, &merr) < 0) {
        aw_cli_line(stderr, "aiwolf contest: %s", merr.msg);
        goto out;
    }
    rc = 1;
    for (int i = 0; i < n; i++) {
        contest sk;
        memset(&sk, 0, sizeof sk);
        sk.dir = shards[i];
        if (aw_contest_cfg_read(shards[i], &sk.c, why, sizeof why) < 0 || contest_prepare(&sk) < 0) {
            contest_free(&sk);
            goto out;
        }
        aw_contest_merge_provenance(&prov, &sk.prov);
        bool *done = aw_xcalloc((size_t)sk.sched.nunits + 1, sizeof *done);
        aw_buf kept;
        aw_buf_init(&kept);
        long dropped = load_games(&sk, done, &kept);
        if (dropped != 0 || sk.stats.games < sk.total)
            aw_cli_line(stderr, "aiwolf contest: warning: %s is not finished (%ld of %ld games); run it again first",
                        shards[i], sk.stats.games, sk.total);
        int bad_log = aw_contest_bring_logs(shards[i], dir, kept.data, kept.len, sk.c.nentries);
        if (bad_log)
            aw_cli_line(stderr, "aiwolf contest: warning: %d game logs of %s could not be brought over", bad_log,
                        shards[i]);
        if (!quiet)
            aw_cli_line(stderr, "aiwolf contest merge: slice folder %d of %d, %s: %ld games and their logs", i + 1, n,
                        shards[i], sk.stats.games);
        if (kept.len)
            aw_buf_add(&all, kept.data, kept.len);
        aw_buf_free(&kept);
        free(done);
        contest_free(&sk);
    }
    /* The logs' rules (logrules.h), the same in every slice. */
    snprintf(from, sizeof from, "%s/logs/%s", shards[0], AW_LOGRULES_FOLDER);
    snprintf(to, sizeof to, "%s/logs/%s", dir, AW_LOGRULES_FOLDER);
    if (access(from, F_OK) == 0 && aw_contest_bring_file(from, to) < 0)
        aw_cli_line(stderr, "aiwolf contest: warning: %s could not be brought over", from);
    first.shard = first.nshards = 1;
    aw_buf cf;
    aw_buf_init(&cf);
    aw_contest_cfg_format(&first, true, &cf);
    snprintf(path, sizeof path, "%s/contest.cfg", dir);
    int w = aw_contest_write_file(path, cf.data, cf.len);
    aw_buf_free(&cf);
    snprintf(path, sizeof path, "%s/games.tsv", dir);
    if (w < 0 || aw_contest_write_file(path, all.data ? all.data : "", all.len) < 0 || sort_games(dir, first.nentries) < 0) {
        aw_cli_line(stderr, "aiwolf contest: cannot write the merged results into %s", dir);
        goto out;
    }
    k.dir = dir;
    if (aw_contest_cfg_read(dir, &k.c, why, sizeof why) < 0 || contest_prepare(&k) < 0)
        goto out;
    aw_contest_merge_provenance(&k.prov, &prov);
    aw_error perr;
    if (aw_provenance_save(&k.prov, dir, k.names, &perr) < 0)
        aw_cli_line(stderr, "aiwolf contest: %s", perr.msg);
    {
        bool *done = aw_xcalloc((size_t)k.sched.nunits + 1, sizeof *done);
        aw_buf kept;
        aw_buf_init(&kept);
        load_games(&k, done, &kept);
        aw_buf_free(&kept);
        free(done);
    }
    if (!quiet)
        aw_cli_line(stderr, "aiwolf contest merge: %ld of %ld games merged; writing the reports", k.stats.games,
                    k.total);
    write_reports(&k, true);
    rc = k.stats.games == k.total ? 0 : 1;
out:
    contest_free(&k);
    aw_buf_free(&all);
    aw_provenance_free(&prov);
    free(seen);
    aw_contest_cfg_free(&first);
    if (lock_fd >= 0)
        close(lock_fd);
    for (int i = 0; i < n; i++)
        if (slice_fd[i] >= 0)
            close(slice_fd[i]);
    return rc;
}

/* ---- contest verify: games played again from their seeds --------------------- */

typedef struct verify {
    contest k;
    char tmp[PATH_MAX];  /* where the games are played again */
    const char **line;   /* [ngames]: each recorded game's games.tsv line, or NULL */
    size_t *len;
    bool *want;          /* [ngames]: the games to compare */
    long compared, differ;
    long total;          /* the games to compare (the progress line's whole) */
    bool quiet, tty;     /* --quiet; standard error is a terminal */
    long ticks;
    struct timespec t0;
} verify;

/* A log's text, inflated when it is gzip; NULL with err. */
static char *read_log(const char *path, size_t *len, aw_error *err)
{
    char *text = aw_read_file(path, len, err);
    if (text && aw_gzip_is(text, *len)) {
        char *plain = aw_gunzip(text, *len, len, AW_GZLOG_MAX_LOG, err);
        free(text);
        text = plain;
    }
    return text;
}

/* One line of a log, as a terminal may show it: at most 160 bytes. */
static void show_line(const char *p, size_t n, char *out, size_t outlen)
{
    if (!p) {
        snprintf(out, outlen, "(end of log)");
        return;
    }
    size_t k = n < 160 ? n : 160;
    char buf[170];
    memcpy(buf, p, k);
    buf[k] = 0;
    aw_sanitize_text(buf, k, 0);
    snprintf(out, outlen, "\"%s%s\"", buf, n > k ? "..." : "");
}

/* Compares the log written now (a) with the recorded one (b): 0 when they
 * are the same bytes, else the first differing line's number (from 1), with
 * both lines shown. */
static long first_diff(const char *a, size_t alen, const char *b, size_t blen, char *now, char *was, size_t n)
{
    if (alen == blen && memcmp(a, b, alen) == 0)
        return 0;
    long line = 1;
    const char *pa = a, *pb = b, *ea = a + alen, *eb = b + blen;
    for (;;) {
        const char *na = pa < ea ? memchr(pa, '\n', (size_t)(ea - pa)) : NULL;
        const char *nb = pb < eb ? memchr(pb, '\n', (size_t)(eb - pb)) : NULL;
        size_t la = pa < ea ? (na ? (size_t)(na - pa) + 1 : (size_t)(ea - pa)) : 0;
        size_t lb = pb < eb ? (nb ? (size_t)(nb - pb) + 1 : (size_t)(eb - pb)) : 0;
        if (la != lb || memcmp(pa, pb, la) != 0) {
            show_line(la ? pa : NULL, la && pa[la - 1] == '\n' ? la - 1 : la, now, n);
            show_line(lb ? pb : NULL, lb && pb[lb - 1] == '\n' ? lb - 1 : lb, was, n);
            return line;
        }
        pa += la;
        pb += lb;
        line++;
    }
}

/* What differs between a game's record now and as recorded (the columns
 * that are the same whenever a contest is played again), or NULL. */
static const char *record_diff(const aw_game_record *a, const aw_game_record *b)
{
    if (a->seed != b->seed || a->players != b->players)
        return "seed or players";
    for (int s = 1; s <= a->players; s++) {
        if (a->entry[s] != b->entry[s])
            return "entries";
        if (a->role[s] != b->role[s])
            return "roles";
    }
    if (a->winner != b->winner)
        return "winner";
    if (a->days != b->days)
        return "days";
    for (int s = 1; s <= a->players; s++) {
        if (a->calls[s] != b->calls[s])
            return "calls";
        if (memcmp(a->faults[s], b->faults[s], sizeof a->faults[s]) != 0)
            return "faults";
    }
    return NULL;
}

static int verify_unit(void *ud, int unit, const char *lines, size_t len)
{
    verify *v = ud;
    (void)unit;
    aw_game_record *now = aw_xcalloc(2, sizeof *now), *was = now + 1;
    aw_error err;
    for (const char *p = lines, *end = lines + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (aw_record_parse(p, ll, v->k.c.nentries, now, &err) < 0 || now->index < 0 ||
            now->index >= v->k.sched.ngames || !v->line[now->index]) {
            fprintf(stderr, "aiwolf contest verify: a worker sent a bad game line\n");
            free(now);
            return -1;
        }
        p += ll + (nl != NULL);
        long g = now->index;
        if (!v->want[g])
            continue;
        aw_record_parse(v->line[g], v->len[g], v->k.c.nentries, was, &err);
        v->compared++;
        char pnow[PATH_MAX * 2], pwas[PATH_MAX * 2], a[200], b[200];
        snprintf(pnow, sizeof pnow, "%s/%s", v->tmp, now->log);
        snprintf(pwas, sizeof pwas, "%s/%s", v->k.dir, was->log);
        size_t lnow = 0, lwas = 0;
        char *tnow = read_log(pnow, &lnow, &err);
        aw_error err2;
        char *twas = strstr(was->log, "..") || was->log[0] == '/' ? NULL : read_log(pwas, &lwas, &err2);
        long dl = 0;
        const char *what = NULL;
        if (!tnow)
            what = "its log was not written again";
        else if (!twas)
            what = "its recorded log cannot be read";
        else if ((dl = first_diff(tnow, lnow, twas, lwas, a, b, sizeof a)) > 0)
            what = "log";
        else
            what = record_diff(now, was);
        if (what) {
            v->differ++;
            if (dl > 0)
                aw_cli_line(stdout, "game %ld (%s): line %ld differs: now %s, recorded %s", g, was->log, dl, a, b);
            else if (strcmp(what, "log") != 0)
                aw_cli_line(stdout, "game %ld (%s): %s%s", g, was->log, what,
                            tnow && twas ? " differ from games.tsv (the log is the same)" : "");
        }
        free(tnow);
        free(twas);
        remove(pnow);
    }
    fflush(stdout);
    free(now);
    return 0;
}

/* The progress of verify on standard error: games compared of all, the
 * rate, the time left and the games that differ so far; updated in place
 * on a terminal, else a line every ten seconds or so. */
static void verify_progress(verify *v, bool final)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double secs = (double)(now.tv_sec - v->t0.tv_sec) + (double)(now.tv_nsec - v->t0.tv_nsec) / 1e9;
    double rate = secs > 0 ? (double)v->compared / secs : 0;
    char eta[32] = "-", rs[32];
    if (rate > 0 && v->compared < v->total) {
        long t = (long)((double)(v->total - v->compared) / rate);
        snprintf(eta, sizeof eta, "%ld:%02ld", t / 60, t % 60);
    }
    if (v->tty)
        fprintf(stderr, "\r\033[Kaiwolf contest verify: %ld/%ld games, %s games/s, ETA %s, %ld differ%s", v->compared,
                v->total, aw_cli_rate(rs, sizeof rs, rate), eta, v->differ, final ? "\n" : "");
    else
        fprintf(stderr, "aiwolf contest verify: %ld/%ld games, %s games/s, ETA %s, %ld differ\n", v->compared, v->total,
                aw_cli_rate(rs, sizeof rs, rate), eta, v->differ);
    fflush(stderr);
}

static void verify_tick(void *ud)
{
    verify *v = ud;
    v->ticks++;
    if (!v->quiet && (v->tty || v->ticks % 10 == 0))
        verify_progress(v, false);
}

/* A game that may be sampled: its place in the order drawn from the seed. */
typedef struct sample_key {
    uint64_t key;
    long index;
    int unit;
} sample_key;

static int cmp_sample_key(const void *a, const void *b)
{
    const sample_key *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)type;
    (void)ftw;
    remove(path);
    return 0;
}

static const char verify_head[] =
    "usage: aiwolf contest verify [--sample N] [--jobs J] [--quiet] DIR\n"
    "\n"
    "Plays games of the contest in DIR again, from their seeds and entries, the\n"
    "way the contest played them (its workers, confined children, budgets),\n"
    "and compares each game's log with the recorded one byte for byte, and its\n"
    "games.tsv line but the times. Entries whose files changed since the\n"
    "contest are named, and their games are not played. Prints each game that\n"
    "differs, with its first differing line, and a summary; its progress is on\n"
    "standard error. A DIR that a contest run is playing into (or a merge or\n"
    "report is writing) is refused: verify it once the run has ended or been\n"
    "stopped with Ctrl-C.\n"
    "\n";
static const char verify_foot[] =
    "\n"
    "Exit status: 0 every game compared is the same and no entry changed, 1 a\n"
    "game differs or an entry changed (or the check stopped), 2 bad usage, a\n"
    "folder that holds no contest or one in use.\n";

static int verify_main(int argc, char **argv)
{
    const char *dir = NULL;
    long sample = -1;
    int jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
    long jobs_opt = 0;
    bool quiet = false;
    aw_opt_list dirs = {&dir, 0, 1, "verify takes one contest folder"};
    const aw_opt opts[] = {
        {.name = "--sample", .arg = "N", .kind = AW_OPT_LONG, .to = &sample, .min = 1, .max = 100000000,
         .bad = "'%s' is not a positive whole number",
         .help = "play N of the games played (default: all), the same N for\n"
                 "the same contest every time (drawn from its master seed);\n"
                 "under the regulation format the whole set holding a game is\n"
                 "played, since its agents carry over from game to game"},
        {.name = "--jobs", .arg = "J", .kind = AW_OPT_LONG, .to = &jobs_opt, .min = 1, .max = 100000000,
         .bad = "'%s' is not a positive whole number", .help = "worker processes (default: every core)"},
        {.name = "--quiet", .kind = AW_OPT_FLAG, .to = &quiet,
         .help = "no progress line on standard error (the games that differ\n"
                 "and the summary are still printed)"},
        {.name = "--help", .alias = "-h", .kind = AW_OPT_HELP},
        {0},
    };
    const aw_opts_cmd cmd = {"contest verify", verify_head, opts, verify_foot, &dirs, 15};
    int prc = aw_opts_parse(&cmd, argc, argv, 2);
    if (prc != AW_OPTS_OK)
        return prc == AW_OPTS_EXIT ? 0 : 2;
    if (jobs_opt)
        jobs = (int)(jobs_opt > 256 ? 256 : jobs_opt);
    if (!dir)
        return bad("%s", "verify needs the contest's folder: aiwolf contest verify DIR");
    verify v;
    memset(&v, 0, sizeof v);
    v.k.dir = dir;
    char why[600];
    if (aw_contest_cfg_read(dir, &v.k.c, why, sizeof why) < 0) {
        aw_cli_line(stderr, "aiwolf contest verify: %s", why);
        return 2;
    }
    /* Shared: other checks may read the folder too, but no run plays into
     * it (its games.tsv may end in a line being written) and nothing
     * rewrites it meanwhile. */
    int lock_fd = lock_folder(dir, "aiwolf contest verify", true);
    if (lock_fd < 0) {
        aw_contest_cfg_free(&v.k.c);
        return 2;
    }
    if (contest_prepare(&v.k) < 0) {
        contest_free(&v.k);
        close(lock_fd);
        return 2;
    }
    int rc = 0;
    cfg *c = &v.k.c;
    /* The entries as they are now: changed ones are named, their games left. */
    bool *changed = aw_xcalloc((size_t)c->nentries, sizeof *changed);
    for (int i = 0; i < c->nentries; i++) {
        entry now;
        entry *e = &c->entries[i];
        aw_error rerr;
        if (aw_contest_entry_resolve(e->path, &now, &rerr) < 0) {
            aw_cli_line(stderr, "aiwolf contest: %s", rerr.msg);
            aw_cli_line(stdout, "entry %s (%s) is gone or broken: its games are not played again", e->name, e->path);
            changed[i] = true;
            e->main = aw_xstrdup(e->path);
            e->read_dir = aw_xstrdup(".");
        } else {
            char sha[65] = "";
            aw_error err;
            bool sha_differs = v.k.prov.sha256[i][0] && aw_entry_sha256(e->path, sha, &err) == 0 &&
                               strcmp(sha, v.k.prov.sha256[i]) != 0;
            if (sha_differs)
                aw_cli_line(stdout,
                            "entry %s (%s) changed since the contest: its SHA-256 is %s, the contest's was %s; its "
                            "games are not played again",
                            e->name, e->path, sha, v.k.prov.sha256[i]);
            else if (now.hash != e->hash)
                aw_cli_line(stdout,
                            "entry %s (%s) changed since the contest: its files' hash is %016llx, contest.cfg's "
                            "%016llx; its games are not played again",
                            e->name, e->path, (unsigned long long)now.hash, (unsigned long long)e->hash);
            changed[i] = sha_differs || now.hash != e->hash;
            e->main = now.main;
            e->read_dir = now.read_dir;
            now.main = now.read_dir = NULL;
        }
        free(now.path);
        free(now.name);
        free(now.main);
        free(now.read_dir);
        if (changed[i])
            rc = 1;
    }
    while (next_round(&v.k) > 0) /* --until-separated: the rounds its games asked for */
        ;
    /* The games played whole, by index. */
    bool *done = aw_xcalloc((size_t)v.k.sched.nunits + 1, sizeof *done);
    bool *todo = aw_xcalloc((size_t)v.k.sched.nunits + 1, sizeof *todo);
    long ng = v.k.sched.ngames;
    v.line = aw_xcalloc((size_t)ng + 1, sizeof *v.line);
    v.len = aw_xcalloc((size_t)ng + 1, sizeof *v.len);
    v.want = aw_xcalloc((size_t)ng + 1, sizeof *v.want);
    aw_buf kept;
    aw_buf_init(&kept);
    load_games(&v.k, done, &kept);
    sample_key *cand = aw_xcalloc((size_t)ng + 1, sizeof *cand);
    long ncand = 0, played = 0;
    aw_game_record *rec = aw_xcalloc(1, sizeof *rec);
    aw_error err;
    for (const char *p = kept.data, *end = kept.data + kept.len; p && p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (aw_record_parse(p, (size_t)(nl - p), c->nentries, rec, &err) == 0 && rec->index < ng) {
            v.line[rec->index] = p;
            v.len[rec->index] = (size_t)(nl - p);
            played++;
            bool ok = true;
            for (int sidx = 1; sidx <= rec->players; sidx++)
                ok &= !changed[rec->entry[sidx]];
            if (ok) {
                uint64_t x[2] = {c->seed, (uint64_t)rec->index};
                cand[ncand++] = (sample_key){aw_fnv64(AW_FNV64_INIT, x, sizeof x), rec->index, rec->unit};
            }
        }
        p = nl + 1;
    }
    free(rec);
    long left_out = played - ncand; /* games of changed entries */
    played = ncand;
    /* The sample: the candidates in an order drawn from the master seed. */
    if (sample > 0 && sample < ncand) {
        qsort(cand, (size_t)ncand, sizeof *cand, cmp_sample_key);
        ncand = sample;
    }
    int nunits = 0;
    for (long i = 0; i < ncand; i++) {
        v.want[cand[i].index] = true;
        nunits += !todo[cand[i].unit];
        todo[cand[i].unit] = true;
    }
    free(cand);
    /* Games of those units beyond the sample are compared too: they are
     * played anyway. */
    for (int u = 0; u < v.k.sched.nunits; u++)
        for (int g = 0; todo[u] && g < v.k.sched.units[u].ngames; g++)
            if (v.line[v.k.sched.units[u].first + g])
                v.want[v.k.sched.units[u].first + g] = true;
    const char *tdir = getenv("TMPDIR");
    snprintf(v.tmp, sizeof v.tmp, "%s/aiwolf-verify-XXXXXX", tdir && *tdir ? tdir : "/tmp");
    worker_args wa;
    memset(&wa, 0, sizeof wa);
    int status = AW_RUNNER_DONE;
    if (!mkdtemp(v.tmp)) {
        aw_cli_line(stderr, "aiwolf contest verify: cannot create a folder in %s: %s", tdir ? tdir : "/tmp",
                    strerror(errno));
        rc = 2;
        v.tmp[0] = 0;
    } else if (nunits && worker_args_make(&v.k, v.tmp, &wa) < 0) {
        fprintf(stderr, "aiwolf contest: cannot find this program (/proc/self/exe)\n");
        rc = 2;
    } else if (nunits) {
        aw_runner r;
        memset(&r, 0, sizeof r);
        r.sched = &v.k.sched;
        r.todo = todo;
        r.worker_argv = wa.argv;
        r.jobs = jobs;
        r.on_unit = verify_unit;
        r.on_tick = verify_tick;
        r.ud = &v;
        v.quiet = quiet;
        v.tty = isatty(2);
        for (long g = 0; g < ng; g++)
            v.total += v.want[g];
        clock_gettime(CLOCK_MONOTONIC, &v.t0);
        status = aw_runner_run(&r);
        if (!quiet && (v.tty || v.ticks >= 10))
            verify_progress(&v, true);
        if (status == AW_RUNNER_FAILED && r.error[0])
            aw_cli_line(stderr, "aiwolf contest verify: %s", r.error);
    }
    if (rc != 2) {
        printf("%ld game%s played again (", v.compared, v.compared == 1 ? "" : "s");
        if (sample > 0 && sample < played)
            printf("a sample of %ld of the %ld played, drawn from the master seed%s", sample, played,
                   v.compared > sample ? ", with the rest of their sets" : "");
        else
            printf("all %ld played%s", played, left_out ? " by unchanged entries" : "");
        if (left_out)
            printf("; %ld left out: an entry of theirs changed", left_out);
        printf("): %ld the same, %ld differ%s\n", v.compared - v.differ, v.differ,
               status == AW_RUNNER_DONE ? "" : status == AW_RUNNER_INTERRUPTED ? " (interrupted)" : " (stopped)");
        if (v.differ || status != AW_RUNNER_DONE)
            rc = 1;
    }
    if (v.tmp[0])
        nftw(v.tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    worker_args_free(&wa);
    aw_buf_free(&kept);
    free(v.line);
    free(v.len);
    free(v.want);
    free(done);
    free(todo);
    free(changed);
    contest_free(&v.k);
    close(lock_fd);
    return rc;
}

/* The command's options: the table (in a->rows) whose values go to a and
 * to k's config, with k's defaults set first. */
static int format_opt(void *to, const char *v)
{
    aw_contest_format *f = to;
    if (strcmp(v, "seed2015") == 0)
        *f = AW_FORMAT_SEED2015;
    else if (strcmp(v, "regulation") == 0)
        *f = AW_FORMAT_REGULATION;
    else
        return bad("--format is seed2015 or regulation, not '%s'", v);
    return 0;
}

static int players_opt(void *to, const char *v)
{
    if (aw_contest_cfg_parse_players(v, to) < 0)
        return bad("--players takes up to four different counts from 3 to 18, e.g. 5,15 (not '%s')", v);
    return 0;
}

static int policy_opt(void *to, const char *v)
{
    aw_error err;
    if (aw_fault_policy_parse(v, to, &err) < 0)
        return bad("%s", err.msg);
    return 0;
}

static int shard_opt(void *to, const char *v)
{
    cfg *c = to;
    char tail;
    if (sscanf(v, "%d/%d%c", &c->shard, &c->nshards, &tail) != 2 || c->nshards < 1 || c->shard < 1 ||
        c->shard > c->nshards || c->nshards > AW_CONTEST_MAX_SHARDS)
        return bad("--shard is I/N with 1 <= I <= N <= 1000000, e.g. 2/4 (not '%s')", v);
    _Static_assert(AW_CONTEST_MAX_SHARDS == 1000000, "the message above");
    return 0;
}

typedef struct contest_args {
    const char *dir;
    bool have_seed, have_players, until;
    long max_games, games_per_entry, sets, set_games, jobs_opt, duplicate;
    aw_cli_rule_opts ro;
    aw_cli_limits_opts lim;
    const char *args[MAX_ENTRIES];
    aw_opt_list entries;
    aw_opt rows[24];
} contest_args;

static aw_opts_cmd contest_table(contest *k, contest_args *a)
{
    memset(a, 0, sizeof *a);
    a->games_per_entry = 1000;
    a->sets = 10;
    a->set_games = 100;
    a->lim.limits.budget_ms = 100;
    aw_limits_set_memory_mib(&a->lim.limits, 64);
    aw_opt *limit_rows = aw_cli_limits_group(&a->lim, AW_LIMIT_BUDGET | AW_LIMIT_MEMORY | AW_LIMIT_WORK);
    /* Larger figures are taken and capped (at 600000 ms and 65536 MB). */
    aw_opts_set_range(limit_rows, "--budget", 1, 100000000, "'%s' is not a positive whole number");
    aw_opts_set_range(limit_rows, "--memory", 1, 100000000, "'%s' is not a positive whole number");
    aw_opts_set_help(limit_rows, "--budget",
                     "CPU time per agent call (default 100; 1000 with --work,\n"
                     "where it is only a safety net); a call that runs far\n"
                     "past it is killed with the agent's process (the\n"
                     "bounds: docs/contest.md, \"Outer kill\")");
    aw_opts_set_help(limit_rows, "--work",
                     "also a deterministic budget per call, in work units (VM\n"
                     "instructions plus library work; docs/sandbox.md): the\n"
                     "results, faults included, are then the same on any\n"
                     "machine and load");
    a->entries = (aw_opt_list){a->args, 0, MAX_ENTRIES, "too many entries (1000 at most)"};
    const aw_opt rows[] = {
        {.name = "--out", .arg = "DIR", .kind = AW_OPT_STR, .to = &a->dir,
         .help =
               "the folder that receives the results (required); a\n"
               "folder that holds a contest already continues it"},
        {.name = "--format", .arg = "F", .kind = AW_OPT_CALL, .to = &k->c.format, .call = format_opt,
         .help =
               "seed2015 (default): every entry plays at least\n"
               "--games-per-entry games, fresh instances every game;\n"
               "regulation: sets of --set-games games with the same\n"
               "instances and seats, --sets sets per player count"},
        {.name = "--players", .arg = "N[,M]", .kind = AW_OPT_CALL, .to = &k->c, .call = players_opt, .seen = &a->have_players,
         .help =
               "player counts (default: 15 for seed2015, 5,15 for\n"
               "regulation)"},
        {.name = "--games-per-entry", .arg = "N", .kind = AW_OPT_LONG, .to = &a->games_per_entry, .min = 1, .max = 100000000,
         .bad = "'%s' is not a positive whole number",
         .help =
               "seed2015: games each entry plays at least (default 1000)"},
        {.name = "--sets", .arg = "K", .kind = AW_OPT_LONG, .to = &a->sets, .min = 1, .max = 100000000,
         .bad = "'%s' is not a positive whole number",
         .help =
               "regulation: sets per player count (default 10)"},
        {.name = "--set-games", .arg = "N", .kind = AW_OPT_LONG, .to = &a->set_games, .min = 1, .max = 100000000,
         .bad = "'%s' is not a positive whole number",
         .help =
               "regulation: games per set (default 100)"},
        {.name = "--seed", .arg = "S", .kind = AW_OPT_U64, .to = &k->c.seed, .seen = &a->have_seed,
         .bad = "'%s' is not a whole number from 0 to 18446744073709551615",
         .help =
               "the master seed (default: drawn from the system and\n"
               "kept in DIR, so a resumed run uses it)"},
        {.name = "--jobs", .arg = "J", .kind = AW_OPT_LONG, .to = &a->jobs_opt, .min = 1, .max = 100000000,
         .bad = "'%s' is not a positive whole number",
         .help =
               "worker processes (default: every core)"},
        {.kind = AW_OPT_GROUP, .to = limit_rows},
        {.name = "--fault-policy", .arg = "P", .kind = AW_OPT_CALL, .to = &k->c.policy, .call = policy_opt,
         .help =
               "which entries are ranked: calls=5%,games=50% (the\n"
               "default: an entry with more than 5 % of its calls\n"
               "faulted, or faults in more than half its games, is\n"
               "listed apart, not ranked), other shares, or none;\n"
               "an entry that answers no call is never ranked"},
        {.kind = AW_OPT_GROUP,
         .to = aw_cli_rule_group(&a->ro, AW_RULE_PRESET | AW_RULE_SET,
                                 "the rules (default: the format's: seed2015 or regulation)", NULL)},
        {.name = "--shard", .arg = "I/N", .kind = AW_OPT_CALL, .to = &k->c, .call = shard_opt,
         .help =
               "play only slice I of N (1-based); 'contest merge'\n"
               "combines the slices' folders"},
        {.name = "--duplicate", .arg = "K", .kind = AW_OPT_LONG, .to = &a->duplicate, .min = 1, .max = 100,
         .bad = "'%s' is not a number of copies from 1 to 100",
         .help =
               "--format seed2015 (any preset): play each deal K times,\n"
               "the entries rotated through its seats, so that the\n"
               "luck of roles and seats cancels within a deal"},
        {.name = "--until-separated", .kind = AW_OPT_FLAG, .to = &a->until,
         .help =
               "--format seed2015 (any preset): after the games above,\n"
               "keep playing rounds of games for the entries still in\n"
               "doubt until every two entries adjacent in the skill\n"
               "rating are separated at 95 %, or --max-games is reached"},
        {.name = "--max-games", .arg = "N", .kind = AW_OPT_LONG, .to = &a->max_games, .min = 1, .max = 100000000,
         .bad = "'%s' is not a positive whole number",
         .help =
               "the cap for --until-separated (default: 10 times the\n"
               "games above)"},
        {.name = "--quiet", .kind = AW_OPT_FLAG, .to = &k->quiet,
         .help =
               "no progress and no table on standard output"},
        {.name = "--help", .kind = AW_OPT_HELP,
         .help =
               "this text"},
        {.name = "-h", .kind = AW_OPT_HELP}, /* not listed */
        {0},
    };
    _Static_assert(sizeof rows <= sizeof a->rows, "contest_args.rows holds the table");
    memcpy(a->rows, rows, sizeof rows);
    return (aw_opts_cmd){"contest", contest_head, a->rows, contest_foot, &a->entries, 24};
}

int cmd_contest(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--worker") == 0)
        return worker_main(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "merge") == 0)
        return merge_main(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "report") == 0)
        return report_main(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "verify") == 0)
        return verify_main(argc, argv);
    contest k;
    memset(&k, 0, sizeof k);
    cfg *c = &k.c;
    c->format = AW_FORMAT_SEED2015;
    c->games_per_entry = 1000;
    c->sets = 10;
    c->set_games = 100;
    c->shard = c->nshards = 1;
    aw_error perr;
    aw_fault_policy_parse(AW_FAULT_POLICY_DEFAULT, &c->policy, &perr);
    bool have_preset = false;
    int jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
    int nargs = 0;
    int rc = 2, lock_fd = -1;
    contest_args *ca = aw_xcalloc(1, sizeof *ca);
    const aw_opts_cmd cmd = contest_table(&k, ca);
    const char **args = ca->args;
    const char *dir;
    bool have_seed, have_players, have_budget, until;
    long max_games;
    int prc = aw_opts_parse(&cmd, argc, argv, 1);
    if (prc != AW_OPTS_OK) {
        rc = prc == AW_OPTS_EXIT ? 0 : 2;
        goto out;
    }
    dir = ca->dir;
    have_seed = ca->have_seed;
    have_players = ca->have_players;
    have_budget = ca->lim.have_budget;
    until = ca->until;
    max_games = ca->max_games;
    nargs = ca->entries.n;
    c->games_per_entry = ca->games_per_entry;
    c->sets = (int)ca->sets;
    c->set_games = (int)ca->set_games;
    if (ca->jobs_opt)
        jobs = (int)(ca->jobs_opt > 256 ? 256 : ca->jobs_opt);
    c->limits = ca->lim.limits;
    if (c->limits.budget_ms > 600000)
        c->limits.budget_ms = 600000;
    if (aw_limits_memory_mib(&c->limits) > 65536)
        aw_limits_set_memory_mib(&c->limits, 65536);
    if (ca->duplicate)
        c->duplicate = ca->duplicate > 1 ? (int)ca->duplicate : 0;
    if (ca->ro.have_preset) {
        snprintf(c->preset, sizeof c->preset, "%s", ca->ro.preset);
        have_preset = true;
    }
    if (ca->ro.sets.n > MAX_SETS) {
        bad("%s", "too many --set options");
        goto out;
    }
    for (int i = 0; i < ca->ro.sets.n; i++)
        c->sets_kv[c->nsets_kv++] = aw_xstrdup(ca->ro.setv[i]);
    if (!dir) {
        bad("%s", "--out DIR is required: the folder that receives the results");
        goto out;
    }
    if (max_games && !until) {
        bad("%s", "--max-games is the cap of --until-separated");
        goto out;
    }
    if ((c->duplicate || until) && c->format != AW_FORMAT_SEED2015) {
        bad("%s", "--duplicate and --until-separated are for --format seed2015 (with any --preset: aiwolf, seed2015, "
                  "regulation, nlp5, nlp13): a --format regulation set keeps its seats and agent instances for all "
                  "its games, which rotating the entries through a deal's seats, or a round of games for the "
                  "entries in doubt, would break");
        goto out;
    }
    if (until && c->nshards > 1) {
        bad("%s", "--until-separated needs every game's result, so it cannot be split into shards");
        goto out;
    }
    if (until)
        c->until_separated = max_games ? max_games : -1;
    if (nargs < 1) {
        bad("%s", "no entries given (aiwolf contest --out DIR agents/a.lua agents/b/ ...)");
        goto out;
    }
    if (c->nshards > 1 && !have_seed && access(dir, F_OK) != 0) {
        bad("%s", "--shard needs --seed: every slice must draw the same schedule");
        goto out;
    }
    if (!have_players) {
        c->nplayers = c->format == AW_FORMAT_REGULATION ? 2 : 1;
        c->players[0] = c->format == AW_FORMAT_REGULATION ? 5 : 15;
        c->players[1] = 15;
    }
    if (!have_preset)
        snprintf(c->preset, sizeof c->preset, "%s", aw_contest_format_name(c->format));
    /* With a work budget the work decides where a call stops; the time
     * budget is only the safety net for what the work model does not see,
     * far enough that it does not act first on a slower or loaded machine
     * (docs/contest.md). */
    if (c->limits.work_budget && !have_budget)
        c->limits.budget_ms = 1000;
    if (c->format == AW_FORMAT_SEED2015) {
        c->sets = 0;
        c->set_games = 0;
    } else {
        c->games_per_entry = 0;
    }
    c->entries = aw_xcalloc((size_t)nargs, sizeof *c->entries);
    for (int i = 0; i < nargs; i++) {
        aw_error rerr;
        if (aw_contest_entry_resolve(args[i], &c->entries[c->nentries], &rerr) < 0) {
            aw_cli_line(stderr, "aiwolf contest: %s", rerr.msg);
            c->nentries++;
            goto out;
        }
        c->nentries++;
        for (int j = 0; j < i; j++)
            if (strcmp(c->entries[j].main, c->entries[i].main) == 0) {
                aw_cli_line(stderr, "aiwolf contest: the entry %s is given twice", args[i]);
                goto out;
            }
    }
    for (int i = 0; i < c->nentries; i++)
        for (int j = 0; j < i; j++)
            if (strcmp(c->entries[j].read_dir, c->entries[i].read_dir) == 0) {
                aw_cli_line(stderr,
                            "aiwolf contest: warning: %s and %s share the folder %s, so each can read the other's "
                            "files; give each entry a folder of its own",
                            c->entries[j].path, c->entries[i].path, c->entries[i].read_dir);
                break;
            }
    aw_contest_unique_names(c);
    k.dir = dir;
    /* The rules (--preset, --set) before anything is written: a typo must
     * not leave a contest.cfg that the corrected command is refused by. */
    for (int i = 0; i < c->nplayers; i++) {
        aw_error serr;
        if (aw_settings_from(&k.set[c->players[i]], c->preset, c->players[i], c->sets_kv, c->nsets_kv, &serr) < 0) {
            aw_cli_line(stderr, "aiwolf contest: %s (aiwolf contest --help)", serr.msg);
            goto out;
        }
    }
    /* One run at a time in a folder: a second one would play the same
     * games into the same games.tsv and logs. */
    if ((lock_fd = out_folder(dir, "aiwolf contest")) < 0)
        goto out;
    /* A folder with a contest already: continue it, if it is this one. */
    char cfgpath[PATH_MAX];
    snprintf(cfgpath, sizeof cfgpath, "%s/contest.cfg", dir);
    bool resume = access(cfgpath, F_OK) == 0;
    if (resume) {
        cfg old;
        char why[600];
        if (aw_contest_cfg_read(dir, &old, why, sizeof why) < 0) {
            aw_cli_line(stderr, "aiwolf contest: %s", why);
            goto out;
        }
        if (!have_seed)
            c->seed = old.seed;
        aw_buf a1, a2;
        aw_buf_init(&a1);
        aw_buf_init(&a2);
        aw_contest_cfg_format(c, true, &a1);
        aw_contest_cfg_format(&old, true, &a2);
        bool same = a1.len == a2.len && memcmp(a1.data, a2.data, a1.len) == 0;
        if (!same) {
            /* Say which line differs. */
            const char *p = a1.data, *q = a2.data;
            size_t i = 0;
            while (i < a1.len && i < a2.len && p[i] == q[i])
                i++;
            size_t s1 = i, s2 = i;
            while (s1 > 0 && p[s1 - 1] != '\n')
                s1--;
            s2 = s1;
            const char *e1 = memchr(p + s1, '\n', a1.len - s1), *e2 = memchr(q + s2, '\n', a2.len - s2);
            /* the lines as a person reads them: a space for each tab */
            for (char *t = a1.data + s1; e1 && t < e1; t++)
                if (*t == '\t')
                    *t = ' ';
            for (char *t = a2.data + s2; e2 && t < e2; t++)
                if (*t == '\t')
                    *t = ' ';
            aw_cli_line(stderr,
                        "aiwolf contest: %s holds another contest (it has '%.*s', this run '%.*s'); give the same "
                        "options and entries (unchanged) to continue it, or another --out",
                        dir, e2 ? (int)(e2 - q - s2) : 0, q + s2, e1 ? (int)(e1 - p - s1) : 0, p + s1);
        }
        aw_buf_free(&a1);
        aw_buf_free(&a2);
        aw_contest_cfg_free(&old);
        if (!same)
            goto out;
    } else {
        if (!fresh_folder(dir, "aiwolf contest"))
            goto out;
        if (!have_seed)
            c->seed = aw_rng_os_seed();
        aw_buf b;
        aw_buf_init(&b);
        aw_contest_cfg_format(c, true, &b);
        int w = aw_contest_write_file(cfgpath, b.data, b.len);
        aw_buf_free(&b);
        if (w < 0) {
            aw_cli_line(stderr, "aiwolf contest: cannot write %s: %s", cfgpath, strerror(errno));
            goto out;
        }
    }
    if (contest_prepare(&k) < 0)
        goto out;
    char session_start[32];
    aw_utc_now(session_start);
    hash_entries(&k);
    {
        bool *done = aw_xcalloc((size_t)k.sched.nunits + 1, sizeof *done);
        bool *todo = aw_xcalloc((size_t)k.sched.nunits + 1, sizeof *todo);
        aw_buf kept;
        aw_buf_init(&kept);
        /* --until-separated: the rounds the games on disk asked for. */
        while (next_round(&k) > 0) {
            free(done);
            done = aw_xcalloc((size_t)k.sched.nunits + 1, sizeof *done);
            free(todo);
            todo = aw_xcalloc((size_t)k.sched.nunits + 1, sizeof *todo);
        }
        long dropped = load_games(&k, done, &kept);
        char gpath[PATH_MAX];
        snprintf(gpath, sizeof gpath, "%s/games.tsv", dir);
        if (dropped < 0) {
            aw_cli_line(stderr, "aiwolf contest: cannot read %s", gpath);
            rc = 1;
        } else if (dropped > 0 && aw_contest_write_file(gpath, kept.data ? kept.data : "", kept.len) < 0) {
            aw_cli_line(stderr, "aiwolf contest: cannot rewrite %s: %s", gpath, strerror(errno));
            rc = 1;
        }
        aw_buf_free(&kept);
        k.done_at_start = k.stats.games;
        int ntodo = 0;
        for (int u = 0; u < k.sched.nunits; u++)
            if (in_shard(c, u) && !done[u]) {
                todo[u] = true;
                ntodo++;
            }
        if (rc == 1) {
            free(done);
            free(todo);
            goto out;
        }
        if (!k.quiet) {
            if (resume)
                aw_cli_line(stderr, "aiwolf contest: continuing %s: %ld of %ld games played%s", dir, k.stats.games,
                            k.total, dropped > 0 ? " (the lines of units cut short are dropped and played again)" : "");
            else {
                char pl[64] = "";
                for (int i = 0, o = 0; i < c->nplayers; i++)
                    o += snprintf(pl + o, sizeof pl - (size_t)o, "%s%d", i ? "," : "", c->players[i]);
                int njobs = jobs < ntodo ? jobs : ntodo;
                aw_cli_line(stderr,
                            "aiwolf contest: %d entries, %ld games (%s, %s players), seed %llu, %d job%s, into %s",
                            c->nentries, k.total, aw_contest_format_name(c->format), pl, (unsigned long long)c->seed,
                            njobs, njobs == 1 ? "" : "s", dir);
            }
        }
        k.games_fd = open(gpath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
        if (k.games_fd < 0) {
            aw_cli_line(stderr, "aiwolf contest: cannot write %s: %s", gpath, strerror(errno));
            free(done);
            free(todo);
            rc = 1;
            goto out;
        }
        worker_args wa;
        if (worker_args_make(&k, dir, &wa) < 0) {
            fprintf(stderr, "aiwolf contest: cannot find this program (/proc/self/exe)\n");
            free(done);
            free(todo);
            close(k.games_fd);
            rc = 1;
            goto out;
        }
        aw_runner r;
        memset(&r, 0, sizeof r);
        r.sched = &k.sched;
        r.todo = todo;
        r.worker_argv = wa.argv;
        r.jobs = jobs;
        r.on_unit = on_unit;
        r.on_tick = on_tick;
        r.ud = &k;
        k.tty = isatty(2);
        k.t0 = aw_now_ns();
        int status = ntodo ? aw_runner_run(&r) : AW_RUNNER_DONE;
        /* --until-separated: rounds while adjacent pairs are in doubt. */
        while (status == AW_RUNNER_DONE) {
            int before = k.sched.nunits;
            if (next_round(&k) <= 0)
                break;
            free(todo);
            todo = aw_xcalloc((size_t)k.sched.nunits + 1, sizeof *todo);
            for (int u = before; u < k.sched.nunits; u++)
                todo[u] = true;
            r.todo = todo;
            r.warned = true;
            if (!k.quiet)
                fprintf(stderr, "aiwolf contest: %d adjacent %s not separated at 95 %%: round %d, %ld more games\n",
                        k.unresolved, k.unresolved == 1 ? "pair" : "pairs", k.round,
                        k.sched.ngames - k.sched.units[before].first);
            status = aw_runner_run(&r);
        }
        if (!k.quiet && c->until_separated && status == AW_RUNNER_DONE)
            fprintf(stderr, "aiwolf contest: %s after %ld games (%d rounds)\n",
                    k.unresolved == 0 ? "every adjacent pair separated at 95 %"
                                      : "the cap reached with adjacent pairs not separated",
                    k.sched.ngames, k.round);
        if (k.games_fd >= 0)
            close(k.games_fd);
        if (!k.quiet && ntodo)
            progress_line(&k, true);
        if (status == AW_RUNNER_FAILED && r.error[0])
            fprintf(stderr, "aiwolf contest: %s\n", aw_term(r.error).s);
        if (status == AW_RUNNER_DONE && sort_games(dir, c->nentries) < 0)
            aw_cli_line(stderr, "aiwolf contest: cannot sort %s (the results are complete)", gpath);
        if (ntodo)
            end_session(&k, session_start, jobs < ntodo ? jobs : ntodo, status);
        write_reports(&k, !k.quiet);
        if (status == AW_RUNNER_DONE) {
            rc = 0;
        } else {
            fprintf(stderr,
                    "aiwolf contest: %s after %ld of %ld games; the report covers those. Run the same command "
                    "again to continue.\n",
                    status == AW_RUNNER_INTERRUPTED ? "interrupted" : "stopped", k.stats.games, k.total);
            rc = 1;
        }
        worker_args_free(&wa);
        free(done);
        free(todo);
    }
out:
    if (k.sched.units || k.names)
        contest_free(&k);
    else
        aw_contest_cfg_free(c);
    free(ca);
    if (lock_fd >= 0)
        close(lock_fd);
    return rc;
}
