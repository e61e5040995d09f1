/* test_wire: the wire module against the official server's own packets and
 * against our engine.
 *  - every s2c line of the recorded TCP games (tests/fixtures/official/tcp
 *    and edge) decodes, and re-encoding what was decoded gives the same JSON
 *    values (and, as it turns out, the same bytes); a client fed the lines
 *    in order merges the deltas into exactly the talk lists that the next
 *    full gameInfo of the same day carries;
 *  - the replies the official sample agents sent parse;
 *  - golden packets from hand-built states (delta cursor, revote, night
 *    after an execution, NAME);
 *  - engine games under several presets: each seat's packets, decoded by a
 *    client, give back the seat's view (lists always, everything else when
 *    the packet carried a full gameInfo);
 *  - hostile input: every prefix and many mutations of real packets fail
 *    cleanly or round-trip; the reply and line-reader edge cases.
 * Uses wire, engine, view, cseat, rng, and jansson (to read the fixtures and
 * compare JSON values). */
#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cseat.h"
#include "engine.h"
#include "game.h"
#include "rng.h"
#include "test.h"
#include "wrap_seat.h"
#include "view.h"
#include "wire.h"
#include "wireagent.h"
#include "wireseat.h"

#define FIX "tests/fixtures/official"

static int lines_total, lines_byte_equal, full_checks, deltas_merged, agent_replies;

static bool talks_equal(const aw_talk *a, int na, const aw_talk *b, int nb)
{
    if (na != nb)
        return false;
    for (int i = 0; i < na; i++)
        if (a[i].day != b[i].day || a[i].idx != b[i].idx || a[i].turn != b[i].turn || a[i].agent != b[i].agent ||
            a[i].len != b[i].len || memcmp(a[i].text, b[i].text, a[i].len) != 0)
            return false;
    return true;
}

