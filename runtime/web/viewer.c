/* viewer: the list of games `aiwolf view` serves and its routes (see viewer.h). */
#include "viewer.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pages.h"
#include "viewdata.h"

typedef struct game {
    char *path;  /* the file */
    char *name;  /* as listed */
    char *info;  /* games.tsv columns, as JSON members (",\"players\":5,..."), or "" */
    char *extra; /* members for the game's own JSON (a contest game's entries), or "" */
    char *faults; /* a contest game's faults file (logs/N.faults), or NULL */
} game;

struct aw_viewer {
    game *games;
    size_t n, cap;
    char *report; /* a contest folder's report.html, or NULL */
    char *title;
};

static void add_game(aw_viewer *v, const char *path, const char *name, const char *info, const char *extra,
                     const char *faults)
{
    if (v->n == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 16;
        v->games = aw_xrealloc(v->games, v->cap * sizeof *v->games);
    }
    v->games[v->n].path = aw_xstrdup(path);
    v->games[v->n].name = aw_xstrdup(name);
    v->games[v->n].info = aw_xstrdup(info ? info : "");
    v->games[v->n].extra = aw_xstrdup(extra ? extra : "");
    v->games[v->n].faults = faults ? aw_xstrdup(faults) : NULL;
    v->n++;
}

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static bool game_file_name(const char *name)
{
    return name[0] != '.' && (ends_with(name, ".log") || ends_with(name, ".log.gz") || ends_with(name, ".jsonl") ||
                              ends_with(name, ".events"));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Splits line at tabs (in place) into at most max columns; their count. */
static int split_tabs(char *line, char **cols, int max)
{
    int nc = 0;
    for (char *p = line; nc < max;) {
        cols[nc++] = p;
        char *tab = strchr(p, '\t');
        if (!tab)
            break;
        *tab = '\0';
        p = tab + 1;
    }
    return nc;
}

/* The entries' names from contest.cfg ("entry<TAB>hash<TAB>name<TAB>path"),
 * in order; NULL-terminated, owned by the caller. */
static char **contest_entries(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/contest.cfg", dir);
    size_t len = 0;
    char *text = aw_read_file(path, &len, NULL);
    char **names = aw_xcalloc(1, sizeof *names);
    size_t n = 0;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *cols[4];
        if (split_tabs(line, cols, 4) >= 3 && strcmp(cols[0], "entry") == 0) {
            names = aw_xrealloc(names, (n + 2) * sizeof *names);
            names[n++] = aw_xstrdup(cols[2]);
            names[n] = NULL;
        }
    }
    free(text);
    return names;
}

/* A contest folder: one game per line of games.tsv (docs/contest.md: index,
 * unit, game in unit, seed, players, the seats' entries, the seats' roles,
 * winner, last day, calls, faults, the log's path relative to the folder,
 * times). */
