/* engine: the rules of the game as a resumable state machine.
 *
 * The game is a sequence of states (ST_*). step() runs the current state and
 * moves to the next; a state that needs the seats issues a request and
 * returns, and aw_engine_next() hands that request to the driver. A state
 * that issued a request that needs answers moves to its *_DONE state, which
 * reads the answers the driver stored with aw_engine_reply_*. Talk and
 * whisper phases share one implementation (struct chan); a phase remembers
 * the state to return to, so whispers can run inside the talk (seed 2015
 * rounds), at night, or before an attack revote.
 *
 * Events are emitted in the order of the official game log, so the CSV
 * writer is a plain formatter. Uses settings, rng and util. */
#include "engine.h"

#include <stdio.h> /* snprintf only: the engine does no I/O */
#include <stdlib.h>
#include <string.h>

#include "nlprules.h"
#include "rng.h"

/* Longest talk text accepted; longer replies become Skip. */
#define AW_MAX_TALK_LEN 8192

enum state {
    ST_START,
    ST_DAY_BEGIN,
    ST_DAY_TALK,
    ST_TALK_START,
    ST_CH_TURN,  /* a turn of the current channel begins */
    ST_CH_ASK,   /* ask the next agent of the turn */
    ST_CH_GOT,   /* the agent answered */
    ST_CH_TURN_END,
    ST_CH_TURN_CHECK,
    ST_DAY_FINISH,
    ST_NIGHT,
    ST_VOTE_ASK,
    ST_VOTE_DONE,
    ST_DIVINE_ASK,
    ST_DIVINE_DONE,
    ST_AFTER_DIVINE,
    ST_GUARD_ASK,
    ST_GUARD_DONE,
    ST_ATTACK_START,
    ST_ATTACK_ASK,
    ST_ATTACK_ISSUE,
    ST_ATTACK_DONE,
    ST_NIGHT_END,
    ST_FINISH,
    ST_DONE
};

/* One talk channel (talk or whisper) for one day. */
typedef struct chan {
    bool whisper;
    aw_talk *list; /* today's utterances, owned */
    int count, cap;
    bool active;      /* a phase of this channel is running */
    int turn;
    int order[AW_MAX_PLAYERS];
    int norder, pos;
    bool turn_all_over, turn_real;
    int quiet_turns;
    int remain[AW_MAX_PLAYERS + 1];
    int skips[AW_MAX_PLAYERS + 1];
    int ret; /* state after the phase */
} chan;

struct aw_engine {
    aw_settings set;
    aw_engine_hooks hooks;
    uint64_t seed;
    aw_rng rng;
    aw_state st; /* the public view of the game; lists point into the chans */
    char *names[AW_MAX_PLAYERS + 1];

    enum state state;
    aw_request req;
    char *reply_text[AW_MAX_PLAYERS + 1];
    size_t reply_len[AW_MAX_PLAYERS + 1];
    int reply_target[AW_MAX_PLAYERS + 1];
    bool replied[AW_MAX_PLAYERS + 1];
    bool issued;

    chan talk, whisper;
    chan *cur; /* the channel whose phase is running (whisper may run inside talk) */

    int vote_round;
    int final_votes_n;
    aw_vote final_votes[AW_MAX_PLAYERS];
    aw_judge divine_tonight;
    int guard_target, guard_agent;
    int attack_round;
    int attacked_tonight; /* target chosen tonight, 0 none */
    int dies_tonight;     /* 0 none */

    int *talks_per_day, *whispers_per_day;
    int days_cap;
    bool failing[AW_MAX_PLAYERS + 1]; /* failed, not counted yet (aw_engine_fail) */
};

static const char *const req_names[] = {
    /* AW_REQ_NONE is only ever logged for the start of a game, which is the
     * official NAME request. */
    "NAME", "INITIALIZE", "DAILY_INITIALIZE", "DAILY_FINISH", "TALK", "WHISPER",
    "VOTE", "DIVINE", "GUARD", "ATTACK", "FINISH",
};

const char *aw_req_name(aw_req_kind k)
{
    if ((int)k < 0 || k > AW_REQ_FINISH)
        return "?";
    return req_names[k];
}

bool aw_req_needs_reply(aw_req_kind k)
{
    return k == AW_REQ_TALK || k == AW_REQ_WHISPER || k == AW_REQ_VOTE || k == AW_REQ_DIVINE ||
           k == AW_REQ_GUARD || k == AW_REQ_ATTACK;
}

bool aw_req_wants_text(aw_req_kind k)
{
    return k == AW_REQ_TALK || k == AW_REQ_WHISPER;
}

/* ---- small helpers ---------------------------------------------------- */

static void emit(aw_engine *g, aw_event *ev)
{
    ev->day = g->st.day;
    if (g->hooks.event)
        g->hooks.event(g->hooks.ud, ev);
}

static aw_event event_of(aw_event_kind kind)
{
    aw_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = kind;
    ev.role = AW_ROLE_NONE;
    ev.team = AW_TEAM_NONE;
    return ev;
}

static bool is_wolf(const aw_engine *g, int a)
{
    return aw_role_is_wolf(g->st.role[a]);
}