static void one_transcript(const char *path)
{
    FILE *f = fopen(path, "r");
    CHECK_MSG(f != NULL, "%s", path);
    if (!f)
        return;
    aw_wire_client cl;
    aw_wire_client_init(&cl);
    /* Our client side plays the same packets (a random C player inside): it
     * answers as often as the official client did. */
    bool tcp = strstr(path, "/tcp/") != NULL;
    aw_seat *player = aw_cseat_random(7);
    aw_wire_agent wa;
    aw_wire_agent_init(&wa, player, NULL);
    wa.begin_at_initialize = true;
    int wa_request = -1, ours = 0, official_replies = 0;
    bool wa_replied = false;
    aw_buf wa_out;
    aw_buf_init(&wa_out);
    int last_request = -1;
    char *buf = NULL;
    size_t cap = 0;
    ssize_t n;
    int lineno = 0;
    while ((n = getline(&buf, &cap, f)) > 0) {
        lineno++;
        json_error_t je;
        json_t *rec = json_loadb(buf, (size_t)n, 0, &je);
        CHECK_MSG(rec != NULL, "%s:%d: %s", path, lineno, je.text);
        if (!rec)
            continue;
        const char *dir = json_string_value(json_object_get(rec, "dir"));
        json_t *jl = json_object_get(rec, "line");
        const char *line = json_string_value(jl);
        size_t len = json_string_length(jl);
        if (tcp && strcmp(dir, "c2s") == 0)
            official_replies++;
        if (strcmp(dir, "c2s") == 0) {
            /* Official sample agents answer targets canonically. */
            if (strstr(path, "/tcp/") && last_request >= AW_REQ_VOTE && last_request <= AW_REQ_ATTACK) {
                int t = -1;
                aw_error err = {0};
                CHECK_MSG(aw_wire_reply_target(line, len, &t, &err) == 0 && t >= 1 && t <= 15, "%s:%d: %s",
                          path, lineno, line);
            }
            if (strstr(path, "/tcp/") && last_request == AW_WIRE_REQ_ROLE) {
                aw_role r;
                CHECK(aw_wire_reply_role(line, len, &r, NULL) == 0 && r == AW_ROLE_NONE);
            }
            last_request = -1; /* only the line right after a request is its reply */
            json_decref(rec);
            continue;
        }
        lines_total++;
        aw_error err = {0};
        if (tcp) {
            aw_seat_fault wf;
            aw_buf_clear(&wa_out);
            wa_request = aw_wire_agent_take(&wa, line, len, &err);
            CHECK_MSG(wa_request >= 0, "%s:%d: %s", path, lineno, err.msg);
            if (wa_request >= 0)
                aw_wire_agent_answer(&wa, wa_request, &wa_out, &wa_replied, &wf);
            if (wa_request >= 0 && wa_replied) {
                agent_replies++;
                ours++;
                int t = -1;
                if (wa_request == AW_WIRE_REQ_NAME)
                    CHECK(wa_out.len == 7 && memcmp(wa_out.data, "crandom", 7) == 0);
                else if (wa_request == AW_WIRE_REQ_ROLE)
                    CHECK(wa_out.len == 4 && memcmp(wa_out.data, "none", 4) == 0);
                else if (!aw_req_wants_text((aw_req_kind)wa_request))
                    CHECK_MSG(aw_wire_reply_target(wa_out.data, wa_out.len, &t, &err) == 0 &&
                                  wa_out.len > 12 && memcmp(wa_out.data, "{\"agentIdx\":", 12) == 0,
                              "%s:%d: target reply %.*s", path, lineno, (int)wa_out.len, wa_out.data);
                CHECK_INT(wf.kind, AW_FAULT_NONE);
            }
        }
        aw_wire_packet p;
        int rc = aw_wire_decode(line, len, &p, &err);
        CHECK_MSG(rc == 0, "%s:%d: %s", path, lineno, err.msg);
        if (rc == 0) {
            last_request = p.request;
            aw_buf out;
            aw_buf_init(&out);
            CHECK(aw_wire_encode_packet(&p, &out, &err) == 0);
            json_t *a = json_loads(line, 0, &je), *b = json_loadb(out.data, out.len, 0, &je);
            CHECK_MSG(a && b && json_equal(a, b), "%s:%d: re-encoded packet differs:\n  %s\n  %s", path, lineno, line,
                      out.data);
            if (out.len == len && memcmp(out.data, line, len) == 0)
                lines_byte_equal++;
            else if (getenv("WIRE_DIFF"))
                fprintf(stderr, "%s:%d: bytes differ:\n  %s\n  %s\n", path, lineno, line, out.data);
            json_decref(a);
            json_decref(b);
            aw_buf_free(&out);

            /* A full gameInfo of the same day must hold what the client has
             * merged so far, in the same order. */
            if (p.has_info && cl.has_info && p.info.v.day == cl.info.v.day && p.request != AW_REQ_DAILY_INITIALIZE) {
                int nt = cl.info.v.ntalks;
                CHECK_MSG(nt <= p.info.v.ntalks && talks_equal(cl.info.v.talks, nt, p.info.v.talks, nt),
                          "%s:%d: merged talks differ from the full gameInfo", path, lineno);
                int nw = cl.info.nwhisper_store;
                CHECK_MSG(nw <= p.info.nwhisper_store &&
                              talks_equal(cl.info.whisper_store, nw, p.info.whisper_store, nw),
                          "%s:%d: merged whispers differ from the full gameInfo", path, lineno);
                full_checks++;
            }
            if (p.has_talk_history)
                deltas_merged++;
            CHECK_MSG(aw_wire_client_apply(&cl, &p, &err) == 0, "%s:%d: %s", path, lineno, err.msg);
            aw_wire_packet_free(&p);
        }
        json_decref(rec);
    }
    free(buf);
    fclose(f);
    aw_wire_client_free(&cl);
    /* (The recordings interleave both directions by arrival, so replies are
     * counted rather than paired.) */
    if (tcp)
        CHECK_MSG(ours == official_replies, "%s: our client side replied %d times, the official one %d", path, ours,
                  official_replies);
    aw_wire_agent_free(&wa);
    aw_buf_free(&wa_out);
    player->ops->free(player);
}

static void fixtures(void)
{
    const char *groups[] = {FIX "/tcp", FIX "/edge"};
    int files = 0;
    for (int g = 0; g < 2; g++) {
        DIR *d = opendir(groups[g]);
        CHECK_MSG(d != NULL, "%s", groups[g]);
        if (!d)
            continue;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            for (int i = 1; i <= 15; i++) {
                const char *kinds[] = {"agent", "conn"};
                for (int k = 0; k < 2; k++) {
                    char path[512];
                    snprintf(path, sizeof path, "%s/%s/%s%02d.jsonl", groups[g], e->d_name, kinds[k], i);
                    FILE *f = fopen(path, "r");
                    if (!f)
                        continue;
                    fclose(f);
                    files++;
                    one_transcript(path);
                }
            }
        }
        closedir(d);
    }
    CHECK_MSG(files >= 100, "only %d transcripts", files);
    CHECK_MSG(lines_total > 4000, "only %d packets", lines_total);
    CHECK_MSG(full_checks > 100, "only %d merge checks", full_checks);
    CHECK_MSG(agent_replies > 1000, "our client side replied only %d times", agent_replies);
    printf("fixtures: our client side replied %d times, where the official clients did\n", agent_replies);
    printf("fixtures: %d transcripts, %d packets (%d byte-identical when re-encoded), %d merge checks, %d deltas\n",
           files, lines_total, lines_byte_equal, full_checks, deltas_merged);
    /* Our encoder writes keys in the official order: every packet comes out
     * byte for byte. */
    CHECK_INT(lines_byte_equal, lines_total);
}

