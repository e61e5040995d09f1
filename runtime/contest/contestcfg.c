/* contestcfg: a contest's configuration, DIR/contest.cfg, and its entries
 * (contestcfg.h). */
#define _GNU_SOURCE /* nftw's FTW_PHYS, strtok_r */
#include "contestcfg.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "settings.h"

void aw_contest_cfg_free(aw_contest_cfg *c)
{
    for (int i = 0; i < c->nentries; i++) {
        free(c->entries[i].path);
        free(c->entries[i].main);
        free(c->entries[i].read_dir);
        free(c->entries[i].name);
    }
    free(c->entries);
    for (int i = 0; i < c->nsets_kv; i++)
        free((char *)c->sets_kv[i]);
    memset(c, 0, sizeof *c);
}

const char *aw_contest_format_name(aw_contest_format f)
{
    return f == AW_FORMAT_REGULATION ? "regulation" : "seed2015";
}

/* The lines of the rating's options (none when off, so that contest.cfg
 * files of plain contests stay as they were). */
void aw_contest_cfg_format_rating(const aw_contest_cfg *c, aw_buf *b)
{
    if (c->duplicate > 1)
        aw_buf_printf(b, "duplicate\t%d\n", c->duplicate);
    if (c->until_separated > 0)
        aw_buf_printf(b, "until-separated\t%ld\nrounds\tranked\n", c->until_separated);
}

/* Everything that decides the results (the shard aside when !with_shard). */
void aw_contest_cfg_format(const aw_contest_cfg *c, bool with_shard, aw_buf *b)
{
    aw_buf_printf(b, "aiwolf-contest\t1\nformat\t%s\nplayers\t", aw_contest_format_name(c->format));
    for (int i = 0; i < c->nplayers; i++)
        aw_buf_printf(b, "%s%d", i ? "," : "", c->players[i]);
    aw_buf_printf(b, "\ngames-per-entry\t%ld\nsets\t%d\nset-games\t%d\nseed\t%llu\nbudget\t%d\nmemory\t%d\npreset\t%s\n",
                  c->games_per_entry, c->sets, c->set_games, (unsigned long long)c->seed, c->limits.budget_ms,
                  aw_limits_memory_mib(&c->limits), c->preset);
    for (int i = 0; i < c->nsets_kv; i++)
        aw_buf_printf(b, "set\t%s\n", c->sets_kv[i]);
    /* (Written when not the defaults, so that folders of earlier versions
     * continue.) */
    if (c->limits.work_budget)
        aw_buf_printf(b, "work\t%llu\n", (unsigned long long)c->limits.work_budget);
    char pol[64], def[64];
    aw_fault_policy dp;
    aw_error err;
    aw_fault_policy_parse(AW_FAULT_POLICY_DEFAULT, &dp, &err);
    aw_fault_policy_format(&c->policy, pol, sizeof pol);
    aw_fault_policy_format(&dp, def, sizeof def);
    if (strcmp(pol, def) != 0)
        aw_buf_printf(b, "fault-policy\t%s\n", pol);
    aw_contest_cfg_format_rating(c, b);
    if (with_shard)
        aw_buf_printf(b, "shard\t%d/%d\n", c->shard, c->nshards);
    for (int i = 0; i < c->nentries; i++)
        aw_buf_printf(b, "entry\t%016llx\t%s\t%s\n", (unsigned long long)c->entries[i].hash, c->entries[i].name,
                      c->entries[i].path);
}

int aw_contest_cfg_parse_players(const char *s, aw_contest_cfg *c)
{
    c->nplayers = 0;
    const char *p = s;
    while (*p) {
        char *e;
        long v = strtol(p, &e, 10);
        if (e == p || v < 3 || v > AW_MAX_PLAYERS || c->nplayers == 4)
            return -1;
        for (int i = 0; i < c->nplayers; i++)
            if (c->players[i] == v)
                return -1;
        c->players[c->nplayers++] = (int)v;
        if (*e == ',')
            e++;
        else if (*e)
            return -1;
        p = e;
    }
    return c->nplayers ? 0 : -1;
}

