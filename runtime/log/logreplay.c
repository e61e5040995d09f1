/* logreplay: replays a recorded game log through our engine (see
 * logreplay.h).
 *
 * The log is read once into lines (the log checker's line reader) and sorted
 * into a script per day: its status block, talks, whispers, votes, execution,
 * divinations, guards, attack votes and attack. The game is then played by a
 * small driver of its own (the loop of game.c, plus what a replay needs: the
 * engine's state for the seats and the choose hook, and a CSV comparison at
 * every event). Each replay seat answers from the script at the position the
 * engine's state gives: the next talk of the day is talk number
 * state->ntalks, the current vote round is the next block of vote lines, and
 * so on. Uses logcheck, engine, view, seat, gamelog, protocol, settings and
 * util. */
#include "logreplay.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "game.h"
#include "gamelog.h"
#include "logcheck.h"
#include "protocol.h"
#include "seat.h"
#include "view.h"

/* ---- the recorded log ----------------------------------------------------- */

typedef struct oline {
    const char *p; /* the line, without its ending */
    size_t len;
    size_t full;   /* with its ending ("\n", or "\r\n") */
    aw_logline l;
} oline;

typedef struct ivec {
    int *v;
    int n, cap;
} ivec;

static void ivec_push(ivec *x, int i)
{
    if (x->n == x->cap) {
        x->cap = x->cap ? x->cap * 2 : 16;
        x->v = aw_xrealloc(x->v, sizeof(int) * (size_t)x->cap);
    }
    x->v[x->n++] = i;
}

/* What the log shows of one day (and the night after it): line indices. */
typedef struct dayscript {
    bool has_status;
    int nstatus; /* status lines of the day: the first block's say who lives (an abandoned game's end has a second) */
    bool alive[AW_MAX_PLAYERS + 1];
    ivec talk, whisper, vote, divine, guard, attack_vote;
    int execute; /* -1: none */
    int attack;  /* -1: none */
} dayscript;

typedef struct replay {
    aw_settings set;
    aw_replay_report *out;
    oline *lines;
    long nlines;
    dayscript *days;
    int ndays;
    int n;
    char *names[AW_MAX_PLAYERS + 1];
    aw_role deal[AW_MAX_PLAYERS + 1];

    const aw_engine *g; /* the game's, while it is played */
    aw_game *gm;
    aw_gamelog log;
    bool use_log;
    aw_buf csvline;
    bool differ; /* a line differed: the replay stops */

    /* the request being answered */
    aw_req_kind kind;
    int answer[AW_MAX_PLAYERS + 1]; /* target each seat gave, 0 none */
    long answer_line[AW_MAX_PLAYERS + 1];
    /* votes of the current day */
    int vote_day, vote_pos, vote_base, vote_n, vote_round; /* a round is the next vote_n lines */
    /* attack rounds of the current night: round k holds the night's attack
     * votes [rounds[k].from, rounds[k].to) */
    int att_day, att_round;
    struct seg *rounds;
    int nrounds;
    int att_from, att_to; /* the current round's votes */
    /* agents the log shows as failed (error lines), from the phase end
     * before which they failed on; what each failed agent's target was in
     * the log, for the rules' substitute our engine then draws */
    bool failed[AW_MAX_PLAYERS + 1];
    int fail_target[AW_MAX_PLAYERS + 1];
    long fail_line[AW_MAX_PLAYERS + 1];
} replay;

static dayscript *day_of(replay *r, int d)
{
    return d >= 0 && d < r->ndays ? &r->days[d] : NULL;
}

static long lineno_of(int idx)
{
    return (long)idx + 1;
}

/* Copies a line for a message: control bytes as \xNN, cut to fit. */
static void show_line(char *dst, size_t cap, const char *p, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)p[i];
        if (o + 8 >= cap) {
            o += (size_t)snprintf(dst + o, cap - o, "...");
            break;
        }
        if (ch < 0x20 || ch == 0x7f || ch == '"' || ch == '\\') {
            if (ch == '"' || ch == '\\') {
                dst[o++] = '\\';
                dst[o++] = (char)ch;
            } else {
                o += (size_t)snprintf(dst + o, cap - o, "\\x%02x", ch);
            }
        } else {
            dst[o++] = (char)ch;
        }
    }
    dst[o < cap ? o : cap - 1] = '\0';
}

__attribute__((format(printf, 3, 4))) static void problem(replay *r, long line, const char *fmt, ...)
{
    if (r->out->problem[0])
        return; /* the first one counts */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->out->problem, sizeof r->out->problem, fmt, ap);
    va_end(ap);
    r->out->problem_line = line ? line : r->out->ours_lines + 1;
}