/* ---- golden packets --------------------------------------------------------- */

static aw_talk mk(int day, int idx, int turn, int agent, const char *text)
{
    return (aw_talk){day, idx, turn, agent, (char *)text, strlen(text), NULL};
}

static void base_info(aw_info *v)
{
    memset(v, 0, sizeof *v);
    for (int a = 0; a <= AW_MAX_PLAYERS; a++) {
        v->role[a] = AW_ROLE_NONE;
        v->remain_talk[a] = v->remain_whisper[a] = -1;
    }
    v->agent = 2;
    v->n = 5;
    v->day = 1;
    v->my_role = AW_WEREWOLF;
    v->role[2] = AW_WEREWOLF;
    for (int a = 1; a <= 5; a++) {
        v->alive[a] = a != 4;
        if (a != 4)
            v->remain_talk[a] = 10;
    }
    v->remain_whisper[2] = 10;
    v->existing_role[AW_SEER] = v->existing_role[AW_WEREWOLF] = v->existing_role[AW_VILLAGER] =
        v->existing_role[AW_POSSESSED] = true;
    v->last_dead[0] = 4;
    v->nlast_dead = 1;
    v->attacked = 4;
}

/* Encodes a request and compares it with the golden packet
 * tests/wire/golden/NAME.json (one line, exactly what the official server
 * would send: key order, escapes, nulls and empty lists). */
static void encode_check(aw_wire_cursor *c, int req, const aw_info *v, const aw_settings *s, uint64_t seed,
                         const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "tests/wire/golden/%s.json", name);
    size_t len = 0;
    aw_error err = {0};
    char *want = aw_read_input(path, &len, &err);
    CHECK_MSG(want != NULL, "%s", err.msg);
    if (!want)
        return;
    if (len && want[len - 1] == '\n')
        want[--len] = '\0';
    aw_buf b;
    aw_buf_init(&b);
    CHECK(aw_wire_encode_request(c, req, v, s, seed, &b, &err) == 0);
    CHECK_MSG(b.len == len && memcmp(b.data, want, len) == 0, "%s:\n  ours   %s\n  golden %s", path, b.data, want);
    aw_buf_free(&b);
    free(want);
}

static void golden(void)
{
    aw_wire_cursor c;
    aw_wire_cursor_reset(&c);
    encode_check(&c, AW_WIRE_REQ_NAME, NULL, NULL, 0, "01_NAME");

    aw_info v;
    base_info(&v);
    aw_settings s;
    CHECK(aw_settings_preset(&s, "aiwolf", 5, NULL) == 0);
    s.time_limit_ms = -1;
    /* A seed beyond 2^53 goes out as the same 64 bits, signed, like Java's long. */
    encode_check(&c, AW_REQ_INITIALIZE, &v, &s, (uint64_t)INT64_C(-6484819846493936230), "02_INITIALIZE");
    encode_check(&c, AW_REQ_DAILY_INITIALIZE, &v, &s, 0, "03_DAILY_INITIALIZE");

    /* Talks: each TALK carries only what this agent has not been sent. */
    aw_talk talks[4] = {mk(1, 0, 0, 1, "Over"), mk(1, 1, 0, 3, "VOTE Agent[01]"), mk(1, 2, 1, 1, "<hi>"),
                        mk(1, 3, 1, 3, "Skip")};
    aw_talk wh[1] = {mk(1, 0, 0, 2, "ATTACK Agent[01]")};
    v.talks = talks;
    v.ntalks = 2;
    v.whispers = wh;
    v.nwhispers = 0;
    encode_check(&c, AW_REQ_TALK, &v, &s, 0, "04_TALK");
    v.ntalks = 4;
    encode_check(&c, AW_REQ_TALK, &v, &s, 0, "05_TALK_escaped");
    encode_check(&c, AW_REQ_DAILY_FINISH, &v, &s, 0, "06_DAILY_FINISH");
    /* First vote round: deltas. */
    encode_check(&c, AW_REQ_VOTE, &v, &s, 0, "07_VOTE");
    /* A revote: the latest round is known, so a full gameInfo, and the cursor stays. */
    aw_vote round1[2] = {{1, 1, 3}, {1, 3, 1}};
    v.latest_votes = round1;
    v.nlatest_votes = 2;
    aw_buf b;
    aw_buf_init(&b);
    CHECK(aw_wire_encode_request(&c, AW_REQ_VOTE, &v, &s, 0, &b, NULL) == 0);
    CHECK(strstr(b.data, "\"latestVoteList\":[{\"agent\":1,\"day\":1,\"target\":3},{\"agent\":3,\"day\":1,"
                         "\"target\":1}]") != NULL);
    CHECK(strstr(b.data, "\"talkHistory\":null") != NULL);
    CHECK_INT(c.talk, 4);
    /* After the execution the night's requests get a full gameInfo... */
    v.latest_executed = 3;
    v.alive[3] = false;
    v.nwhispers = 1;
    aw_buf_clear(&b);
    CHECK(aw_wire_encode_request(&c, AW_REQ_WHISPER, &v, &s, 0, &b, NULL) == 0);
    CHECK(strstr(b.data, "\"latestExecutedAgent\":3") != NULL);
    CHECK(strstr(b.data, "\"whisperList\":[{\"agent\":2,\"day\":1,\"idx\":0,\"text\":\"ATTACK Agent[01]\",\"turn\":0}]") !=
          NULL);
    /* ...but day 0's divination (no execution) only deltas. */
    aw_info v0;
    base_info(&v0);
    v0.day = 0;
    aw_wire_cursor c0;
    aw_wire_cursor_reset(&c0);
    encode_check(&c0, AW_REQ_DIVINE, &v0, &s, 0, "08_DIVINE_day0");
    /* A non-werewolf gets an empty whisper list whatever the view holds. */
    v0.my_role = AW_SEER;
    v0.whispers = NULL;
    aw_buf_clear(&b);
    CHECK(aw_wire_encode_request(&c0, AW_REQ_DAILY_INITIALIZE, &v0, &s, 0, &b, NULL) == 0);
    CHECK(strstr(b.data, "\"whisperList\":[]") != NULL);
    aw_buf_free(&b);

    /* The setting round-trips into our settings. */
    aw_wire_setting w;
    aw_wire_setting_from(&w, &s, 42);
    aw_settings back;
    CHECK(aw_settings_preset(&back, "aiwolf", 15, NULL) == 0);
    CHECK(aw_wire_setting_apply(&w, &back, NULL) == 0);
    CHECK_INT(back.players, 5);
    CHECK_INT(back.role_count[AW_WEREWOLF], 1);
    CHECK_INT(back.role_count[AW_VILLAGER], 2);
    CHECK_INT(back.max_talk, s.max_talk);
}