/* A number of contest.cfg (a file people edit): the whole value a
 * decimal number from min to max, or false. */
static bool cfg_num(const char *v, long min, long max, long *out)
{
    char *e;
    errno = 0;
    long x = strtol(v, &e, 10);
    if (e == v || *e || errno || x < min || x > max)
        return false;
    *out = x;
    return true;
}

/* The numbers of contest.cfg: key, range, and where (long or int). */
typedef struct cfg_key {
    const char *key;
    long min, max;
    long *l;
    int *i;
} cfg_key;

/* Why DIR/contest.cfg could not be read, said for a person who gave DIR:
 * no such folder, not a folder, a folder with no contest, or the error. */
static void cfg_missing(const char *dir, const char *path, const char *msg, char *why, size_t whylen)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        snprintf(why, whylen, "no folder '%.400s'", dir);
    else if (!S_ISDIR(st.st_mode))
        snprintf(why, whylen, "'%.400s' is a file: give a contest's folder (the one 'aiwolf contest --out DIR' wrote)",
                 dir);
    else if (access(path, F_OK) != 0 && errno == ENOENT)
        snprintf(why, whylen,
                 "'%.400s' holds no contest (no contest.cfg): give the folder that 'aiwolf contest --out DIR' wrote",
                 dir);
    else
        snprintf(why, whylen, "%s", msg);
}