static int count_alive(const aw_engine *g, bool wolves)
{
    int n = 0;
    for (int a = 1; a <= g->st.n; a++)
        if (g->st.alive[a] && is_wolf(g, a) == wolves)
            n++;
    return n;
}

static aw_team winner_now(const aw_engine *g)
{
    return aw_winner(count_alive(g, false), count_alive(g, true));
}

/* Fills out with the living agents (ascending) that satisfy the filter. */
enum pick { PICK_ALIVE, PICK_WOLVES, PICK_HUMANS, PICK_NIGHT };

/* The living agents p picks, in ascending order; PICK_NIGHT picks the
 * holders of roles whose night action is night. */
static int living(const aw_engine *g, enum pick p, aw_night_action night, int *out)
{
    int n = 0;
    for (int a = 1; a <= g->st.n; a++) {
        if (!g->st.alive[a])
            continue;
        if ((p == PICK_WOLVES && !is_wolf(g, a)) || (p == PICK_HUMANS && is_wolf(g, a)) ||
            (p == PICK_NIGHT && aw_role_info_of(g->st.role[a])->night != night))
            continue;
        out[n++] = a;
    }
    return n;
}

/* One random choice among options[0..n), n >= 1: the generator's, unless a
 * replay hook makes it. */
static int choose(aw_engine *g, aw_choice kind, int agent, const int *options, int n)
{
    if (g->hooks.choose) {
        int i = g->hooks.choose(g->hooks.ud, kind, agent, options, n);
        if (i >= 0 && i < n)
            return options[i];
    }
    return options[aw_rng_below(&g->rng, (uint32_t)n)];
}

/* A random living agent other than `self` that is (when humans_only) not a
 * werewolf; 0 if there is none. */
static int random_other(aw_engine *g, int self, bool humans_only)
{
    int c[AW_MAX_PLAYERS], n = 0;
    for (int a = 1; a <= g->st.n; a++)
        if (g->st.alive[a] && a != self && !(humans_only && is_wolf(g, a)))
            c[n++] = a;
    return n ? choose(g, AW_CHOICE_SUBSTITUTE, self, c, n) : 0;
}

/* A random order of the n agents in a (in place), drawn one place at a time
 * so a replay can dictate it. */
static void random_order(aw_engine *g, aw_choice kind, int *a, int n)
{
    for (int i = 0; i < n - 1; i++) {
        int pick = choose(g, kind, 0, a + i, n - i);
        for (int j = i; j < n; j++)
            if (a[j] == pick) {
                a[j] = a[i];
                a[i] = pick;
                break;
            }
    }
}

static void issue(aw_engine *g, aw_req_kind kind, const int *seats, int n)
{
    g->req.kind = kind;
    g->req.nseats = n;
    memcpy(g->req.seats, seats, sizeof(int) * (size_t)n);
    for (int a = 0; a <= AW_MAX_PLAYERS; a++) {
        if (g->reply_text[a]) { /* most requests have no text to free (free(NULL) is a call too) */
            free(g->reply_text[a]);
            g->reply_text[a] = NULL;
        }
        g->reply_len[a] = 0;
        g->reply_target[a] = AW_NO_AGENT;
        g->replied[a] = false;
    }
    g->issued = true;
}

static void issue_all(aw_engine *g, aw_req_kind kind)
{
    int seats[AW_MAX_PLAYERS];
    for (int a = 1; a <= g->st.n; a++)
        seats[a - 1] = a;
    issue(g, kind, seats, g->st.n);
}

static void substitute(aw_engine *g, int agent, aw_req_kind req, int given, int used, const char *reason)
{
    aw_event ev = event_of(AW_EV_SUBSTITUTE);
    ev.agent = agent;
    ev.req = req;
    ev.given = given;
    ev.target = used;
    ev.reason = reason;
    emit(g, &ev);
}

static bool valid_index(const aw_engine *g, int t)
{
    return t >= 1 && t <= g->st.n;
}

/* ---- talk and whisper ------------------------------------------------- */

static void chan_clear(aw_engine *g, chan *ch)
{
    for (int i = 0; i < ch->count; i++) {
        free(ch->list[i].text);
        if (ch->list[i].parsed && g->hooks.talk.free_parsed)
            g->hooks.talk.free_parsed(g->hooks.ud, ch->list[i].parsed);
    }
    ch->count = 0;
}

static void sync_lists(aw_engine *g)
{
    g->st.talks = g->talk.list;
    g->st.ntalks = g->talk.count;
    g->st.whispers = g->whisper.list;
    g->st.nwhispers = g->whisper.count;
}

static bool whisper_possible(const aw_engine *g)
{
    int wolves = count_alive(g, true);
    return wolves >= 2 || (wolves == 1 && g->set.whisper_single_wolf);
}

