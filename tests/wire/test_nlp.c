/* test_nlp: the NLP division's packets (nlp.c) and the client side with no
 * I/O (nlpagent.c).
 *  - packets written as the official server writes them (field names from
 *    aiwolf-nlp-server's model/, see tests/fixtures/nlp/NOTE) decode to the
 *    right values, and encoding what was decoded decodes to the same;
 *  - the length rule counts characters, words and spaces as the server does,
 *    in Japanese and English, and a cut never splits a UTF-8 sequence;
 *  - a protocol sentence is rendered with the agents' names, in English or
 *    Japanese, within the length rule, the part after an @mention too;
 *  - an agent fed a game's packets gets a view with the right numbers and
 *    answers names the server knows;
 *  - hostile packets: not JSON, wrong types, unknown requests and roles,
 *    invalid UTF-8, too many agents, huge packets, every prefix of a real
 *    packet: an error, never a crash.
 * Uses nlp, nlpagent, protocol, and a scripted C seat. */
#include <stdlib.h>
#include <string.h>

#include "nlp.h"
#include "nlpagent.h"
#include "test.h"

static const char *INIT_EN =
    "{\"request\":\"INITIALIZE\",\"info\":{\"game_id\":\"01JQ\",\"day\":0,\"agent\":\"Minato\","
    "\"profile\":\"age: 10\\ngender: male\",\"status_map\":{\"Minato\":\"ALIVE\",\"Takumi\":\"ALIVE\","
    "\"Kenji\":\"ALIVE\",\"Ryuji\":\"ALIVE\",\"Daisuke\":\"ALIVE\"},\"role_map\":{\"Minato\":\"SEER\"}},"
    "\"setting\":{\"agent_count\":5,\"role_num_map\":{\"BODYGUARD\":0,\"MEDIUM\":0,\"POSSESSED\":1,\"SEER\":1,"
    "\"VILLAGER\":2,\"WEREWOLF\":1},\"vote_visibility\":true,\"talk\":{\"max_count\":{\"per_agent\":4,"
    "\"per_day\":20},\"max_length\":{\"count_in_word\":false,\"count_spaces\":false,\"mention_length\":125,"
    "\"base_length\":125},\"max_skip\":0},\"whisper\":{\"max_count\":{\"per_agent\":0,\"per_day\":0},"
    "\"max_length\":{\"count_in_word\":false,\"count_spaces\":false,\"mention_length\":125,\"base_length\":125},"
    "\"max_skip\":0},\"vote\":{\"max_count\":1,\"allow_self_vote\":true},\"attack_vote\":{\"max_count\":1,"
    "\"allow_self_vote\":true,\"allow_no_target\":false},\"timeout\":{\"action\":60000,\"response\":120000}}}";

static const char *TALK_EN =
    "{\"request\":\"TALK\",\"info\":{\"game_id\":\"01JQ\",\"day\":1,\"agent\":\"Minato\","
    "\"divine_result\":{\"day\":0,\"agent\":\"Minato\",\"target\":\"Kenji\",\"result\":\"WEREWOLF\"},"
    "\"status_map\":{\"Minato\":\"ALIVE\",\"Takumi\":\"ALIVE\",\"Kenji\":\"ALIVE\",\"Ryuji\":\"ALIVE\","
    "\"Daisuke\":\"DEAD\"},\"role_map\":{\"Minato\":\"SEER\"},\"remain_count\":3,\"remain_skip\":0},"
    "\"talk_history\":[{\"idx\":0,\"day\":1,\"turn\":0,\"agent\":\"Kenji\",\"text\":\"@Minato I am the seer.\","
    "\"skip\":false,\"over\":false},{\"idx\":1,\"day\":1,\"turn\":0,\"agent\":\"Ryuji\",\"text\":\"Over\","
    "\"skip\":false,\"over\":true}]}";

/* ---- a scripted seat ---- */

