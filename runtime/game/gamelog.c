/* gamelog: the CSV formatter, the readable record and the JSON-lines events
 * (see gamelog.h). */
#include "gamelog.h"

#include <string.h>

void aw_gamelog_init(aw_gamelog *l, FILE *csv, FILE *record, FILE *events)
{
    memset(l, 0, sizeof *l);
    l->csv = csv;
    l->record = record;
    l->events = events;
    aw_buf_init(&l->line);
}

void aw_gamelog_free(aw_gamelog *l)
{
    aw_buf_free(&l->line);
}

static void out(aw_gamelog *l, FILE *f, const aw_buf *b)
{
    if (f && b->len && fwrite(b->data, 1, b->len, f) != b->len)
        l->write_errors++;
}

/* The CSV line's parts, appended without printf (a line is written for
 * every event of every logged game). */
static void csv_head(aw_buf *o, int day, const char *what)
{
    aw_buf_addi(o, day);
    aw_buf_addc(o, ',');
    aw_buf_adds(o, what);
}

static void csv_int(aw_buf *o, long long v)
{
    aw_buf_addc(o, ',');
    aw_buf_addi(o, v);
}

static void csv_str(aw_buf *o, const char *s)
{
    aw_buf_addc(o, ',');
    aw_buf_adds(o, s);
}

void aw_gamelog_csv_line(const aw_event *ev, const aw_state *st, aw_buf *o)
{
    int d = ev->day;
    switch (ev->kind) {
    case AW_EV_STATUS:
        csv_head(o, d, "status");
        csv_int(o, ev->agent);
        csv_str(o, aw_role_name(ev->role));
        csv_str(o, ev->alive ? "ALIVE" : "DEAD");
        csv_str(o, st->name[ev->agent]);
        break;
    case AW_EV_TALK:
    case AW_EV_WHISPER:
        csv_head(o, d, ev->kind == AW_EV_TALK ? "talk" : "whisper");
        csv_int(o, ev->talk->idx);
        csv_int(o, ev->talk->turn);
        csv_int(o, ev->talk->agent);
        aw_buf_addc(o, ',');
        aw_buf_add(o, ev->talk->text, ev->talk->len);
        break;
    case AW_EV_VOTE:
    case AW_EV_ATTACK_VOTE:
        csv_head(o, d, ev->kind == AW_EV_VOTE ? "vote" : "attackVote");
        csv_int(o, ev->agent);
        csv_int(o, ev->target);
        break;
    case AW_EV_EXECUTE:
        csv_head(o, d, "execute");
        csv_int(o, ev->agent);
        csv_str(o, aw_role_name(ev->role));
        break;
    case AW_EV_DIVINE:
        csv_head(o, d, "divine");
        csv_int(o, ev->agent);
        csv_int(o, ev->target);
        csv_str(o, aw_species_name(ev->species));
        break;
    case AW_EV_GUARD:
        csv_head(o, d, "guard");
        csv_int(o, ev->agent);
        csv_int(o, ev->target);
        csv_str(o, aw_role_name(ev->role));
        break;
    case AW_EV_ATTACK:
        csv_head(o, d, "attack");
        csv_int(o, ev->target);
        csv_str(o, ev->flag ? "true" : "false");
        break;
    case AW_EV_RESULT:
        csv_head(o, d, "result");
        csv_int(o, ev->humans);
        csv_int(o, ev->wolves);
        csv_str(o, aw_team_name(ev->team));
        break;
    case AW_EV_ERROR:
        csv_head(o, d, "error");
        csv_int(o, ev->agent);
        break;
    default: /* substitutes and replaced talks are not in the CSV log */
        return;
    }
    aw_buf_addc(o, '\n');
}

/* Agent text for the record, which goes to terminals: control bytes and
 * the like escaped (util.h's aw_buf_add_term). */
static void plain_str(aw_buf *b, const char *s, size_t len, size_t max)
{
    aw_buf_add_term(b, s, len < max ? len : max);
    if (len > max)
        aw_buf_adds(b, "...");
}