/* Starts a talk or whisper phase that continues at state `ret`. */
static enum state chan_start(aw_engine *g, chan *ch, enum state ret)
{
    int limit = ch->whisper ? g->set.max_whisper : g->set.max_talk;
    int *remain = ch->whisper ? g->st.remain_whisper : g->st.remain_talk;
    for (int a = 1; a <= g->st.n; a++) {
        bool member = g->st.alive[a] && (!ch->whisper || is_wolf(g, a));
        ch->remain[a] = member ? (limit > 0 ? limit : -1) : 0;
        remain[a] = member ? (limit > 0 ? limit : -1) : -1;
        ch->skips[a] = 0;
    }
    ch->turn = 0;
    ch->quiet_turns = 0;
    ch->ret = ret;
    ch->active = true;
    g->cur = ch;
    return ST_CH_TURN;
}

/* One line of valid UTF-8: no control bytes, no broken sequences. */
static bool valid_utf8_line(const char *s, size_t len)
{
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f) { /* printable ASCII, nearly every byte: no call */
            i++;
            continue;
        }
        size_t n = aw_utf8_char_len(s + i, len - i);
        if (n == 0 || c < 0x20 || c == 0x7f)
            return false;
        i += n;
    }
    return true;
}

static bool text_is(const char *t, size_t len, const char *word)
{
    return strlen(word) == len && memcmp(t, word, len) == 0;
}

/* Records one utterance of agent `a` on the current channel: validates it,
 * applies the Skip/Over rules and the talk limit, logs it. `asked` is false
 * when the agent had no talks left and says Over without being asked. */
static void chan_record(aw_engine *g, chan *ch, int a, const char *raw, size_t len, bool asked)
{
    size_t raw_len = len; /* what the agent said, before the rules replace it */
    aw_req_kind req = ch->whisper ? AW_REQ_WHISPER : AW_REQ_TALK;
    bool lenient = g->set.validation == AW_VALIDATE_LENIENT;
    const char *text = raw;
    const char *reason = NULL;
    void *parsed = NULL;
    char errbuf[sizeof(((aw_error *)0)->msg) + 32];

    if (!asked) {
        text = "Over";
        len = 4;
    } else if (!raw || len == 0) {
        if (!raw)
            reason = "no answer";
        text = "Skip";
        len = 4;
    } else if (len > AW_MAX_TALK_LEN) {
        reason = "longer than 8192 bytes";
    } else if (!valid_utf8_line(raw, len)) {
        reason = "not one line of UTF-8 text (control bytes or invalid UTF-8)";
    } else if (g->set.validation != AW_VALIDATE_OFF && g->hooks.talk.validate) {
        aw_error err;
        err.msg[0] = '\0';
        if (g->hooks.talk.validate(g->hooks.ud, raw, len, g->set.validation, &parsed, &err) < 0) {
            snprintf(errbuf, sizeof errbuf, "invalid utterance: %s", err.msg);
            reason = errbuf;
            parsed = NULL;
        }
    }
    if (reason && text == raw) {
        text = "Skip";
        len = 4;
    }
    /* The NLP division's length rule (nlprules.h): a real utterance is cut,
     * and the event says what was said. */
    aw_buf cut;
    aw_buf_init(&cut);
    if (!reason && text == raw && (g->set.talk_length > 0 || g->set.mention_length > 0) &&
        !text_is(text, len, "Over") && !text_is(text, len, "Skip") &&
        aw_nlp_cut(&g->set, g->st.n, a, raw, len, &cut)) {
        text = cut.data;
        len = cut.len;
        snprintf(errbuf, sizeof errbuf, "cut to the length rule (talk_length %d, mention_length %d)",
                 g->set.talk_length, g->set.mention_length);
        reason = errbuf;
    }

    bool over = text_is(text, len, "Over") || (lenient && text_is(text, len, "OVER"));
    bool skip = text_is(text, len, "Skip") || (lenient && text_is(text, len, "SKIP"));
    if (skip && g->set.max_skip >= 0 && ++ch->skips[a] > g->set.max_skip) {
        if (!reason)
            reason = "too many Skips in a row";
        text = "Over";
        len = 4;
        skip = false;
        over = true;
        if (parsed && g->hooks.talk.free_parsed)
            g->hooks.talk.free_parsed(g->hooks.ud, parsed);
        parsed = NULL;
    }
    bool real = !over && !skip;
    if (real) {
        ch->skips[a] = 0;
        if (ch->remain[a] > 0) {
            ch->remain[a]--;
            (ch->whisper ? g->st.remain_whisper : g->st.remain_talk)[a] = ch->remain[a];
        }
    }
    if (text != raw && parsed && g->hooks.talk.free_parsed) {
        g->hooks.talk.free_parsed(g->hooks.ud, parsed);
        parsed = NULL;
    }

    if (ch->count == ch->cap) {
        ch->cap = ch->cap ? ch->cap * 2 : 64;
        ch->list = aw_xrealloc(ch->list, sizeof(aw_talk) * (size_t)ch->cap);
    }
    aw_talk *t = &ch->list[ch->count++];
    t->day = g->st.day;
    t->idx = ch->count - 1;
    t->turn = ch->turn;
    t->agent = a;
    t->text = aw_xstrndup(text, len);
    t->len = len;
    t->parsed = parsed;
    sync_lists(g);

    if (reason && asked) {
        aw_event ev = event_of(AW_EV_TALK_REPLACED);
        ev.agent = a;
        ev.req = req;
        ev.text = raw;
        ev.text_len = raw ? (raw_len > AW_MAX_TALK_LEN ? AW_MAX_TALK_LEN : raw_len) : 0;
        ev.talk = t;
        ev.reason = reason;
        emit(g, &ev);
    }
    aw_event ev = event_of(ch->whisper ? AW_EV_WHISPER : AW_EV_TALK);
    ev.agent = a;
    ev.talk = t;
    emit(g, &ev);
    aw_buf_free(&cut);

    ch->turn_all_over = ch->turn_all_over && over;
    ch->turn_real = ch->turn_real || real;
}