typedef struct script_seat {
    aw_seat base;
    const char *talk; /* what talk() says */
    int target;       /* what vote() etc. choose */
    int requests;
    aw_info last;       /* the last view it got */
    char names[6][32];  /* its nlp names at the last request */
    int nlp_remain;
} script_seat;

static const char *ss_begin(aw_seat *s, int agent, uint64_t seed, aw_seat_fault *f)
{
    (void)s, (void)agent, (void)seed, (void)f;
    return "scripted";
}

static int ss_request(aw_seat *s, aw_req_kind kind, const aw_info *info, const aw_settings *set, aw_seat_reply *r,
                      aw_seat_fault *f)
{
    (void)set, (void)f;
    script_seat *ss = (script_seat *)s;
    ss->requests++;
    ss->last = *info;
    if (info->nlp)
        for (int i = 1; i <= info->n && i < 6; i++)
            snprintf(ss->names[i], sizeof ss->names[i], "%s", info->nlp->names[i]);
    ss->nlp_remain = info->nlp ? info->nlp->remain_count : -2;
    r->text = NULL;
    r->len = 0;
    r->target = AW_NO_AGENT;
    if (aw_req_wants_text(kind)) {
        r->text = ss->talk;
        r->len = strlen(ss->talk);
    } else {
        r->target = ss->target;
    }
    return 0;
}

static void ss_free(aw_seat *s)
{
    (void)s;
}

static const aw_seat_ops ss_ops = {.begin = ss_begin, .request = ss_request, .free = ss_free};

/* ---- decoding ---- */

static void test_decode(void)
{
    aw_nlp_packet p;
    aw_error err;
    CHECK_INT(aw_nlp_decode(INIT_EN, strlen(INIT_EN), &p, &err), 0);
    CHECK_INT(p.request, AW_NLP_INITIALIZE);
    CHECK(p.has_info && p.has_setting && !p.has_talks);
    CHECK_STR(p.info.agent, "Minato");
    CHECK_STR(p.info.profile, "age: 10\ngender: male");
    CHECK_INT(p.info.nseats, 5);
    /* sorted by name, as Go writes a map */
    CHECK_STR(p.info.seats[0].name, "Daisuke");
    CHECK_STR(p.info.seats[2].name, "Minato");
    CHECK_INT(p.info.seats[2].role, AW_SEER);
    CHECK_INT(p.info.seats[0].role, AW_ROLE_NONE);
    CHECK_INT(p.setting.agent_count, 5);
    CHECK_INT(p.setting.role_num[AW_WEREWOLF], 1);
    CHECK_INT(p.setting.role_num[AW_VILLAGER], 2);
    CHECK_INT(p.setting.talk.max_count_per_agent, 4);
    CHECK_INT(p.setting.talk.base_length, 125);
    CHECK_INT(p.setting.talk.per_talk, -1);
    CHECK_INT(p.setting.talk.count_spaces, 0);
    CHECK_INT(p.setting.timeout_action_ms, 60000);
    CHECK_INT(p.setting.max_day, -1);
    CHECK(p.setting.vote_allow_self && !p.setting.attack_allow_no_target);
    CHECK_INT(p.info.remain_count, -1);

    /* encode, decode again: the same values */
    aw_buf b;
    aw_buf_init(&b);
    aw_nlp_encode(&p, &b);
    aw_nlp_packet q;
    CHECK_INT(aw_nlp_decode(b.data, b.len, &q, &err), 0);
    CHECK_STR(q.info.profile, p.info.profile);
    CHECK_INT(q.info.nseats, 5);
    for (int i = 0; i < 5 && i < q.info.nseats; i++) {
        CHECK_STR(q.info.seats[i].name, p.info.seats[i].name);
        CHECK_INT(q.info.seats[i].role, p.info.seats[i].role);
        CHECK_INT(q.info.seats[i].alive, p.info.seats[i].alive);
    }
    CHECK(!memcmp(&q.setting, &p.setting, sizeof q.setting));
    aw_buf_clear(&b);
    aw_nlp_encode(&q, &b);
    aw_buf b2;
    aw_buf_init(&b2);
    aw_nlp_encode(&p, &b2);
    CHECK(b.len == b2.len && !memcmp(b.data, b2.data, b.len));
    aw_buf_free(&b2);
    aw_nlp_packet_free(&q);
    aw_nlp_packet_free(&p);

    CHECK_INT(aw_nlp_decode(TALK_EN, strlen(TALK_EN), &p, &err), 0);
    CHECK_INT(p.request, AW_NLP_TALK);
    CHECK_INT(p.ntalks, 2);
    CHECK_STR(p.talks[0].text, "@Minato I am the seer.");
    CHECK(p.talks[1].over && !p.talks[0].over);
    CHECK_STR(p.info.divine_result.target, "Kenji");
    CHECK_INT(p.info.divine_result.result, AW_WOLF);
    CHECK_INT(p.info.remain_count, 3);
    CHECK_INT(p.info.remain_length, -1);
    CHECK_INT(p.info.seats[0].alive, 0); /* Daisuke */
    aw_buf_clear(&b);
    aw_nlp_encode(&p, &b);
    CHECK_INT(aw_nlp_decode(b.data, b.len, &q, &err), 0);
    CHECK_INT(q.ntalks, 2);
    CHECK_STR(q.talks[0].agent, "Kenji");
    CHECK_INT(q.info.remain_count, 3);
    aw_nlp_packet_free(&q);
    aw_nlp_packet_free(&p);
    aw_buf_free(&b);

    const char *name = "{\"request\":\"NAME\"}";
    CHECK_INT(aw_nlp_decode(name, strlen(name), &p, &err), 0);
    CHECK_INT(p.request, AW_NLP_NAME);
    CHECK(!p.has_info);
    aw_nlp_packet_free(&p);
}

