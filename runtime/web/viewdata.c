/* viewdata: game logs and events files as the pages' JSON (see viewdata.h). */
#include "viewdata.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gzlog.h"
#include "logline.h"
#include "protocol.h"
#include "settings.h"

void aw_view_describe(aw_buf *out, const char *text, size_t len, int speaker)
{
    aw_sentence *s = aw_protocol_parse(text, len, AW_VALIDATE_LENIENT, NULL);
    if (!s)
        return;
    static const char *const langs[] = {"en", "ja"};
    aw_buf d;
    aw_buf_init(&d);
    for (size_t i = 0; i < 2; i++) {
        aw_buf_clear(&d);
        aw_protocol_describe(s, speaker, langs[i], &d);
        aw_buf_printf(out, ",\"%s\":", langs[i]);
        aw_buf_add_json(out, d.data ? d.data : "", d.len);
    }
    aw_buf_free(&d);
    aw_sentence_free(s);
}

char *aw_view_read(const char *path, size_t *len, aw_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        aw_fail(err, AW_EIO, "cannot read %s: not a file", path);
        return NULL;
    }
    if ((unsigned long long)st.st_size > AW_VIEW_MAX_FILE) {
        aw_fail(err, AW_EINVAL, "%s: too large (%lld bytes; at most %u)", path, (long long)st.st_size,
                AW_VIEW_MAX_FILE);
        return NULL;
    }
    size_t n = 0;
    char *data = aw_read_file(path, &n, err);
    if (!data)
        return NULL;
    if (n >= 2 && (unsigned char)data[0] == 0x1f && (unsigned char)data[1] == 0x8b) {
        size_t m = 0;
        char *plain = aw_gunzip(data, n, &m, AW_VIEW_MAX_FILE, err);
        free(data);
        if (!plain)
            return NULL;
        data = plain;
        n = m;
    }
    *len = n;
    return data;
}

void aw_view_faults_json(const char *path, aw_buf *out)
{
    aw_buf_adds(out, ",\"faults\":[");
    size_t len = 0;
    char *text = aw_view_read(path, &len, NULL);
    size_t n = 0;
    for (size_t pos = 0; text && pos < len && n < AW_VIEW_MAX_FAULTS;) {
        const char *line = text + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t ll = nl ? (size_t)(nl - line) : len - pos;
        pos += ll + (nl ? 1 : 0);
        if (ll == 0)
            continue;
        /* the five columns; the message is the rest of the line */
        const char *col[5];
        size_t cl[5];
        int nc = 0;
        for (const char *p = line, *end = line + ll; nc < 5;) {
            const char *tab = nc < 4 ? memchr(p, '\t', (size_t)(end - p)) : NULL;
            col[nc] = p;
            cl[nc] = (size_t)((tab ? tab : end) - p);
            nc++;
            if (!tab)
                break;
            p = tab + 1;
        }
        int agent = 0;
        if (nc == 5 && cl[0] == 9 && memcmp(col[0], "Agent[", 6) == 0 && col[0][8] == ']' && col[0][6] >= '0' &&
            col[0][6] <= '9' && col[0][7] >= '0' && col[0][7] <= '9')
            agent = (col[0][6] - '0') * 10 + (col[0][7] - '0');
        aw_buf_printf(out, "%s{\"agent\":%d", n++ ? "," : "", agent);
        if (agent) {
            static const char *const keys[] = {"entry", "request", "kind", "message"};
            for (int i = 1; i < 5; i++) {
                aw_buf_printf(out, ",\"%s\":", keys[i - 1]);
                aw_buf_add_json(out, col[i], cl[i]);
            }
        } else {
            aw_buf_adds(out, ",\"message\":");
            aw_buf_add_json(out, line, ll);
        }
        aw_buf_addc(out, '}');
    }
    free(text);
    aw_buf_addc(out, ']');
}

/* --- game logs --- */

typedef struct logconv {
    aw_buf *out;
    bool first;       /* no event written yet */
    bool begun;       /* the begin event is out */
    int players;
    char *names[AW_LOG_MAX_PLAYERS + 1];
    aw_role roles[AW_LOG_MAX_PLAYERS + 1];
    long vote_day, attack_day;
    int vote_round, attack_round;
    unsigned char voted[AW_LOG_MAX_PLAYERS + 1], attack_voted[AW_LOG_MAX_PLAYERS + 1];
    int errors; /* error lines so far: a result with no winner after them is an abandoned game's */
} logconv;