__attribute__((format(printf, 3, 4))) static int unusable(replay *r, long line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->out->error, sizeof r->out->error, fmt, ap);
    va_end(ap);
    r->out->error_line = line;
    r->out->verdict = AW_REPLAY_UNUSABLE;
    return -1;
}

/* Cuts the text into lines and parses each; then checks the frame a replay
 * needs: a day-0 status block, agents that exist, a result line at the end. */
static int read_log(replay *r, const char *text, size_t len)
{
    if (len == 0)
        return unusable(r, 1, "empty log: the file holds no lines");
    long cap = 0;
    for (size_t i = 0; i < len; i++)
        if (text[i] == '\n')
            cap++;
    r->lines = aw_xcalloc((size_t)cap + 1, sizeof *r->lines);
    size_t pos = 0;
    while (pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        long no = r->nlines + 1;
        if (!nl)
            return unusable(r, no, "the last line has no line ending: the log is cut off");
        oline *o = &r->lines[r->nlines];
        o->p = text + pos;
        o->len = (size_t)(nl - (text + pos));
        o->full = o->len + 1;
        if (o->len > 0 && o->p[o->len - 1] == '\r')
            o->len--;
        char why[400];
        if (aw_logline_parse(o->p, o->len, &o->l, why, sizeof why) != 0)
            return unusable(r, no, "%s", why);
        r->nlines++;
        pos += o->full;
    }
    r->out->lines = r->nlines;

    for (long i = 0; i + 1 < r->nlines; i++)
        if (r->lines[i].l.type == AW_LINE_RESULT)
            return unusable(r, i + 2, "a line after the result line (the result line ends the log)");
    if (r->lines[r->nlines - 1].l.type != AW_LINE_RESULT)
        return unusable(r, r->nlines + 1,
                        "incomplete log: it ends before the game's result line (an abandoned, crashed or truncated "
                        "game)");

    /* The day-0 status block: agents 1..n, all alive. */
    int n = 0;
    while (n < r->nlines && r->lines[n].l.type == AW_LINE_STATUS && r->lines[n].l.day == 0) {
        const aw_logline *l = &r->lines[n].l;
        if (l->a != n + 1)
            return unusable(r, n + 1, "the day-0 status block lists agent %d where agent %d belongs", l->a, n + 1);
        if (!l->flag)
            return unusable(r, n + 1, "agent %d is DEAD in the day-0 status block", l->a);
        if (n + 1 > AW_MAX_PLAYERS)
            return unusable(r, n + 1, "more than %d players: our engine plays at most %d", AW_MAX_PLAYERS,
                            AW_MAX_PLAYERS);
        n++;
    }
    if (n == 0)
        return unusable(r, 1, "the log does not start with the day-0 status block");
    if (n < AW_MIN_PLAYERS)
        return unusable(r, n + 1, "%d players: a game needs at least %d", n, AW_MIN_PLAYERS);
    r->n = n;
    r->out->players = n;
    for (int a = 1; a <= n; a++) {
        const aw_logline *l = &r->lines[a - 1].l;
        r->names[a] = aw_xstrndup(l->s, l->slen);
        r->deal[a] = l->role;
    }

    /* Days: a day number can be no larger than the number of lines. */
    long maxday = 0;
    for (long i = 0; i < r->nlines; i++) {
        const aw_logline *l = &r->lines[i].l;
        if (l->day > r->nlines)
            return unusable(r, i + 1, "day %ld in a log of %ld lines", l->day, r->nlines);
        if (l->day > maxday)
            maxday = l->day;
        int agents[2] = {0, 0};
        switch (l->type) {
        case AW_LINE_STATUS:
            agents[0] = l->a;
            break;
        case AW_LINE_TALK:
        case AW_LINE_WHISPER:
            agents[0] = l->c;
            break;
        case AW_LINE_VOTE:
        case AW_LINE_DIVINE:
        case AW_LINE_GUARD:
        case AW_LINE_ATTACK_VOTE:
            agents[0] = l->a;
            agents[1] = l->b;
            break;
        case AW_LINE_EXECUTE:
            agents[0] = l->a;
            break;
        case AW_LINE_ATTACK:
            agents[0] = l->a < 0 ? 0 : l->a;
            break;
        case AW_LINE_ERROR:
            agents[0] = l->a;
            break;
        case AW_LINE_RESULT:
            break;
        }
        for (int k = 0; k < 2; k++)
            if (agents[k] > n)
                return unusable(r, i + 1, "agent %d does not exist: the game has %d players", agents[k], n);
    }
    r->ndays = (int)maxday + 1;
    r->days = aw_xcalloc((size_t)r->ndays, sizeof *r->days);
    for (int d = 0; d < r->ndays; d++)
        r->days[d].execute = r->days[d].attack = -1;
    for (long i = 0; i < r->nlines; i++) {
        const aw_logline *l = &r->lines[i].l;
        dayscript *ds = &r->days[l->day];
        int idx = (int)i;
        switch (l->type) {
        case AW_LINE_STATUS:
            ds->has_status = true;
            if (ds->nstatus++ < r->n)
                ds->alive[l->a] = l->flag;
            break;
        case AW_LINE_TALK:
            ivec_push(&ds->talk, idx);
            break;
        case AW_LINE_WHISPER:
            ivec_push(&ds->whisper, idx);
            break;
        case AW_LINE_VOTE:
            ivec_push(&ds->vote, idx);
            break;
        case AW_LINE_EXECUTE:
            if (ds->execute < 0)
                ds->execute = idx;
            break;
        case AW_LINE_DIVINE:
            ivec_push(&ds->divine, idx);
            break;
        case AW_LINE_GUARD:
            ivec_push(&ds->guard, idx);
            break;
        case AW_LINE_ATTACK_VOTE:
            ivec_push(&ds->attack_vote, idx);
            break;
        case AW_LINE_ATTACK:
            if (ds->attack < 0)
                ds->attack = idx;
            break;
        case AW_LINE_RESULT:
        case AW_LINE_ERROR: /* the driver reads them where they stand (fail_at_cursor) */
            break;
        }
    }
    return 0;
}