/* Reads DIR/contest.cfg into c (entries with path, name and hash only). */
int aw_contest_cfg_read(const char *dir, aw_contest_cfg *c, char *why, size_t whylen)
{
    memset(c, 0, sizeof *c);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/contest.cfg", dir);
    size_t len;
    aw_error err;
    char *text = aw_read_input(path, &len, &err);
    if (!text) {
        cfg_missing(dir, path, err.msg, why, whylen);
        return -1;
    }
    int rc = 0, cap = 0, lineno = 0;
    c->shard = c->nshards = 1;
    aw_fault_policy_parse(AW_FAULT_POLICY_DEFAULT, &c->policy, &err);
    char *save = NULL;
    bool head = false, rounds_ranked = false;
    char bad[160] = "";
    int memory_mib = 0; /* contest.cfg keeps the memory cap in whole MiB */
    /* the same bounds as the options that wrote them (0: not used) */
    const cfg_key nums[] = {
        {"games-per-entry", 0, 100000000, &c->games_per_entry, NULL},
        {"sets", 0, 100000000, NULL, &c->sets},
        {"set-games", 0, 100000000, NULL, &c->set_games},
        {"budget", 0, 100000000, NULL, &c->limits.budget_ms},
        {"memory", 0, 100000000, NULL, &memory_mib},
        {"duplicate", 0, 100, NULL, &c->duplicate},
        {"until-separated", -1, 100000000, &c->until_separated, NULL},
    };
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        char *tab = strchr(line, '\t');
        if (!tab) {
            snprintf(bad, sizeof bad, "line %d is not KEY<tab>VALUE: '%.60s'", lineno, line);
            rc = -1;
            break;
        }
        *tab = 0;
        const char *k = line, *v = tab + 1;
        const cfg_key *num = NULL;
        for (size_t i = 0; i < sizeof nums / sizeof *nums; i++)
            if (strcmp(k, nums[i].key) == 0)
                num = &nums[i];
        long x;
        if (num && !cfg_num(v, num->min, num->max, &x)) {
            snprintf(bad, sizeof bad, "%s is not a whole number from %ld to %ld", k, num->min, num->max);
            rc = -1;
        } else if (num && num->l) {
            *num->l = x;
        } else if (num) {
            *num->i = (int)x;
        } else if (strcmp(k, "aiwolf-contest") == 0)
            head = strcmp(v, "1") == 0;
        else if (strcmp(k, "format") == 0)
            c->format = strcmp(v, "regulation") == 0 ? AW_FORMAT_REGULATION : AW_FORMAT_SEED2015;
        else if (strcmp(k, "players") == 0)
            rc = aw_contest_cfg_parse_players(v, c);
        else if (strcmp(k, "seed") == 0)
            c->seed = strtoull(v, NULL, 10);
        else if (strcmp(k, "work") == 0)
            c->limits.work_budget = strtoull(v, NULL, 10);
        else if (strcmp(k, "fault-policy") == 0)
            rc = aw_fault_policy_parse(v, &c->policy, &err);
        else if (strcmp(k, "preset") == 0)
            snprintf(c->preset, sizeof c->preset, "%s", v);
        else if (strcmp(k, "rounds") == 0) {
            if (strcmp(v, "ranked") != 0)
                rc = -1;
            rounds_ranked = true;
        }
        else if (strcmp(k, "set") == 0 && c->nsets_kv < AW_CONTEST_MAX_SETS)
            c->sets_kv[c->nsets_kv++] = aw_xstrdup(v);
        else if (strcmp(k, "shard") == 0) {
            char tail;
            if (sscanf(v, "%d/%d%c", &c->shard, &c->nshards, &tail) != 2 || c->nshards < 1 ||
                c->nshards > AW_CONTEST_MAX_SHARDS || c->shard < 1 || c->shard > c->nshards) {
                snprintf(bad, sizeof bad, "shard is not I/N with 1 <= I <= N <= %d", AW_CONTEST_MAX_SHARDS);
                rc = -1;
            }
        } else if (strcmp(k, "entry") == 0) {
            char *t1 = strchr(v, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
            if (!t2 || c->nentries >= AW_CONTEST_MAX_ENTRIES) {
                snprintf(bad, sizeof bad, "line %d: %s", lineno,
                         t2 ? "too many entries" : "an entry is HASH<tab>NAME<tab>PATH");
                rc = -1;
                break;
            }
            if (c->nentries == cap) {
                cap = cap ? cap * 2 : 16;
                c->entries = aw_xrealloc(c->entries, (size_t)cap * sizeof *c->entries);
            }
            aw_contest_entry *e = &c->entries[c->nentries++];
            memset(e, 0, sizeof *e);
            e->hash = strtoull(v, NULL, 16);
            e->name = aw_xstrndup(t1 + 1, (size_t)(t2 - t1 - 1));
            e->path = aw_xstrdup(t2 + 1);
        }
        if (rc < 0) {
            if (!bad[0])
                snprintf(bad, sizeof bad, "line %d: '%.40s' has a value this version does not take", lineno, k);
            break;
        }
    }
    free(text);
    aw_limits_set_memory_mib(&c->limits, memory_mib);
    if (rc == 0 && head && c->until_separated > 0 && !rounds_ranked) {
        /* Rounds drawn before they looked only at the ranked entries: this
         * version would draw others and read the folder's round games as
         * them. */
        snprintf(why, whylen,
                 "%.400s: its --until-separated rounds were drawn by an earlier version (over every entry, "
                 "ranked or not); this version draws them over ranked entries only, and cannot continue, "
                 "report or verify this contest: use the version it was played with",
                 path);
        aw_contest_cfg_free(c);
        return -1;
    }
    if (rc == 0 && !bad[0])
        snprintf(bad, sizeof bad, "%s", !head ? "its first line is not 'aiwolf-contest<tab>1'"
                                       : !c->nplayers ? "it names no players"
                                                      : "it names no entry");
    if (rc < 0 || !head || !c->nplayers || !c->nentries) {
        snprintf(why, whylen, "%.400s is not a contest configuration this version understands%s%s", path,
                 bad[0] ? ": " : "", bad);
        aw_contest_cfg_free(c);
        return -1;
    }
    return 0;
}