static void ev_start(logconv *c, long day, const char *kind)
{
    aw_buf_adds(c->out, c->first ? "\n" : ",\n");
    c->first = false;
    aw_buf_printf(c->out, "{\"game\":0,\"day\":%ld,\"event\":\"%s\"", day, kind);
}

static void emit_begin(logconv *c)
{
    if (c->begun || c->players == 0)
        return;
    c->begun = true;
    aw_buf_adds(c->out, c->first ? "\n" : ",\n");
    c->first = false;
    aw_buf_printf(c->out, "{\"game\":0,\"event\":\"begin\",\"seed\":\"0\",\"preset\":\"log\",\"players\":%d,\"agents\":[",
                  c->players);
    bool any = false;
    for (int a = 1; a <= AW_LOG_MAX_PLAYERS; a++) {
        if (!c->names[a])
            continue;
        aw_buf_printf(c->out, "%s{\"agent\":%d,\"role\":\"%s\",\"name\":", any ? "," : "", a,
                      aw_role_name(c->roles[a]));
        aw_buf_add_json(c->out, c->names[a], strlen(c->names[a]));
        aw_buf_addc(c->out, '}');
        any = true;
    }
    aw_buf_adds(c->out, "]}");
}

/* The round of a vote: a voter who has voted already this day starts the next. */
static int vote_round(long day, int voter, long *cur_day, int *round, unsigned char *voted)
{
    if (day != *cur_day) {
        *cur_day = day;
        *round = 0;
        memset(voted, 0, AW_LOG_MAX_PLAYERS + 1);
    }
    if (voter >= 1 && voter <= AW_LOG_MAX_PLAYERS) {
        if (voted[voter]) {
            (*round)++;
            memset(voted, 0, AW_LOG_MAX_PLAYERS + 1);
        }
        voted[voter] = 1;
    }
    return *round;
}

static void convert_line(logconv *c, const aw_logline *l)
{
    if (l->type != AW_LINE_STATUS || l->day != 0)
        emit_begin(c);
    switch (l->type) {
    case AW_LINE_STATUS:
        if (l->day == 0 && !c->begun && l->a >= 1 && l->a <= AW_LOG_MAX_PLAYERS && !c->names[l->a]) {
            c->names[l->a] = aw_xstrndup(l->s ? l->s : "", l->s ? l->slen : 0);
            c->roles[l->a] = l->role;
            c->players++;
        }
        ev_start(c, l->day, "status");
        aw_buf_printf(c->out, ",\"agent\":%d,\"role\":\"%s\",\"alive\":%s}", l->a, aw_role_name(l->role),
                      l->flag ? "true" : "false");
        break;
    case AW_LINE_TALK:
    case AW_LINE_WHISPER:
        ev_start(c, l->day, l->type == AW_LINE_TALK ? "talk" : "whisper");
        aw_buf_printf(c->out, ",\"idx\":%d,\"turn\":%d,\"agent\":%d,\"text\":", l->a, l->b, l->c);
        aw_buf_add_json(c->out, l->s, l->slen);
        aw_view_describe(c->out, l->s, l->slen, l->c);
        aw_buf_addc(c->out, '}');
        break;
    case AW_LINE_VOTE:
        ev_start(c, l->day, "vote");
        aw_buf_printf(c->out, ",\"agent\":%d,\"target\":%d,\"round\":%d}", l->a, l->b,
                      vote_round(l->day, l->a, &c->vote_day, &c->vote_round, c->voted));
        break;
    case AW_LINE_ATTACK_VOTE:
        ev_start(c, l->day, "attackVote");
        aw_buf_printf(c->out, ",\"agent\":%d,\"target\":%d,\"round\":%d}", l->a, l->b,
                      vote_round(l->day, l->a, &c->attack_day, &c->attack_round, c->attack_voted));
        break;
    case AW_LINE_EXECUTE:
        ev_start(c, l->day, "execute");
        aw_buf_printf(c->out, ",\"agent\":%d,\"role\":\"%s\"}", l->a, aw_role_name(l->role));
        break;
    case AW_LINE_DIVINE:
        ev_start(c, l->day, "divine");
        aw_buf_printf(c->out, ",\"agent\":%d,\"target\":%d,\"result\":\"%s\"}", l->a, l->b,
                      aw_species_name(l->species));
        break;
    case AW_LINE_GUARD:
        ev_start(c, l->day, "guard");
        aw_buf_printf(c->out, ",\"agent\":%d,\"target\":%d,\"role\":\"%s\"}", l->a, l->b, aw_role_name(l->role));
        break;
    case AW_LINE_ATTACK:
        ev_start(c, l->day, "attack");
        aw_buf_printf(c->out, ",\"target\":%d,\"success\":%s}", l->a, l->flag ? "true" : "false");
        break;
    case AW_LINE_RESULT:
        ev_start(c, l->day, "result");
        aw_buf_printf(c->out, ",\"humans\":%d,\"werewolves\":%d,\"winner\":\"%s\"%s}", l->a, l->b,
                      l->team == AW_TEAM_NONE ? "NONE" : aw_team_name(l->team),
                      l->team == AW_TEAM_NONE && c->errors ? ",\"abandoned\":true" : "");
        break;
    case AW_LINE_ERROR:
        c->errors++;
        ev_start(c, l->day, "error");
        aw_buf_printf(c->out, ",\"agent\":%d}", l->a);
        break;
    }
}