/* ---- attack-vote rounds ------------------------------------------------ */

/* A night's attack votes are cut into rounds. Within a round the voters
 * ascend; each round but the last must tie (a revote follows) and the last
 * must give the logged attack; a round may be empty (every vote dropped),
 * which the log cannot show. Every cut that fits writes the same lines, so
 * any of them replays the log. The cuts are tried in this order: the
 * non-empty rounds as long as they can be (a new round where the voter does
 * not increase), then shorter ones; for each, the fewest empty rounds. A
 * night is ambiguous when two different groupings of the votes into
 * non-empty rounds both fit (where only the empty rounds could differ, the
 * log does not show it either way and no ambiguity is reported). */

#define AW_CUT_WORK 100000 /* enumeration budget per night */

typedef struct seg {
    int from, to; /* votes [from, to) of the night; from == to: an empty round */
} seg;

typedef struct cutter {
    replay *r;
    const aw_state *st;
    const int *av; /* the night's attackVote line indices */
    int m;
    int rounds; /* max_attack_revote + 1 */
    int target; /* logged attack target, -1 nobody, -2 no attack line */
    bool voter[AW_MAX_PLAYERS + 1];
    seg *segs;  /* the grouping being tried */
    int nsegs;
    seg *path;  /* rounds of the placement being tried */
    seg *best;  /* the first cut that fits */
    int nbest;
    int found;  /* groupings that fit (capped at 2) */
    long work;
    unsigned char *dead; /* placement states known not to fit */
} cutter;

static const aw_logline *av_line(const cutter *c, int i)
{
    return &c->r->lines[c->av[i]].l;
}

/* The top agents of votes [from, to) as the engine tallies them. */
static int round_top(const cutter *c, int from, int to, int *cand)
{
    int count[AW_MAX_PLAYERS + 1] = {0};
    const aw_state *st = c->st;
    for (int i = from; i < to; i++)
        count[av_line(c, i)->b]++;
    if (!c->r->set.enable_no_attack)
        for (int a = 1; a <= st->n; a++)
            if (st->alive[a] && !aw_role_is_wolf(st->role[a]))
                count[a]++;
    int max = 0, ncand = 0;
    for (int a = 1; a <= st->n; a++)
        if (count[a] > max)
            max = count[a];
    if (max == 0)
        return 0;
    for (int a = 1; a <= st->n; a++)
        if (count[a] == max)
            cand[ncand++] = a;
    return ncand;
}

/* Could the engine have taken this vote: a living werewolf for a living
 * non-werewolf? */
static bool vote_fits(const cutter *c, int i)
{
    const aw_logline *l = av_line(c, i);
    const aw_state *st = c->st;
    return l->a >= 1 && l->a <= st->n && c->voter[l->a] && l->b >= 1 && l->b <= st->n && st->alive[l->b] &&
           !aw_role_is_wolf(st->role[l->b]);
}

