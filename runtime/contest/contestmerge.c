/* contestmerge: the slices of a contest brought together (contestmerge.h). */
#define _GNU_SOURCE
#include "contestmerge.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results.h"

int aw_contest_merge_slices(const char *const *dirs, int n, aw_contest_cfg *first, bool **seen, aw_error *err)
{
    *seen = NULL;
    char why[600];
    if (aw_contest_cfg_read(dirs[0], first, why, sizeof why) < 0)
        return aw_fail(err, AW_EINVAL, "%s", why);
    aw_buf want;
    aw_buf_init(&want);
    aw_contest_cfg_format(first, false, &want);
    int nshards = first->nshards;
    bool *s = aw_xcalloc((size_t)nshards + 1, sizeof *s);
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        aw_contest_cfg sc;
        if (aw_contest_cfg_read(dirs[i], &sc, why, sizeof why) < 0) {
            rc = aw_fail(err, AW_EINVAL, "%s", why);
            break;
        }
        aw_buf got;
        aw_buf_init(&got);
        aw_contest_cfg_format(&sc, false, &got);
        bool same = got.len == want.len && memcmp(got.data, want.data, got.len) == 0 && sc.nshards == nshards;
        int sh = sc.shard;
        aw_buf_free(&got);
        aw_contest_cfg_free(&sc);
        if (!same)
            rc = aw_fail(err, AW_EINVAL, "%s is a slice of another contest than %s", dirs[i], dirs[0]);
        else if (sh < 1 || sh > nshards) /* a damaged contest.cfg */
            rc = aw_fail(err, AW_EINVAL, "%s/contest.cfg names the shard %d/%d", dirs[i], sh, nshards);
        else if (s[sh])
            rc = aw_fail(err, AW_EINVAL, "shard %d/%d is given twice", sh, nshards);
        else
            s[sh] = true;
    }
    aw_buf_free(&want);
    if (rc < 0) {
        free(s);
        aw_contest_cfg_free(first);
        return -1;
    }
    *seen = s;
    return 0;
}

int aw_contest_merge_folder(const char *dir, aw_error *err)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return aw_fail(err, AW_EIO, "cannot create the folder %s: %s", dir, strerror(errno));
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/contest.cfg", dir);
    if (access(path, F_OK) == 0)
        return aw_fail(err, AW_EINVAL, "%s holds a contest already; merge into a new folder", dir);
    snprintf(path, sizeof path, "%s/logs", dir);
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return aw_fail(err, AW_EIO, "cannot create the folder %s: %s", path, strerror(errno));
    return 0;
}

int aw_contest_bring_file(const char *from, const char *to)
{
    if (link(from, to) == 0 || errno == EEXIST)
        return 0;
    size_t len;
    aw_error err;
    char *text = aw_read_input(from, &len, &err);
    if (!text)
        return -1;
    int rc = aw_contest_write_file(to, text, len);
    free(text);
    return rc;
}

int aw_contest_bring_logs(const char *from_dir, const char *to_dir, const char *text, size_t len, int nentries)
{
    aw_game_record *rec = aw_xcalloc(1, sizeof *rec);
    char from[PATH_MAX * 2], to[PATH_MAX * 2];
    aw_error err;
    int bad_log = 0;
    for (const char *p = text, *end = text + len; p && p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            nl = end;
        if (aw_record_parse(p, (size_t)(nl - p), nentries, rec, &err) == 0) {
            snprintf(from, sizeof from, "%s/%s", from_dir, rec->log);
            snprintf(to, sizeof to, "%s/%s", to_dir, rec->log);
            if (!strstr(rec->log, "..") && rec->log[0] != '/' && aw_contest_bring_file(from, to) < 0)
                bad_log++;
        }
        p = nl + 1;
    }
    free(rec);
    return bad_log;
}

void aw_contest_merge_provenance(aw_provenance *to, const aw_provenance *from)
{
    for (int i = 0; i < from->nsessions; i++)
        aw_provenance_add_session(to, &from->sessions[i]);
    for (int i = 0; i < to->nentries && i < from->nentries; i++)
        if (!to->sha256[i][0])
            memcpy(to->sha256[i], from->sha256[i], sizeof to->sha256[i]);
}