static enum state chan_turn(aw_engine *g, chan *ch)
{
    if (ch->turn >= (ch->whisper ? g->set.max_whisper_turn : g->set.max_talk_turn)) {
        ch->active = false;
        return ch->ret;
    }
    ch->norder = living(g, ch->whisper ? PICK_WOLVES : PICK_ALIVE, AW_NIGHT_NONE, ch->order);
    random_order(g, ch->whisper ? AW_CHOICE_WHISPER_ORDER : AW_CHOICE_TALK_ORDER, ch->order, ch->norder);
    ch->pos = 0;
    ch->turn_all_over = true;
    ch->turn_real = false;
    return ST_CH_ASK;
}

static enum state chan_ask(aw_engine *g, chan *ch)
{
    while (ch->pos < ch->norder) {
        int a = ch->order[ch->pos];
        if (ch->remain[a] == 0) {
            /* out of talks: Over without being asked */
            chan_record(g, ch, a, NULL, 0, false);
            ch->pos++;
            continue;
        }
        issue(g, ch->whisper ? AW_REQ_WHISPER : AW_REQ_TALK, &a, 1);
        return ST_CH_GOT;
    }
    return ST_CH_TURN_END;
}

static enum state chan_turn_check(aw_engine *g, chan *ch)
{
    ch->turn++;
    if (ch->turn_all_over) {
        ch->active = false;
        return ch->ret;
    }
    ch->quiet_turns = ch->turn_real ? 0 : ch->quiet_turns + 1;
    if (!ch->whisper && g->set.talk_end_all_skip_turns > 0 && ch->quiet_turns >= g->set.talk_end_all_skip_turns) {
        ch->active = false;
        return ch->ret;
    }
    return ST_CH_TURN;
}

/* ---- votes and night actions ------------------------------------------ */

static void tally_top(const int *count, int n, int *cand, int *ncand)
{
    int max = 0;
    *ncand = 0;
    for (int a = 1; a <= n; a++)
        if (count[a] > max)
            max = count[a];
    if (max == 0)
        return;
    for (int a = 1; a <= n; a++)
        if (count[a] == max)
            cand[(*ncand)++] = a;
}

static enum state vote_done(aw_engine *g)
{
    int count[AW_MAX_PLAYERS + 1] = {0};
    g->st.nlatest_votes = 0;
    for (int i = 0; i < g->req.nseats; i++) {
        int a = g->req.seats[i];
        int t = g->reply_target[a];
        if (!valid_index(g, t) || !g->st.alive[t] || t == a) {
            int used = random_other(g, a, false);
            substitute(g, a, AW_REQ_VOTE, t,  used,
                       !g->replied[a] ? "no answer"
                       : t == AW_NO_AGENT ? "no target"
                       : !valid_index(g, t) ? "no such agent"
                       : t == a ? "voted for itself"
                                : "target is dead");
            t = used;
        }
        aw_vote v = {g->st.day, a, t};
        g->st.latest_votes[g->st.nlatest_votes++] = v;
        aw_event ev = event_of(AW_EV_VOTE);
        ev.agent = a;
        ev.target = t;
        ev.round = g->vote_round;
        emit(g, &ev);
        if (t)
            count[t]++;
    }
    int cand[AW_MAX_PLAYERS], ncand;
    tally_top(count, g->st.n, cand, &ncand);
    int executed = 0;
    if (ncand == 1) {
        executed = cand[0];
    } else if (g->vote_round < g->set.max_revote) {
        g->vote_round++;
        return ST_VOTE_ASK;
    } else if (ncand > 0 && !g->set.enable_no_execution) {
        executed = choose(g, AW_CHOICE_EXECUTE_TIE, 0, cand, ncand);
    }
    memcpy(g->final_votes, g->st.latest_votes, sizeof g->final_votes);
    g->final_votes_n = g->st.nlatest_votes;
    if (executed) {
        g->st.alive[executed] = false;
        g->st.latest_executed = executed;
        aw_event ev = event_of(AW_EV_EXECUTE);
        ev.agent = executed;
        ev.role = g->st.role[executed];
        emit(g, &ev);
    }
    return ST_DIVINE_ASK;
}

