/* spectate: the live spectator stream (see spectate.h). */
#include "spectate.h"

#include <stdlib.h>
#include <string.h>

struct aw_spectate {
    bool reveal;
    aw_spectate_sink *sink;
    void *ud;
    const aw_engine *g; /* the game being watched (borrowed from its log) */
    int game_no;
    bool running;       /* begun and no result line yet */
    aw_buf full;        /* the game's full record so far (not with reveal) */
    aw_buf line;        /* the line in full */
    aw_buf pub;         /* its public form */
    /* The dawn: from the night's outcome (who died) or a day's status
     * lines until the whole DAILY_INITIALIZE batch has answered, public
     * lines wait in `held` and go out at once. A person's night turn
     * (humanseat.h) ends before that batch does, whatever the role, so
     * the moment a spectator gets the night's lines says nothing about
     * which secret requests the night made. */
    bool dawn;
    int dawn_calls;     /* DAILY_INITIALIZE calls of the dawn so far */
    aw_buf held;
};

aw_spectate *aw_spectate_new(bool reveal, aw_spectate_sink *sink, void *ud)
{
    aw_spectate *s = aw_xcalloc(1, sizeof *s);
    s->reveal = reveal;
    s->sink = sink;
    s->ud = ud;
    aw_buf_init(&s->full);
    aw_buf_init(&s->line);
    aw_buf_init(&s->pub);
    aw_buf_init(&s->held);
    return s;
}

void aw_spectate_free(aw_spectate *s)
{
    if (!s)
        return;
    aw_buf_free(&s->full);
    aw_buf_free(&s->line);
    aw_buf_free(&s->pub);
    aw_buf_free(&s->held);
    free(s);
}

bool aw_spectate_running(const aw_spectate *s)
{
    return s->running;
}

/* Gives the sink each line of data[0..len). */
static void emit_lines(aw_spectate *s, const char *data, size_t len)
{
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(data + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - data) + 1 : len;
        s->sink(s->ud, data + i, end - i);
        i = end;
    }
}

static void emit(aw_spectate *s, const aw_buf *b)
{
    if (!b->len)
        return;
    if (s->dawn)
        aw_buf_add(&s->held, b->data, b->len);
    else
        s->sink(s->ud, b->data, b->len);
}

void aw_spectate_flush(aw_spectate *s)
{
    s->dawn = false;
    s->dawn_calls = 0;
    emit_lines(s, s->held.data, s->held.len);
    aw_buf_clear(&s->held);
}

/* What a spectator gets of a line while the game runs: the line (PASS), its
 * public form in s->pub (PUBLIC), or nothing yet (HOLD). */
typedef enum { PASS, PUBLIC, HOLD } fate;

/* s->line holds a line in full: the game's record keeps it, and the
 * spectator gets it, its public form or nothing. After the result line (or
 * before any begin) and with reveal, everything passes. */
static void route(aw_spectate *s, fate f)
{
    if (s->reveal || !s->running) {
        emit(s, &s->line);
        return;
    }
    aw_buf_add(&s->full, s->line.data, s->line.len);
    if (f == PASS)
        emit(s, &s->line);
    else if (f == PUBLIC)
        emit(s, &s->pub);
}

static void on_begin(void *ud, const aw_engine *g, int game_no)
{
    aw_spectate *s = ud;
    s->g = g;
    s->game_no = game_no;
    s->running = true;
    s->dawn = false;
    s->dawn_calls = 0;
    aw_buf_clear(&s->held);
    aw_buf_clear(&s->full);
    aw_buf_clear(&s->line);
    aw_buf_clear(&s->pub);
    aw_gamelog_json_begin(g, game_no, 0, &s->line);
    aw_gamelog_json_begin(g, game_no, AW_JSON_NO_ROLES, &s->pub);
    route(s, PUBLIC);
}

static void on_version(void *ud, int agent, const char *version)
{
    aw_spectate *s = ud;
    aw_buf_clear(&s->line);
    aw_gamelog_json_version(s->game_no, agent, version, &s->line);
    route(s, PASS);
}

/* Requests every agent gets (or every living one), whatever its role: that
 * one was asked tells nothing. DIVINE, GUARD, ATTACK and WHISPER go to some
 * roles only. */
static bool public_request(aw_req_kind k)
{
    switch (k) {
    case AW_REQ_NONE:
    case AW_REQ_INITIALIZE:
    case AW_REQ_DAILY_INITIALIZE:
    case AW_REQ_DAILY_FINISH:
    case AW_REQ_TALK:
    case AW_REQ_VOTE:
    case AW_REQ_FINISH:
        return true;
    default:
        return false;
    }
}

