/* logcheck: the game-log reader and rule checker declared in logcheck.h.
 *
 * The log is first cut into lines and each line parsed into a record (a
 * format error stops the parse there). The checker then replays the game
 * over the records with a cursor: one function per phase (status block,
 * talk, votes and execution, divination, whisper, guard, attack votes and
 * attack, result), in the order the official server runs them. Every phase
 * knows exactly which lines may come next, so the first line that does not
 * fit is the one reported. Uses settings and util. */
#include "logcheck.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXP AW_LOGCHECK_MAX_PLAYERS

/* ------------------------------------------------------------------ */
/* Records                                                             */

typedef enum rtype {
    R_STATUS,
    R_TALK,
    R_WHISPER,
    R_VOTE,
    R_EXECUTE,
    R_DIVINE,
    R_GUARD,
    R_ATTACKVOTE,
    R_ATTACK,
    R_RESULT,
    R_ERROR,
    R_END /* end of the usable records: end of file, or a line that did not parse */
} rtype;

static const char *const rtype_names[] = {
    "status", "talk", "whisper", "vote", "execute", "divine", "guard", "attackVote", "attack", "result", "error", "end",
};

/* One parsed line. The meaning of a, b, c depends on the type:
 * status idx; talk/whisper idx, turn, agent; vote/attackVote agent, target;
 * execute agent; divine seer, target; guard bodyguard, target; attack target;
 * result humans, wolves. */
typedef struct rec {
    rtype type;
    long lineno;
    const char *line;
    size_t linelen;
    long day;
    int a, b, c;
    aw_role role;       /* status, execute, guard */
    bool flag;          /* status ALIVE; attack true */
    aw_species species; /* divine */
    aw_team team;       /* result */
    const char *s;      /* talk text, status name */
    size_t slen;
} rec;

_Static_assert((int)R_STATUS == (int)AW_LINE_STATUS && (int)R_TALK == (int)AW_LINE_TALK &&
                   (int)R_WHISPER == (int)AW_LINE_WHISPER && (int)R_VOTE == (int)AW_LINE_VOTE &&
                   (int)R_EXECUTE == (int)AW_LINE_EXECUTE && (int)R_DIVINE == (int)AW_LINE_DIVINE &&
                   (int)R_GUARD == (int)AW_LINE_GUARD && (int)R_ATTACKVOTE == (int)AW_LINE_ATTACK_VOTE &&
                   (int)R_ATTACK == (int)AW_LINE_ATTACK && (int)R_RESULT == (int)AW_LINE_RESULT &&
                   (int)R_ERROR == (int)AW_LINE_ERROR,
               "the record types follow aw_logline_type");

/* Parses one line into a record (see logline.h); -1 with the reason in why
 * on a format error. */