/* What round number `round` holding votes [from, to) leads to: -1 a revote;
 * otherwise the night is decided, and 1 says it is decided as logged (which
 * also needs every vote used: done). */
static int round_outcome(const cutter *c, int from, int to, int round, bool done)
{
    int cand[AW_MAX_PLAYERS];
    int ncand = round_top(c, from, to, cand);
    if (ncand == 1)
        return done && cand[0] == c->target;
    if (round < c->rounds - 1)
        return -1;
    if (ncand > 1 && !c->r->set.enable_no_attack) {
        for (int k = 0; k < ncand; k++)
            if (cand[k] == c->target)
                return done;
        return 0;
    }
    return done && c->target == -1;
}

/* Places the grouping's segments j.. from round `round` on, with empty rounds
 * where needed; the rounds go to path. */
static bool place(cutter *c, int j, int round)
{
    size_t key = (size_t)j * (size_t)c->rounds + (size_t)round;
    if (c->dead[key])
        return false;
    if (j < c->nsegs) {
        seg s = c->segs[j];
        c->path[round] = s;
        int o = round_outcome(c, s.from, s.to, round, j + 1 == c->nsegs);
        if (o == 1 || (o < 0 && place(c, j + 1, round + 1))) {
            if (o == 1)
                c->nbest = round + 1;
            return true;
        }
    }
    int at = j < c->nsegs ? c->segs[j].from : c->m;
    seg e = {at, at};
    c->path[round] = e;
    int o = round_outcome(c, at, at, round, j == c->nsegs);
    if (o == 1 || (o < 0 && place(c, j, round + 1))) {
        if (o == 1)
            c->nbest = round + 1;
        return true;
    }
    c->dead[key] = 1;
    return false;
}

/* Tries every grouping of votes [pos, m) into non-empty rounds with
 * ascending voters, longest rounds first. */
static void groupings(cutter *c, int pos)
{
    if (c->found >= 2 || ++c->work > AW_CUT_WORK)
        return;
    if (pos == c->m) {
        memset(c->dead, 0, ((size_t)c->nsegs + 1) * (size_t)c->rounds);
        if (place(c, 0, 0)) {
            if (c->found++ == 0)
                memcpy(c->best, c->path, sizeof(seg) * (size_t)c->nbest);
        }
        return;
    }
    if (c->nsegs >= c->rounds)
        return;
    int maxq = pos;
    while (maxq < c->m && vote_fits(c, maxq) && (maxq == pos || av_line(c, maxq)->a > av_line(c, maxq - 1)->a))
        maxq++;
    for (int q = maxq; q > pos; q--) {
        seg s = {pos, q};
        c->segs[c->nsegs++] = s;
        groupings(c, q);
        c->nsegs--;
    }
}

/* Decides tonight's rounds (r->rounds, r->nrounds) when the first attack
 * request of night d comes. */
static void plan_attack(replay *r, int d)
{
    dayscript *ds = day_of(r, d);
    int m = ds ? ds->attack_vote.n : 0;
    int maxrounds = r->set.max_attack_revote + 1;
    free(r->rounds);
    r->rounds = NULL;
    r->nrounds = 0;
    if (!ds || maxrounds < 1)
        return;
    cutter c;
    memset(&c, 0, sizeof c);
    c.r = r;
    c.st = aw_engine_state(r->g);
    c.av = ds->attack_vote.v;
    c.m = m;
    c.rounds = maxrounds;
    c.target = ds->attack < 0 ? -2 : r->lines[ds->attack].l.a;
    for (int a = 1; a <= c.st->n; a++)
        c.voter[a] = c.st->alive[a] && aw_role_is_wolf(c.st->role[a]);
    if (maxrounds <= 1000 && ((size_t)m + 1) * (size_t)maxrounds <= 1000000) {
        c.segs = aw_xmalloc(sizeof(seg) * ((size_t)m + 1));
        c.path = aw_xmalloc(sizeof(seg) * (size_t)maxrounds);
        c.best = aw_xmalloc(sizeof(seg) * (size_t)maxrounds);
        c.dead = aw_xmalloc(((size_t)m + 1) * (size_t)maxrounds);
        groupings(&c, 0);
        if (c.found > 0) {
            r->rounds = c.best;
            c.best = NULL;
            r->nrounds = c.nbest;
        }
        free(c.segs);
        free(c.path);
        free(c.best);
        free(c.dead);
    }
    if (c.found >= 2) {
        r->out->ambiguous_nights++;
        if (!r->out->ambiguous_line)
            r->out->ambiguous_line = lineno_of(c.av[0]);
    }
    if (c.found == 0) {
        /* No cut fits our rules: cut where the voter does not increase, and
         * let the comparison show where the engine goes another way. */
        r->rounds = aw_xmalloc(sizeof(seg) * ((size_t)m + 1));
        for (int i = 0; i < m; i++) {
            if (i == 0 || r->lines[c.av[i]].l.a <= r->lines[c.av[i - 1]].l.a) {
                seg s = {i, i};
                r->rounds[r->nrounds++] = s;
            }
            r->rounds[r->nrounds - 1].to = i + 1;
        }
    }
}