void aw_gamelog_json_event(int game_no, const aw_event *ev, unsigned flags, aw_buf *b)
{
    static const char *const names[] = {"status", "talk", "whisper", "vote", "execute", "divine", "guard",
                                        "attackVote", "attack", "result", "substitute", "talkReplaced",
                                        "error"};
    bool roles = !(flags & AW_JSON_NO_ROLES);
    aw_buf_printf(b, "{\"game\":%d,\"day\":%d,\"event\":\"%s\"", game_no, ev->day, names[ev->kind]);
    switch (ev->kind) {
    case AW_EV_STATUS:
        aw_buf_printf(b, ",\"agent\":%d", ev->agent);
        if (roles)
            aw_buf_printf(b, ",\"role\":\"%s\"", aw_role_name(ev->role));
        aw_buf_printf(b, ",\"alive\":%s", ev->alive ? "true" : "false");
        break;
    case AW_EV_TALK:
    case AW_EV_WHISPER:
        aw_buf_printf(b, ",\"idx\":%d,\"turn\":%d,\"agent\":%d,\"text\":", ev->talk->idx, ev->talk->turn,
                      ev->talk->agent);
        aw_buf_add_json(b, ev->talk->text, ev->talk->len);
        break;
    case AW_EV_VOTE:
    case AW_EV_ATTACK_VOTE:
        aw_buf_printf(b, ",\"agent\":%d,\"target\":%d,\"round\":%d", ev->agent, ev->target, ev->round);
        break;
    case AW_EV_EXECUTE:
        aw_buf_printf(b, ",\"agent\":%d", ev->agent);
        if (roles)
            aw_buf_printf(b, ",\"role\":\"%s\"", aw_role_name(ev->role));
        break;
    case AW_EV_DIVINE:
        aw_buf_printf(b, ",\"agent\":%d,\"target\":%d,\"result\":\"%s\"", ev->agent, ev->target,
                      aw_species_name(ev->species));
        break;
    case AW_EV_GUARD:
        aw_buf_printf(b, ",\"agent\":%d,\"target\":%d,\"role\":\"%s\"", ev->agent, ev->target, aw_role_name(ev->role));
        break;
    case AW_EV_ATTACK:
        aw_buf_printf(b, ",\"target\":%d,\"success\":%s", ev->target, ev->flag ? "true" : "false");
        break;
    case AW_EV_RESULT:
        aw_buf_printf(b, ",\"humans\":%d,\"werewolves\":%d,\"winner\":\"%s\"", ev->humans, ev->wolves,
                      aw_team_name(ev->team));
        if (ev->flag)
            aw_buf_adds(b, ",\"abandoned\":true");
        break;
    case AW_EV_ERROR:
        aw_buf_printf(b, ",\"agent\":%d", ev->agent);
        break;
    case AW_EV_SUBSTITUTE:
        aw_buf_printf(b, ",\"agent\":%d,\"call\":\"%s\",\"given\":%d,\"used\":%d,\"reason\":", ev->agent,
                      aw_req_name(ev->req), ev->given, ev->target);
        aw_buf_add_json(b, ev->reason, strlen(ev->reason));
        break;
    case AW_EV_TALK_REPLACED:
        aw_buf_printf(b, ",\"agent\":%d,\"call\":\"%s\",\"said\":", ev->agent, aw_req_name(ev->req));
        aw_buf_add_json(b, ev->text ? ev->text : "", ev->text ? ev->text_len : 0);
        aw_buf_adds(b, ",\"logged\":");
        aw_buf_add_json(b, ev->talk->text, ev->talk->len);
        aw_buf_adds(b, ",\"reason\":");
        aw_buf_add_json(b, ev->reason, strlen(ev->reason));
        break;
    }
    aw_buf_adds(b, "}\n");
}

void aw_gamelog_json_begin(const aw_engine *g, int game_no, unsigned flags, aw_buf *b)
{
    const aw_state *st = aw_engine_state(g);
    const aw_settings *s = aw_engine_settings(g);
    bool roles = !(flags & AW_JSON_NO_ROLES);
    aw_buf_printf(b, "{\"game\":%d,\"event\":\"begin\"", game_no);
    if (roles)
        aw_buf_printf(b, ",\"seed\":\"%llu\"", (unsigned long long)aw_engine_seed(g));
    aw_buf_printf(b, ",\"preset\":\"%s\",\"players\":%d,\"agents\":[", s->preset, st->n);
    for (int a = 1; a <= st->n; a++) {
        aw_buf_printf(b, "%s{\"agent\":%d,", a > 1 ? "," : "", a);
        if (roles)
            aw_buf_printf(b, "\"role\":\"%s\",", aw_role_name(st->role[a]));
        aw_buf_adds(b, "\"name\":");
        aw_buf_add_json(b, st->name[a], strlen(st->name[a]));
        aw_buf_addc(b, '}');
    }
    aw_buf_adds(b, "]}\n");
}