/* ---- engine games: what the client rebuilds is what the seat was shown ---- */

static void compare_views(const aw_info *a, const aw_info *b, bool full, const char *what)
{
    CHECK_MSG(talks_equal(a->talks, a->ntalks, b->talks, b->ntalks), "%s: talk lists differ", what);
    int naw = a->whispers ? a->nwhispers : 0, nbw = b->whispers ? b->nwhispers : 0;
    CHECK_MSG(talks_equal(a->whispers, naw, b->whispers, nbw), "%s: whisper lists differ (%d vs %d)", what, naw,
              nbw);
    CHECK_INT(a->agent, b->agent);
    if (!full)
        return;
    /* Everything but the lists, field by field. */
    CHECK_INT(a->day, b->day);
    CHECK_INT(a->n, b->n);
    CHECK_INT(a->my_role, b->my_role);
    for (int i = 1; i <= a->n; i++) {
        CHECK_INT(a->role[i], b->role[i]);
        CHECK_INT(a->alive[i], b->alive[i]);
        CHECK_INT(a->remain_talk[i], b->remain_talk[i]);
        CHECK_INT(a->remain_whisper[i], b->remain_whisper[i]);
    }
    CHECK(memcmp(a->existing_role, b->existing_role, sizeof a->existing_role) == 0);
    CHECK_INT(a->nvotes, b->nvotes);
    CHECK(a->nvotes != b->nvotes || !a->nvotes || memcmp(a->votes, b->votes, sizeof(aw_vote) * (size_t)a->nvotes) == 0);
    CHECK_INT(a->nlatest_votes, b->nlatest_votes);
    CHECK(a->nlatest_votes != b->nlatest_votes || !a->nlatest_votes ||
          memcmp(a->latest_votes, b->latest_votes, sizeof(aw_vote) * (size_t)a->nlatest_votes) == 0);
    CHECK_INT(a->nattack_votes, b->nattack_votes);
    CHECK_INT(a->nlatest_attack_votes, b->nlatest_attack_votes);
    CHECK_INT(a->executed, b->executed);
    CHECK_INT(a->latest_executed, b->latest_executed);
    CHECK_INT(a->nlast_dead, b->nlast_dead);
    CHECK(memcmp(&a->divine_result, &b->divine_result, sizeof a->divine_result) == 0);
    CHECK(memcmp(&a->medium_result, &b->medium_result, sizeof a->medium_result) == 0);
    CHECK_INT(a->attacked, b->attacked);
    CHECK_INT(a->guarded, b->guarded);
}

/* A seat that checks, before the chaos player inside answers, that the
 * wire packet of what it is told decodes, applies and gives the same view. */