/* ---- the replay seats ------------------------------------------------------ */

typedef struct rseat {
    aw_seat base;
    replay *r;
    int agent;
} rseat;

static const char *rseat_begin(aw_seat *s, int agent, uint64_t agent_seed, aw_seat_fault *f)
{
    (void)agent_seed;
    (void)f;
    rseat *rs = (rseat *)s;
    rs->agent = agent;
    return rs->r->names[agent];
}

static const char *word_of(aw_req_kind k)
{
    switch (k) {
    case AW_REQ_TALK:
        return "talk";
    case AW_REQ_WHISPER:
        return "whisper";
    case AW_REQ_VOTE:
        return "vote";
    case AW_REQ_DIVINE:
        return "divine";
    case AW_REQ_GUARD:
        return "guard";
    case AW_REQ_ATTACK:
        return "attack";
    default:
        return "?";
    }
}

static void answer_text(replay *r, int a, const aw_state *st, dayscript *ds, aw_seat_reply *reply)
{
    bool talk = r->kind == AW_REQ_TALK;
    const ivec *list = ds ? (talk ? &ds->talk : &ds->whisper) : NULL;
    int k = talk ? st->ntalks : st->nwhispers;
    const char *what = talk ? "talk" : "whisper";
    if (!list || k >= list->n) {
        problem(r, 0,
                "day %d: our engine asks agent %d to %s (the day's %s number %d), but the log has no more %ss that "
                "day",
                st->day, a, what, what, k, what);
        return;
    }
    const oline *o = &r->lines[list->v[k]];
    if (o->l.c != a) {
        problem(r, lineno_of(list->v[k]),
                "day %d: our engine asks agent %d to %s next, but the log's next %s is agent %d's", st->day, a, what,
                what, o->l.c);
        return;
    }
    reply->text = o->l.s;
    reply->len = o->l.slen;
}

/* The logged target of agent a in list[from, to) where field a is the actor. */
static int find_action(const replay *r, const ivec *list, int from, int to, int a)
{
    for (int i = from; i < to && i < list->n; i++)
        if (r->lines[list->v[i]].l.a == a)
            return list->v[i];
    return -1;
}

static int rseat_request(aw_seat *s, aw_req_kind kind, const aw_info *info, const aw_settings *set,
                         aw_seat_reply *reply, aw_seat_fault *f)
{
    (void)info;
    (void)set;
    rseat *rs = (rseat *)s;
    replay *r = rs->r;
    int a = rs->agent;
    if (!aw_req_needs_reply(kind))
        return 0;
    const aw_state *st = aw_engine_state(r->g);
    dayscript *ds = day_of(r, st->day);
    if (ds && ds->has_status && !ds->alive[a])
        problem(r, 0, "day %d: our engine asks agent %d to %s, but the log shows it dead that day", st->day, a,
                word_of(kind));
    /* After the execution the executed agent is dead (the official server
     * asks the dead nothing but notifications). */
    if (ds && st->latest_executed && ds->execute >= 0 && r->lines[ds->execute].l.a == a)
        problem(r, lineno_of(ds->execute), "day %d: our engine asks agent %d to %s after executing it", st->day, a,
                word_of(kind));
    if (r->failed[a] && (kind == AW_REQ_TALK || kind == AW_REQ_WHISPER)) {
        /* a failed agent answers nothing: the rules log Skip or Over */
        f->kind = AW_FAULT_LOST;
        snprintf(f->msg, sizeof f->msg, "failed (an error line)");
        return -1;
    }
    if (kind == AW_REQ_TALK || kind == AW_REQ_WHISPER) {
        answer_text(r, a, st, ds, reply);
        return 0;
    }
    int line = -1;
    switch (kind) {
    case AW_REQ_VOTE:
        if (ds)
            line = find_action(r, &ds->vote, r->vote_base, r->vote_base + r->vote_n, a);
        if (line < 0) {
            problem(r, 0, "day %d: our engine asks agent %d for a vote (round %d), but the log has no vote of it in "
                          "that round",
                    st->day, a, r->vote_round + 1);
            return 0;
        }
        break;
    case AW_REQ_DIVINE:
        if (ds)
            line = find_action(r, &ds->divine, 0, ds->divine.n, a);
        break;
    case AW_REQ_GUARD:
        if (ds)
            line = find_action(r, &ds->guard, 0, ds->guard.n, a);
        break;
    case AW_REQ_ATTACK:
        if (ds)
            line = find_action(r, &ds->attack_vote, r->att_from, r->att_to, a);
        break;
    default:
        break;
    }
    if (r->failed[a]) {
        /* no answer: the rules' substitute, which the log shows (if any) */
        r->fail_target[a] = line >= 0 ? r->lines[line].l.b : 0;
        r->fail_line[a] = line >= 0 ? lineno_of(line) : 0;
        f->kind = AW_FAULT_LOST;
        snprintf(f->msg, sizeof f->msg, "failed (an error line)");
        return -1;
    }
    /* No line: the official server dropped this agent's action (or, for a
     * vote, the problem above is reported). */
    if (line >= 0) {
        reply->target = r->lines[line].l.b;
        r->answer[a] = reply->target;
        r->answer_line[a] = lineno_of(line);
    }
    return 0;
}

