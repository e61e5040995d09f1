/* logrules: a game log's rules in a file beside it (see logrules.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "logrules.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void aw_logrules_format(const aw_settings *s, aw_buf *b)
{
    aw_buf_adds(b, "# The rules the game logs beside this file were played under; players and\n"
                   "# roles are each log's own. aiwolf check and aiwolf replay read this file\n"
                   "# (docs/log-format.md, \"The rules of a log\").\n");
    aw_buf d;
    aw_buf_init(&d);
    aw_settings_describe(s, &d);
    for (const char *line = d.data ? d.data : ""; *line;) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) + 1 : strlen(line);
        if (strncmp(line, "players=", 8) != 0 && strncmp(line, "roles=", 6) != 0)
            aw_buf_add(b, line, n);
        line += n;
    }
    aw_buf_free(&d);
}

int aw_logrules_parse(const char *text, size_t len, aw_settings *s, aw_error *err)
{
    aw_settings r;
    if (aw_settings_preset(&r, "aiwolf", 5, err) < 0)
        return -1;
    bool any_setting = false;
    long lineno = 0;
    for (const char *p = text, *end = text + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        lineno++;
        char line[256];
        size_t ln = n;
        if (ln && p[ln - 1] == '\r')
            ln--;
        if (ln >= sizeof line || memchr(p, 0, ln))
            return aw_fail(err, AW_EINVAL, "line %ld: not a rules line", lineno);
        memcpy(line, p, ln);
        line[ln] = 0;
        p += n + (nl != NULL);
        if (!line[0] || line[0] == '#' || strncmp(line, "players=", 8) == 0 || strncmp(line, "roles=", 6) == 0)
            continue;
        aw_error e;
        if (strncmp(line, "preset=", 7) == 0) {
            if (any_setting)
                return aw_fail(err, AW_EINVAL, "line %ld: preset= must come before the settings", lineno);
            if (aw_settings_preset(&r, line + 7, 5, &e) < 0)
                return aw_fail(err, AW_EINVAL, "line %ld: %s", lineno, e.msg);
            continue;
        }
        if (aw_settings_set(&r, line, &e) < 0)
            return aw_fail(err, AW_EINVAL, "line %ld: %s", lineno, e.msg);
        any_setting = true;
    }
    *s = r;
    return 0;
}

int aw_logrules_write(const char *path, const aw_settings *s, aw_error *err)
{
    aw_buf b;
    aw_buf_init(&b);
    aw_logrules_format(s, &b);
    size_t len = 0;
    aw_error rerr;
    char *old = aw_read_file(path, &len, &rerr);
    bool same = old && len == b.len && memcmp(old, b.data, len) == 0;
    free(old);
    int rc = 0;
    if (!same) {
        /* A name of this process's own: writers of one folder may race. */
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
        FILE *f = fopen(tmp, "we");
        bool ok = f && fwrite(b.data, 1, b.len, f) == b.len;
        if (f && fclose(f) != 0)
            ok = false;
        if (!ok || rename(tmp, path) != 0) {
            rc = aw_fail(err, AW_EIO, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
            remove(tmp);
        }
    }
    aw_buf_free(&b);
    return rc;
}

int aw_logrules_claim_folder(const char *dir, const aw_settings *s, aw_error *err)
{
    char path[4096], tmp[4200];
    if (snprintf(path, sizeof path, "%s/%s", dir, AW_LOGRULES_FOLDER) >= (int)sizeof path)
        return aw_fail(err, AW_EINVAL, "the folder name is too long: %.200s", dir);
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    aw_buf b;
    aw_buf_init(&b);
    aw_logrules_format(s, &b);
    int rc = 2; /* not known yet */
    for (int attempt = 0; attempt < 2 && rc == 2; attempt++) {
        struct stat st;
        if (stat(path, &st) == 0) {
            size_t len = 0;
            aw_error rerr;
            char *old = aw_read_file(path, &len, &rerr);
            if (old)
                rc = len == b.len && memcmp(old, b.data, len) == 0;
            else
                rc = aw_fail(err, AW_EIO, "%s", rerr.msg);
            free(old);
            break;
        }
        if (errno == ENOTDIR) {
            rc = aw_fail(err, AW_EIO, "%.1000s is a file: the logs of many games go into a folder (one SEED.log each)",
                         dir);
            break;
        }
        if (errno != ENOENT) {
            rc = aw_fail(err, AW_EIO, "%s: %s", path, strerror(errno));
            break;
        }
        /* Create it whole or not at all: a file of its own, linked to the
         * name only if nobody has taken the name meanwhile. */
        FILE *f = fopen(tmp, "we");
        bool ok = f && fwrite(b.data, 1, b.len, f) == b.len;
        if (f && fclose(f) != 0)
            ok = false;
        if (!ok) {
            rc = aw_fail(err, AW_EIO, "cannot write %s: %s", tmp, strerror(errno ? errno : EIO));
        } else if (link(tmp, path) == 0) {
            rc = 1;
        } else if (errno != EEXIST) {
            rc = aw_fail(err, AW_EIO, "cannot write %s: %s", path, strerror(errno));
        } /* else: another run made it; read it again */
        remove(tmp);
    }
    aw_buf_free(&b);
    return rc == 2 ? aw_fail(err, AW_EIO, "cannot write %s", path) : rc;
}