typedef struct wire_spy {
    wrap_seat w; /* its agent's seed: w.agent_seed */
    aw_wire_cursor cur;
    aw_wire_client cl;
    aw_buf b;
    int *packets, *fulls;
} wire_spy;

static int spy_request(wrap_seat *ws, aw_req_kind kind, const aw_info *info, const aw_settings *set,
                       aw_seat_reply *reply, aw_seat_fault *f)
{
    wire_spy *w = (wire_spy *)ws;
    aw_error err = {0};
    aw_buf_clear(&w->b);
    CHECK(aw_wire_encode_request(&w->cur, kind, info, set, w->w.agent_seed, &w->b, &err) == 0);
    aw_wire_packet p;
    int rc = aw_wire_decode(w->b.data, w->b.len, &p, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc == 0) {
        (*w->packets)++;
        bool full = p.has_info;
        *w->fulls += full;
        CHECK_INT(p.request, kind);
        CHECK(aw_wire_client_apply(&w->cl, &p, &err) == 0);
        if (kind == AW_REQ_INITIALIZE)
            CHECK(w->cl.setting.random_seed == (int64_t)w->w.agent_seed);
        aw_wire_packet_free(&p);
        compare_views(&w->cl.info.v, info, full, aw_req_name(kind));
    }
    return wrap_pass(ws, kind, info, set, reply, f);
}

static void spy_done(wrap_seat *ws)
{
    wire_spy *w = (wire_spy *)ws;
    aw_wire_client_free(&w->cl);
    aw_buf_free(&w->b);
}

static void engine_games(void)
{
    const char *presets[] = {"aiwolf", "seed2015", "regulation"};
    int games = 0, packets = 0, fulls = 0;
    for (int pi = 0; pi < 3; pi++)
        for (int players = 5; players <= 15; players += 5)
            for (uint64_t seed = 1; seed <= 4; seed++) {
                aw_settings s;
                if (aw_settings_preset(&s, presets[pi], players, NULL) < 0)
                    continue;
                aw_seat *seats[AW_MAX_PLAYERS + 1];
                for (int a = 1; a <= s.players; a++) {
                    wire_spy *w =
                        wrap_seat_new(sizeof *w, aw_cseat_chaos(aw_rng_derive(seed, (uint64_t)a)), spy_request);
                    w->w.done = spy_done;
                    aw_wire_cursor_reset(&w->cur);
                    aw_wire_client_init(&w->cl);
                    aw_buf_init(&w->b);
                    w->packets = &packets;
                    w->fulls = &fulls;
                    seats[a] = &w->w.base;
                }
                aw_game_opts go;
                memset(&go, 0, sizeof go);
                go.settings = &s;
                go.seed = seed * 7919;
                aw_game_result res;
                aw_error err = {0};
                int rc = aw_game_play(&go, seats, &res, &err);
                CHECK_MSG(rc == 0, "%s", err.msg);
                for (int a = 1; a <= s.players; a++)
                    seats[a]->ops->free(seats[a]);
                games += rc == 0;
            }
    printf("engine games: %d games, %d packets (%d with a full gameInfo)\n", games, packets, fulls);
    CHECK(games >= 20);
    CHECK(fulls > 100 && packets > fulls * 2);
}

/* ---- hostile input ---------------------------------------------------------- */

static const char *sample_line(void)
{
    static char line[1 << 16];
    FILE *f = fopen(FIX "/tcp/5p_game1/agent01.jsonl", "r");
    if (!f)
        return NULL;
    char buf[1 << 16];
    line[0] = '\0';
    /* the INITIALIZE packet: every part of the format at once */
    while (fgets(buf, sizeof buf, f)) {
        json_t *rec = json_loads(buf, 0, NULL);
        const char *l = json_string_value(json_object_get(rec, "line"));
        if (l && strstr(l, "\"INITIALIZE\"") && strlen(l) < sizeof line) {
            strcpy(line, l);
            json_decref(rec);
            break;
        }
        json_decref(rec);
    }
    fclose(f);
    return line;
}