static void rseat_free(aw_seat *s)
{
    free(s);
}

static const aw_seat_ops rseat_ops = {.begin = rseat_begin, .request = rseat_request, .free = rseat_free};

/* ---- engine hooks ----------------------------------------------------------- */

static void fail_at_cursor(replay *r);

static void on_event(void *ud, const aw_event *ev)
{
    replay *r = ud;
    if (r->use_log)
        aw_gamelog_event(&r->log, ev);
    aw_buf_clear(&r->csvline);
    aw_gamelog_csv_line(ev, aw_engine_state(r->g), &r->csvline);
    if (r->csvline.len == 0 || r->differ)
        return;
    aw_replay_report *out = r->out;
    long k = out->ours_lines++;
    const char *ours = r->csvline.data;
    size_t ourlen = r->csvline.len;
    const oline *o = k < r->nlines ? &r->lines[k] : NULL;
    /* Line by line, without the line ending (a CRLF log reproduces too). */
    if (o && o->len + 1 == ourlen && memcmp(o->p, ours, o->len) == 0) {
        fail_at_cursor(r);
        return;
    }
    r->differ = true;
    out->diff_line = k + 1;
    show_line(out->ours, sizeof out->ours, ours, ourlen - 1);
    if (o)
        show_line(out->theirs, sizeof out->theirs, o->p, o->len);
    else
        out->theirs_eof = true;
}

static int on_validate(void *ud, const char *text, size_t len, aw_validation mode, void **parsed, aw_error *err)
{
    (void)ud;
    *parsed = NULL;
    return aw_protocol_validate(text, len, mode, err);
}

static const char *choice_name(aw_choice k)
{
    switch (k) {
    case AW_CHOICE_TALK_ORDER:
        return "talk order";
    case AW_CHOICE_WHISPER_ORDER:
        return "whisper order";
    case AW_CHOICE_EXECUTE_TIE:
        return "executed agent after a tie";
    case AW_CHOICE_ATTACK_TIE:
        return "attacked agent after a tie";
    case AW_CHOICE_SUBSTITUTE:
        return "substitute";
    }
    return "?";
}

static int index_of(const int *options, int n, int v)
{
    for (int i = 0; i < n; i++)
        if (options[i] == v)
            return i;
    return -1;
}