static int add_contest(aw_viewer *v, const char *dir, aw_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/games.tsv", dir);
    size_t len = 0;
    char *text = aw_read_file(path, &len, err);
    if (!text)
        return -AW_EIO;
    char **entries = contest_entries(dir);
    size_t nentries = 0;
    while (entries[nentries])
        nentries++;
    size_t before = v->n;
    aw_buf info, extra;
    aw_buf_init(&info);
    aw_buf_init(&extra);
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *cols[16];
        int nc = split_tabs(line, cols, 16);
        long players;
        if (nc < 12 || aw_parse_long(cols[4], 1, 100, &players) != 0)
            continue;
        const char *log = cols[11];
        char logpath[4096];
        snprintf(logpath, sizeof logpath, "%s/%s", dir, log);
        if (log[0] == '/' || strstr(log, "..") || !is_file(logpath))
            continue;
        aw_buf_clear(&info);
        aw_buf_printf(&info, ",\"players\":%ld,\"winner\":", players);
        aw_buf_add_json(&info, cols[7], strlen(cols[7]));
        aw_buf_adds(&info, ",\"days\":");
        aw_buf_add_json(&info, cols[8], strlen(cols[8]));
        /* each seat: [its entry (the organiser's name, contest.cfg), its
         * role, its faults (games.tsv: error.timeout.memory.reply.lost)] */
        aw_buf_adds(&info, ",\"seats\":[");
        aw_buf_clear(&extra);
        aw_buf_adds(&extra, ",\"entries\":[");
        char *ep = cols[5], *rp = cols[6], *fp = cols[10];
        long total = 0;
        for (long s = 0; s < players && ep && rp; s++) {
            char *ec = strchr(ep, ','), *rc = strchr(rp, ','), *fc = fp ? strchr(fp, ',') : NULL;
            if (ec)
                *ec = '\0';
            if (rc)
                *rc = '\0';
            if (fc)
                *fc = '\0';
            long e, faults = 0;
            const char *ename = aw_parse_long(ep, 0, (long)nentries - 1, &e) == 0 ? entries[e] : ep;
            for (char *q = fp; q && *q;) {
                char *dot;
                long k = strtol(q, &dot, 10);
                if (dot == q || k < 0 || k > 1000000000L)
                    break;
                faults += k;
                q = *dot == '.' ? dot + 1 : NULL;
            }
            total += faults;
            aw_buf_adds(&info, s ? ",[" : "[");
            aw_buf_add_json(&info, ename, strlen(ename));
            aw_buf_addc(&info, ',');
            aw_buf_add_json(&info, rp, strlen(rp));
            aw_buf_printf(&info, ",%ld]", faults);
            if (s)
                aw_buf_addc(&extra, ',');
            aw_buf_add_json(&extra, ename, strlen(ename));
            ep = ec ? ec + 1 : NULL;
            rp = rc ? rc + 1 : NULL;
            fp = fc ? fc + 1 : NULL;
        }
        aw_buf_printf(&info, "],\"faults\":%ld", total);
        aw_buf_addc(&extra, ']');
        /* the faults' messages beside the log: logs/N.log.gz -> logs/N.faults */
        char faultpath[4096];
        size_t stem = strlen(logpath);
        if (ends_with(logpath, ".log.gz"))
            stem -= 7;
        else if (ends_with(logpath, ".log"))
            stem -= 4;
        snprintf(faultpath, sizeof faultpath, "%.*s.faults", (int)stem, logpath);
        char name[64];
        snprintf(name, sizeof name, "game %.40s", cols[0]);
        add_game(v, logpath, name, info.data, extra.data, faultpath);
    }
    aw_buf_free(&info);
    aw_buf_free(&extra);
    for (size_t i = 0; i < nentries; i++)
        free(entries[i]);
    free(entries);
    free(text);
    if (v->n == before)
        return aw_fail(err, AW_EINVAL, "%s: no game in games.tsv has its log", dir);
    snprintf(path, sizeof path, "%s/report.html", dir);
    if (is_file(path) && !v->report)
        v->report = aw_xstrdup(path);
    return 0;
}

static int add_dir(aw_viewer *v, const char *dir, aw_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/games.tsv", dir);
    if (is_file(path))
        return add_contest(v, dir, err);
    DIR *d = opendir(dir);
    if (!d)
        return aw_fail(err, AW_EIO, "cannot open the folder %s", dir);
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!game_file_name(e->d_name))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (!is_file(path))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 32;
            names = aw_xrealloc(names, cap * sizeof *names);
        }
        names[n++] = aw_xstrdup(e->d_name);
    }
    closedir(d);
    if (n > 1)
        qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        add_game(v, path, names[i], NULL, NULL, NULL);
        free(names[i]);
    }
    free(names);
    if (n == 0)
        return aw_fail(err, AW_EINVAL, "%s: no game files (*.log, *.log.gz, *.jsonl) and no games.tsv", dir);
    return 0;
}