static void hostile(void)
{
    const char *bad[] = {
        "",
        "null",
        "[]",
        "{}",
        "{\"request\":\"NOPE\"}",
        "{\"request\":\"TALK\",\"talkHistory\":[{\"agent\":0,\"day\":1,\"idx\":0,\"text\":\"x\",\"turn\":0}]}",
        "{\"request\":\"TALK\",\"talkHistory\":[{\"agent\":19,\"day\":1,\"idx\":0,\"text\":\"x\",\"turn\":0}]}",
        "{\"request\":\"TALK\",\"talkHistory\":[{\"agent\":1,\"day\":1,\"idx\":0,\"text\":3,\"turn\":0}]}",
        "{\"request\":\"TALK\",\"talkHistory\":{}}",
        "{\"request\":\"VOTE\",\"gameInfo\":{\"agent\":1,\"day\":0,\"statusMap\":{\"1\":\"ALIVE\",\"3\":\"ALIVE\"}}}",
        "{\"request\":\"VOTE\",\"gameInfo\":{\"agent\":1,\"day\":0,\"statusMap\":{\"01\":\"ALIVE\"}}}",
        "{\"request\":\"VOTE\",\"gameInfo\":{\"agent\":1,\"day\":0,\"statusMap\":{\"1\":\"ALIVE\"},"
        "\"roleMap\":{\"1\":\"KING\"}}}",
        "{\"request\":\"VOTE\",\"gameInfo\":{\"agent\":1,\"day\":-1,\"statusMap\":{\"1\":\"ALIVE\"}}}",
        "{\"request\":\"VOTE\",\"gameInfo\":{\"agent\":1,\"day\":0,\"statusMap\":{\"1\":\"ALIVE\"},"
        "\"divineResult\":{\"agent\":1,\"day\":0,\"target\":1,\"result\":\"FOX\"}}}",
        "{\"request\":\"VOTE\",\"request\":\"TALK\"}",
        "{\"request\":\"INITIALIZE\",\"gameSetting\":{\"randomSeed\":1.5}}",
        "{\"request\":\"TALK\"",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        aw_wire_packet p;
        aw_error err = {0};
        CHECK_MSG(aw_wire_decode(bad[i], strlen(bad[i]), &p, &err) < 0, "accepted: %s", bad[i]);
        CHECK(err.msg[0] != '\0');
        aw_wire_packet_free(&p);
    }
    /* deltas before any gameInfo */
    aw_wire_client cl;
    aw_wire_client_init(&cl);
    aw_wire_packet p;
    const char *delta = "{\"request\":\"TALK\",\"talkHistory\":[],\"whisperHistory\":[]}";
    CHECK(aw_wire_decode(delta, strlen(delta), &p, NULL) == 0);
    CHECK(aw_wire_client_apply(&cl, &p, NULL) < 0);
    aw_wire_packet_free(&p);
    aw_wire_client_free(&cl);

    /* Every prefix of a real packet, and many byte mutations: never a crash;
     * whatever decodes also encodes. */
    const char *line = sample_line();
    CHECK(line && line[0]);
    if (!line || !line[0])
        return;
    size_t len = strlen(line);
    int ok = 0;
    for (size_t n = 0; n < len; n++) {
        aw_error err;
        CHECK(aw_wire_decode(line, n, &p, &err) < 0);
        aw_wire_packet_free(&p);
    }
    aw_rng r;
    aw_rng_seed(&r, 99);
    char *m = aw_xmalloc(len + 1);
    for (int i = 0; i < 20000; i++) {
        memcpy(m, line, len + 1);
        int edits = 1 + (int)aw_rng_below(&r, 3);
        for (int e = 0; e < edits; e++)
            m[aw_rng_below(&r, (uint32_t)len)] = "0123456789-:,{}[]\"aZ\\\x01\xff"[aw_rng_below(&r, 24)];
        aw_error err;
        if (aw_wire_decode(m, len, &p, &err) == 0) {
            ok++;
            aw_buf b;
            aw_buf_init(&b);
            CHECK(aw_wire_encode_packet(&p, &b, &err) == 0);
            aw_buf_free(&b);
            aw_wire_client_init(&cl);
            CHECK(aw_wire_client_apply(&cl, &p, &err) == 0);
            aw_wire_client_free(&cl);
        }
        aw_wire_packet_free(&p);
    }
    free(m);
    printf("mutations: %d of 20000 still decoded\n", ok);
}

