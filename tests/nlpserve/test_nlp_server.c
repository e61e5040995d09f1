/* test_nlp_server: the host side of the NLP protocol without a socket
 * (nlp_server.h): NAME, a TALK packet with names and only the unseen
 * history, setting at INITIALIZE only, answers read back (names and
 * Agent[NN] as targets, ForceSkip, line breaks dropped), a late answer
 * dropped and an unasked one refused, and game ids that are ULIDs. */
#include <jansson.h>
#include <stdlib.h>

#include "nlp_server.h"
#include "nlprules.h"
#include "test.h"

static json_t *parse(const aw_buf *b)
{
    json_error_t e;
    json_t *j = json_loadb(b->data, b->len, 0, &e);
    CHECK_MSG(j != NULL, "not JSON: %.*s", (int)b->len, b->data);
    return j;
}

static const char *str(json_t *o, const char *path1, const char *path2)
{
    json_t *v = json_object_get(o, path1);
    if (path2)
        v = json_object_get(v, path2);
    return json_is_string(v) ? json_string_value(v) : "";
}

int main(void)
{
    aw_settings set;
    aw_error err;
    CHECK_INT(aw_settings_preset(&set, "nlp5-en", 5, &err), 0);
    aw_nlp_srv c;
    aw_nlp_srv_init(&c);
    aw_seat_fault f = {AW_FAULT_NONE, ""};
    aw_seat_reply r;
    aw_buf b;
    aw_buf_init(&b);

    /* NAME, its answer trimmed */
    CHECK_INT(aw_nlp_srv_send(&c, AW_WIRE_REQ_NAME, NULL, NULL, &b, &f), 0);
    CHECK(b.len == strlen("{\"request\":\"NAME\"}") && memcmp(b.data, "{\"request\":\"NAME\"}", b.len) == 0);
    CHECK_INT(aw_nlp_srv_feed(&c, " kanolab\n", 9, &f), 1);
    CHECK_INT(aw_nlp_srv_reply(&c, AW_WIRE_REQ_NAME, &r, &f), 0);
    CHECK(r.text && r.len == 7 && memcmp(r.text, "kanolab", 7) == 0);
    /* a message nobody asked for */
    CHECK_INT(aw_nlp_srv_feed(&c, "more", 4, &f), -1);
    CHECK_INT(f.kind, AW_FAULT_REPLY);

    char gid[27];
    aw_nlp_game_id(1700000000123ull, 0xABCDull, 0x0123456789ABCDEFull, gid);
    CHECK_INT(strlen(gid), 26);
    CHECK(gid[0] <= '7');
    /* decode back: 48 bits of ms, 16 + 64 random */
    static const char digits[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    unsigned __int128 v = 0;
    for (int i = 0; i < 26; i++)
        v = v << 5 | (unsigned)(strchr(digits, gid[i]) - digits);
    CHECK((uint64_t)(v >> 80) == 1700000000123ull);
    CHECK((uint64_t)((v >> 64) & 0xFFFF) == 0xABCDull);
    CHECK((uint64_t)v == 0x0123456789ABCDEFull);
    aw_nlp_srv_reset(&c, gid);

    /* a TALK view: agent 2 (Takumi), three talks today */
    aw_info info;
    memset(&info, 0, sizeof info);
    info.agent = 2;
    info.day = 1;
    info.n = 5;
    info.my_role = AW_SEER;
    for (int a = 1; a <= 5; a++) {
        info.role[a] = AW_ROLE_NONE;
        info.alive[a] = a != 4;
        info.remain_talk[a] = 3;
        info.remain_whisper[a] = -1;
    }
    info.role[2] = AW_SEER;
    aw_talk talks[3] = {{1, 0, 0, 1, "hello @Takumi", 13, NULL},
                        {1, 1, 0, 3, "Over", 4, NULL},
                        {1, 2, 1, 5, "Skip", 4, NULL}};
    info.talks = talks;
    info.ntalks = 2;
    info.divine_result = (aw_judge){1, 2, 4, AW_WOLF};
    b.len = 0;
    CHECK_INT(aw_nlp_srv_send(&c, AW_REQ_DAILY_INITIALIZE, &info, &set, &b, &f), 0);
    json_t *p = parse(&b);
    CHECK(json_object_get(p, "setting") != NULL);
    CHECK_STR(str(p, "info", "game_id"), gid);
    CHECK_INT(json_integer_value(json_object_get(json_object_get(json_object_get(p, "setting"), "talk"), "max_skip")),
              0);
    json_decref(p);
    b.len = 0;
    CHECK_INT(aw_nlp_srv_send(&c, AW_REQ_TALK, &info, &set, &b, &f), 0);
    p = parse(&b);
    CHECK_STR(str(p, "request", NULL), "TALK");
    CHECK(json_object_get(p, "setting") == NULL);
    CHECK_STR(str(p, "info", "agent"), "Takumi");
    CHECK_STR(str(json_object_get(p, "info"), "divine_result", "target"), "Ryuji");
    CHECK_STR(str(json_object_get(p, "info"), "divine_result", "result"), "WEREWOLF");
    CHECK_STR(str(json_object_get(p, "info"), "status_map", "Ryuji"), "DEAD");
    CHECK_STR(str(json_object_get(p, "info"), "role_map", "Takumi"), "SEER");
    CHECK_INT(json_object_size(json_object_get(json_object_get(p, "info"), "role_map")), 1);
    CHECK_INT(json_integer_value(json_object_get(json_object_get(p, "info"), "remain_count")), 3);
    json_t *h = json_object_get(p, "talk_history");
    CHECK_INT(json_array_size(h), 2);
    CHECK_STR(str(json_array_get(h, 0), "agent", NULL), "Minato");
    CHECK_STR(str(json_array_get(h, 0), "text", NULL), "hello @Takumi");
    CHECK(json_is_true(json_object_get(json_array_get(h, 1), "over")));
    json_decref(p);
    /* free text back, line breaks dropped, tabs a space */
    CHECK_INT(aw_nlp_srv_feed(&c, "I see\r\nyou\tall", 14, &f), 1);
    CHECK_INT(aw_nlp_srv_reply(&c, AW_REQ_TALK, &r, &f), 0);
    CHECK(r.text && r.len == 12 && memcmp(r.text, "I seeyou all", 12) == 0);
    /* the next TALK: only the new talk */
    info.ntalks = 3;
    b.len = 0;
    CHECK_INT(aw_nlp_srv_send(&c, AW_REQ_TALK, &info, &set, &b, &f), 0);
    p = parse(&b);
    h = json_object_get(p, "talk_history");
    CHECK_INT(json_array_size(h), 1);
    CHECK_STR(str(json_array_get(h, 0), "agent", NULL), "Daisuke");
    CHECK(json_is_true(json_object_get(json_array_get(h, 0), "skip")));
    json_decref(p);
    CHECK_INT(aw_nlp_srv_feed(&c, "ForceSkip", 9, &f), 1);
    CHECK_INT(aw_nlp_srv_reply(&c, AW_REQ_TALK, &r, &f), 0);
    CHECK(r.text && r.len == 4 && memcmp(r.text, "Skip", 4) == 0);

    /* targets: a name, Agent[NN], nobody's name */
    const char *answers[] = {"Kenji", " Agent[05] ", "Shion", "kenji"};
    int want[] = {3, 5, -1, -1};
    for (int i = 0; i < 4; i++) {
        b.len = 0;
        CHECK_INT(aw_nlp_srv_send(&c, AW_REQ_VOTE, &info, &set, &b, &f), 0);
        CHECK_INT(aw_nlp_srv_feed(&c, answers[i], strlen(answers[i]), &f), 1);
        int rc = aw_nlp_srv_reply(&c, AW_REQ_VOTE, &r, &f);
        if (want[i] < 0) {
            CHECK_INT(rc, -1);
            CHECK_INT(f.kind, AW_FAULT_REPLY);
        } else {
            CHECK_INT(rc, 0);
            CHECK_INT(r.target, want[i]);
        }
    }
    /* an answer past its deadline is dropped when it comes, not taken for the next */
    b.len = 0;
    CHECK_INT(aw_nlp_srv_send(&c, AW_REQ_VOTE, &info, &set, &b, &f), 0);
    aw_nlp_srv_expire(&c);
    b.len = 0;
    CHECK_INT(aw_nlp_srv_send(&c, AW_REQ_DIVINE, &info, &set, &b, &f), 0);
    CHECK_INT(aw_nlp_srv_feed(&c, "Minato", 6, &f), 0); /* the late vote */
    CHECK_INT(aw_nlp_srv_feed(&c, "Mei", 3, &f), 1);
    CHECK_INT(aw_nlp_srv_reply(&c, AW_REQ_DIVINE, &r, &f), -1); /* May, not Mei */

    /* a protocol sentence (a Lua seat's talk) reaches an NLP agent rendered
     * in the game's language with the characters' names, and cut to the
     * length rule; free text, Skip and Over as they are */
    aw_talk said[4] = {{1, 0, 0, 1, "VOTE Agent[02]", 14, NULL},
                       {1, 1, 0, 3, "vote Agent[02] please", 21, NULL},
                       {1, 2, 0, 5, "Skip", 4, NULL},
                       {1, 3, 0, 4, "BECAUSE (DIVINED Agent[03] WEREWOLF) (REQUEST ANY (VOTE Agent[03]))", 68, NULL}};
    info.talks = said;
    info.ntalks = 4;
    const char *langs[] = {"nlp5-en", "nlp5"};
    const char *first[] = {"Minato will vote for Takumi", "ミナトはタクミに投票する"};
    for (int l = 0; l < 2; l++) {
        aw_settings ls;
        CHECK_INT(aw_settings_preset(&ls, langs[l], 5, &err), 0);
        ls.talk_length = 23; /* the rendering is cut as any talk is */
        aw_nlp_srv_reset(&c, gid);
        b.len = 0;
        CHECK_INT(aw_nlp_srv_send(&c, AW_REQ_TALK, &info, &ls, &b, &f), 0);
        p = parse(&b);
        h = json_object_get(p, "talk_history");
        CHECK_INT(json_array_size(h), 4);
        CHECK_STR(str(json_array_get(h, 0), "text", NULL), first[l]);
        CHECK_STR(str(json_array_get(h, 1), "text", NULL), "vote Agent[02] please");
        CHECK_STR(str(json_array_get(h, 2), "text", NULL), "Skip");
        const char *because = str(json_array_get(h, 3), "text", NULL);
        CHECK_MSG(strstr(because, "Agent[") == NULL && strstr(because, "BECAUSE") == NULL, "not rendered: %s",
                  because);
        CHECK_INT(aw_nlp_count_length(because, strlen(because), false, false), 23);
        json_decref(p);
        CHECK_INT(aw_nlp_srv_feed(&c, "Skip", 4, &f), 1);
        CHECK_INT(aw_nlp_srv_reply(&c, AW_REQ_TALK, &r, &f), 0);
    }

    aw_buf_free(&b);
    aw_nlp_srv_free(&c);
    return test_done();
}