aw_viewer *aw_viewer_new(char *const *paths, int n, aw_error *err)
{
    aw_viewer *v = aw_xcalloc(1, sizeof *v);
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0) {
            aw_fail(err, AW_EIO, "%s: no such file or folder", paths[i]);
            aw_viewer_free(v);
            return NULL;
        }
        if (S_ISDIR(st.st_mode)) {
            if (add_dir(v, paths[i], err) < 0) {
                aw_viewer_free(v);
                return NULL;
            }
        } else {
            const char *base = strrchr(paths[i], '/');
            add_game(v, paths[i], base ? base + 1 : paths[i], NULL, NULL, NULL);
        }
    }
    const char *t = n == 1 ? strrchr(paths[0], '/') : NULL;
    v->title = aw_xstrdup(n == 1 ? (t && t[1] ? t + 1 : paths[0]) : "game logs");
    return v;
}

void aw_viewer_free(aw_viewer *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n; i++) {
        free(v->games[i].path);
        free(v->games[i].name);
        free(v->games[i].info);
        free(v->games[i].extra);
        free(v->games[i].faults);
    }
    free(v->games);
    free(v->report);
    free(v->title);
    free(v);
}

size_t aw_viewer_count(const aw_viewer *v)
{
    return v->n;
}

static void page(void *ud, const aw_web_request *req, aw_web_response *res)
{
    (void)ud;
    (void)req;
    aw_web_page_respond("viewer.html", res);
}

static void list(void *ud, const aw_web_request *req, aw_web_response *res)
{
    aw_viewer *v = ud;
    (void)req;
    res->type = AW_WEB_JSON;
    aw_buf_adds(&res->body, "{\"title\":");
    aw_buf_add_json(&res->body, v->title, strlen(v->title));
    aw_buf_printf(&res->body, ",\"report\":%s,\"games\":[", v->report ? "true" : "false");
    for (size_t i = 0; i < v->n; i++) {
        aw_buf_printf(&res->body, "%s\n{\"id\":%zu,\"name\":", i ? "," : "", i);
        aw_buf_add_json(&res->body, v->games[i].name, strlen(v->games[i].name));
        aw_buf_printf(&res->body, "%s}", v->games[i].info);
    }
    aw_buf_adds(&res->body, "]}");
}

static void one(void *ud, const aw_web_request *req, aw_web_response *res)
{
    aw_viewer *v = ud;
    long id;
    if (aw_parse_long(req->rest, 0, (long)v->n - 1, &id) != 0) {
        res->status = 404;
        res->type = AW_WEB_JSON;
        aw_buf_adds(&res->body, "{\"error\":\"no such game\"}");
        return;
    }
    res->type = AW_WEB_JSON;
    const game *g = &v->games[id];
    aw_view_game_json(g->path, g->name, &res->body);
    if (g->faults && res->body.len && res->body.data[res->body.len - 1] == '}') {
        /* a contest game: its seats' entries and its faults' messages too */
        res->body.len--;
        aw_buf_adds(&res->body, g->extra);
        aw_view_faults_json(g->faults, &res->body);
        aw_buf_addc(&res->body, '}');
    }
}

static void report(void *ud, const aw_web_request *req, aw_web_response *res)
{
    aw_viewer *v = ud;
    (void)req;
    aw_error err;
    size_t len = 0;
    char *text = v->report ? aw_read_file(v->report, &len, &err) : NULL;
    if (!text) {
        res->status = 404;
        aw_buf_adds(&res->body, v->report ? err.msg : "no contest report here");
        return;
    }
    res->type = AW_WEB_HTML;
    res->sandbox = true;
    aw_buf_add(&res->body, text, len);
    free(text);
}

void aw_viewer_routes(aw_viewer *v, aw_web *w)
{
    aw_web_serve_pages(w);
    aw_web_route(w, "/", page, v);
    aw_web_route(w, "/api/games", list, v);
    aw_web_route(w, "/api/game/", one, v);
    aw_web_route(w, "/report", report, v);
}