static enum state divine_done(aw_engine *g)
{
    for (int i = 0; i < g->req.nseats; i++) {
        int a = g->req.seats[i];
        int t = g->reply_target[a];
        bool ok = valid_index(g, t) && (g->st.alive[t] || g->set.divine_dead_target);
        if (!ok) {
            int used = g->set.invalid_divine == AW_INVALID_RANDOM ? random_other(g, a, false) : 0;
            substitute(g, a, AW_REQ_DIVINE, t, used,
                       !g->replied[a] ? "no answer"
                       : t == AW_NO_AGENT ? "no target"
                       : !valid_index(g, t) ? "no such agent"
                                            : "target is dead");
            t = used;
        }
        if (!t)
            continue;
        aw_judge j = {g->st.day, a, t, aw_role_species(g->st.role[t])};
        g->divine_tonight = j;
        aw_event ev = event_of(AW_EV_DIVINE);
        ev.agent = a;
        ev.target = t;
        ev.species = j.result;
        emit(g, &ev);
    }
    return ST_AFTER_DIVINE;
}

static enum state guard_done(aw_engine *g)
{
    for (int i = 0; i < g->req.nseats; i++) {
        int a = g->req.seats[i];
        int t = g->reply_target[a];
        bool ok = valid_index(g, t) && t != a && (g->st.alive[t] || g->set.guard_dead_target);
        if (!ok) {
            int used = g->set.invalid_guard == AW_INVALID_RANDOM ? random_other(g, a, false) : 0;
            substitute(g, a, AW_REQ_GUARD, t, used,
                       !g->replied[a] ? "no answer"
                       : t == AW_NO_AGENT ? "no target"
                       : !valid_index(g, t) ? "no such agent"
                       : t == a ? "guarded itself"
                                : "target is dead");
            t = used;
        }
        if (!t)
            continue;
        /* With several bodyguards the last one's guard counts, as officially. */
        g->guard_target = t;
        g->guard_agent = a;
        aw_event ev = event_of(AW_EV_GUARD);
        ev.agent = a;
        ev.target = t;
        ev.role = g->st.role[t];
        emit(g, &ev);
    }
    return ST_ATTACK_START;
}

static enum state attack_done(aw_engine *g)
{
    int count[AW_MAX_PLAYERS + 1] = {0};
    g->st.nlatest_attack_votes = 0;
    for (int i = 0; i < g->req.nseats; i++) {
        int a = g->req.seats[i];
        int t = g->reply_target[a];
        if (!valid_index(g, t) || !g->st.alive[t] || is_wolf(g, t)) {
            int used = g->set.invalid_attack == AW_INVALID_RANDOM ? random_other(g, a, true) : 0;
            substitute(g, a, AW_REQ_ATTACK, t, used,
                       !g->replied[a] ? "no answer"
                       : t == AW_NO_AGENT ? "no target"
                       : !valid_index(g, t) ? "no such agent"
                       : !g->st.alive[t] ? "target is dead"
                                         : "target is a werewolf");
            t = used;
        }
        if (!t)
            continue;
        aw_vote v = {g->st.day, a, t};
        g->st.latest_attack_votes[g->st.nlatest_attack_votes++] = v;
        count[t]++;
        aw_event ev = event_of(AW_EV_ATTACK_VOTE);
        ev.agent = a;
        ev.target = t;
        ev.round = g->attack_round;
        emit(g, &ev);
    }
    /* Unless attacking nobody is allowed, every living human starts with one
     * vote: a round without a valid vote ties them all. */
    if (!g->set.enable_no_attack)
        for (int a = 1; a <= g->st.n; a++)
            if (g->st.alive[a] && !is_wolf(g, a))
                count[a]++;
    int cand[AW_MAX_PLAYERS], ncand;
    tally_top(count, g->st.n, cand, &ncand);
    int target = 0;
    if (ncand == 1) {
        target = cand[0];
    } else if (g->attack_round < g->set.max_attack_revote) {
        /* A tie — or, when attacking nobody is allowed, no valid vote at all —
         * is voted again, as the official server does. */
        g->attack_round++;
        return ST_ATTACK_ASK;
    } else if (ncand > 1 && !g->set.enable_no_attack) {
        target = choose(g, AW_CHOICE_ATTACK_TIE, 0, cand, ncand);
    }
    g->attacked_tonight = target;
    aw_event ev = event_of(AW_EV_ATTACK);
    ev.target = target ? target : -1;
    if (target) {
        bool guarded = g->guard_target == target && g->guard_agent && g->st.alive[g->guard_agent];
        ev.flag = !guarded;
        if (!guarded)
            g->dies_tonight = target;
    }
    emit(g, &ev);
    return ST_NIGHT_END;
}

/* ---- days -------------------------------------------------------------- */

static void emit_status(aw_engine *g)
{
    for (int a = 1; a <= g->st.n; a++) {
        aw_event ev = event_of(AW_EV_STATUS);
        ev.agent = a;
        ev.role = g->st.role[a];
        ev.alive = g->st.alive[a];
        emit(g, &ev);
    }
}