int aw_logrules_path(const char *log_path, char *out, size_t outlen)
{
    size_t n = strlen(log_path);
    if (n > 11 && strcmp(log_path + n - 11, ".unfinished") == 0)
        n -= 11; /* serve's name for a game its stop abandoned */
    if (n > 3 && strncmp(log_path + n - 3, ".gz", 3) == 0)
        n -= 3;
    int w = snprintf(out, outlen, "%.*s%s", (int)n, log_path, AW_LOGRULES_SUFFIX);
    return w < 0 || (size_t)w >= outlen ? -1 : 0;
}

int aw_logrules_beside(const char *log_path, const aw_settings *s, aw_error *err)
{
    char path[4200];
    if (aw_logrules_path(log_path, path, sizeof path) < 0)
        return aw_fail(err, AW_EINVAL, "the log's name is too long: %.200s", log_path);
    if (s)
        return aw_logrules_write(path, s, err);
    if (remove(path) != 0 && errno != ENOENT)
        return aw_fail(err, AW_EIO, "cannot remove %s: %s", path, strerror(errno));
    return 0;
}

/* Reads the rules file at path into s: 1, 0 when there is no such file, a negative value
 * with err. */
static int read_rules(const char *path, aw_settings *s, aw_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return 0;
    if (!S_ISREG(st.st_mode) || st.st_size > AW_LOGRULES_MAX)
        return aw_fail(err, AW_EINVAL, "%s: not a rules file (a file of at most %d bytes)", path, AW_LOGRULES_MAX);
    size_t len;
    aw_error e;
    char *text = aw_read_file(path, &len, &e);
    if (!text)
        return aw_fail(err, AW_EIO, "%s", e.msg);
    int rc = aw_logrules_parse(text, len, s, &e);
    free(text);
    if (rc < 0)
        return aw_fail(err, AW_EINVAL, "%s: %s", path, e.msg);
    return 1;
}

/* A contest's configuration (contest.cfg: "key\tvalue" lines): its "preset"
 * and "set" lines. 1, 0 (no file), negative with err. */
static int read_contest_cfg(const char *path, aw_settings *s, aw_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return 0;
    if (!S_ISREG(st.st_mode) || st.st_size > 4 * AW_LOGRULES_MAX)
        return aw_fail(err, AW_EINVAL, "%s: not a contest configuration", path);
    size_t len;
    aw_error e;
    char *text = aw_read_file(path, &len, &e);
    if (!text)
        return aw_fail(err, AW_EIO, "%s", e.msg);
    if (strncmp(text, "aiwolf-contest\t", 15) != 0) {
        free(text);
        return 0; /* some other file of that name */
    }
    /* Into rules-file lines: "preset\tP" becomes "preset=P", "set\tN=V" "N=V". */
    aw_buf b;
    aw_buf_init(&b);
    for (const char *p = text, *end = text + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (n > 7 && strncmp(p, "preset\t", 7) == 0) {
            aw_buf_adds(&b, "preset=");
            aw_buf_add(&b, p + 7, n - 7);
            aw_buf_addc(&b, '\n');
        } else if (n > 4 && strncmp(p, "set\t", 4) == 0) {
            aw_buf_add(&b, p + 4, n - 4);
            aw_buf_addc(&b, '\n');
        }
        p += n + (nl != NULL);
    }
    free(text);
    int rc = aw_logrules_parse(b.data ? b.data : "", b.len, s, &e);
    aw_buf_free(&b);
    if (rc < 0)
        return aw_fail(err, AW_EINVAL, "%s: %s", path, e.msg);
    return 1;
}

int aw_logrules_find(const char *log_path, aw_settings *s, char *found, size_t foundlen, aw_error *err)
{
    char path[4096];
    if (aw_logrules_path(log_path, path, sizeof path) == 0) {
        int rc = read_rules(path, s, err);
        if (rc != 0) {
            snprintf(found, foundlen, "%s", path);
            return rc;
        }
    }
    /* The log's folder, and the contest around a "logs" folder. */
    const char *slash = strrchr(log_path, '/');
    int dl = slash ? (int)(slash - log_path) : 0;
    const char *dir = slash ? log_path : ".";
    if (!slash)
        dl = 1;
    if (slash && dl == 0)
        dl = 1; /* "/game.log": the root */
    if (snprintf(path, sizeof path, "%.*s/%s", dl, dir, AW_LOGRULES_FOLDER) >= (int)sizeof path)
        return 0;
    int rc = read_rules(path, s, err);
    if (rc != 0) {
        snprintf(found, foundlen, "%s", path);
        return rc;
    }
    /* A contest's logs folder: its real name is "logs". */
    char dirname[4096], real[PATH_MAX];
    snprintf(dirname, sizeof dirname, "%.*s", dl, dir);
    if (!realpath(dirname, real))
        return 0;
    const char *base = strrchr(real, '/');
    if (!base || strcmp(base, "/logs") != 0)
        return 0;
    if (snprintf(path, sizeof path, "%.*s/contest.cfg", (int)(base - real), real) >= (int)sizeof path)
        return 0;
    rc = read_contest_cfg(path, s, err);
    if (rc != 0)
        snprintf(found, foundlen, "%s", path);
    return rc;
}