static void replies(void)
{
    int t = -5;
    CHECK(aw_wire_reply_target("{\"agentIdx\":3}", 14, &t, NULL) == 0 && t == 3);
    CHECK(aw_wire_reply_target("{\"agentIdx\":03}\r", 16, &t, NULL) == 0 && t == 3);
    CHECK(aw_wire_reply_target("", 0, &t, NULL) == 0 && t == AW_NO_AGENT);
    CHECK(aw_wire_reply_target("\r", 1, &t, NULL) == 0 && t == AW_NO_AGENT);
    CHECK(aw_wire_reply_target("{\"agentIdx\":2147483647}", 23, &t, NULL) == 0 && t == 2147483647);
    const char *no[] = {"{\"agentIdx\": 3}", "{\"agentIdx\":3,\"extra\":0}", "3", "Agent[03]", "{\"agentIdx\":}",
                        "{\"agentIdx\":-1}", "{\"agentIdx\":2147483648}", "{\"agentIdx\":99999999999}",
                        "x{\"agentIdx\":3}", "{\"agentIdx\":3}x", "{\"agentIdx\":3 }"};
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        aw_error err = {0};
        CHECK_MSG(aw_wire_reply_target(no[i], strlen(no[i]), &t, &err) < 0, "accepted %s", no[i]);
    }
    aw_buf b;
    aw_buf_init(&b);
    aw_wire_format_target(7, &b);
    CHECK_STR(b.data, "{\"agentIdx\":7}");
    aw_buf_clear(&b);
    aw_wire_format_target(AW_NO_AGENT, &b);
    CHECK_INT(b.len, 0);
    aw_buf_free(&b);

    aw_role r = AW_VILLAGER;
    CHECK(aw_wire_reply_role("none", 4, &r, NULL) == 0 && r == AW_ROLE_NONE);
    CHECK(aw_wire_reply_role("WEREWOLF\r", 9, &r, NULL) == 0 && r == AW_WEREWOLF);
    CHECK(aw_wire_reply_role("", 0, &r, NULL) < 0);
    CHECK(aw_wire_reply_role("seer", 4, &r, NULL) < 0);
    CHECK(aw_wire_reply_role("NONE", 4, &r, NULL) < 0);

    const char *text;
    size_t tl;
    aw_wire_reply_text("Over\r", 5, &text, &tl);
    CHECK(text && tl == 4);
    aw_wire_reply_text("", 0, &text, &tl);
    CHECK(text == NULL);

    CHECK_STR(aw_wire_request_name(AW_REQ_DAILY_FINISH), "DAILY_FINISH");
    CHECK_INT(aw_wire_request_parse("ROLE"), AW_WIRE_REQ_ROLE);
    CHECK_INT(aw_wire_request_parse("role"), -1);
    CHECK(aw_wire_request_has_reply(AW_WIRE_REQ_NAME));
    CHECK(!aw_wire_request_has_reply(AW_REQ_DAILY_FINISH));
}

static void reader(void)
{
    aw_wire_reader r;
    aw_wire_reader_init(&r, 10);
    const char *line;
    size_t len;
    CHECK_INT(aw_wire_reader_next(&r, &line, &len), 0);
    aw_wire_reader_feed(&r, "ab", 2);
    CHECK_INT(aw_wire_reader_next(&r, &line, &len), 0);
    aw_wire_reader_feed(&r, "c\nde\n\nf", 7);
    CHECK_INT(aw_wire_reader_next(&r, &line, &len), 1);
    CHECK(len == 3 && memcmp(line, "abc", 3) == 0);
    CHECK_INT(aw_wire_reader_next(&r, &line, &len), 1);
    CHECK(len == 2 && memcmp(line, "de", 2) == 0);
    CHECK_INT(aw_wire_reader_next(&r, &line, &len), 1);
    CHECK_INT(len, 0);
    CHECK_INT(aw_wire_reader_next(&r, &line, &len), 0);
    CHECK_INT(aw_wire_reader_pending(&r), 1);
    aw_wire_reader_feed(&r, "0123456789", 10); /* "f0123456789": 11 bytes, no newline */
    CHECK_INT(aw_wire_reader_next(&r, &line, &len), -1);
    aw_wire_reader_free(&r);

    /* A megabyte line with a cap of 64 KiB fails as soon as the cap is passed. */
    aw_wire_reader_init(&r, 65536);
    char *mb = aw_xmalloc(1 << 20);
    memset(mb, 'x', 1 << 20);
    int rc = 0;
    for (size_t off = 0; off < (1u << 20) && rc == 0; off += 4096) {
        aw_wire_reader_feed(&r, mb + off, 4096);
        rc = aw_wire_reader_next(&r, &line, &len);
    }
    CHECK_INT(rc, -1);
    CHECK(aw_wire_reader_pending(&r) <= 65536 + 4096);
    free(mb);
    aw_wire_reader_free(&r);
}

/* ---- the host's framing ----------------------------------------------------- */