/* ---- hostile input ---- */

static void expect_bad(const char *msg, size_t len, const char *why)
{
    aw_nlp_packet p;
    aw_error err = {{0}, 0, 0};
    int rc = aw_nlp_decode(msg, len, &p, &err);
    CHECK_MSG(rc < 0, "%s decoded", why);
    CHECK_MSG(err.msg[0] != 0, "%s: no message", why);
    aw_nlp_packet_free(&p);
}

static void test_hostile(void)
{
    static const char *bad[] = {
        "",
        "[]",
        "\"TALK\"",
        "{}",
        "{\"request\":5}",
        "{\"request\":\"SHOUT\"}",
        "{\"request\":\"TALK\",\"info\":[]}",
        "{\"request\":\"TALK\",\"info\":{\"day\":1,\"agent\":\"A\"}}",
        "{\"request\":\"TALK\",\"info\":{\"day\":-1,\"agent\":\"A\",\"status_map\":{\"A\":\"ALIVE\"}}}",
        "{\"request\":\"TALK\",\"info\":{\"day\":1,\"agent\":\"A\",\"status_map\":{\"A\":\"ZOMBIE\"}}}",
        "{\"request\":\"TALK\",\"info\":{\"day\":1,\"agent\":\"A\",\"status_map\":{\"A\":\"ALIVE\"},"
        "\"role_map\":{\"B\":\"SEER\"}}}",
        "{\"request\":\"TALK\",\"info\":{\"day\":1,\"agent\":\"A\",\"status_map\":{\"A\":\"ALIVE\"},"
        "\"role_map\":{\"A\":\"FOOL\"}}}",
        "{\"request\":\"TALK\",\"info\":{\"day\":1,\"agent\":\"A\\u0007\",\"status_map\":{\"A\":\"ALIVE\"}}}",
        "{\"request\":\"TALK\",\"info\":{\"day\":1,\"agent\":\"A\",\"status_map\":{\"\\u001b[2J\":\"ALIVE\"}}}",
        "{\"request\":\"TALK\",\"talk_history\":{}}",
        "{\"request\":\"TALK\",\"talk_history\":[{\"idx\":0,\"day\":0,\"turn\":0,\"agent\":\"A\"}]}",
        "{\"request\":\"TALK\",\"talk_history\":[{\"idx\":0,\"day\":0,\"turn\":0,\"agent\":\"A\",\"text\":7}]}",
        "{\"request\":\"TALK\",\"talk_history\":[{\"idx\":0,\"day\":0,\"turn\":0,\"agent\":\"A\","
        "\"text\":\"a\\u0000b\"}]}",
        "{\"request\":\"TALK\",\"setting\":{\"agent_count\":500}}",
        "{\"request\":\"TALK\",\"setting\":{\"agent_count\":5,\"role_num_map\":{\"SEER\":-1}}}",
        "{\"request\":\"TALK\",\"setting\":{\"agent_count\":5,\"talk\":{\"max_count\":[]}}}",
        "{\"request\":\"TALK\",\"info\":{\"day\":1,\"agent\":\"A\",\"status_map\":{\"A\":\"ALIVE\"},"
        "\"divine_result\":{\"day\":0,\"agent\":\"A\",\"target\":\"A\",\"result\":\"FOX\"}}}",
        "{\"request\":\"TALK\",\"request\":\"VOTE\"}",
        /* the group chat's: a broadcast without its talk, a talk in the
         * wrong key, a time that is no number of milliseconds, a duration
         * below 0 */
        "{\"request\":\"TALK_BROADCAST\"}",
        "{\"request\":\"TALK_BROADCAST\",\"new_whisper\":{\"idx\":0,\"day\":0,\"turn\":0,\"agent\":\"A\","
        "\"text\":\"a\"}}",
        "{\"request\":\"WHISPER_BROADCAST\",\"new_whisper\":{\"idx\":0,\"day\":0,\"turn\":0,\"agent\":\"A\","
        "\"text\":\"a\",\"time\":-5}}",
        "{\"request\":\"TALK_BROADCAST\",\"new_talk\":{\"idx\":0,\"day\":0,\"turn\":0,\"agent\":\"A\","
        "\"text\":\"a\",\"time\":\"noon\"}}",
        "{\"request\":\"TALK_PHASE_START\",\"setting\":{\"agent_count\":5,\"talk\":{\"duration\":-1}}}",
        "{\"request\":\"TALK\"",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_bad(bad[i], strlen(bad[i]), bad[i]);
    /* invalid UTF-8 in a string */
    const char inv[] = "{\"request\":\"TALK\",\"talk_history\":[{\"idx\":0,\"day\":0,\"turn\":0,\"agent\":\"A\","
                       "\"text\":\"\xff\xfe\"}]}";
    expect_bad(inv, sizeof inv - 1, "invalid UTF-8");
    const char inv2[] = "{\"request\":\"TALK\",\"info\":{\"day\":1,\"agent\":\"\xe3\x81\",\"status_map\":{}}}";
    expect_bad(inv2, sizeof inv2 - 1, "a cut UTF-8 name");
    /* too many agents */
    aw_buf b;
    aw_buf_init(&b);
    aw_buf_adds(&b, "{\"request\":\"TALK\",\"info\":{\"day\":1,\"agent\":\"A0\",\"status_map\":{");
    for (int i = 0; i <= AW_MAX_PLAYERS; i++)
        aw_buf_printf(&b, "%s\"A%d\":\"ALIVE\"", i ? "," : "", i);
    aw_buf_adds(&b, "}}}");
    expect_bad(b.data, b.len, "too many agents");
    /* a huge packet is refused before parsing */
    aw_buf_clear(&b);
    aw_buf_adds(&b, "{\"request\":\"TALK\",\"x\":\"");
    while (b.len <= AW_NLP_MAX_PACKET)
        aw_buf_adds(&b, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
    aw_buf_adds(&b, "\"}");
    expect_bad(b.data, b.len, "huge packet");
    /* deep nesting */
    aw_buf_clear(&b);
    aw_buf_adds(&b, "{\"request\":\"TALK\",\"x\":");
    for (int i = 0; i < 100000; i++)
        aw_buf_addc(&b, '[');
    expect_bad(b.data, b.len, "deep nesting");
    aw_buf_free(&b);
    /* every prefix of a real packet fails cleanly (only the whole parses) */
    size_t n = strlen(TALK_EN);
    int ok = 0;
    for (size_t i = 0; i <= n; i++) {
        aw_nlp_packet p;
        aw_error err;
        if (aw_nlp_decode(TALK_EN, i, &p, &err) == 0)
            ok++;
        aw_nlp_packet_free(&p);
    }
    CHECK_INT(ok, 1);
    /* unknown fields are ignored (the server adds fields over time) */
    const char *extra = "{\"request\":\"NAME\",\"future\":{\"x\":[1,2]}}";
    aw_nlp_packet p;
    aw_error err;
    CHECK_INT(aw_nlp_decode(extra, strlen(extra), &p, &err), 0);
    aw_nlp_packet_free(&p);
}

/* ---- the length rule ---- */

static void test_length(void)
{
    const char *en = "I am the seer. Kenji is a werewolf!";
    CHECK_INT(aw_nlp_count_length(en, strlen(en), false, true), 35);
    CHECK_INT(aw_nlp_count_length(en, strlen(en), false, false), 28);
    CHECK_INT(aw_nlp_count_length(en, strlen(en), true, false), 8);
    const char *ja = "私は占い師です。ケンジは人狼でした。"; /* 18 characters */
    CHECK_INT(aw_nlp_count_length(ja, strlen(ja), false, false), 18);
    const char *jasp = "私は　占い師"; /* U+3000 is white space */
    CHECK_INT(aw_nlp_count_length(jasp, strlen(jasp), false, false), 5);
    CHECK_INT(aw_nlp_count_length(jasp, strlen(jasp), false, true), 6);
    /* a cut never splits a character: every budget gives a valid prefix */
    for (int max = 0; max <= 20; max++) {
        size_t k = aw_nlp_trim_length(ja, strlen(ja), max, false, false);
        CHECK_INT(k % 3, 0); /* every character here is 3 bytes */
        CHECK_INT(aw_nlp_count_length(ja, k, false, false), max < 18 ? max : 18);
    }
    size_t k = aw_nlp_trim_length(en, strlen(en), 10, false, false);
    CHECK_INT(aw_nlp_count_length(en, k, false, false), 10);
    CHECK(k == 13 && !memcmp(en, "I am the seer", 13));
    k = aw_nlp_trim_length(en, strlen(en), 3, true, false);
    CHECK(k == 8 && !memcmp(en, "I am the", 8));
    /* the cut ends just after the last character counted: white space
     * after it goes, U+3000 too (as the official util.TrimLength) */
    const char *jsp = "あいう　えお";
    CHECK_INT(aw_nlp_trim_length(jsp, strlen(jsp), 3, false, false), 9);
    CHECK_INT(aw_nlp_trim_length(jsp, strlen(jsp), 5, false, false), strlen(jsp)); /* fits: kept whole */
    const char *trail = "abc def  ";
    CHECK_INT(aw_nlp_trim_length(trail, strlen(trail), 6, false, false), strlen(trail));
    CHECK_INT(aw_nlp_trim_length(trail, strlen(trail), 6, false, true), 6);
    /* emoji (4 bytes) and invalid bytes */
    const char *mix = "a\xf0\x9f\x90\xba" "b\xff" "c";
    CHECK_INT(aw_nlp_count_length(mix, strlen(mix), false, true), 5);
    k = aw_nlp_trim_length(mix, strlen(mix), 2, false, true);
    CHECK_INT(k, 5);
}

/* ---- rendering ---- */

static void test_render(void)
{
    const char *names[] = {NULL, "Daisuke", "Kenji", "Minato", "Ryuji", "Takumi"};
    aw_nlp_talk_setting ts = {.count_in_word = 0, .count_spaces = 0, .per_talk = -1, .mention_length = 125,
                              .per_agent = -1, .base_length = 125};
    aw_buf b;
    aw_buf_init(&b);
    const char *co = "COMINGOUT Agent[03] SEER";
    aw_nlp_render_talk(co, strlen(co), 3, names, 5, "en", &ts, -1, &b);
    CHECK_STR(b.data, "Minato comes out: Minato is a seer");
    aw_buf_clear(&b);
    const char *dv = "DIVINED Agent[02] WEREWOLF";
    aw_nlp_render_talk(dv, strlen(dv), 3, names, 5, "ja", &ts, -1, &b);
    CHECK_STR(b.data, "MinatoはKenjiを占って人狼だった");
    aw_buf_clear(&b);
    aw_nlp_render_talk("Skip", 4, 3, names, 5, "en", &ts, -1, &b);
    CHECK_STR(b.data, "Skip");
    aw_buf_clear(&b);
    /* free text: control bytes become spaces, invalid bytes go */
    const char *ft = "hello\n\x1b[2Jworld\xff";
    aw_nlp_render_talk(ft, strlen(ft), 3, names, 5, "en", &ts, -1, &b);
    CHECK_STR(b.data, "hello  [2Jworld");
    aw_buf_clear(&b);
    /* the length rule: 125 characters before a mention, 125 after */
    aw_buf t;
    aw_buf_init(&t);
    for (int i = 0; i < 300; i++)
        aw_buf_adds(&t, "あ");
    aw_buf_adds(&t, "@Kenji ");
    for (int i = 0; i < 300; i++)
        aw_buf_adds(&t, "い");
    aw_nlp_render_talk(t.data, t.len, 3, names, 5, "ja", &ts, -1, &b);
    /* the part before cut to 125, the mention kept, 125 after it */
    CHECK_INT(aw_nlp_count_length(b.data, b.len, false, false), 125 + 6 + 125);
    CHECK(strstr(b.data, "あ@Kenji い") != NULL);
    /* with per_talk 50 as well, the text before is past it: the mention
     * and what follows go (as the server does) */
    aw_nlp_talk_setting p50 = ts;
    p50.per_talk = 50;
    aw_buf_clear(&b);
    aw_nlp_render_talk(t.data, t.len, 3, names, 5, "ja", &p50, -1, &b);
    CHECK_INT(aw_nlp_count_length(b.data, b.len, false, false), 50);
    CHECK(strchr(b.data, '@') == NULL);
    /* remain_length adds to the budget */
    aw_buf_clear(&b);
    aw_nlp_render_talk(t.data, t.len, 3, names, 5, "ja", &ts, 10, &b);
    CHECK_INT(aw_nlp_count_length(b.data, b.len, false, false), 135 + 6 + 135);
    aw_buf_clear(&t);
    aw_buf_clear(&b);
    aw_buf_adds(&t, "ねえ@Kenji ");
    for (int i = 0; i < 300; i++)
        aw_buf_adds(&t, "い");
    aw_nlp_render_talk(t.data, t.len, 3, names, 5, "ja", &ts, -1, &b);
    CHECK_INT(aw_nlp_count_length(b.data, b.len, false, false), 2 + 6 + 125);
    CHECK(!memcmp(b.data, "ねえ@Kenji い", strlen("ねえ@Kenji い")));
    /* per_talk: the talk within it, the mention itself not counted (as the
     * server counts: the text before and after it) */
    aw_nlp_talk_setting pt = ts;
    pt.per_talk = 50;
    aw_buf_clear(&b);
    aw_nlp_render_talk(t.data, t.len, 3, names, 5, "ja", &pt, -1, &b);
    CHECK_INT(aw_nlp_count_length(b.data, b.len, false, false), 50 + 6);
    /* the speaker's own name is no mention */
    aw_buf_clear(&t);
    aw_buf_clear(&b);
    aw_buf_adds(&t, "@Minato ");
    for (int i = 0; i < 200; i++)
        aw_buf_addc(&t, 'x');
    aw_nlp_render_talk(t.data, t.len, 3, names, 5, "en", &ts, -1, &b);
    CHECK_INT(aw_nlp_count_length(b.data, b.len, false, false), 125);
    aw_buf_free(&t);
    aw_buf_free(&b);
}

/* ---- the agent ---- */

static void test_agent(void)
{
    script_seat ss = {.base = {&ss_ops}, .talk = "COMINGOUT Agent[03] SEER", .target = 2};
    aw_nlp_agent a;
    aw_nlp_agent_init(&a, &ss.base);
    a.team = "lua";
    aw_error err;
    aw_buf out;
    aw_buf_init(&out);
    bool has;
    aw_seat_fault f;
    const char *name = "{\"request\":\"NAME\"}";
    CHECK_INT(aw_nlp_agent_take(&a, name, strlen(name), &err), AW_NLP_NAME);
    aw_nlp_agent_answer(&a, &out, &has, &f);
    CHECK(has);
    CHECK_STR(out.data, "lua");
    CHECK_INT(aw_nlp_agent_take(&a, INIT_EN, strlen(INIT_EN), &err), AW_NLP_INITIALIZE);
    aw_buf_clear(&out);
    aw_nlp_agent_answer(&a, &out, &has, &f);
    CHECK(!has && out.len == 0);
    CHECK_INT(ss.last.agent, 3);
    CHECK_INT(ss.last.n, 5);
    CHECK_INT(ss.last.my_role, AW_SEER);
    CHECK_STR(ss.names[2], "Kenji");
    CHECK_INT(a.set.players, 5);
    CHECK_INT(a.set.max_talk, 4);
    CHECK(ss.last.existing_role[AW_SEER] && !ss.last.existing_role[AW_BODYGUARD]);
    CHECK_INT(aw_nlp_agent_take(&a, TALK_EN, strlen(TALK_EN), &err), AW_NLP_TALK);
    aw_nlp_agent_answer(&a, &out, &has, &f);
    CHECK(has);
    CHECK_STR(out.data, "Minato comes out: Minato is a seer");
    CHECK_INT(ss.last.ntalks, 2);
    CHECK_INT(ss.last.talks[0].agent, 2); /* Kenji */
    CHECK_INT(ss.last.talks[1].agent, 4); /* Ryuji */
    CHECK_INT(ss.last.divine_result.target, 2);
    CHECK_INT(ss.last.divine_result.result, AW_WOLF);
    CHECK_INT(ss.last.remain_talk[3], 3);
    CHECK_INT(ss.nlp_remain, 3);
    CHECK(!ss.last.alive[1]);
    /* a vote answers a name */
    const char *vote = "{\"request\":\"VOTE\",\"info\":{\"game_id\":\"01JQ\",\"day\":1,\"agent\":\"Minato\","
                       "\"status_map\":{\"Minato\":\"ALIVE\",\"Takumi\":\"ALIVE\",\"Kenji\":\"ALIVE\","
                       "\"Ryuji\":\"ALIVE\",\"Daisuke\":\"DEAD\"},\"role_map\":{\"Minato\":\"SEER\"}}}";
    CHECK_INT(aw_nlp_agent_take(&a, vote, strlen(vote), &err), AW_NLP_VOTE);
    aw_buf_clear(&out);
    aw_nlp_agent_answer(&a, &out, &has, &f);
    CHECK(has);
    CHECK_STR(out.data, "Kenji");
    CHECK_INT(ss.last.ntalks, 2); /* the day's talks stay */
    /* the night: Kenji executed today shows only as DEAD in status_map; the
     * view says so as latestExecutedAgent (executedAgent stays yesterday's) */
    const char *guard = "{\"request\":\"DIVINE\",\"info\":{\"game_id\":\"01JQ\",\"day\":1,\"agent\":\"Minato\","
                        "\"status_map\":{\"Minato\":\"ALIVE\",\"Takumi\":\"ALIVE\",\"Kenji\":\"DEAD\","
                        "\"Ryuji\":\"ALIVE\",\"Daisuke\":\"DEAD\"},\"role_map\":{\"Minato\":\"SEER\"}}}";
    CHECK_INT(aw_nlp_agent_take(&a, guard, strlen(guard), &err), AW_NLP_DIVINE);
    aw_buf_clear(&out);
    aw_nlp_agent_answer(&a, &out, &has, &f);
    CHECK_INT(ss.last.latest_executed, 2);
    CHECK_INT(ss.last.executed, 0);
    CHECK(!ss.last.alive[2]);
    ss.target = 2;
    /* no target: an empty answer */
    ss.target = 0;
    CHECK_INT(aw_nlp_agent_take(&a, vote, strlen(vote), &err), AW_NLP_VOTE);
    aw_buf_clear(&out);
    aw_nlp_agent_answer(&a, &out, &has, &f);
    CHECK(has && out.len == 0);
    /* an info whose agent is not in status_map is an error */
    const char *bad = "{\"request\":\"VOTE\",\"info\":{\"day\":1,\"agent\":\"Nobody\","
                      "\"status_map\":{\"Minato\":\"ALIVE\"}}}";
    CHECK(aw_nlp_agent_take(&a, bad, strlen(bad), &err) < 0);
    /* an INITIALIZE without info starts a game with no agents: an error,
     * and the next request without info too */
    const char *init_bare = "{\"request\":\"INITIALIZE\"}";
    CHECK(aw_nlp_agent_take(&a, init_bare, strlen(init_bare), &err) < 0);
    const char *vote_bare = "{\"request\":\"VOTE\"}";
    CHECK(aw_nlp_agent_take(&a, vote_bare, strlen(vote_bare), &err) < 0);
    aw_buf_free(&out);
    aw_nlp_agent_free(&a);

    /* a request before any info */
    aw_nlp_agent_init(&a, &ss.base);
    const char *early = "{\"request\":\"TALK\"}";
    CHECK(aw_nlp_agent_take(&a, early, strlen(early), &err) < 0);
    aw_nlp_agent_free(&a);
}

/* The group chat's packets decode and encode back. */
static void test_chat_packets(void)
{
    /* keys sorted, as the encoder writes them */
    static const char msg[] = "{\"new_whisper\":{\"agent\":\"Kenji\",\"day\":1,\"idx\":3,\"over\":false,"
                              "\"skip\":false,\"text\":\"tonight\",\"time\":1767225600123,\"turn\":2},"
                              "\"request\":\"WHISPER_BROADCAST\"}";
    aw_nlp_packet p;
    aw_error err;
    CHECK_INT(aw_nlp_decode(msg, strlen(msg), &p, &err), 0);
    CHECK_INT(p.request, AW_NLP_WHISPER_BROADCAST);
    CHECK(p.has_new && p.new_is_whisper);
    CHECK_STR(p.new_talk.agent, "Kenji");
    CHECK_STR(p.new_talk.text, "tonight");
    CHECK_INT(p.new_talk.idx, 3);
    CHECK(p.new_talk.time == 1767225600123LL);
    CHECK(!aw_nlp_req_wants_reply(p.request));
    aw_buf b;
    aw_buf_init(&b);
    aw_nlp_encode(&p, &b);
    CHECK(b.len == strlen(msg) && !memcmp(b.data, msg, b.len));
    aw_buf_free(&b);
    aw_nlp_packet_free(&p);
    static const char st[] = "{\"request\":\"TALK_PHASE_START\",\"setting\":{\"agent_count\":5,"
                             "\"talk\":{\"duration\":60000},\"whisper\":{}}}";
    CHECK_INT(aw_nlp_decode(st, strlen(st), &p, &err), 0);
    CHECK_INT(p.request, AW_NLP_TALK_PHASE_START);
    CHECK_INT(p.setting.talk.duration, 60000);
    CHECK_INT(p.setting.whisper.duration, -1);
    aw_nlp_packet_free(&p);
}

int main(void)
{
    test_decode();
    test_chat_packets();
    test_hostile();
    test_length();
    test_render();
    test_agent();
    return test_done();
}