static int on_choose(void *ud, aw_choice kind, int agent, const int *options, int n)
{
    replay *r = ud;
    const aw_state *st = aw_engine_state(r->g);
    dayscript *ds = day_of(r, st->day);
    int want = -1;
    long line = 0;
    switch (kind) {
    case AW_CHOICE_TALK_ORDER:
    case AW_CHOICE_WHISPER_ORDER: {
        bool talk = kind == AW_CHOICE_TALK_ORDER;
        int members = 0;
        for (int a = 1; a <= st->n; a++)
            if (st->alive[a] && (talk || aw_role_is_wolf(st->role[a])))
                members++;
        int k = (talk ? st->ntalks : st->nwhispers) + (members - n);
        const ivec *list = ds ? (talk ? &ds->talk : &ds->whisper) : NULL;
        if (list && k >= 0 && k < list->n) {
            want = r->lines[list->v[k]].l.c;
            line = lineno_of(list->v[k]);
        }
        break;
    }
    case AW_CHOICE_EXECUTE_TIE:
        if (ds && ds->execute >= 0) {
            want = r->lines[ds->execute].l.a;
            line = lineno_of(ds->execute);
        }
        break;
    case AW_CHOICE_ATTACK_TIE:
        if (ds && ds->attack >= 0) {
            want = r->lines[ds->attack].l.a;
            line = lineno_of(ds->attack);
        }
        break;
    case AW_CHOICE_SUBSTITUTE:
        /* The replay seats only give what the official server logged, so a
         * substitute means our engine refused it. */
        if (agent >= 1 && agent <= r->n && r->failed[agent]) {
            /* a failed agent's: as the log shows it */
            want = r->fail_target[agent];
            line = r->fail_line[agent];
        } else if (agent >= 1 && agent <= r->n && r->answer[agent]) {
            want = r->answer[agent];
            line = r->answer_line[agent];
            problem(r, line,
                    "day %d: our engine refuses agent %d's %s target %d, which the log shows as accepted",
                    st->day, agent, word_of(r->kind), want);
        } else {
            problem(r, 0, "day %d: our engine substitutes agent %d's %s, but the log shows no action of it",
                    st->day, agent, word_of(r->kind));
        }
        break;
    }
    int i = want > 0 ? index_of(options, n, want) : -1;
    if (i < 0 && kind != AW_CHOICE_SUBSTITUTE) {
        if (want > 0)
            problem(r, line, "day %d: the log's %s is agent %d, whom our engine does not offer there", st->day,
                    choice_name(kind), want);
        else
            problem(r, 0, "day %d: our engine draws the %s, but the log shows no such choice", st->day,
                    choice_name(kind));
    }
    return i;
}

/* ---- the driver --------------------------------------------------------------- */

/* The error lines our engine is to write next, once a line before them is
 * written: their agents have failed, told to the game before the phase end
 * where the engine counts them (the first after that line: no other line
 * stands between). A phase end's lines ascend; a later one's (with no line
 * between) are told when these have been written. */
static void fail_at_cursor(replay *r)
{
    int prev = 0;
    for (long k = r->out->ours_lines; k < r->nlines && r->lines[k].l.type == AW_LINE_ERROR; k++) {
        int a = r->lines[k].l.a;
        if (a <= prev)
            break; /* a phase end's lines ascend: the next phase end's, told once these are written */
        prev = a;
        if (a >= 1 && a <= r->n && !r->failed[a]) {
            r->failed[a] = true;
            aw_game_fail(r->gm, a);
        }
    }
}

/* Whether the log marks the attack rounds: with whisper_before_revote the
 * werewolves whisper before every revote when they can whisper at all. */
static bool marked_rounds(const replay *r, const aw_state *st)
{
    int wolves = 0;
    for (int a = 1; a <= st->n; a++)
        if (st->alive[a] && aw_role_is_wolf(st->role[a]))
            wolves++;
    return r->set.whisper_before_revote && (wolves >= 2 || (wolves == 1 && r->set.whisper_single_wolf));
}

/* Prepares the state the seats need for a batch of requests. */
static void begin_batch(replay *r, const aw_request *req)
{
    const aw_state *st = aw_engine_state(r->g);
    r->kind = req->kind;
    memset(r->answer, 0, sizeof r->answer);
    memset(r->answer_line, 0, sizeof r->answer_line);
    if (req->kind == AW_REQ_VOTE) {
        if (r->vote_day != st->day) {
            r->vote_day = st->day;
            r->vote_pos = 0;
            r->vote_round = 0;
        } else {
            r->vote_round++;
        }
        r->vote_base = r->vote_pos;
        r->vote_n = req->nseats;
        r->vote_pos += req->nseats;
    } else if (req->kind == AW_REQ_ATTACK) {
        if (r->att_day != st->day) {
            r->att_day = st->day;
            r->att_round = 0;
        } else {
            r->att_round++;
        }
        dayscript *ds = day_of(r, st->day);
        r->att_from = r->att_to = 0;
        if (!ds)
            return;
        if (marked_rounds(r, st)) {
            /* A whisper phase stands before every revote: this round's votes
             * are the attackVote lines that come next in the log. */
            long next = r->out->ours_lines;
            int k = 0;
            while (k < ds->attack_vote.n && ds->attack_vote.v[k] < next)
                k++;
            r->att_from = r->att_to = k;
            while (r->att_to < ds->attack_vote.n && ds->attack_vote.v[r->att_to] == next + (r->att_to - k))
                r->att_to++;
            return;
        }
        if (r->att_round == 0)
            plan_attack(r, st->day);
        if (r->att_round < r->nrounds) {
            r->att_from = r->rounds[r->att_round].from;
            r->att_to = r->rounds[r->att_round].to;
        }
    }
}