static void framing(void)
{
    aw_settings set;
    CHECK(aw_settings_preset(&set, "aiwolf", 5, NULL) == 0);
    aw_info v;
    base_info(&v);
    aw_wire_seat w;
    aw_wire_seat_init(&w, 64);
    aw_wire_seat_reset(&w, 0xfedcba9876543210ull);
    aw_buf out;
    aw_buf_init(&out);
    aw_seat_fault f;
    aw_seat_reply r;
    aw_error err;

    /* NAME: one line out, the reply may come in pieces. */
    CHECK(aw_wire_seat_send(&w, AW_WIRE_REQ_NAME, NULL, NULL, &out, &f) == 0);
    CHECK(out.len > 0 && out.data[out.len - 1] == '\n');
    CHECK(aw_wire_seat_awaiting(&w));
    CHECK_INT(aw_wire_seat_feed(&w, "my", 2, &f), 0);
    CHECK_INT(aw_wire_seat_feed(&w, "Name\n", 5, &f), 1);
    CHECK(!aw_wire_seat_awaiting(&w));
    CHECK(aw_wire_seat_reply(&w, AW_WIRE_REQ_NAME, &r, &f) == 0 && r.len == 6 && memcmp(r.text, "myName", 6) == 0);

    /* INITIALIZE carries the seat's own seed, and expects no reply: bytes
     * now are bytes nobody asked for. */
    aw_buf_clear(&out);
    CHECK(aw_wire_seat_send(&w, AW_REQ_INITIALIZE, &v, &set, &out, &f) == 0);
    CHECK(!aw_wire_seat_awaiting(&w));
    aw_wire_packet p;
    CHECK(aw_wire_decode(out.data, out.len - 1, &p, &err) == 0);
    CHECK(p.has_setting && p.setting.random_seed == (int64_t)0xfedcba9876543210ull);
    aw_wire_packet_free(&p);
    CHECK_INT(aw_wire_seat_feed(&w, "x", 1, &f), -1);
    CHECK_INT(f.kind, AW_FAULT_REPLY);
    CHECK(strstr(f.msg, "nobody asked for") != NULL);

    /* A target, then a target that is not one. */
    aw_wire_seat_reset(&w, 1);
    aw_buf_clear(&out);
    CHECK(aw_wire_seat_send(&w, AW_REQ_VOTE, &v, &set, &out, &f) == 0);
    CHECK(strstr(out.data, "\"gameInfo\":null") != NULL); /* a vote gets the new talks only */
    CHECK_INT(aw_wire_seat_feed(&w, "{\"agentIdx\":3}\n", 15, &f), 1);
    CHECK(aw_wire_seat_reply(&w, AW_REQ_VOTE, &r, &f) == 0 && r.target == 3);
    aw_buf_clear(&out);
    CHECK(aw_wire_seat_send(&w, AW_REQ_VOTE, &v, &set, &out, &f) == 0);
    CHECK_INT(aw_wire_seat_feed(&w, "garbage\n", 8, &f), 1);
    CHECK(aw_wire_seat_reply(&w, AW_REQ_VOTE, &r, &f) < 0 && f.kind == AW_FAULT_REPLY);

    /* A talk with bytes after its line: they are out of protocol at the
     * next send. */
    aw_buf_clear(&out);
    CHECK(aw_wire_seat_send(&w, AW_REQ_TALK, &v, &set, &out, &f) == 0);
    CHECK_INT(aw_wire_seat_feed(&w, "Over\nextra", 10, &f), 1);
    CHECK(aw_wire_seat_reply(&w, AW_REQ_TALK, &r, &f) == 0 && r.len == 4 && memcmp(r.text, "Over", 4) == 0);
    CHECK(aw_wire_seat_send(&w, AW_REQ_TALK, &v, &set, &out, &f) < 0 && f.kind == AW_FAULT_REPLY);

    /* A reply that comes after its deadline is dropped, not taken for the
     * answer to the next request. */
    aw_wire_seat_reset(&w, 1);
    aw_buf_clear(&out);
    CHECK(aw_wire_seat_send(&w, AW_REQ_VOTE, &v, &set, &out, &f) == 0);
    CHECK_INT(aw_wire_seat_feed(&w, "{\"agentIdx\"", 11, &f), 0);
    aw_wire_seat_expire(&w);
    CHECK(!aw_wire_seat_awaiting(&w));
    CHECK(aw_wire_seat_send(&w, AW_REQ_TALK, &v, &set, &out, &f) == 0); /* half a late line is no stray */
    CHECK_INT(aw_wire_seat_feed(&w, ":3}\nOv", 6, &f), 0);
    CHECK_INT(aw_wire_seat_feed(&w, "er\n", 3, &f), 1);
    CHECK(aw_wire_seat_reply(&w, AW_REQ_TALK, &r, &f) == 0 && r.len == 4 && memcmp(r.text, "Over", 4) == 0);

    /* A line longer than the limit. */
    aw_wire_seat_reset(&w, 1);
    aw_buf_clear(&out);
    CHECK(aw_wire_seat_send(&w, AW_REQ_TALK, &v, &set, &out, &f) == 0);
    char big[100];
    memset(big, 'a', sizeof big);
    CHECK_INT(aw_wire_seat_feed(&w, big, sizeof big, &f), -1);
    CHECK(f.kind == AW_FAULT_REPLY && strstr(f.msg, "longer than") != NULL);

    aw_buf_free(&out);
    aw_wire_seat_free(&w);
}

int main(void)
{
    fixtures();
    golden();
    engine_games();
    hostile();
    replies();
    reader();
    framing();
    return test_done();
}