static void log_json(const char *text, size_t len, aw_buf *out)
{
    logconv c;
    memset(&c, 0, sizeof c);
    c.out = out;
    c.first = true;
    c.vote_day = c.attack_day = -1;
    aw_buf problems;
    aw_buf_init(&problems);
    size_t nproblems = 0;
    aw_buf_adds(out, "\"source\":\"log\",\"events\":[");
    long lineno = 0;
    for (size_t pos = 0; pos < len;) {
        const char *line = text + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - line) : len - pos;
        pos += n + (nl ? 1 : 0);
        lineno++;
        if (n > 0 && line[n - 1] == '\r')
            n--;
        if (n == 0)
            continue;
        aw_logline l;
        char why[256];
        if (aw_logline_parse(line, n, &l, why, sizeof why) != 0) {
            if (nproblems++ < 100) {
                aw_buf_printf(&problems, "%s{\"line\":%ld,\"why\":", nproblems > 1 ? "," : "", lineno);
                aw_buf_add_json(&problems, why, strlen(why));
                aw_buf_addc(&problems, '}');
            }
            continue;
        }
        convert_line(&c, &l);
    }
    emit_begin(&c);
    aw_buf_printf(out, "\n],\"problems\":[%s],\"problem_count\":%zu", problems.data ? problems.data : "", nproblems);
    aw_buf_free(&problems);
    for (int a = 0; a <= AW_LOG_MAX_PLAYERS; a++)
        free(c.names[a]);
}

/* --- events files --- */

/* Where key's value starts in the object line[0..n) ("key" then ':'), or NULL. */
static const char *json_value(const char *line, size_t n, const char *key)
{
    size_t k = strlen(key);
    const char *end = line + n;
    for (const char *p = line; p + k + 2 < end; p++) {
        if (p[0] != '"' || memcmp(p + 1, key, k) != 0 || p[k + 1] != '"')
            continue;
        const char *q = p + k + 2;
        while (q < end && (*q == ' ' || *q == '\t'))
            q++;
        if (q < end && *q == ':') {
            q++;
            while (q < end && (*q == ' ' || *q == '\t'))
                q++;
            return q;
        }
    }
    return NULL;
}

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

static void add_utf8(aw_buf *b, unsigned long cp)
{
    char u[4];
    if (cp < 0x80) {
        aw_buf_addc(b, (char)cp);
    } else if (cp < 0x800) {
        u[0] = (char)(0xc0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3f));
        aw_buf_add(b, u, 2);
    } else if (cp < 0x10000) {
        u[0] = (char)(0xe0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        u[2] = (char)(0x80 | (cp & 0x3f));
        aw_buf_add(b, u, 3);
    } else {
        u[0] = (char)(0xf0 | (cp >> 18));
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
        u[3] = (char)(0x80 | (cp & 0x3f));
        aw_buf_add(b, u, 4);
    }
}