void aw_gamelog_json_version(int game_no, int agent, const char *version, aw_buf *b)
{
    aw_buf_printf(b, "{\"game\":%d,\"event\":\"version\",\"agent\":%d,\"version\":", game_no, agent);
    aw_buf_add_json(b, version, strlen(version));
    aw_buf_adds(b, "}\n");
}

void aw_gamelog_json_call(int game_no, int day, int agent, aw_req_kind kind, uint64_t elapsed_ns,
                          const aw_seat_fault *fault, unsigned flags, aw_buf *b)
{
    aw_buf_printf(b, "{\"game\":%d,\"day\":%d,\"event\":\"call\",\"agent\":%d,\"call\":\"%s\"", game_no, day, agent,
                  aw_req_name(kind));
    if (!(flags & AW_JSON_NO_TIME))
        aw_buf_printf(b, ",\"us\":%llu", (unsigned long long)(elapsed_ns / 1000));
    if (flags & AW_JSON_LATE)
        aw_buf_adds(b, ",\"late\":true");
    if (fault && fault->kind != AW_FAULT_NONE) {
        aw_buf_printf(b, ",\"fault\":\"%s\"", aw_fault_kind_name(fault->kind));
        if (!(flags & AW_JSON_NO_MESSAGE)) {
            aw_buf_adds(b, ",\"message\":");
            aw_buf_add_json(b, fault->msg, strnlen(fault->msg, sizeof fault->msg));
        }
    }
    aw_buf_adds(b, "}\n");
}

static void json_event(aw_gamelog *l, const aw_event *ev)
{
    aw_buf_clear(&l->line);
    aw_gamelog_json_event(l->game_no, ev, 0, &l->line);
    out(l, l->events, &l->line);
}

static const char *agent_label(const aw_state *st, int a, char *buf, size_t n)
{
    if (a < 1 || a > st->n)
        snprintf(buf, n, "nobody");
    else
        snprintf(buf, n, "Agent[%02d]", a);
    return buf;
}

/* Replacements the rules make for legal answers: a missing target (nil,
 * or no such method: the rules choose) and a Skip past maxSkip (it counts as
 * Over). The record shows them as notes ("  - "), not as '!' lines, which
 * are kept for mistakes and faults. */
static bool quiet_reason(const char *reason)
{
    return strcmp(reason, "no target") == 0 || strcmp(reason, "too many Skips in a row") == 0;
}

/* The one line `play --quiet` prints for a single game. */
static void result_line(aw_gamelog *l, const aw_event *ev, aw_buf *b)
{
    if (ev->flag)
        aw_buf_printf(b, "Result: no winner: abandoned on day %d, too many agents failed", ev->day);
    else if (ev->team == AW_TEAM_NONE)
        aw_buf_printf(b, "Result: no winner: the day limit ended the game after day %d", ev->day - 1);
    else
        aw_buf_printf(b, "Result: %s wins after day %d", aw_team_name(ev->team), ev->day - 1);
    aw_buf_printf(b, " (%d humans and %d werewolves alive; seed %llu)\n", ev->humans, ev->wolves,
                  (unsigned long long)aw_engine_seed(l->game));
}

/* The tally of the vote round just recorded: "  tally   Agent[04] 2,
 * Agent[01] 1", most votes first. */