static void on_call(void *ud, int agent, aw_req_kind kind, uint64_t ns, const aw_seat_fault *fault)
{
    aw_spectate *s = ud;
    int day = s->g ? aw_engine_state(s->g)->day : 0;
    aw_buf_clear(&s->line);
    aw_buf_clear(&s->pub);
    aw_gamelog_json_call(s->game_no, day, agent, kind, ns, fault, 0, &s->line);
    /* A fault's message is the agent's own (an error it raised, a
     * traceback naming its files) and may say its role, and how long an
     * agent thought may too (a werewolf's talk weighing its whispers): only
     * the call and its fault's kind show while the game runs. */
    aw_gamelog_json_call(s->game_no, day, agent, kind, ns, fault, AW_JSON_NO_MESSAGE | AW_JSON_NO_TIME, &s->pub);
    route(s, public_request(kind) ? PUBLIC : HOLD);
    /* Every agent, living or dead, gets DAILY_INITIALIZE: the dawn is over
     * when all n have answered. */
    if (s->dawn && kind == AW_REQ_DAILY_INITIALIZE && s->g && ++s->dawn_calls >= aw_engine_state(s->g)->n)
        aw_spectate_flush(s);
}

/* A notification's fault that its seat reported later: withheld until the
 * full record. It comes with the seat's next answer, so where it stands in
 * the stream could tell which request came next (a DIVINE, an ATTACK). */
static void on_late(void *ud, int agent, aw_req_kind kind, int day, const aw_seat_fault *fault)
{
    aw_spectate *s = ud;
    aw_buf_clear(&s->line);
    aw_gamelog_json_call(s->game_no, day, agent, kind, 0, fault, AW_JSON_LATE, &s->line);
    route(s, HOLD);
}

static fate event_fate(const aw_spectate *s, const aw_event *ev)
{
    bool votes = s->g && aw_engine_settings(s->g)->vote_visible;
    switch (ev->kind) {
    case AW_EV_STATUS:  /* who is alive, not the role */
    case AW_EV_EXECUTE: /* who is executed, not the role (the medium's secret) */
        return PUBLIC;
    case AW_EV_TALK:
    case AW_EV_RESULT:
    case AW_EV_ERROR: /* an agent failed: its connection is gone, as everyone sees */
        return PASS;
    case AW_EV_VOTE: /* "who voted for whom is shown to everyone" when the rules show votes */
        return votes ? PASS : HOLD;
    case AW_EV_ATTACK:
        /* Who died in the night is public; a failed attack is not (nobody
         * dies, as on a night without one: only the wolves and the
         * bodyguard can tell). */
        return ev->flag && ev->target >= 1 ? PASS : HOLD;
    case AW_EV_SUBSTITUTE: /* the rules' vote for an agent whose vote was invalid is its vote */
        return ev->req == AW_REQ_VOTE && votes ? PASS : HOLD;
    case AW_EV_TALK_REPLACED: /* a talk logged as Skip or Over, not a whisper */
        return ev->req == AW_REQ_TALK ? PASS : HOLD;
    case AW_EV_WHISPER:
    case AW_EV_DIVINE:
    case AW_EV_GUARD:
    case AW_EV_ATTACK_VOTE:
        return HOLD;
    }
    return HOLD;
}

static void on_event(void *ud, const aw_event *ev)
{
    aw_spectate *s = ud;
    fate f = event_fate(s, ev);
    if (ev->kind == AW_EV_RESULT)
        aw_spectate_flush(s); /* the end: everything goes out now */
    else if (!s->reveal && s->running && (ev->kind == AW_EV_ATTACK || ev->kind == AW_EV_STATUS))
        s->dawn = true;
    aw_buf_clear(&s->line);
    aw_buf_clear(&s->pub);
    aw_gamelog_json_event(s->game_no, ev, 0, &s->line);
    if (f == PUBLIC)
        aw_gamelog_json_event(s->game_no, ev, AW_JSON_NO_ROLES, &s->pub);
    route(s, f);
    if (ev->kind == AW_EV_RESULT && s->running) {
        /* The game is over: its full record, from its begin line. */
        s->running = false;
        if (!s->reveal)
            emit_lines(s, s->full.data, s->full.len);
        aw_buf_clear(&s->full);
    }
}

void aw_spectate_attach(aw_spectate *s, aw_gamelog *l)
{
    l->observer.begin = on_begin;
    l->observer.version = on_version;
    l->observer.event = on_event;
    l->observer.call = on_call;
    l->observer.late = on_late;
    l->observer.ud = s;
}