static void note_day_counts(aw_engine *g)
{
    int d = g->st.day;
    if (d >= g->days_cap) {
        int cap = g->days_cap ? g->days_cap * 2 : 16;
        while (cap <= d)
            cap *= 2;
        g->talks_per_day = aw_xrealloc(g->talks_per_day, sizeof(int) * (size_t)cap);
        g->whispers_per_day = aw_xrealloc(g->whispers_per_day, sizeof(int) * (size_t)cap);
        for (int i = g->days_cap; i < cap; i++)
            g->talks_per_day[i] = g->whispers_per_day[i] = 0;
        g->days_cap = cap;
    }
    g->talks_per_day[d] = g->talk.count;
    g->whispers_per_day[d] = g->whisper.count;
    g->st.talks_per_day = g->talks_per_day;
    g->st.whispers_per_day = g->whispers_per_day;
    g->st.talks_per_day_count = d + 1;
}

/* The talks and whispers each living agent (werewolf) has left, as the
 * official gameInfo shows them from the start of a day: the full allowance
 * until a phase starts using it up. */
static void reset_remain(aw_engine *g)
{
    aw_state *st = &g->st;
    for (int a = 1; a <= st->n; a++) {
        bool alive = st->alive[a];
        st->remain_talk[a] = alive && g->set.max_talk > 0 ? g->set.max_talk : -1;
        st->remain_whisper[a] = alive && is_wolf(g, a) && g->set.max_whisper > 0 ? g->set.max_whisper : -1;
    }
}

static bool phase_end(aw_engine *g);

static enum state night_end(aw_engine *g)
{
    aw_state *st = &g->st;
    note_day_counts(g);
    int medium = 0;
    for (int a = 1; a <= st->n && !medium; a++)
        if (aw_role_info_of(st->role[a])->medium)
            medium = a;

    st->day++;
    st->nlast_dead = 0;
    if (g->dies_tonight) {
        st->alive[g->dies_tonight] = false;
        st->last_dead[st->nlast_dead++] = g->dies_tonight;
    }
    st->executed = st->latest_executed;
    st->latest_executed = 0;
    memcpy(st->votes, g->final_votes, sizeof st->votes);
    st->nvotes = g->final_votes_n;
    st->nlatest_votes = 0;
    g->final_votes_n = 0;
    st->divine_result = g->divine_tonight;
    if (st->divine_result.agent)
        st->divine_result.day = st->day;
    memset(&st->medium_result, 0, sizeof st->medium_result);
    if (st->executed && medium) {
        aw_judge j = {st->day, medium, st->executed, aw_role_species(st->role[st->executed])};
        st->medium_result = j;
    }
    st->guarded = g->guard_target;
    st->attacked = g->attacked_tonight;
    memcpy(st->attack_votes, st->latest_attack_votes, sizeof st->attack_votes);
    st->nattack_votes = st->nlatest_attack_votes;
    st->nlatest_attack_votes = 0;

    memset(&g->divine_tonight, 0, sizeof g->divine_tonight);
    g->guard_target = g->guard_agent = 0;
    g->attacked_tonight = g->dies_tonight = 0;
    chan_clear(g, &g->talk);
    chan_clear(g, &g->whisper);
    sync_lists(g);
    reset_remain(g);

    if (phase_end(g)) /* before the winner, as the official server checks */
        return ST_FINISH;
    st->winner = winner_now(g);
    if (st->winner == AW_TEAM_NONE && g->set.max_days > 0 && st->day > g->set.max_days)
        return ST_FINISH; /* the day limit: the game ends with no winner */
    return st->winner != AW_TEAM_NONE ? ST_FINISH : ST_DAY_BEGIN;
}

/* The end of a phase: the agents that failed during it are counted (an
 * error event each, ascending), and true when they end the game (the
 * caller then goes to ST_FINISH). */
static bool phase_end(aw_engine *g)
{
    aw_state *st = &g->st;
    int limit = aw_settings_error_limit(&g->set, g->st.n);
    if (!limit)
        return false;
    for (int a = 1; a <= st->n; a++) {
        if (!g->failing[a])
            continue;
        g->failing[a] = false;
        st->failed[a] = true;
        st->nfailed++;
        aw_event ev = event_of(AW_EV_ERROR);
        ev.agent = a;
        emit(g, &ev);
    }
    if (st->nfailed < limit)
        return false;
    st->abandoned = true;
    st->winner = AW_TEAM_NONE;
    return true;
}

void aw_engine_fail(aw_engine *g, int agent)
{
    if (!aw_settings_error_limit(&g->set, g->st.n) || agent < 1 || agent > g->st.n || g->st.finished || g->st.failed[agent])
        return;
    g->failing[agent] = true;
}