static void tally_line(aw_gamelog *l, const aw_state *st, aw_buf *b)
{
    if (!l->tally_votes)
        return;
    char x[24];
    aw_buf_adds(b, l->tally_kind == AW_EV_VOTE ? "  tally   " : "  attack tally ");
    bool first = true;
    for (int left = l->tally_votes; left > 0;) {
        int best = 0;
        for (int a = 1; a <= AW_MAX_PLAYERS; a++)
            if (l->tally[a] > l->tally[best])
                best = a;
        if (!best || !l->tally[best])
            break;
        aw_buf_printf(b, "%s%s %d", first ? "" : ", ", agent_label(st, best, x, sizeof x), l->tally[best]);
        left -= l->tally[best];
        l->tally[best] = 0;
        first = false;
    }
    aw_buf_addc(b, '\n');
    memset(l->tally, 0, sizeof l->tally);
    l->tally_votes = 0;
}

static void count_vote(aw_gamelog *l, const aw_event *ev)
{
    l->tally_kind = ev->kind;
    l->tally_round = ev->round;
    if (ev->target >= 1 && ev->target <= AW_MAX_PLAYERS) {
        l->tally[ev->target]++;
        l->tally_votes++;
    }
}

static bool only_over(const aw_talk *t)
{
    return (t->len == 4 && (memcmp(t->text, "Over", 4) == 0 || memcmp(t->text, "Skip", 4) == 0));
}

