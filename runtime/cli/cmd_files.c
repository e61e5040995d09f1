/* What commands share: the loop of check and replay (read each named file,
 * or standard input for "-", inflate it when it is gzip by its first bytes,
 * whatever its name, hand its text to the command, combine the exit
 * statuses; the rules each log is judged by, and the preset a failing log
 * would pass under), and --http's address for play and serve. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "gzlog.h"
#include "logrules.h"
#include "options.h"
#include "util.h"

/* Takes text (read from a file) and returns the log in it: text itself, or
 * when it is gzip the inflated text (text is freed); NULL and err when the
 * gzip data is broken or too big. */
static char *inflate_if_gzip(char *text, size_t *len, aw_error *err)
{
    if (!aw_gzip_is(text, *len))
        return text;
    char *plain = aw_gunzip(text, *len, len, AW_GZLOG_MAX_LOG, err);
    free(text);
    return plain;
}

int aw_cli_each_file(const char *cmd, const char *const *files, int nfiles, aw_cli_file_fn fn, void *ud)
{
    int status = 0;
    for (int i = 0; i < nfiles; i++) {
        const char *path = files[i];
        size_t len = 0;
        aw_error err;
        char *text = aw_read_input(path, &len, &err);
        if (strcmp(path, "-") == 0)
            path = "<stdin>";
        int s;
        struct stat st;
        if (!text && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            aw_cli_line(stderr, "aiwolf %s: %s is a folder: give the logs in it (%s/*.log, or %s/*.log.gz of a contest)",
                        cmd, path, path, path);
            s = 2;
        } else if (!text) {
            aw_cli_line(stderr, "aiwolf %s: cannot read %s", cmd, err.msg);
            s = 2;
        } else if (!(text = inflate_if_gzip(text, &len, &err))) {
            aw_cli_line(stderr, "aiwolf %s: %s: %s", cmd, path, err.msg);
            s = 2;
        } else {
            s = fn(ud, path, text, len);
            free(text);
        }
        if (s > status)
            status = s;
    }
    fflush(stdout);
    return status;
}

int aw_cli_writable_later(const char *path, char *why, size_t whylen)
{
    if (strcmp(path, "-") == 0)
        return 0;
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            snprintf(why, whylen, "%.1000s is a folder, not a file", path);
            return -1;
        }
        if (access(path, W_OK) != 0) {
            snprintf(why, whylen, "cannot write %.1000s: %s", path, strerror(errno));
            return -1;
        }
        return 0;
    }
    const char *slash = strrchr(path, '/');
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash == path ? 1 : slash - path) : 1, slash ? path : ".");
    if (access(dir, W_OK) != 0) {
        snprintf(why, whylen, "cannot write %.1000s: %s", path,
                 errno == ENOENT ? "its folder does not exist" : strerror(errno));
        return -1;
    }
    return 0;
}

const char *aw_cli_rate(char *buf, size_t n, double rate)
{
    if (!(rate > 0))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, rate >= 10 ? "%.1f" : "%.2g", rate);
    return buf;
}

int aw_cli_parse_http(const char *v, char *host, size_t hostlen, int *port)
{
    const char *colon = strrchr(v, ':');
    long n;
    if (aw_parse_long(colon ? colon + 1 : v, 0, 65535, &n) != 0)
        return -1;
    if (colon) {
        size_t hl = (size_t)(colon - v);
        if (hl == 0 || hl >= hostlen)
            return -1;
        memcpy(host, v, hl);
        host[hl] = 0;
    } else {
        snprintf(host, hostlen, "127.0.0.1");
    }
    *port = (int)n;
    return 0;
}

int aw_cli_log_rules(const char *cmd, const char *path, const aw_cli_rules *opt, aw_settings *rules, char *source,
                     size_t sourcelen)
{
    aw_error err;
    int found = 0;
    if (opt->preset) {
        snprintf(source, sourcelen, "--preset %s", opt->preset);
    } else if (strcmp(path, "<stdin>") != 0) {
        char where[4096];
        found = aw_logrules_find(path, rules, where, sizeof where, &err);
        if (found < 0) {
            aw_cli_line(stderr, "aiwolf %s: %s: its rules: %s", cmd, path, err.msg);
            return 2;
        }
        if (found)
            snprintf(source, sourcelen, "the rules in %s", where);
    }
    if (!opt->preset && !found)
        snprintf(source, sourcelen, "the default preset aiwolf: no rules file beside the log");
    if (!found && aw_settings_preset(rules, opt->preset ? opt->preset : "aiwolf", 5, &err) < 0) {
        fprintf(stderr, "aiwolf %s: %s\n", cmd, aw_term(err.msg).s);
        return 2;
    }
    for (int i = 0; i < opt->nsets; i++)
        if (aw_settings_set(rules, opt->sets[i], &err) < 0) {
            fprintf(stderr, "aiwolf %s: %s\n", cmd, aw_term(err.msg).s);
            return 2;
        }
    if (opt->nsets) {
        size_t n = strlen(source);
        snprintf(source + n, sourcelen - n, " with %d --set option%s", opt->nsets, opt->nsets == 1 ? "" : "s");
    }
    return 0;
}

/* The first preset other than `failed` under which passes() holds, or NULL. */
static const char *passing_preset(const aw_settings *failed, bool (*passes)(void *ud, const aw_settings *rules),
                                  void *ud)
{
    static const char *const presets[] = {"aiwolf", "seed2015", "regulation"};
    aw_buf a, b;
    aw_buf_init(&a);
    aw_buf_init(&b);
    aw_logrules_format(failed, &a);
    const char *pass = NULL;
    for (size_t i = 0; i < sizeof presets / sizeof presets[0] && !pass; i++) {
        aw_settings s;
        aw_error err;
        if (aw_settings_preset(&s, presets[i], 5, &err) < 0)
            continue;
        aw_buf_clear(&b);
        aw_logrules_format(&s, &b);
        if (a.len == b.len && memcmp(a.data, b.data, a.len) == 0)
            continue; /* the rules that failed */
        if (passes(ud, &s))
            pass = presets[i];
    }
    aw_buf_free(&a);
    aw_buf_free(&b);
    return pass;
}

void aw_cli_preset_hint(const aw_settings *failed, bool (*passes)(void *ud, const aw_settings *rules), void *ud,
                        const char *passed, const char *tried, const char *source)
{
    const char *pass = passing_preset(failed, passes, ud);
    if (pass)
        aw_cli_line(stdout, "    hint: %s under --preset %s (%s under %s)", passed, pass, tried, source);
}

const aw_opt aw_cli_log_file_rows[] = {
    {.name = "--help", .alias = "-h", .kind = AW_OPT_HELP, .help = "show this help"},
    {.name = "--", .kind = AW_OPT_NOTE, .help = "end of options; LOG may also be '-' for standard input"},
    {0},
};