static void step(aw_engine *g)
{
    aw_state *st = &g->st;
    int seats[AW_MAX_PLAYERS], n;
    switch (g->state) {
    case ST_START:
        issue_all(g, AW_REQ_INITIALIZE);
        st->winner = winner_now(g);
        g->state = st->winner != AW_TEAM_NONE ? ST_FINISH : ST_DAY_BEGIN;
        return;
    case ST_DAY_BEGIN:
        emit_status(g);
        issue_all(g, AW_REQ_DAILY_INITIALIZE);
        g->state = ST_DAY_TALK;
        return;
    case ST_DAY_TALK:
        if (st->day == 0 && !g->set.talk_on_first_day)
            g->state = ST_DAY_FINISH;
        else if (st->day == 0 && g->set.whisper_on_first_night && g->set.talk_mode == AW_TALK_TURNS &&
                 whisper_possible(g))
            /* The official server whispers before a first-day talk. */
            g->state = chan_start(g, &g->whisper, ST_TALK_START);
        else
            g->state = ST_TALK_START;
        return;
    case ST_TALK_START:
        g->state = chan_start(g, &g->talk, ST_DAY_FINISH);
        return;
    case ST_CH_TURN:
        g->state = chan_turn(g, g->cur);
        return;
    case ST_CH_ASK:
        g->state = chan_ask(g, g->cur);
        return;
    case ST_CH_GOT: {
        chan *ch = g->cur;
        int a = ch->order[ch->pos];
        chan_record(g, ch, a, g->reply_text[a], g->reply_len[a], true);
        ch->pos++;
        g->state = ST_CH_ASK;
        return;
    }
    case ST_CH_TURN_END:
        /* Seed 2015: the werewolves whisper after every talk round. */
        if (g->cur == &g->talk && g->set.talk_mode == AW_TALK_ROUNDS && whisper_possible(g)) {
            g->state = chan_start(g, &g->whisper, ST_CH_TURN_CHECK);
            return;
        }
        g->state = ST_CH_TURN_CHECK;
        return;
    case ST_CH_TURN_CHECK: {
        /* A whisper phase nested in the talk has just ended: resume the talk. */
        if (!g->whisper.active && g->talk.active)
            g->cur = &g->talk;
        chan *ch = g->cur;
        enum state next = chan_turn_check(g, ch);
        if (!ch->active && ch == &g->whisper && g->talk.active)
            g->cur = &g->talk;
        g->state = next;
        return;
    }
    case ST_DAY_FINISH:
        if (phase_end(g)) {
            g->state = ST_FINISH;
            return;
        }
        issue_all(g, AW_REQ_DAILY_FINISH);
        g->state = ST_NIGHT;
        return;
    case ST_NIGHT:
        if (st->day == 0) {
            if (!g->set.talk_on_first_day && g->set.whisper_on_first_night && whisper_possible(g))
                g->state = chan_start(g, &g->whisper, ST_DIVINE_ASK);
            else
                g->state = ST_DIVINE_ASK;
        } else {
            g->vote_round = 0;
            g->state = ST_VOTE_ASK;
        }
        return;
    case ST_VOTE_ASK:
        n = living(g, PICK_ALIVE, AW_NIGHT_NONE, seats);
        issue(g, AW_REQ_VOTE, seats, n);
        g->state = ST_VOTE_DONE;
        return;
    case ST_VOTE_DONE:
        g->state = vote_done(g);
        return;
    case ST_DIVINE_ASK:
        if (phase_end(g)) {
            g->state = ST_FINISH;
            return;
        }
        n = living(g, PICK_NIGHT, AW_NIGHT_DIVINE, seats);
        if (n) {
            issue(g, AW_REQ_DIVINE, seats, n);
            g->state = ST_DIVINE_DONE;
        } else {
            g->state = ST_AFTER_DIVINE;
        }
        return;
    case ST_DIVINE_DONE:
        g->state = divine_done(g);
        return;
    case ST_AFTER_DIVINE:
        if (phase_end(g))
            g->state = ST_FINISH;
        else if (st->day == 0)
            g->state = ST_NIGHT_END;
        else if (g->set.whisper_at_night && whisper_possible(g))
            g->state = chan_start(g, &g->whisper, ST_GUARD_ASK);
        else
            g->state = ST_GUARD_ASK;
        return;
    case ST_GUARD_ASK:
        if (phase_end(g)) {
            g->state = ST_FINISH;
            return;
        }
        n = living(g, PICK_NIGHT, AW_NIGHT_GUARD, seats);
        if (n) {
            issue(g, AW_REQ_GUARD, seats, n);
            g->state = ST_GUARD_DONE;
        } else {
            g->state = ST_ATTACK_START;
        }
        return;
    case ST_GUARD_DONE:
        g->state = guard_done(g);
        return;
    case ST_ATTACK_START:
        g->attack_round = 0;
        if (phase_end(g))
            g->state = ST_FINISH;
        else
            g->state = count_alive(g, true) > 0 ? ST_ATTACK_ASK : ST_NIGHT_END;
        return;
    case ST_ATTACK_ASK:
        if (g->attack_round > 0 && g->set.whisper_before_revote && whisper_possible(g))
            g->state = chan_start(g, &g->whisper, ST_ATTACK_ISSUE);
        else
            g->state = ST_ATTACK_ISSUE;
        return;
    case ST_ATTACK_ISSUE:
        n = living(g, PICK_WOLVES, AW_NIGHT_NONE, seats);
        issue(g, AW_REQ_ATTACK, seats, n);
        g->state = ST_ATTACK_DONE;
        return;
    case ST_ATTACK_DONE:
        g->state = attack_done(g);
        return;
    case ST_NIGHT_END:
        g->state = night_end(g);
        return;
    case ST_FINISH: {
        emit_status(g);
        aw_event ev = event_of(AW_EV_RESULT);
        ev.humans = count_alive(g, false);
        ev.wolves = count_alive(g, true);
        ev.team = st->winner;
        ev.flag = st->abandoned;
        emit(g, &ev);
        st->finished = true;
        issue_all(g, AW_REQ_FINISH);
        g->state = ST_DONE;
        return;
    }
    case ST_DONE:
        return;
    }
}