static void play(replay *r, const aw_replay_options *opt)
{
    aw_seat *seats[AW_MAX_PLAYERS + 1] = {0};
    for (int a = 1; a <= r->n; a++) {
        rseat *s = aw_xcalloc(1, sizeof *s);
        s->base.ops = &rseat_ops;
        s->r = r;
        seats[a] = &s->base;
    }
    /* The game's own answer policy (game.h) plays the log's answers; the
     * hooks compare what our engine writes with the log and make its random
     * choices the log's. */
    aw_game_opts go;
    memset(&go, 0, sizeof go);
    go.settings = &r->set;
    go.deal = r->deal;
    go.talk.validate = on_validate;
    go.validate_ud = r;
    go.choose = on_choose;
    go.choose_ud = r;
    go.event = on_event;
    go.event_ud = r;
    go.verbatim_names = true;
    aw_error err;
    aw_game *gm = aw_game_start(&go, seats, &err);
    if (!gm) {
        unusable(r, 1, "our engine cannot set this game up: %s", err.msg);
        goto done;
    }
    r->g = aw_game_engine(gm);
    r->gm = gm;
    r->use_log = opt && (opt->record || opt->csv || opt->events);
    if (r->use_log) {
        aw_gamelog_init(&r->log, opt->csv, opt->record, opt->events);
        aw_gamelog_begin(&r->log, r->g, 1);
    }
    r->vote_day = r->att_day = -1;
    aw_request req;
    while (!r->differ && aw_game_next(gm, &req) == 0) {
        begin_batch(r, &req);
        for (int i = 0; i < req.nseats; i++)
            aw_game_ask(gm, req.seats[i]);
    }
    if (!r->differ && r->out->ours_lines < r->nlines) {
        /* our game ended before the log did */
        long k = r->out->ours_lines;
        r->out->diff_line = k + 1;
        r->out->ours_eof = true;
        show_line(r->out->theirs, sizeof r->out->theirs, r->lines[k].p, r->lines[k].full - 1);
    }
    if (r->use_log) {
        aw_gamelog_flush(&r->log);
        aw_gamelog_free(&r->log);
    }
    aw_game_end(gm, NULL);
    r->g = NULL;
    r->gm = NULL;
done:
    for (int a = 1; a <= r->n; a++)
        seats[a]->ops->free(seats[a]);
}

int aw_replay(const char *text, size_t len, const aw_settings *rules, const aw_replay_options *opt,
              aw_replay_report *out, aw_error *err)
{
    if ((!text && len) || !rules || !out)
        return aw_fail(err, AW_EINVAL, "aw_replay: NULL argument");
    memset(out, 0, sizeof *out);
    replay *r = aw_xcalloc(1, sizeof *r);
    r->out = out;
    r->set = *rules;
    aw_buf_init(&r->csvline);
    /* A UTF-8 byte order mark (editors on Windows add one) is not part of
     * the first line. */
    if (text && len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
        text += 3;
        len -= 3;
    }
    if (read_log(r, text ? text : "", len) == 0) {
        r->set.players = r->n;
        memset(r->set.role_count, 0, sizeof r->set.role_count);
        for (int a = 1; a <= r->n; a++)
            r->set.role_count[r->deal[a]]++;
        aw_error e;
        if (aw_settings_check(&r->set, &e) != 0)
            unusable(r, 1, "our engine cannot play this game: %s", e.msg);
        else
            play(r, opt);
    }
    if (out->verdict != AW_REPLAY_UNUSABLE)
        out->verdict = out->diff_line || out->problem[0] ? AW_REPLAY_DIFFERS : AW_REPLAY_REPRODUCED;

    for (int d = 0; d < r->ndays; d++) {
        dayscript *ds = &r->days[d];
        free(ds->talk.v);
        free(ds->whisper.v);
        free(ds->vote.v);
        free(ds->divine.v);
        free(ds->guard.v);
        free(ds->attack_vote.v);
    }
    free(r->days);
    free(r->lines);
    free(r->rounds);
    for (int a = 0; a <= AW_MAX_PLAYERS; a++)
        free(r->names[a]);
    aw_buf_free(&r->csvline);
    int v = (int)out->verdict;
    free(r);
    return v;
}