/* ---- entries --------------------------------------------------------------- */

static uint64_t walk_sum;
static size_t walk_root;
static int walk_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)ftw;
    if (type != FTW_F || !S_ISREG(st->st_mode))
        return 0;
    size_t len;
    aw_error err;
    char *text = aw_read_input(path, &len, &err);
    uint64_t h = aw_fnv64(AW_FNV64_INIT, path + walk_root, strlen(path + walk_root));
    if (text)
        h = aw_fnv64(h, text, len);
    free(text);
    walk_sum += h; /* order does not matter */
    return 0;
}

int aw_contest_entry_resolve(const char *arg, aw_contest_entry *e, aw_error *err)
{
    memset(e, 0, sizeof *e);
    struct stat st;
    if (stat(arg, &st) != 0) {
        return aw_fail(err, AW_EINVAL, "no entry '%s' (a Lua file or a folder with main.lua)", arg);
    }
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", arg);
    size_t n = strlen(buf);
    while (n > 1 && buf[n - 1] == '/')
        buf[--n] = 0;
    e->path = aw_xstrdup(buf);
    if (S_ISDIR(st.st_mode)) {
        char m[PATH_MAX + 16];
        snprintf(m, sizeof m, "%s/main.lua", buf);
        if (stat(m, &st) != 0 || !S_ISREG(st.st_mode)) {
            return aw_fail(err, AW_EINVAL, "the entry folder '%s' has no main.lua", arg);
        }
        e->main = aw_xstrdup(m);
        e->read_dir = aw_xstrdup(buf);
        const char *slash = strrchr(buf, '/');
        e->name = aw_xstrdup(slash ? slash + 1 : buf);
        walk_sum = 0;
        walk_root = strlen(buf);
        nftw(buf, walk_file, 16, FTW_PHYS);
        e->hash = walk_sum;
    } else {
        e->main = aw_xstrdup(buf);
        const char *slash = strrchr(buf, '/');
        e->read_dir = slash ? aw_xstrndup(buf, slash > buf ? (size_t)(slash - buf) : 1) : aw_xstrdup(".");
        const char *base = slash ? slash + 1 : buf;
        size_t bl = strlen(base);
        if (bl > 4 && strcmp(base + bl - 4, ".lua") == 0)
            bl -= 4;
        e->name = aw_xstrndup(base, bl);
        if (strcmp(e->name, "main") == 0 && slash) {
            free(e->name);
            const char *p = slash;
            while (p > buf && p[-1] != '/')
                p--;
            e->name = aw_xstrndup(p, (size_t)(slash - p));
        }
        size_t len;
        aw_error rerr;
        char *text = aw_read_input(buf, &len, &rerr);
        if (!text) {
            return aw_fail(err, AW_EINVAL, "cannot read the entry %s", rerr.msg);
        }
        e->hash = aw_fnv64(AW_FNV64_INIT, text, len);
        free(text);
    }
    /* Names are shown in tables and written in tab-separated files. */
    for (char *c = e->name; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '_';
    return 0;
}

/* Names people can tell apart: a second "sample" becomes "sample#2". */
void aw_contest_unique_names(aw_contest_cfg *c)
{
    for (int i = 0; i < c->nentries; i++) {
        int k = 1;
        for (int j = 0; j < i; j++)
            if (strcmp(c->entries[j].name, c->entries[i].name) == 0)
                k++;
        if (k > 1) {
            char buf[300];
            snprintf(buf, sizeof buf, "%.280s#%d", c->entries[i].name, k);
            free(c->entries[i].name);
            c->entries[i].name = aw_xstrdup(buf);
        }
    }
}

int aw_contest_write_file(const char *path, const char *data, size_t len)
{
    char tmp[PATH_MAX + 8];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "we");
    if (!f)
        return -1;
    fwrite(data, 1, len, f);
    if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
        fclose(f);
        return -1;
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0)
        return -1;
    return 0;
}