static void record_event(aw_gamelog *l, const aw_event *ev)
{
    const aw_state *st = aw_engine_state(l->game);
    aw_buf *b = &l->line;
    char x[24], y[24];
    aw_buf_clear(b);
    if (l->result_only && ev->kind != AW_EV_RESULT)
        return;
    /* A vote round ends with the first event that is not one of its votes. */
    bool in_round = (ev->kind == AW_EV_VOTE || ev->kind == AW_EV_ATTACK_VOTE) && (int)ev->kind == l->tally_kind &&
                    ev->round == l->tally_round && ev->day == l->record_day;
    if (!l->result_only && !in_round && ev->kind != AW_EV_STATUS && ev->kind != AW_EV_SUBSTITUTE &&
        ev->kind != AW_EV_TALK_REPLACED)
        tally_line(l, st, b);
    /* The day's header comes with its first event, its status lines
     * included, so that what agents print at the day's start follows it. */
    if (!l->result_only && ev->kind != AW_EV_RESULT && ev->day != l->record_day) {
        l->record_day = ev->day;
        l->talk_turn = l->whisper_turn = -1;
        aw_buf_printf(b, "Day %d\n", ev->day);
    }
    switch (ev->kind) {
    case AW_EV_STATUS:
        break;
    case AW_EV_TALK:
    case AW_EV_WHISPER: {
        int *turn = ev->kind == AW_EV_TALK ? &l->talk_turn : &l->whisper_turn;
        if (ev->talk->turn != *turn) {
            *turn = ev->talk->turn;
            aw_buf_printf(b, "  --- %s turn %d ---\n", ev->kind == AW_EV_TALK ? "talk" : "whisper", *turn);
        }
        if (l->hide_over && only_over(ev->talk))
            break;
        aw_buf_printf(b, "  %s %s (%s): ", ev->kind == AW_EV_TALK ? "talk   " : "whisper",
                      agent_label(st, ev->talk->agent, x, sizeof x), aw_role_name(st->role[ev->talk->agent]));
        if (l->describe && ev->talk->parsed)
            l->describe(l->describe_ud, ev->talk, b);
        else
            plain_str(b, ev->talk->text, ev->talk->len, 300);
        aw_buf_addc(b, '\n');
        break;
    }
    case AW_EV_VOTE:
        aw_buf_printf(b, "  vote    %s -> %s%s\n", agent_label(st, ev->agent, x, sizeof x),
                      agent_label(st, ev->target, y, sizeof y), ev->round ? " (revote)" : "");
        count_vote(l, ev);
        break;
    case AW_EV_EXECUTE:
        aw_buf_printf(b, "  >> %s (%s) is executed\n", agent_label(st, ev->agent, x, sizeof x),
                      aw_role_name(ev->role));
        break;
    case AW_EV_DIVINE:
        aw_buf_printf(b, "  divine  %s divines %s: %s\n", agent_label(st, ev->agent, x, sizeof x),
                      agent_label(st, ev->target, y, sizeof y), aw_species_name(ev->species));
        break;
    case AW_EV_GUARD:
        aw_buf_printf(b, "  guard   %s guards %s\n", agent_label(st, ev->agent, x, sizeof x),
                      agent_label(st, ev->target, y, sizeof y));
        break;
    case AW_EV_ATTACK_VOTE:
        aw_buf_printf(b, "  attack vote %s -> %s%s\n", agent_label(st, ev->agent, x, sizeof x),
                      agent_label(st, ev->target, y, sizeof y), ev->round ? " (revote)" : "");
        count_vote(l, ev);
        break;
    case AW_EV_ATTACK:
        if (ev->target < 1)
            aw_buf_printf(b, "  >> the werewolves attack nobody\n");
        else if (ev->flag)
            aw_buf_printf(b, "  >> %s (%s) is attacked and dies\n", agent_label(st, ev->target, x, sizeof x),
                          aw_role_name(st->role[ev->target]));
        else
            aw_buf_printf(b, "  >> %s is attacked, but guarded\n", agent_label(st, ev->target, x, sizeof x));
        break;
    case AW_EV_RESULT: {
        if (l->result_only) {
            result_line(l, ev, b);
            break;
        }
        if (ev->flag)
            aw_buf_printf(b, "Result: no winner: abandoned on day %d, too many agents failed (%d humans and %d "
                          "werewolves alive)\n", ev->day, ev->humans, ev->wolves);
        else if (ev->team == AW_TEAM_NONE)
            aw_buf_printf(b, "Result: no winner: the day limit ended the game after day %d (%d humans and %d "
                          "werewolves alive)\n", ev->day - 1, ev->humans, ev->wolves);
        else
            aw_buf_printf(b, "Result: %s wins after day %d (%d humans and %d werewolves alive)\n",
                          aw_team_name(ev->team), ev->day - 1, ev->humans, ev->wolves);
        for (int a = 1; a <= st->n; a++) {
            aw_team t = aw_role_team(st->role[a]);
            aw_buf_printf(b, "  %s %-24.24s %-9s %-5s %s\n", agent_label(st, a, x, sizeof x), st->name[a],
                          aw_role_name(st->role[a]), st->alive[a] ? "alive" : "dead",
                          ev->flag ? "-" : t == ev->team ? "won" : "lost");
        }
        break;
    }
    case AW_EV_ERROR:
        aw_buf_printf(b, "  ! %s has failed (%d of %d agents; the game ends at %d)\n",
                      agent_label(st, ev->agent, x, sizeof x), st->nfailed, st->n,
                      aw_settings_error_limit(aw_engine_settings(l->game), st->n));
        break;
    case AW_EV_SUBSTITUTE:
        /* "no target": the agent answered nil or has no such method (legal:
         * the rules choose), or a fault shown on its own '!' line just
         * before. Either way no new mistake: a note, not a '!' line. */
        aw_buf_printf(b, "  %c %s %s: %s; ", quiet_reason(ev->reason) ? '-' : '!',
                      agent_label(st, ev->agent, x, sizeof x), aw_req_name(ev->req), ev->reason);
        if (ev->target)
            aw_buf_printf(b, "the rules use %s\n", agent_label(st, ev->target, y, sizeof y));
        else if (ev->req == AW_REQ_ATTACK)
            /* Not "nothing happens": the other votes (or, with none, a
             * revote and then the rules' random choice) still decide. */
            aw_buf_adds(b, "this attack vote is dropped\n");
        else
            aw_buf_adds(b, "nothing happens\n");
        break;
    case AW_EV_TALK_REPLACED:
        aw_buf_printf(b, "  %c %s %s: %s; logged as %s", quiet_reason(ev->reason) ? '-' : '!',
                      agent_label(st, ev->agent, x, sizeof x), aw_req_name(ev->req), ev->reason, ev->talk->text);
        if (ev->text && ev->text_len) {
            aw_buf_adds(b, " (said \"");
            plain_str(b, ev->text, ev->text_len, 120);
            aw_buf_adds(b, "\")");
        }
        aw_buf_addc(b, '\n');
        break;
    }
    out(l, l->record, b);
}

