/* provenance: a contest's provenance, its file and its report sections (see
 * provenance.h). */
#define _XOPEN_SOURCE 700 /* gmtime_r */
#include "provenance.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "jsonw.h"
#include "reports.h"
#include "results.h"
#include "sha256.h"

void aw_provenance_init(aw_provenance *p, int nentries)
{
    memset(p, 0, sizeof *p);
    p->nentries = nentries;
    p->sha256 = aw_xcalloc((size_t)(nentries > 0 ? nentries : 1), sizeof *p->sha256);
}

void aw_provenance_free(aw_provenance *p)
{
    free(p->sha256);
    free(p->sessions);
    memset(p, 0, sizeof *p);
}

void aw_provenance_add_session(aw_provenance *p, const aw_contest_session *s)
{
    p->sessions = aw_xrealloc(p->sessions, (size_t)(p->nsessions + 1) * sizeof *p->sessions);
    p->sessions[p->nsessions++] = *s;
}

void aw_utc_now(char out[32])
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Copies the tab-separated field at *p into out (at most n - 1 bytes),
 * moving *p past it; -1 when there is none. */
static int field(char **p, char *out, size_t n)
{
    if (!*p)
        return -1;
    char *tab = strchr(*p, '\t');
    size_t len = tab ? (size_t)(tab - *p) : strlen(*p);
    snprintf(out, n, "%.*s", (int)len, *p);
    *p = tab ? tab + 1 : NULL;
    return 0;
}

int aw_provenance_load(aw_provenance *p, const char *dir, aw_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/provenance.tsv", dir);
    struct stat st;
    if (stat(path, &st) != 0)
        return 0;
    size_t len;
    char *text = aw_read_file(path, &len, err);
    if (!text)
        return -1;
    int rc = 0, entry = 0;
    char *save = NULL;
    bool head = false;
    for (char *line = strtok_r(text, "\n", &save); line && rc == 0; line = strtok_r(NULL, "\n", &save)) {
        char key[32], a[32];
        char *q = line;
        if (field(&q, key, sizeof key) < 0)
            continue;
        if (strcmp(key, "aiwolf-contest-provenance") == 0) {
            head = field(&q, a, sizeof a) == 0 && strcmp(a, "1") == 0;
        } else if (strcmp(key, "entry") == 0) {
            char sha[80];
            if (field(&q, sha, sizeof sha) < 0 || strlen(sha) != 64)
                rc = -1;
            else if (entry < p->nentries)
                memcpy(p->sha256[entry++], sha, 65);
        } else if (strcmp(key, "session") == 0) {
            aw_contest_session s;
            memset(&s, 0, sizeof s);
            char cores[16], jobs[16], games[32];
            if (field(&q, s.shard, sizeof s.shard) < 0 || field(&q, s.start, sizeof s.start) < 0 ||
                field(&q, s.end, sizeof s.end) < 0 || field(&q, s.version, sizeof s.version) < 0 ||
                field(&q, cores, sizeof cores) < 0 || field(&q, jobs, sizeof jobs) < 0 ||
                field(&q, games, sizeof games) < 0 || field(&q, s.status, sizeof s.status) < 0) {
                rc = -1;
                break;
            }
            s.cores = atoi(cores);
            s.jobs = atoi(jobs);
            s.games = atol(games);
            aw_provenance_add_session(p, &s);
        }
    }
    free(text);
    if (rc < 0 || !head)
        return aw_fail(err, AW_EINVAL, "%s is not a provenance file this version understands", path);
    return 0;
}

/* Names and versions go into a tab-separated line: no tabs or line ends. */
static void tsv_text(aw_buf *b, const char *s)
{
    for (; *s; s++)
        aw_buf_addc(b, *s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s);
}