/* ---- public API -------------------------------------------------------- */

static int deal_roles(aw_engine *g, const aw_role *deal, aw_error *err)
{
    int left[AW_NROLES];
    memcpy(left, g->set.role_count, sizeof left);
    int free_agents[AW_MAX_PLAYERS], nfree = 0;
    for (int a = 1; a <= g->st.n; a++) {
        aw_role r = deal ? deal[a] : AW_ROLE_NONE;
        if (r == AW_ROLE_NONE) {
            free_agents[nfree++] = a;
            g->st.role[a] = AW_ROLE_NONE;
            continue;
        }
        if (r < 0 || r >= AW_NROLES || left[r] == 0)
            return aw_fail(err, AW_EINVAL, "the deal gives more %s roles than the role table has (%d)",
                           aw_role_name(r), r >= 0 && r < AW_NROLES ? g->set.role_count[r] : 0);
        left[r]--;
        g->st.role[a] = r;
    }
    /* As the official server: shuffle the agents, then deal the roles in the
     * role enum's order. */
    aw_rng_shuffle(&g->rng, free_agents, nfree);
    int k = 0;
    for (int r = 0; r < AW_NROLES; r++)
        while (left[r]-- > 0)
            g->st.role[free_agents[k++]] = (aw_role)r;
    return 0;
}

aw_engine *aw_engine_new(const aw_settings *s, uint64_t seed, const char *const *names, const aw_role *deal,
                         const aw_engine_hooks *hooks, aw_error *err)
{
    if (aw_settings_check(s, err) < 0)
        return NULL;
    aw_engine *g = aw_xcalloc(1, sizeof *g);
    g->set = *s;
    if (hooks)
        g->hooks = *hooks;
    g->seed = seed;
    aw_rng_seed(&g->rng, seed);
    g->st.n = s->players;
    g->whisper.whisper = true;
    g->cur = &g->talk;
    for (int a = 1; a <= s->players; a++) {
        char buf[32];
        const char *nm = names ? names[a] : NULL;
        if (!nm) {
            snprintf(buf, sizeof buf, "Agent[%02d]", a);
            nm = buf;
        }
        g->names[a] = aw_xstrdup(nm);
        g->st.name[a] = g->names[a];
        g->st.alive[a] = true;
        g->st.remain_talk[a] = g->st.remain_whisper[a] = -1;
    }
    g->st.winner = AW_TEAM_NONE;
    if (deal_roles(g, deal, err) < 0) {
        aw_engine_free(g);
        return NULL;
    }
    reset_remain(g);
    g->state = ST_START;
    return g;
}

void aw_engine_free(aw_engine *g)
{
    if (!g)
        return;
    chan_clear(g, &g->talk);
    chan_clear(g, &g->whisper);
    free(g->talk.list);
    free(g->whisper.list);
    for (int a = 0; a <= AW_MAX_PLAYERS; a++) {
        free(g->names[a]);
        free(g->reply_text[a]);
    }
    free(g->talks_per_day);
    free(g->whispers_per_day);
    free(g);
}

int aw_engine_next(aw_engine *g, aw_request *req)
{
    if (g->state == ST_DONE) {
        g->req.kind = AW_REQ_NONE;
        g->req.nseats = 0;
        if (req)
            *req = g->req;
        return 1;
    }
    g->issued = false;
    while (!g->issued && g->state != ST_DONE)
        step(g);
    if (req)
        *req = g->req;
    return g->issued ? 0 : 1;
}

static bool asked(const aw_engine *g, int agent)
{
    if (!aw_req_needs_reply(g->req.kind) || g->state == ST_DONE)
        return false;
    for (int i = 0; i < g->req.nseats; i++)
        if (g->req.seats[i] == agent)
            return true;
    return false;
}

int aw_engine_reply_text(aw_engine *g, int agent, const char *text, size_t len)
{
    if (!aw_req_wants_text(g->req.kind) || !asked(g, agent))
        return -AW_ESTATE;
    free(g->reply_text[agent]);
    g->reply_text[agent] = text ? aw_xstrndup(text, len) : NULL;
    g->reply_len[agent] = text ? len : 0;
    g->replied[agent] = true;
    return 0;
}

int aw_engine_reply_target(aw_engine *g, int agent, int target)
{
    if (aw_req_wants_text(g->req.kind) || !asked(g, agent))
        return -AW_ESTATE;
    g->reply_target[agent] = target;
    g->replied[agent] = true;
    return 0;
}

const aw_state *aw_engine_state(const aw_engine *g)
{
    return &g->st;
}

const aw_settings *aw_engine_settings(const aw_engine *g)
{
    return &g->set;
}

uint64_t aw_engine_seed(const aw_engine *g)
{
    return g->seed;
}