void aw_gamelog_begin(aw_gamelog *l, const aw_engine *g, int game_no)
{
    const aw_state *st = aw_engine_state(g);
    const aw_settings *s = aw_engine_settings(g);
    l->game = g;
    l->game_no = game_no;
    l->record_day = -1;
    l->talk_turn = l->whisper_turn = -1;
    l->tally_kind = l->tally_votes = 0;
    memset(l->tally, 0, sizeof l->tally);
    aw_buf *b = &l->line;
    if (l->record && !l->result_only) {
        char x[24];
        aw_buf_clear(b);
        aw_buf_printf(b, "Game: %d players, preset %s, seed %llu\n", st->n, s->preset,
                      (unsigned long long)aw_engine_seed(g));
        for (int a = 1; a <= st->n; a++)
            aw_buf_printf(b, "  %s %-24.24s %s\n", agent_label(st, a, x, sizeof x), aw_term(st->name[a]).s,
                          aw_role_name(st->role[a]));
        out(l, l->record, b);
    }
    if (l->events) {
        aw_buf_clear(b);
        aw_gamelog_json_begin(g, game_no, 0, b);
        out(l, l->events, b);
    }
    if (l->observer.begin)
        l->observer.begin(l->observer.ud, g, game_no);
}

void aw_gamelog_version(aw_gamelog *l, int agent, const char *version)
{
    if (!version)
        return;
    if (l->events) {
        aw_buf_clear(&l->line);
        aw_gamelog_json_version(l->game_no, agent, version, &l->line);
        out(l, l->events, &l->line);
    }
    if (l->observer.version)
        l->observer.version(l->observer.ud, agent, version);
}

void aw_gamelog_event(void *ud, const aw_event *ev)
{
    aw_gamelog *l = ud;
    const aw_state *st = aw_engine_state(l->game);
    if (l->csv) {
        aw_buf_clear(&l->line);
        aw_gamelog_csv_line(ev, st, &l->line);
        out(l, l->csv, &l->line);
    }
    if (l->record)
        record_event(l, ev);
    if (l->events)
        json_event(l, ev);
    if (l->observer.event)
        l->observer.event(l->observer.ud, ev);
}

/* A fault's '!' line in the record. */
static void record_fault(aw_gamelog *l, int agent, aw_req_kind kind, const aw_seat_fault *fault)
{
    if (!l->record || l->result_only || !fault || fault->kind == AW_FAULT_NONE)
        return;
    aw_buf *b = &l->line;
    const aw_state *st = aw_engine_state(l->game);
    char x[24];
    aw_buf_clear(b);
    aw_buf_printf(b, "  ! %s %s %s: ", agent_label(st, agent, x, sizeof x), aw_req_name(kind),
                  aw_fault_kind_name(fault->kind));
    plain_str(b, fault->msg, strnlen(fault->msg, sizeof fault->msg), 400);
    aw_buf_addc(b, '\n');
    out(l, l->record, b);
}

void aw_gamelog_call(aw_gamelog *l, int agent, aw_req_kind kind, uint64_t elapsed_ns, const aw_seat_fault *fault)
{
    aw_buf *b = &l->line;
    const aw_state *st = aw_engine_state(l->game);
    if (l->events) {
        aw_buf_clear(b);
        aw_gamelog_json_call(l->game_no, st->day, agent, kind, elapsed_ns, fault, 0, b);
        out(l, l->events, b);
    }
    if (l->observer.call)
        l->observer.call(l->observer.ud, agent, kind, elapsed_ns, fault);
    record_fault(l, agent, kind, fault);
}

void aw_gamelog_call_late(aw_gamelog *l, int agent, aw_req_kind kind, int day, const aw_seat_fault *fault)
{
    if (l->events) {
        aw_buf_clear(&l->line);
        aw_gamelog_json_call(l->game_no, day, agent, kind, 0, fault, AW_JSON_LATE, &l->line);
        out(l, l->events, &l->line);
    }
    if (l->observer.late)
        l->observer.late(l->observer.ud, agent, kind, day, fault);
    record_fault(l, agent, kind, fault);
}

int aw_gamelog_flush(aw_gamelog *l)
{
    FILE *fs[3] = {l->csv, l->record, l->events};
    for (int i = 0; i < 3; i++)
        if (fs[i] && fflush(fs[i]) != 0)
            l->write_errors++;
    return l->write_errors ? -AW_EIO : 0;
}