/* Reads the JSON string at p (its opening quote) into out; false when it is not one. */
static bool json_string(const char *p, const char *end, aw_buf *out)
{
    if (p >= end || *p != '"')
        return false;
    for (p++; p < end; p++) {
        if (*p == '"')
            return true;
        if (*p != '\\') {
            aw_buf_addc(out, *p);
            continue;
        }
        if (++p >= end)
            return false;
        switch (*p) {
        case 'n': aw_buf_addc(out, '\n'); break;
        case 't': aw_buf_addc(out, '\t'); break;
        case 'r': aw_buf_addc(out, '\r'); break;
        case 'b': aw_buf_addc(out, '\b'); break;
        case 'f': aw_buf_addc(out, '\f'); break;
        case 'u': {
            unsigned long cp = 0;
            if (end - p < 5)
                return false;
            for (int i = 1; i <= 4; i++) {
                int h = hexval(p[i]);
                if (h < 0)
                    return false;
                cp = cp << 4 | (unsigned long)h;
            }
            p += 4;
            if (cp >= 0xd800 && cp < 0xdc00 && end - p >= 7 && p[1] == '\\' && p[2] == 'u') {
                unsigned long lo = 0;
                bool ok = true;
                for (int i = 3; i <= 6; i++) {
                    int h = hexval(p[i]);
                    ok = ok && h >= 0;
                    lo = lo << 4 | (unsigned long)(h < 0 ? 0 : h);
                }
                if (ok && lo >= 0xdc00 && lo < 0xe000) {
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    p += 6;
                }
            }
            if (cp >= 0xd800 && cp < 0xe000)
                cp = 0xfffd;
            add_utf8(out, cp);
            break;
        }
        default: aw_buf_addc(out, *p); break; /* \" \\ \/ */
        }
    }
    return false;
}

bool aw_view_event_said(const char *line, size_t n, aw_buf *out)
{
    const char *ev = json_value(line, n, "event");
    if (!ev || !(strncmp(ev, "\"talk\"", 6) == 0 || strncmp(ev, "\"whisper\"", 9) == 0))
        return false;
    const char *tx = json_value(line, n, "text"), *ag = json_value(line, n, "agent");
    aw_buf s;
    aw_buf_init(&s);
    size_t before = out->len;
    if (tx && json_string(tx, line + n, &s))
        aw_view_describe(out, s.data ? s.data : "", s.len, ag ? atoi(ag) : AW_UNSPEC);
    aw_buf_free(&s);
    return out->len > before;
}

static void events_json(const char *text, size_t len, aw_buf *out)
{
    aw_buf_adds(out, "\"source\":\"events\",\"jsonl\":");
    aw_buf_add_json(out, text, len);
    aw_buf_adds(out, ",\"said\":{");
    aw_buf d;
    aw_buf_init(&d);
    bool any = false;
    long lineno = 0;
    for (size_t pos = 0; pos < len; lineno++) {
        const char *line = text + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - line) : len - pos;
        pos += n + (nl ? 1 : 0);
        aw_buf_clear(&d);
        if (!aw_view_event_said(line, n, &d))
            continue;
        aw_buf_printf(out, "%s\"%ld\":{%s}", any ? "," : "", lineno, d.data + 1); /* d starts with ',' */
        any = true;
    }
    aw_buf_addc(out, '}');
    aw_buf_free(&d);
}

/* An events file holds JSON objects, a log CSV lines starting with a day. */
static bool looks_like_events(const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n')
            continue;
        return text[i] == '{';
    }
    return false;
}

void aw_view_game_json(const char *path, const char *name, aw_buf *out)
{
    aw_buf_adds(out, "{\"name\":");
    aw_buf_add_json(out, name, strlen(name));
    aw_buf_addc(out, ',');
    aw_error err;
    size_t len = 0;
    char *text = aw_view_read(path, &len, &err);
    if (!text) {
        aw_buf_adds(out, "\"error\":");
        aw_buf_add_json(out, err.msg, strlen(err.msg));
    } else if (looks_like_events(text, len)) {
        events_json(text, len, out);
    } else {
        log_json(text, len, out);
    }
    free(text);
    aw_buf_addc(out, '}');
}