static int parse_line(const char *p, size_t n, rec *r, char *why, size_t whycap)
{
    aw_logline l;
    if (aw_logline_parse(p, n, &l, why, whycap) != 0)
        return -1;
    memset(r, 0, sizeof *r);
    r->type = (rtype)l.type;
    r->day = l.day;
    r->a = l.a;
    r->b = l.b;
    r->c = l.c;
    r->role = l.role;
    r->flag = l.flag;
    r->species = l.species;
    r->team = l.team;
    r->s = l.s;
    r->slen = l.slen;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Checker state                                                       */

typedef struct ctx {
    const aw_settings *s;
    const aw_logcheck_options *opt;
    aw_logcheck_report *out;

    rec *recs; /* nrecs records and a final R_END */
    size_t nrecs;
    size_t pos;
    bool end_is_syntax; /* the R_END record marks a line that did not parse */
    char syntax_why[400];
    bool end_cut; /* that line is the last one and has no newline: cut off */

    int n;
    aw_role role[MAXP + 1];
    bool alive[MAXP + 1];
    const char *name[MAXP + 1];
    size_t namelen[MAXP + 1];
    long died_day[MAXP + 1];
    const char *died_how[MAXP + 1];

    long day;
    int talk_idx;
    int whisper_idx;
    int executed;     /* today's execution, 0 none */
    int guard_target; /* today's last guard target, 0 none */
    int attacked;     /* tonight's successful attack, 0 none */
    bool failed[MAXP + 1]; /* error lines so far */
    int nfailed;
    bool abandoned;   /* the error lines ended the game */
    bool in_phase_end; /* phase_end reads the error lines (elsewhere one is out of place) */
} ctx;

static const rec *cur(const ctx *c)
{
    return &c->recs[c->pos];
}

static void advance(ctx *c)
{
    if (c->pos < c->nrecs)
        c->pos++;
}

/* True when the current record has the type and belongs to the current day. */
static bool at(const ctx *c, rtype t)
{
    const rec *r = cur(c);
    return r->type == t && r->day == c->day;
}

/* The line as printable text: control bytes and bytes that are not UTF-8
 * become \xNN, so a binary file prints as escapes, not raw bytes. */
static void copy_line(aw_logcheck_report *out, const rec *r)
{
    size_t o = 0, cap = sizeof out->text;
    for (size_t i = 0; i < r->linelen && o + 5 < cap;) {
        unsigned char ch = (unsigned char)r->line[i];
        size_t n = aw_utf8_char_len(r->line + i, r->linelen - i);
        if (o + 8 + n >= cap) {
            o += (size_t)snprintf(out->text + o, cap - o, "...");
            break;
        }
        if (n == 0 || ch < 0x20 || ch == 0x7f) {
            o += (size_t)snprintf(out->text + o, cap - o, "\\x%02x", ch);
            i++;
        } else {
            memcpy(out->text + o, r->line + i, n);
            o += n;
            i += n;
        }
    }
    out->text[o < cap ? o : cap - 1] = '\0';
}

/* Reports the first problem, at record r, and returns -1. At the end of the
 * records the problem is either the line that did not parse or the end of
 * the file, which makes the log incomplete rather than illegal. */
__attribute__((format(printf, 3, 4))) static int fail(ctx *c, const rec *r, const char *fmt, ...)
{
    aw_logcheck_report *out = c->out;
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    out->line = r->lineno;
    copy_line(out, r);
    if (r->type == R_END && c->end_is_syntax && !c->end_cut) {
        out->verdict = AW_LOG_ILLEGAL;
        snprintf(out->reason, sizeof out->reason, "%s", c->syntax_why);
    } else if (r->type == R_END) {
        out->verdict = AW_LOG_INCOMPLETE;
        snprintf(out->reason, sizeof out->reason,
                 "incomplete log: it %s before the game's result line, so it records an abandoned, crashed or "
                 "truncated game, not a finished one (at this point: %s)",
                 c->end_cut ? "ends in a cut-off line" : "ends", msg);
    } else if (r->type == R_ERROR && !c->in_phase_end) {
        out->verdict = AW_LOG_ILLEGAL;
        snprintf(out->reason, sizeof out->reason,
                 "an error line where no phase ends (they come after the day's talk, the votes, the divination, the "
                 "night's whisper, the guard or the attack)");
    } else {
        out->verdict = AW_LOG_ILLEGAL;
        snprintf(out->reason, sizeof out->reason, "%s", msg);
    }
    return -1;
}

#define TRY(x)         \
    do {               \
        if ((x) != 0)  \
            return -1; \
    } while (0)

static bool is_wolf(const ctx *c, int i)
{
    return aw_role_is_wolf(c->role[i]);
}

/* Whether agent i's role has the night action n. */
static bool acts(const ctx *c, int i, aw_night_action n)
{
    return aw_role_info_of(c->role[i])->night == n;
}

static int count_alive(const ctx *c, int want_wolf)
{
    int k = 0;
    for (int i = 1; i <= c->n; i++)
        if (c->alive[i] && (want_wolf < 0 || (int)is_wolf(c, i) == want_wolf))
            k++;
    return k;
}

static aw_team winner_now(const ctx *c)
{
    return aw_winner(count_alive(c, 0), count_alive(c, 1));
}

static const char *rname(const ctx *c, int i)
{
    return aw_role_name(c->role[i]);
}

static void mark_dead(ctx *c, int i, const char *how)
{
    c->alive[i] = false;
    c->died_day[i] = c->day;
    c->died_how[i] = how;
}

/* Checks that an agent number from the log names a player. */
static int check_agent(ctx *c, const rec *r, int agent, const char *what)
{
    if (agent < 1 || agent > c->n)
        return fail(c, r, "%s %d does not exist (the game has %d players)", what, agent, c->n);
    return 0;
}

/* Lists the agents of a set into buf, for messages ("3, 5 and 7"). */
static void list_agents(char *buf, size_t cap, const bool *set, int n)
{
    size_t o = 0;
    int total = 0, done = 0;
    buf[0] = '\0';
    for (int i = 1; i <= n; i++)
        total += set[i];
    for (int i = 1; i <= n && o + 16 < cap; i++) {
        if (!set[i])
            continue;
        done++;
        o += (size_t)snprintf(buf + o, cap - o, "%s%d", done == 1 ? "" : done == total ? " and " : ", ", i);
    }
}

/* ------------------------------------------------------------------ */
/* Talk and whisper                                                    */

typedef enum { T_REAL, T_SKIP, T_OVER } talk_kind;

/* What the talk loop makes of a text: Over, Skip or a real utterance. Only
 * the exact strings count: "Over " (trailing space) is a real utterance, as
 * on the official server. The seed's spellings OVER and SKIP count too under
 * lenient validation (the seed2015 preset). */
static talk_kind classify(const ctx *c, const char *s, size_t n)
{
    bool seed = c->s->validation == AW_VALIDATE_LENIENT;
    if ((n == 4 && memcmp(s, "Over", 4) == 0) || (seed && n == 4 && memcmp(s, "OVER", 4) == 0))
        return T_OVER;
    if ((n == 4 && memcmp(s, "Skip", 4) == 0) || (seed && n == 4 && memcmp(s, "SKIP", 4) == 0))
        return T_SKIP;
    return T_REAL;
}

/* The one place where the text of a talk or whisper is judged. The log
 * format itself only requires a non-empty text (the server logs an empty or
 * missing reply as Skip); whether the text is a valid utterance of the
 * protocol is the validator's call, plugged in through the options. */
static int check_talk_text(ctx *c, const rec *r, const char *what)
{
    if (r->slen == 0)
        return fail(c, r, "empty %s text (the server logs an empty reply as Skip)", what);
    if (c->opt && c->opt->validate) {
        aw_error e;
        memset(&e, 0, sizeof e);
        if (c->opt->validate(c->opt->validate_ud, r->s, r->slen, c->s->validation, &e) != 0)
            return fail(c, r, "invalid %s text: %s", what, e.msg[0] ? e.msg : "not a valid utterance");
    }
    return 0;
}

/* One channel of talk: the public talk or the werewolves' whisper. */
typedef struct chan {
    rtype type;
    const char *what; /* "talk" / "whisper" */
    const char *verb; /* "talks" / "whispers" */
    int max_each;     /* real utterances per agent per day (talk) or phase (whisper); 0 = no limit */
    int max_turns;
    int max_skip;     /* -1: no Skip -> Over rule */
    int end_quiet;    /* end after this many turns in a row with no real utterance; 0 = off */
    int *idx;         /* the day's idx counter of this channel */
    bool may_restart; /* a new phase (turn 0) may follow at once (whisper_before_revote) */
    bool member[MAXP + 1];
    int nmembers;
    int used[MAXP + 1];  /* real utterances so far */
    int skips[MAXP + 1]; /* consecutive Skips so far */
} chan;

static void chan_init(ctx *c, chan *ch, bool whisper)
{
    memset(ch, 0, sizeof *ch);
    ch->type = whisper ? R_WHISPER : R_TALK;
    ch->what = whisper ? "whisper" : "talk";
    ch->verb = whisper ? "whispers" : "talks";
    ch->max_each = whisper ? c->s->max_whisper : c->s->max_talk;
    ch->max_turns = whisper ? c->s->max_whisper_turn : c->s->max_talk_turn;
    ch->max_skip = c->s->max_skip;
    ch->end_quiet = whisper ? 0 : c->s->talk_end_all_skip_turns;
    ch->idx = whisper ? &c->whisper_idx : &c->talk_idx;
    /* Before an attack revote a new whisper phase follows the last one when
     * the attack round between them was empty (every vote dropped). */
    ch->may_restart = whisper && c->s->whisper_before_revote && c->day > 0;
    for (int i = 1; i <= c->n; i++) {
        ch->member[i] = c->alive[i] && (!whisper || is_wolf(c, i));
        ch->nmembers += ch->member[i];
    }
}

/* One turn (round) of a channel: every member exactly once, in any order. */
static int chan_turn(ctx *c, chan *ch, int turn, bool *all_over, bool *any_real)
{
    bool seen[MAXP + 1];
    memset(seen, 0, sizeof seen);
    *all_over = true;
    *any_real = false;
    for (int k = 0; k < ch->nmembers; k++) {
        const rec *r = cur(c);
        if (!at(c, ch->type) || (k > 0 && r->b != turn)) {
            bool missing[MAXP + 1];
            char who[300];
            for (int i = 0; i <= c->n; i++)
                missing[i] = i > 0 && ch->member[i] && !seen[i];
            list_agents(who, sizeof who, missing, c->n);
            if (r->type == ch->type && r->day != c->day)
                return fail(c, r, "a %s line of day %ld during day %ld", ch->what, r->day, c->day);
            return fail(c, r, "turn %d of the %s is incomplete: %s %s not %s (every %s %s once per turn)", turn,
                        ch->what, who, ch->nmembers - k > 1 ? "have" : "has",
                        ch->type == R_TALK ? "talked" : "whispered",
                        ch->type == R_TALK ? "living agent" : "living werewolf", ch->verb);
        }
        if (r->a != *ch->idx)
            return fail(c, r, "%s idx %d, expected %d (idx counts the day's %ss from 0)", ch->what, r->a, *ch->idx,
                        ch->what);
        if (r->b != turn)
            return fail(c, r, "%s turn %d, expected turn %d", ch->what, r->b, turn);
        int a = r->c;
        TRY(check_agent(c, r, a, "agent"));
        if (!c->alive[a])
            return fail(c, r, "agent %d %s but is dead (%s on day %ld)", a, ch->verb, c->died_how[a], c->died_day[a]);
        if (!ch->member[a])
            return fail(c, r, "agent %d (%s) whispers: only the living werewolves whisper", a, rname(c, a));
        if (seen[a])
            return fail(c, r, "agent %d %s twice in turn %d", a, ch->verb, turn);
        seen[a] = true;
        TRY(check_talk_text(c, r, ch->what));
        talk_kind kind = classify(c, r->s, r->slen);
        if (kind == T_REAL && c->failed[a])
            return fail(c, r,
                        "agent %d %s, but it has failed (its error line comes before): a failed agent answers "
                        "nothing, so its turns are Skip or Over",
                        a, ch->verb);
        if (ch->max_each > 0 && ch->used[a] >= ch->max_each && !(r->slen == 4 && memcmp(r->s, "Over", 4) == 0))
            return fail(c, r,
                        "agent %d has used all its %d %ss (max_%s=%d): the server logs Over for it without asking", a,
                        ch->max_each, ch->what, ch->what, ch->max_each);
        if (kind == T_SKIP) {
            ch->skips[a]++;
            if (ch->max_skip >= 0 && ch->skips[a] > ch->max_skip)
                return fail(c, r,
                            "agent %d's Skip number %d in a row must be logged as Over (more than max_skip=%d "
                            "consecutive Skips become Over; only a real utterance resets the count)",
                            a, ch->skips[a], ch->max_skip);
        } else if (kind == T_REAL) {
            /* An Over leaves the count alone: if it was a converted Skip the
             * count is past max_skip either way, so the next Skip must be an
             * Over in both readings. */
            ch->skips[a] = 0;
            ch->used[a]++;
            *any_real = true;
        }
        if (kind != T_OVER)
            *all_over = false;
        (*ch->idx)++;
        advance(c);
    }
    return 0;
}

/* Checks that no further line of the channel follows once it has ended. */
static int chan_closed(ctx *c, chan *ch, const char *why)
{
    if (at(c, ch->type) && !(ch->may_restart && cur(c)->b == 0))
        return fail(c, cur(c), "a %s after the %s ended (%s)", ch->what, ch->what, why);
    return 0;
}

/* A whole phase of turns: until a turn is all Over, the turn limit, or (talk
 * under talk_end_all_skip_turns) enough quiet turns in a row. */
static int chan_phase(ctx *c, chan *ch)
{
    int quiet = 0;
    char why[200];
    snprintf(why, sizeof why, "the limit of %d turns (max_%s_turn) was reached", ch->max_turns, ch->what);
    for (int turn = 0; turn < ch->max_turns; turn++) {
        if (!at(c, ch->type)) {
            if (turn == 0)
                return fail(c, cur(c), "expected the %s of day %ld to start here (turn 0: every living %s %s once)",
                            ch->what, c->day, ch->type == R_TALK ? "agent" : "werewolf", ch->verb);
            return fail(c, cur(c),
                        "the %s goes on: turn %d was not all Over, so turn %d must follow (it ends only when every "
                        "%s says Over in the same turn, or after %d turns)",
                        ch->what, turn - 1, turn, ch->type == R_TALK ? "agent" : "werewolf", ch->max_turns);
        }
        bool all_over, any_real;
        TRY(chan_turn(c, ch, turn, &all_over, &any_real));
        if (all_over) {
            snprintf(why, sizeof why, "turn %d was all Over", turn);
            break;
        }
        quiet = any_real ? 0 : quiet + 1;
        if (ch->end_quiet > 0 && quiet >= ch->end_quiet) {
            snprintf(why, sizeof why, "%d turns in a row had nothing but Skip and Over (talk_end_all_skip_turns=%d)",
                     quiet, ch->end_quiet);
            break;
        }
    }
    return chan_closed(c, ch, why);
}

/* Whether the werewolves whisper now, and if not, why not (for messages). */
static bool whisper_due(const ctx *c, const char **why)
{
    int wolves = count_alive(c, 1);
    if (wolves == 0) {
        *why = "no werewolf is alive";
        return false;
    }
    if (wolves == 1 && !c->s->whisper_single_wolf) {
        *why = "a lone werewolf does not whisper (whisper_single_wolf=false)";
        return false;
    }
    return true;
}

static int forbid_whisper(ctx *c, const char *why)
{
    if (at(c, R_WHISPER))
        return fail(c, cur(c), "no whisper here: %s", why);
    return 0;
}

/* A whisper phase at a point where the rules call one (may be empty when
 * fewer than two werewolves live). */
static int whisper_phase(ctx *c)
{
    const char *why;
    if (!whisper_due(c, &why))
        return forbid_whisper(c, why);
    chan ch;
    chan_init(c, &ch, true);
    return chan_phase(c, &ch);
}

/* The day's talk under the official turn rules. */
static int talk_turns(ctx *c)
{
    chan ch;
    chan_init(c, &ch, false);
    return chan_phase(c, &ch);
}

/* The day's talk under the seed's round rules: every living agent talks once
 * per round; after each round (the last one too) the werewolves hold a
 * whisper phase of their own rounds (numbered from 0) when two or more are
 * alive; the talk ends when a round is all Over or after max_talk_turn
 * rounds. */
static int talk_rounds(ctx *c)
{
    chan talk;
    chan_init(c, &talk, false);
    int quiet = 0;
    char why[200];
    snprintf(why, sizeof why, "the limit of %d rounds (max_talk_turn) was reached", talk.max_turns);
    for (int round = 0; round < talk.max_turns; round++) {
        if (!at(c, R_TALK)) {
            if (round == 0)
                return fail(c, cur(c),
                            "expected the talk of day %ld to start here (round 0: every living agent "
                            "talks once)",
                            c->day);
            return fail(c, cur(c),
                        "the talk goes on: round %d was not all Over, so round %d must follow (it ends when every "
                        "agent says Over in the same round, or after %d rounds)",
                        round - 1, round, talk.max_turns);
        }
        bool all_over, any_real;
        TRY(chan_turn(c, &talk, round, &all_over, &any_real));
        /* After every round, the last one included, the werewolves hold a
         * whisper phase of their own rounds when two or more are alive. */
        const char *no;
        if (whisper_due(c, &no)) {
            chan w;
            chan_init(c, &w, true);
            TRY(chan_phase(c, &w));
        } else {
            TRY(forbid_whisper(c, no));
        }
        if (all_over) {
            snprintf(why, sizeof why, "round %d was all Over", round);
            break;
        }
        quiet = any_real ? 0 : quiet + 1;
        if (talk.end_quiet > 0 && quiet >= talk.end_quiet) {
            snprintf(why, sizeof why, "%d rounds in a row had nothing but Skip and Over (talk_end_all_skip_turns=%d)",
                     quiet, talk.end_quiet);
            break;
        }
    }
    return chan_closed(c, &talk, why);
}

/* ------------------------------------------------------------------ */
/* Votes and execution                                                 */

/* The agents with the most votes among counts[1..n] into top; returns how
 * many there are, and the top count in *best. */
static int top_of(const int *counts, int n, bool *top, int *best)
{
    int m = 0, k = 0;
    for (int i = 1; i <= n; i++)
        if (counts[i] > m)
            m = counts[i];
    for (int i = 0; i <= n; i++) {
        top[i] = i > 0 && m > 0 && counts[i] == m;
        k += top[i];
    }
    *best = m;
    return k;
}

static int first_of(const bool *set, int n)
{
    for (int i = 1; i <= n; i++)
        if (set[i])
            return i;
    return 0;
}

static int votes_and_execution(ctx *c)
{
    const aw_settings *s = c->s;
    bool top[MAXP + 1];
    char who[300];
    int ntop = 0, best = 0;
    int rounds = 0;
    for (;;) {
        int counts[MAXP + 1];
        memset(counts, 0, sizeof counts);
        for (int v = 1; v <= c->n; v++) {
            if (!c->alive[v])
                continue;
            const rec *r = cur(c);
            if (!at(c, R_VOTE)) {
                if (r->type == R_VOTE && r->day != c->day)
                    return fail(c, r, "a vote line of day %ld during day %ld", r->day, c->day);
                if (v == first_of(c->alive, c->n) && rounds == 0)
                    return fail(c, r,
                                "expected the votes of day %ld here (every living agent votes, in ascending "
                                "order)",
                                c->day);
                return fail(c, r,
                            "agent %d did not vote in vote round %d (every living agent votes, in ascending "
                            "order)",
                            v, rounds + 1);
            }
            if (r->a != v) {
                TRY(check_agent(c, r, r->a, "voter"));
                if (!c->alive[r->a])
                    return fail(c, r, "agent %d votes but is dead (%s on day %ld)", r->a, c->died_how[r->a],
                                c->died_day[r->a]);
                if (r->a > v)
                    return fail(c, r,
                                "agent %d did not vote in vote round %d (every living agent votes, in "
                                "ascending order)",
                                v, rounds + 1);
                return fail(c, r,
                            "vote by agent %d out of order: expected agent %d's vote (votes come in ascending "
                            "agent order, once per round)",
                            r->a, v);
            }
            TRY(check_agent(c, r, r->b, "vote target"));
            if (r->b == v)
                return fail(c, r,
                            "agent %d votes for itself (the server replaces a self-vote with a random living "
                            "agent)",
                            v);
            if (!c->alive[r->b])
                return fail(c, r, "agent %d votes for agent %d, who is dead (%s on day %ld)", v, r->b,
                            c->died_how[r->b], c->died_day[r->b]);
            counts[r->b]++;
            advance(c);
        }
        rounds++;
        ntop = top_of(counts, c->n, top, &best);
        if (ntop == 1)
            break;
        if (rounds > s->max_revote)
            break;
        /* A tie with revotes left: another round must follow. */
        if (!at(c, R_VOTE)) {
            list_agents(who, sizeof who, top, c->n);
            return fail(c, cur(c),
                        "vote round %d is a tie (agents %s with %d vote%s each): a revote must follow "
                        "(max_revote=%d)",
                        rounds, who, best, best == 1 ? "" : "s", s->max_revote);
        }
    }
    const rec *r = cur(c);
    int t = first_of(top, c->n);
    if (ntop == 1 && at(c, R_VOTE))
        return fail(c, r,
                    "a revote after vote round %d, which had a unique top (agent %d with %d votes): a revote "
                    "happens only after a tie",
                    rounds, t, best);
    if (at(c, R_VOTE))
        return fail(c, r, "a vote round beyond the last one allowed (max_revote=%d): the tie is broken at random",
                    s->max_revote);
    list_agents(who, sizeof who, top, c->n);
    if (ntop > 1 && s->enable_no_execution) {
        if (at(c, R_EXECUTE))
            return fail(c, r,
                        "an execution after a tie in the last vote round (agents %s): with "
                        "enable_no_execution nobody is executed",
                        who);
        return 0;
    }
    if (!at(c, R_EXECUTE)) {
        if (ntop == 1)
            return fail(c, r, "expected the execution of agent %d (the only agent with the most votes, %d)", t, best);
        return fail(c, r, "expected the execution of one of agents %s (tied with %d vote%s each after the last round)",
                    who, best, best == 1 ? "" : "s");
    }
    TRY(check_agent(c, r, r->a, "executed agent"));
    if (!top[r->a]) {
        if (ntop == 1)
            return fail(c, r, "agent %d is executed, but agent %d had the most votes (%d) in the last round", r->a, t,
                        best);
        return fail(c, r, "agent %d is executed, but the last vote round was a tie among agents %s (%d votes each)",
                    r->a, who, best);
    }
    if (r->role != c->role[r->a])
        return fail(c, r, "the execute line says %s, but agent %d is a %s", aw_role_name(r->role), r->a,
                    rname(c, r->a));
    c->executed = r->a;
    mark_dead(c, r->a, "executed");
    advance(c);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Divination and guard                                                */

static int divine_phase(ctx *c)
{
    const aw_settings *s = c->s;
    int last = 0;
    bool done[MAXP + 1];
    memset(done, 0, sizeof done);
    while (at(c, R_DIVINE)) {
        const rec *r = cur(c);
        int a = r->a;
        TRY(check_agent(c, r, a, "seer"));
        if (!acts(c, a, AW_NIGHT_DIVINE))
            return fail(c, r, "agent %d divines but is a %s (only the seer divines)", a, rname(c, a));
        if (!c->alive[a])
            return fail(c, r, "seer %d divines but is dead (%s on day %ld)", a, c->died_how[a], c->died_day[a]);
        if (done[a])
            return fail(c, r, "seer %d divines twice in one night", a);
        if (a < last)
            return fail(c, r, "divine lines out of order (seers act in ascending order)");
        TRY(check_agent(c, r, r->b, "divine target"));
        if (!c->alive[r->b] && !s->divine_dead_target)
            return fail(c, r,
                        "seer %d divines agent %d, who is dead (%s on day %ld): a divination of a dead agent "
                        "does not happen",
                        a, r->b, c->died_how[r->b], c->died_day[r->b]);
        aw_species sp = aw_role_species(c->role[r->b]);
        if (r->species != sp)
            return fail(c, r, "the divine result is %s, but agent %d is a %s (%s)", aw_species_name(r->species), r->b,
                        rname(c, r->b), aw_species_name(sp));
        done[a] = true;
        last = a;
        advance(c);
    }
    if (s->invalid_divine == AW_INVALID_RANDOM)
        for (int i = 1; i <= c->n; i++)
            if (c->alive[i] && acts(c, i, AW_NIGHT_DIVINE) && !done[i])
                return fail(c, cur(c),
                            "seer %d did not divine (under invalid_divine=random every living seer "
                            "divines each night)",
                            i);
    return 0;
}

static int guard_phase(ctx *c)
{
    const aw_settings *s = c->s;
    int last = 0;
    bool done[MAXP + 1];
    memset(done, 0, sizeof done);
    c->guard_target = 0;
    while (at(c, R_GUARD)) {
        const rec *r = cur(c);
        int a = r->a;
        TRY(check_agent(c, r, a, "bodyguard"));
        if (!acts(c, a, AW_NIGHT_GUARD))
            return fail(c, r, "agent %d guards but is a %s (only the bodyguard guards)", a, rname(c, a));
        if (!c->alive[a])
            return fail(c, r, "bodyguard %d guards but is dead (%s on day %ld)", a, c->died_how[a], c->died_day[a]);
        if (done[a])
            return fail(c, r, "bodyguard %d guards twice in one night", a);
        if (a < last)
            return fail(c, r, "guard lines out of order (bodyguards act in ascending order)");
        TRY(check_agent(c, r, r->b, "guard target"));
        if (r->b == a)
            return fail(c, r, "bodyguard %d guards itself (a guard on oneself does not happen)", a);
        if (!c->alive[r->b] && !s->guard_dead_target)
            return fail(c, r,
                        "bodyguard %d guards agent %d, who is dead (%s on day %ld): with guard_dead_target=false "
                        "such a guard does not happen",
                        a, r->b, c->died_how[r->b], c->died_day[r->b]);
        if (r->role != c->role[r->b])
            return fail(c, r, "the guard line says %s, but agent %d is a %s", aw_role_name(r->role), r->b,
                        rname(c, r->b));
        done[a] = true;
        last = a;
        c->guard_target = r->b; /* with several bodyguards the last guard counts */
        advance(c);
    }
    if (s->invalid_guard == AW_INVALID_RANDOM)
        for (int i = 1; i <= c->n; i++)
            if (c->alive[i] && acts(c, i, AW_NIGHT_GUARD) && !done[i])
                return fail(c, cur(c),
                            "bodyguard %d did not guard (under invalid_guard=random every living "
                            "bodyguard guards each night)",
                            i);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Attack votes and attack                                             */

/* The attack votes of one night, as a sequence to be cut into rounds. A
 * round is the votes of the living werewolves in ascending order; dropped
 * (invalid) votes leave no line, so a round may be short or empty and the
 * cuts are not written in the log. A whisper phase before a revote
 * (whisper_before_revote) marks a cut. */
typedef struct avseq {
    const rec **v; /* the attackVote records */
    int m;
    int *marks;          /* [0..m]: how many whisper phases stand before v[p] (v[m]: the attack) */
    bool marks_required; /* whisper_before_revote: the whisper phases are the cuts */
    int max_rounds;
    const rec *attack; /* the attack line */
    signed char *memo; /* [(m+1) * max_rounds]: -1 unknown, 0/1 */
} avseq;

/* The top of one round (votes v[p..q)) plus the +1 baseline for every living
 * human when attacks are compulsory. */
static int attack_round_top(const ctx *c, const avseq *q, int from, int to, bool *top, int *best)
{
    int counts[MAXP + 1];
    memset(counts, 0, sizeof counts);
    for (int k = from; k < to; k++)
        counts[q->v[k]->b]++;
    if (!c->s->enable_no_attack)
        for (int i = 1; i <= c->n; i++)
            if (c->alive[i] && !is_wolf(c, i))
                counts[i]++;
    return top_of(counts, c->n, top, best);
}

/* Whether the round's outcome allows the attack line, when it is the last. */
static bool attack_final_ok(const ctx *c, int ntop, const bool *top, int round, int max_rounds, const rec *atk)
{
    if (ntop == 1)
        return atk->a == first_of(top, c->n);
    if (round + 1 < max_rounds)
        return false; /* a tie with revotes left */
    if (c->s->enable_no_attack)
        return atk->a == -1; /* no attack after a final tie */
    return atk->a >= 1 && atk->a <= c->n && top[atk->a];
}

/* Whether v[p..m) can be cut into rounds round, round+1, ... that end in
 * the attack line (used when no whisper phases mark the cuts). */
static bool attack_feasible(const ctx *c, avseq *q, int p, int round)
{
    signed char *m = &q->memo[(size_t)p * (size_t)q->max_rounds + (size_t)round];
    if (*m >= 0)
        return *m;
    bool ok = false;
    bool top[MAXP + 1];
    int best;
    int wolves = count_alive(c, 1);
    for (int e = p; e <= q->m && !ok; e++) {
        /* This round is v[p..e): voters strictly ascending. */
        if (e > p + 1 && q->v[e - 1]->a <= q->v[e - 2]->a)
            break;
        if (c->s->invalid_attack == AW_INVALID_RANDOM && e - p != wolves)
            continue;
        int ntop = attack_round_top(c, q, p, e, top, &best);
        if (e == q->m && attack_final_ok(c, ntop, top, round, q->max_rounds, q->attack))
            ok = true;
        /* Or a tie, and a revote follows from v[e]. */
        if (!ok && ntop != 1 && round + 1 < q->max_rounds && attack_feasible(c, q, e, round + 1))
            ok = true;
    }
    *m = ok ? 1 : 0;
    return ok;
}

/* Walks the attack votes round by round, cutting where a whisper phase
 * stands (whisper_before_revote) and where the voter order restarts, and
 * reports the first thing that does not fit. With whisper phases the cuts are
 * exactly those, so this decides; without them it explains why no cut found
 * by attack_feasible works. Returns 0 if the walk fits. */
static int attack_walk(ctx *c, avseq *q)
{
    bool top[MAXP + 1];
    char who[300];
    int best, from = 0, round = 0, used = 0; /* used: whisper phases at v[from] already taken as cuts */
    for (;;) {
        int to = from;
        if (used >= q->marks[from])
            while (to < q->m) {
                if (to > from && (q->marks[to] > 0 || q->v[to]->a <= q->v[to - 1]->a))
                    break;
                to++;
            }
        int pending = q->marks[to] - (to == from ? used : 0);
        bool last = to == q->m && pending == 0;
        const rec *next = to < q->m ? q->v[to] : q->attack;
        if (c->s->invalid_attack == AW_INVALID_RANDOM) {
            bool missing[MAXP + 1];
            for (int i = 0; i <= c->n; i++)
                missing[i] = i > 0 && c->alive[i] && is_wolf(c, i);
            for (int k = from; k < to; k++)
                missing[q->v[k]->a] = false;
            if (first_of(missing, c->n)) {
                list_agents(who, sizeof who, missing, c->n);
                return fail(c, next,
                            "%s %s cast no attack vote in attack vote round %d (under invalid_attack=random "
                            "every living werewolf votes)",
                            strstr(who, " and ") ? "werewolves" : "werewolf", who, round + 1);
            }
        }
        int ntop = attack_round_top(c, q, from, to, top, &best);
        list_agents(who, sizeof who, top, c->n);
        if (!last) {
            if (q->marks_required && pending == 0)
                return fail(c, next,
                            "an attack revote without a whisper before it (whisper_before_revote: the "
                            "werewolves whisper again before each attack revote)");
            if (ntop == 1)
                return fail(c, next,
                            "an attack revote after a round with a unique top (agent %d, %d votes counting "
                            "the +1 every living human gets): a revote happens only after a tie",
                            first_of(top, c->n), best);
            if (round + 1 >= q->max_rounds)
                return fail(c, next, "more attack vote rounds than allowed (max_attack_revote=%d)", q->max_rounds - 1);
            used = pending > 0 ? (to == from ? used + 1 : 1) : 0;
            from = to;
            round++;
            continue;
        }
        const rec *a = q->attack;
        if (attack_final_ok(c, ntop, top, round, q->max_rounds, a))
            return 0;
        if (ntop == 1 && a->a == -1)
            return fail(c, a, "nobody is attacked, but agent %d had the most attack votes (%d)", first_of(top, c->n),
                        best);
        if (ntop == 1 && a->a != first_of(top, c->n))
            return fail(c, a,
                        "agent %d is attacked, but agent %d had the most attack votes (%d, counting the +1 "
                        "every living human gets)",
                        a->a, first_of(top, c->n), best);
        if (round + 1 < q->max_rounds && ntop != 1)
            return fail(c, a,
                        "attack vote round %d is a tie (agents %s): an attack revote must follow "
                        "(max_attack_revote=%d)",
                        round + 1, ntop ? who : "none", q->max_rounds - 1);
        if (c->s->enable_no_attack && ntop != 1)
            return fail(c, a,
                        "the last attack vote round has no single top: with enable_no_attack nobody is "
                        "attacked (attack,-1,false)");
        if (ntop != 1)
            return fail(c, a, "agent %d is attacked, but the last attack vote round was a tie among agents %s", a->a,
                        who);
        return fail(c, a, "the attack votes of this night cannot be cut into vote rounds that lead to this attack");
    }
}

static int attack_phase(ctx *c)
{
    const aw_settings *s = c->s;
    c->attacked = 0;
    if (count_alive(c, 1) == 0) {
        if (at(c, R_ATTACKVOTE) || at(c, R_ATTACK))
            return fail(c, cur(c), "an attack after the last werewolf died: no werewolf is alive to attack");
        return 0;
    }
    size_t cap = 16;
    int m = 0;
    const rec **v = aw_xmalloc(cap * sizeof *v);
    int *marks = aw_xcalloc(cap + 1, sizeof *marks);
    int rc = 0;
    int wolves_alive = count_alive(c, 1);
    bool whisper_between = s->whisper_before_revote;
    for (;;) {
        if (at(c, R_ATTACKVOTE)) {
            const rec *r = cur(c);
            if (check_agent(c, r, r->a, "attack voter") != 0) {
                rc = -1;
                break;
            }
            if (!is_wolf(c, r->a)) {
                rc = fail(c, r, "agent %d (%s) casts an attack vote: only werewolves vote to attack", r->a,
                          rname(c, r->a));
                break;
            }
            if (!c->alive[r->a]) {
                rc = fail(c, r, "werewolf %d casts an attack vote but is dead (%s on day %ld)", r->a, c->died_how[r->a],
                          c->died_day[r->a]);
                break;
            }
            if (check_agent(c, r, r->b, "attack target") != 0) {
                rc = -1;
                break;
            }
            if (is_wolf(c, r->b)) {
                rc = fail(c, r, "werewolf %d votes to attack agent %d, a werewolf (such a vote is %s)", r->a, r->b,
                          s->invalid_attack == AW_INVALID_DROP ? "dropped and not logged" : "replaced");
                break;
            }
            if (!c->alive[r->b]) {
                rc = fail(c, r, "werewolf %d votes to attack agent %d, who is dead (%s on day %ld)", r->a, r->b,
                          c->died_how[r->b], c->died_day[r->b]);
                break;
            }
            /* More votes than the rounds allow can never fit; stopping here
             * also bounds the memory the round search needs. */
            if (m >= wolves_alive * (s->max_attack_revote + 1)) {
                rc = fail(c, r, "more attack votes than %d werewol%s can cast in %d round%s (max_attack_revote=%d)",
                          wolves_alive, wolves_alive == 1 ? "f" : "ves", s->max_attack_revote + 1,
                          s->max_attack_revote ? "s" : "", s->max_attack_revote);
                break;
            }
            if ((size_t)m + 1 >= cap) {
                cap *= 2;
                v = aw_xrealloc(v, cap * sizeof *v);
                marks = aw_xrealloc(marks, (cap + 1) * sizeof *marks);
                memset(marks + m + 1, 0, (cap - (size_t)m) * sizeof *marks);
            }
            v[m++] = r;
            marks[m] = 0;
            advance(c);
            continue;
        }
        if (whisper_between && at(c, R_WHISPER)) {
            marks[m]++;
            chan ch;
            chan_init(c, &ch, true);
            const char *no;
            if (!whisper_due(c, &no)) {
                rc = forbid_whisper(c, no);
                break;
            }
            if (chan_phase(c, &ch) != 0) {
                rc = -1;
                break;
            }
            continue;
        }
        break;
    }
    if (rc == 0) {
        const rec *a = cur(c);
        if (!at(c, R_ATTACK)) {
            if (a->type == R_ATTACK || a->type == R_ATTACKVOTE)
                rc = fail(c, a, "a %s line of day %ld during day %ld", rtype_names[a->type], a->day, c->day);
            else
                rc = fail(c, a,
                          "expected the attack of night %ld (%d werewol%s alive: the attack votes, then "
                          "'%ld,attack,TARGET,true|false')",
                          c->day, wolves_alive, wolves_alive == 1 ? "f" : "ves", c->day);
        } else if (a->a == -1) {
            if (a->flag)
                rc = fail(c, a, "attack,-1 (nobody attacked) must be false");
            else if (!s->enable_no_attack)
                rc = fail(c, a,
                          "nobody is attacked, but attacks are compulsory (enable_no_attack=false): a round "
                          "with no valid vote is a tie among all living humans");
        } else if (check_agent(c, a, a->a, "attack target") != 0) {
            rc = -1;
        } else if (!c->alive[a->a]) {
            rc = fail(c, a, "agent %d is attacked, but is dead (%s on day %ld)", a->a, c->died_how[a->a],
                      c->died_day[a->a]);
        } else if (is_wolf(c, a->a)) {
            rc = fail(c, a, "agent %d, a werewolf, is attacked: werewolves attack humans only", a->a);
        }
        if (rc == 0) {
            avseq q;
            q.v = v;
            q.m = m;
            q.marks = marks;
            const char *no_whisper;
            q.marks_required = whisper_between && whisper_due(c, &no_whisper);
            q.max_rounds = s->max_attack_revote + 1;
            q.attack = a;
            size_t cells = (size_t)(m + 1) * (size_t)q.max_rounds;
            q.memo = aw_xmalloc(cells);
            memset(q.memo, -1, cells);
            if (q.marks_required)
                rc = attack_walk(c, &q);
            else if (!attack_feasible(c, &q, 0, 0))
                rc = attack_walk(c, &q) ? -1
                                        : fail(c, a,
                                               "the attack votes of this night cannot be cut into vote "
                                               "rounds that lead to this attack");
            free(q.memo);
        }
        if (rc == 0 && a->a > 0) {
            bool guarded = c->guard_target == a->a;
            if (guarded && a->flag)
                rc = fail(c, a, "agent %d is guarded tonight, so the attack fails and must be logged false", a->a);
            else if (!guarded && !a->flag)
                rc = fail(c, a,
                          "the attack on agent %d is logged false, but nobody guarded agent %d (a guarded "
                          "target is the only way an attack fails)",
                          a->a, a->a);
            else if (a->flag)
                c->attacked = a->a;
        }
        if (rc == 0)
            advance(c);
    }
    free(v);
    free(marks);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Status blocks, result, and the game                                 */

static int first_status_block(ctx *c)
{
    const aw_logcheck_options *opt = c->opt;
    while (at(c, R_STATUS)) {
        const rec *r = cur(c);
        int i = c->n + 1;
        if (r->a != i)
            return fail(c, r, "status lines list the agents 1..N in order: expected agent %d, got %d", i, r->a);
        if (i > MAXP)
            return fail(c, r, "more than %d players", MAXP);
        if (!r->flag)
            return fail(c, r, "agent %d is DEAD on day 0 (everybody starts alive)", i);
        if (r->role != AW_ROLE_NONE && !aw_role_info_of(r->role)->supported)
            return fail(c, r, "the %s role is not supported by this checker", aw_role_name(r->role));
        c->n = i;
        c->role[i] = r->role;
        c->alive[i] = true;
        c->name[i] = r->s;
        c->namelen[i] = r->slen;
        c->out->role_count[r->role]++;
        c->out->players = i;
        advance(c);
    }
    if (c->n == 0) {
        const rec *r = cur(c);
        if (r->type == R_STATUS)
            return fail(c, r, "a log starts on day 0, this status line is for day %ld", r->day);
        return fail(c, r,
                    "a game log starts with the day-0 status block ('0,status,1,ROLE,ALIVE,name', one line per "
                    "agent)");
    }
    const rec *r = cur(c);
    if (opt && (opt->roles || opt->strict_roles)) {
        int want[AW_NROLES];
        if (opt->roles) {
            memcpy(want, opt->roles, sizeof want);
        } else if (aw_default_roles(c->n, want, NULL) != 0) {
            return fail(c, r, "there is no official role table for %d players (--strict-roles)", c->n);
        }
        for (int k = 0; k < AW_NROLES; k++)
            if (want[k] != c->out->role_count[k]) {
                const rec *first = &c->recs[0];
                return fail(c, first, "the game has %d %s%s, the required role table has %d (%s)",
                            c->out->role_count[k], aw_role_name((aw_role)k), c->out->role_count[k] == 1 ? "" : "s",
                            want[k], opt->roles ? "--roles" : "the official table for this player count");
            }
    }
    return 0;
}

static int status_block(ctx *c)
{
    for (int i = 1; i <= c->n; i++) {
        const rec *r = cur(c);
        if (r->type != R_STATUS) {
            if (i == 1)
                return fail(c, r,
                            "expected the status block of day %ld here (the night's lines end with the attack; "
                            "the order is: votes, execute, divine, whisper, guard, attackVote, attack)",
                            c->day);
            return fail(c, r, "the status block of day %ld is cut short: expected agent %d's status line", c->day, i);
        }
        if (r->day != c->day)
            return fail(c, r, "a status line of day %ld where day %ld starts (days go up by one each night)", r->day,
                        c->day);
        if (r->a != i)
            return fail(c, r, "status lines list the agents 1..N in order: expected agent %d, got %d", i, r->a);
        if (r->role != c->role[i])
            return fail(c, r, "agent %d's role changes from %s (day 0) to %s", i, rname(c, i), aw_role_name(r->role));
        if (r->flag && !c->alive[i])
            return fail(c, r, "agent %d is shown ALIVE but died (%s on day %ld)", i, c->died_how[i], c->died_day[i]);
        if (!r->flag && c->alive[i])
            return fail(c, r, "agent %d is shown DEAD but is alive (agents die only by execution or attack)", i);
        if (r->slen != c->namelen[i] || memcmp(r->s, c->name[i], r->slen) != 0)
            return fail(c, r, "agent %d's name differs from its name on day 0", i);
        advance(c);
    }
    return 0;
}

static int result_line(ctx *c, aw_team win)
{
    const rec *r = cur(c);
    int humans = count_alive(c, 0), wolves = count_alive(c, 1);
    if (!at(c, R_RESULT)) {
        if (r->type == R_RESULT)
            return fail(c, r, "the result line must carry the day of the last status block (%ld), not %ld", c->day,
                        r->day);
        return fail(c, r,
                    "the game is over at the start of day %ld (%d human%s, %d werewol%s alive: %s), so the "
                    "status block must be followed by the result line",
                    c->day, humans, humans == 1 ? "" : "s", wolves, wolves == 1 ? "f" : "ves",
                    win == AW_TEAM_VILLAGER    ? "the villagers win"
                    : win == AW_TEAM_WEREWOLF ? "the werewolves win"
                    : c->abandoned            ? "abandoned: too many agents have failed"
                                               : "the day limit, max_days, is reached");
    }
    if (r->a != humans)
        return fail(c, r, "the result line counts %d living humans, but %d are alive (the possessed counts as a human)",
                    r->a, humans);
    if (r->b != wolves)
        return fail(c, r, "the result line counts %d living werewolves, but %d are alive", r->b, wolves);
    if (r->team != win)
        return fail(c, r, "the winner is %s, not %s (%s)", aw_team_name(win), aw_team_name(r->team),
                    win == AW_TEAM_VILLAGER    ? "no werewolf is alive"
                    : win == AW_TEAM_WEREWOLF ? "living humans are no more than werewolves"
                    : c->abandoned            ? "too many agents failed: the game was abandoned with no winner"
                                               : "the day limit ended the game with no winner");
    advance(c);
    if (cur(c)->type != R_END || c->end_is_syntax) {
        c->end_cut = false; /* even a cut-off line is one line too many here */
        return fail(c, cur(c), "a line after the result line (the result line ends the log)");
    }
    c->out->days = (int)c->day;
    c->out->winner = win;
    c->out->abandoned = c->abandoned;
    c->out->failed = c->nfailed;
    c->out->verdict = AW_LOG_LEGAL;
    return 0;
}

/* The end of a phase (where the engine counts failed agents: after the
 * day's talk, the votes, the divination, the night's whisper, the guard,
 * and, day_start, the attack, before the next day's status block): the
 * error lines there, and the end of the game when they reach the rules'
 * limit (aw_settings_error_limit): the status block of the day and the
 * result with no winner. 0: the game goes on; 1: it ended (legal); -1. */
static int phase_end(ctx *c, bool day_start)
{
    int limit = aw_settings_error_limit(c->s, c->n);
    /* (two phase ends with no line between them show as one block, so
     * the order of the agents is not checked: the replay checks it) */
    c->in_phase_end = true;
    while (cur(c)->type == R_ERROR) {
        const rec *r = cur(c);
        if (!limit)
            return fail(c, r, "an error line, but these rules count no failed agents (error_ratio=0)");
        if (r->day != c->day)
            return fail(c, r, "an error line of day %ld on day %ld", r->day, c->day);
        TRY(check_agent(c, r, r->a, "agent"));
        if (c->failed[r->a])
            return fail(c, r, "agent %d has failed already (one error line per agent)", r->a);
        c->failed[r->a] = true;
        c->nfailed++;
        advance(c);
    }
    c->in_phase_end = false;
    if (!limit || c->nfailed < limit) {
        if (limit && !day_start && at(c, R_STATUS))
            return fail(c, cur(c),
                        "a status block in the middle of day %ld would end the game, abandoned, but %d agent%s "
                        "ha%s failed (error lines) and these rules end it at %d",
                        c->day, c->nfailed, c->nfailed == 1 ? "" : "s", c->nfailed == 1 ? "s" : "ve", limit);
        return 0;
    }
    c->abandoned = true;
    if (!at(c, R_STATUS))
        return fail(c, cur(c),
                    "%d agent%s ha%s failed (error lines) and these rules end the game at %d: the game is abandoned "
                    "here, so the status block of day %ld and the result (NONE) must follow",
                    c->nfailed, c->nfailed == 1 ? "" : "s", c->nfailed == 1 ? "s" : "ve", limit, c->day);
    TRY(status_block(c));
    TRY(result_line(c, AW_TEAM_NONE));
    return 1;
}

#define PHASE_END(c, day_start)                 \
    do {                                        \
        int end_ = phase_end((c), (day_start)); \
        if (end_)                               \
            return end_ < 0 ? -1 : 0;           \
    } while (0)

static int check_game(ctx *c)
{
    const aw_settings *s = c->s;
    TRY(first_status_block(c));
    for (;;) {
        aw_team win = winner_now(c);
        if (win != AW_TEAM_NONE)
            return result_line(c, win);
        if (s->max_days > 0 && c->day > s->max_days)
            return result_line(c, AW_TEAM_NONE); /* the day limit: no winner */
        if (at(c, R_RESULT))
            return fail(c, cur(c), "a result line, but the game is not over (%d humans and %d werewolves alive)",
                        count_alive(c, 0), count_alive(c, 1));
        c->talk_idx = 0;
        c->whisper_idx = 0;
        c->executed = 0;
        c->guard_target = 0;
        c->attacked = 0;
        if (c->day == 0) {
            if (s->talk_on_first_day) {
                /* as the official server: whisper, then the first-day talk
                 * (under rounds the whispers follow each round instead) */
                if (s->whisper_on_first_night && s->talk_mode == AW_TALK_TURNS)
                    TRY(whisper_phase(c));
                TRY(s->talk_mode == AW_TALK_ROUNDS ? talk_rounds(c) : talk_turns(c));
            } else if (at(c, R_TALK)) {
                return fail(c, cur(c), "a talk on day 0 (there is no talk on the first day: talk_on_first_day=false)");
            }
            PHASE_END(c, false);
            if (!s->talk_on_first_day && s->whisper_on_first_night)
                TRY(whisper_phase(c));
            else
                TRY(forbid_whisper(c, "no whisper on night 0 under these rules (whisper_on_first_night=false)"));
            PHASE_END(c, false);
            TRY(divine_phase(c));
            PHASE_END(c, false);
            if (at(c, R_VOTE) || at(c, R_EXECUTE) || at(c, R_GUARD) || at(c, R_ATTACKVOTE) || at(c, R_ATTACK))
                return fail(c, cur(c), "a %s line on night 0 (night 0 has only the whisper and the divination)",
                            rtype_names[cur(c)->type]);
        } else {
            TRY(s->talk_mode == AW_TALK_ROUNDS ? talk_rounds(c) : talk_turns(c));
            PHASE_END(c, false);
            TRY(forbid_whisper(c, "the werewolves whisper after the execution, not before the votes"));
            TRY(votes_and_execution(c));
            PHASE_END(c, false);
            TRY(divine_phase(c));
            PHASE_END(c, false);
            if (s->whisper_at_night)
                TRY(whisper_phase(c));
            else
                TRY(forbid_whisper(c, "no whisper at night under these rules (whisper_at_night=false)"));
            PHASE_END(c, false);
            TRY(guard_phase(c));
            PHASE_END(c, false);
            TRY(attack_phase(c));
        }
        if (c->attacked)
            mark_dead(c, c->attacked, "attacked");
        c->day++;
        PHASE_END(c, true);
        TRY(status_block(c));
    }
}

/* ------------------------------------------------------------------ */
/* Entry point                                                         */

int aw_logcheck(const char *text, size_t len, const aw_settings *rules, const aw_logcheck_options *opt,
                aw_logcheck_report *out, aw_error *err)
{
    if (!out || !rules || (!text && len))
        return aw_fail(err, AW_EINVAL, "aw_logcheck: NULL argument");
    memset(out, 0, sizeof *out);
    out->winner = AW_TEAM_NONE;
    out->verdict = AW_LOG_ILLEGAL;

    ctx *c = aw_xcalloc(1, sizeof *c);
    c->s = rules;
    c->opt = opt;
    c->out = out;

    /* A UTF-8 byte order mark (editors on Windows add one) is not part of
     * the first line. */
    if (text && len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
        text += 3;
        len -= 3;
    }
    /* Cut into lines and parse until the first line that does not parse. */
    size_t cap = 256;
    c->recs = aw_xmalloc(cap * sizeof *c->recs);
    size_t p = 0;
    long lineno = 0;
    while (p < len) {
        const char *nl = memchr(text + p, '\n', len - p);
        size_t e = nl ? (size_t)(nl - text) : len;
        size_t n = e - p;
        if (n > 0 && text[p + n - 1] == '\r')
            n--; /* tolerate CRLF line ends */
        lineno++;
        if (c->nrecs + 1 >= cap) {
            cap *= 2;
            c->recs = aw_xrealloc(c->recs, cap * sizeof *c->recs);
        }
        rec *r = &c->recs[c->nrecs];
        char why[400];
        if (parse_line(text + p, n, r, why, sizeof why) != 0) {
            memset(r, 0, sizeof *r);
            r->type = R_END;
            r->lineno = lineno;
            r->line = text + p;
            r->linelen = n;
            c->end_is_syntax = true;
            c->end_cut = !nl && c->nrecs > 0;
            snprintf(c->syntax_why, sizeof c->syntax_why, "%s", why);
            break;
        }
        r->lineno = lineno;
        r->line = text + p;
        r->linelen = n;
        c->nrecs++;
        p = nl ? e + 1 : len;
    }
    out->lines = lineno;
    if (!c->end_is_syntax) {
        rec *r = &c->recs[c->nrecs];
        memset(r, 0, sizeof *r);
        r->type = R_END;
        r->lineno = lineno + 1;
        r->line = "";
        r->linelen = 0;
    }
    if (len == 0) {
        out->verdict = AW_LOG_INCOMPLETE;
        out->line = 1;
        snprintf(out->reason, sizeof out->reason,
                 "empty log: no game was recorded (a server that crashed before the game started leaves an empty "
                 "log)");
    } else {
        check_game(c);
    }
    free(c->recs);
    free(c);
    return (int)out->verdict;
}