int aw_provenance_save(const aw_provenance *p, const char *dir, const char *const *names, aw_error *err)
{
    aw_buf b;
    aw_buf_init(&b);
    aw_buf_adds(&b, "aiwolf-contest-provenance\t1\n");
    for (int i = 0; i < p->nentries; i++) {
        aw_buf_printf(&b, "entry\t%s\t", p->sha256[i][0] ? p->sha256[i] : "-");
        tsv_text(&b, names[i]);
        aw_buf_addc(&b, '\n');
    }
    for (int i = 0; i < p->nsessions; i++) {
        const aw_contest_session *s = &p->sessions[i];
        aw_buf_printf(&b, "session\t%s\t%s\t%s\t", s->shard, s->start, s->end);
        tsv_text(&b, s->version);
        aw_buf_printf(&b, "\t%d\t%d\t%ld\t%s\n", s->cores, s->jobs, s->games, s->status);
    }
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/provenance.tsv", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "we");
    bool ok = f && fwrite(b.data, 1, b.len, f) == b.len;
    if (f && fclose(f) != 0)
        ok = false;
    aw_buf_free(&b);
    if (!ok || rename(tmp, path) != 0) {
        remove(tmp);
        aw_fail(err, AW_EIO, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}

/* ---- an entry's SHA-256 ----------------------------------------------------- */

static int file_sha256(const char *path, char hex[65], aw_error *err)
{
    size_t len;
    char *text = aw_read_file(path, &len, err);
    if (!text)
        return -1;
    aw_sha256_of(text, len, hex);
    free(text);
    return 0;
}

typedef struct file_list {
    char **rel; /* "./a/b.lua" */
    int n, cap;
} file_list;

/* The regular files under root/rel (symbolic links are not followed, as the
 * sandbox's reads do not leave the folder through them either). */
static int list_files(const char *root, const char *rel, int depth, file_list *l, aw_error *err)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    DIR *d = opendir(path);
    if (!d)
        return aw_fail(err, AW_EIO, "cannot read the folder %s: %s", path, strerror(errno));
    int rc = 0;
    struct dirent *de;
    while (rc == 0 && (de = readdir(d))) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        char sub[4096], full[8192];
        if (snprintf(sub, sizeof sub, "%s/%s", rel, de->d_name) >= (int)sizeof sub)
            continue;
        snprintf(full, sizeof full, "%s/%s", root, sub);
        struct stat st;
        if (lstat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode) && depth < 64) {
            rc = list_files(root, sub, depth + 1, l, err);
        } else if (S_ISREG(st.st_mode)) {
            if (l->n == l->cap) {
                l->cap = l->cap ? 2 * l->cap : 16;
                l->rel = aw_xrealloc(l->rel, (size_t)l->cap * sizeof *l->rel);
            }
            l->rel[l->n++] = aw_xstrdup(sub);
        }
    }
    closedir(d);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int aw_entry_sha256(const char *path, char hex[65], aw_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return aw_fail(err, AW_EIO, "no entry %s: %s", path, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return file_sha256(path, hex, err);
    file_list l = {NULL, 0, 0};
    int rc = list_files(path, ".", 0, &l, err);
    if (rc == 0)
        qsort(l.rel, (size_t)l.n, sizeof *l.rel, cmp_str);
    aw_sha256 all;
    aw_sha256_init(&all);
    for (int i = 0; i < l.n && rc == 0; i++) {
        char full[8192], one[65];
        snprintf(full, sizeof full, "%s/%s", path, l.rel[i] + 2);
        rc = file_sha256(full, one, err);
        if (rc == 0) {
            /* sha256sum's line: the digest, two spaces, the name. */
            aw_sha256_update(&all, one, 64);
            aw_sha256_update(&all, "  ", 2);
            aw_sha256_update(&all, l.rel[i], strlen(l.rel[i]));
            aw_sha256_update(&all, "\n", 1);
        }
    }
    for (int i = 0; i < l.n; i++)
        free(l.rel[i]);
    free(l.rel);
    if (rc == 0)
        aw_sha256_hex(&all, hex);
    return rc;
}

/* ---- in the report ---------------------------------------------------------- */

/* What the sessions add up to: the first start, the last end, the versions
 * that played (each once), the last session. */
typedef struct prov_summary {
    const char *start, *end;
    aw_buf versions;
    const aw_contest_session *last;
    bool finished; /* the last session completed the contest */
} prov_summary;

static void summarize(const aw_provenance *p, prov_summary *u)
{
    memset(u, 0, sizeof *u);
    aw_buf_init(&u->versions);
    for (int i = 0; i < p->nsessions; i++) {
        const aw_contest_session *s = &p->sessions[i];
        if (!u->start || strcmp(s->start, u->start) < 0)
            u->start = s->start;
        if (!u->end || strcmp(s->end, u->end) > 0)
            u->end = s->end;
        bool seen = false;
        for (int j = 0; j < i; j++)
            seen |= strcmp(p->sessions[j].version, s->version) == 0;
        if (!seen) {
            if (u->versions.len)
                aw_buf_adds(&u->versions, ", ");
            aw_buf_adds(&u->versions, s->version);
        }
    }
    u->last = p->nsessions ? &p->sessions[p->nsessions - 1] : NULL;
    u->finished = u->end && u->last && strcmp(u->last->status, "complete") == 0;
}

void aw_provenance_json(const aw_provenance *p, const aw_contest_info *ci, aw_buf *b)
{
    prov_summary u;
    summarize(p, &u);
    const aw_contest_session *last = u.last;
    aw_buf_adds(b, "\"provenance\": {\"program_version\": ");
    aw_json_str(b, u.versions.len ? u.versions.data : NULL);
    aw_buf_adds(b, ", \"report_version\": ");
    aw_json_str(b, p->version ? p->version : "");
    aw_buf_adds(b, ", \"started\": ");
    aw_json_str(b, u.start);
    aw_buf_adds(b, ", \"finished\": ");
    aw_json_str(b, u.finished ? u.end : NULL);
    if (last)
        aw_buf_printf(b, ", \"host_cores\": %d, \"jobs\": %d", last->cores, last->jobs);
    else
        aw_buf_adds(b, ", \"host_cores\": null, \"jobs\": null");
    aw_buf_adds(b, ",\n    \"options\": {\"format\": ");
    aw_json_str(b, ci->format);
    aw_buf_adds(b, ", \"players\": [");
    for (int i = 0; i < ci->nplayers; i++)
        aw_buf_printf(b, "%s%d", i ? ", " : "", ci->players[i]);
    aw_buf_printf(b, "], \"seed\": \"%llu\", \"preset\": ", (unsigned long long)ci->seed);
    aw_json_str(b, p->preset ? p->preset : "");
    aw_buf_adds(b, ", \"set\": [");
    for (int i = 0; i < p->nsets; i++) {
        if (i)
            aw_buf_adds(b, ", ");
        aw_json_str(b, p->sets[i]);
    }
    aw_buf_printf(b,
                  "], \"games_per_entry\": %ld, \"sets\": %d, \"set_games\": %d, \"budget_ms\": %d, "
                  "\"memory_mb\": %d, \"work\": %llu, \"shard\": \"%d/%d\"},\n    \"entries\": [",
                  p->games_per_entry, p->sets_per_count, p->set_games, ci->limits.budget_ms,
                  aw_limits_memory_mib(&ci->limits), (unsigned long long)ci->limits.work_budget, ci->shard, ci->nshards);
    for (int i = 0; i < p->nentries; i++) {
        aw_buf_adds(b, i ? ",\n      {\"name\": " : "\n      {\"name\": ");
        aw_json_str(b, ci->names[i]);
        aw_buf_adds(b, ", \"path\": ");
        aw_json_str(b, ci->paths[i]);
        aw_buf_adds(b, ", \"sha256\": ");
        aw_json_str(b, p->sha256[i][0] ? p->sha256[i] : NULL);
        aw_buf_adds(b, "}");
    }
    aw_buf_adds(b, "],\n    \"sessions\": [");
    for (int i = 0; i < p->nsessions; i++) {
        const aw_contest_session *s = &p->sessions[i];
        aw_buf_adds(b, i ? ",\n      {\"shard\": " : "\n      {\"shard\": ");
        aw_json_str(b, s->shard);
        aw_buf_adds(b, ", \"start\": ");
        aw_json_str(b, s->start);
        aw_buf_adds(b, ", \"end\": ");
        aw_json_str(b, s->end);
        aw_buf_adds(b, ", \"version\": ");
        aw_json_str(b, s->version);
        aw_buf_printf(b, ", \"host_cores\": %d, \"jobs\": %d, \"games\": %ld, \"status\": ", s->cores, s->jobs,
                      s->games);
        aw_json_str(b, s->status);
        aw_buf_adds(b, "}");
    }
    aw_buf_adds(b, "]}");
    aw_buf_free(&u.versions);
}

void aw_provenance_md(const aw_provenance *p, const aw_contest_info *ci, FILE *out)
{
    prov_summary u;
    summarize(p, &u);
    const aw_contest_session *last = u.last;
    fprintf(out, "\n## Provenance\n\n");
    fprintf(out, "- Played by aiwolf-lua %s", u.versions.len ? u.versions.data : "(not recorded)");
    fprintf(out, "; this report by aiwolf-lua %s.\n", p->version ? p->version : "?");
    if (p->nsessions)
        fprintf(out, "- Started %s, %s%s (UTC), in %d session%s", u.start,
                u.finished ? "finished " : "not finished; last session ended ", u.end, p->nsessions,
                p->nsessions == 1 ? "" : "s");
    else
        fprintf(out, "- No session recorded (provenance.tsv is missing: a contest from before it)");
    if (last)
        fprintf(out, "; the last on a host with %d core%s, %d job%s", last->cores, last->cores == 1 ? "" : "s",
                last->jobs, last->jobs == 1 ? "" : "s");
    fprintf(out, ".\n- Options: format %s, players ", ci->format);
    for (int i = 0; i < ci->nplayers; i++)
        fprintf(out, "%s%d", i ? "," : "", ci->players[i]);
    fprintf(out, ", master seed %llu, preset ", (unsigned long long)ci->seed);
    aw_contest_md_text(out, p->preset ? p->preset : "?");
    for (int i = 0; i < p->nsets; i++) {
        fputs(", --set ", out);
        aw_contest_md_text(out, p->sets[i]);
    }
    if (p->games_per_entry)
        fprintf(out, ", %ld games per entry", p->games_per_entry);
    if (p->sets_per_count)
        fprintf(out, ", %d sets of %d games", p->sets_per_count, p->set_games);
    fprintf(out, ", budget %d ms, memory %d MiB", ci->limits.budget_ms, aw_limits_memory_mib(&ci->limits));
    if (ci->limits.work_budget)
        fprintf(out, ", %llu work units per call", (unsigned long long)ci->limits.work_budget);
    fprintf(out, ", shard %d/%d.\n\n", ci->shard, ci->nshards);
    fprintf(out, "| entry | path | SHA-256 |\n|---|---|---|\n");
    for (int i = 0; i < p->nentries; i++) {
        fputs("| ", out);
        aw_contest_md_text(out, ci->names[i]);
        fputs(" | ", out);
        aw_contest_md_text(out, ci->paths[i]);
        fprintf(out, " | %s |\n", p->sha256[i][0] ? p->sha256[i] : "(not recorded)");
    }
    aw_buf_free(&u.versions);
}
