/* test_nlp_chat: serve --nlp's group chat (aiwolf-nlp-common 0.7.0) and
 * profiles, without a socket (nlp_server.h): INITIALIZE carries the
 * character's profile and setting.talk.duration; a turn is
 * TALK_PHASE_START and the talks not yet heard as TALK_BROADCAST (several
 * messages, a NUL apart); talks sent ahead of the turn wait, blank ones are
 * ignored, Over ends the phase's talking; the next request sends what is
 * left and TALK_PHASE_END, drops what waits, and a late talk is not taken
 * for a vote; a new day ends the leniency. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "nlp_server.h"
#include "nlprules.h"
#include "test.h"

/* The messages of b (a NUL apart), parsed into ps; their count. */
static int split(const aw_buf *b, json_t **ps, int max)
{
    int n = 0;
    const char *m = b->data, *end = b->data + b->len;
    while (m < end && n < max) {
        const char *nul = memchr(m, '\0', (size_t)(end - m));
        size_t len = (size_t)((nul ? nul : end) - m);
        json_error_t e;
        ps[n] = json_loadb(m, len, 0, &e);
        CHECK_MSG(ps[n] != NULL, "not JSON: %.*s", (int)len, m);
        n++;
        m = nul ? nul + 1 : end;
    }
    return n;
}

static const char *req(json_t *p)
{
    return json_string_value(json_object_get(p, "request"));
}

static void drop(json_t **ps, int n)
{
    for (int i = 0; i < n; i++)
        json_decref(ps[i]);
}

int main(void)
{
    aw_settings set;
    aw_error err;
    CHECK_INT(aw_settings_preset(&set, "nlp5-en", 5, &err), 0);
    CHECK_INT(aw_settings_set(&set, "talk_duration=60000", &err), 0);
    aw_nlp_srv c;
    aw_nlp_srv_init(&c);
    aw_nlp_srv_reset(&c, "01ARZ3NDEKTSV4RRFFQ69G5FAV");
    aw_seat_fault f = {AW_FAULT_NONE, ""};
    aw_seat_reply r;
    aw_buf b;
    aw_buf_init(&b);
    json_t *ps[8];

    aw_info info;
    memset(&info, 0, sizeof info);
    info.agent = 2;
    info.day = 1;
    info.n = 5;
    info.my_role = AW_VILLAGER;
    for (int a = 1; a <= 5; a++) {
        info.role[a] = AW_ROLE_NONE;
        info.alive[a] = true;
        info.remain_talk[a] = 3;
        info.remain_whisper[a] = -1;
    }
    info.role[2] = AW_VILLAGER;
    aw_talk talks[3] = {{1, 0, 0, 1, "hello @Takumi", 13, NULL},
                        {1, 1, 0, 3, "I am a villager", 15, NULL},
                        {1, 2, 0, 2, "first", 5, NULL}};
    info.talks = talks;
    info.ntalks = 2;

    /* INITIALIZE: the profile (ours for agent 2, Takumi) and the duration */
    CHECK_INT(aw_nlp_srv_send(&c, AW_REQ_INITIALIZE, &info, &set, &b, &f), 0);
    CHECK_INT(split(&b, ps, 8), 1);
    json_t *in = json_object_get(ps[0], "info");
    CHECK_STR(json_string_value(json_object_get(in, "profile")), aw_nlp_profile(&set, 2));
    CHECK(strstr(aw_nlp_profile(&set, 2), "carpenter") != NULL);
    json_t *talk = json_object_get(json_object_get(ps[0], "setting"), "talk");
    CHECK_INT(json_integer_value(json_object_get(talk, "duration")), 60000);
    drop(ps, 1);
    b.len = 0;
    CHECK_INT(aw_nlp_srv_send(&c, AW_REQ_DAILY_INITIALIZE, &info, &set, &b, &f), 0);
    CHECK_INT(split(&b, ps, 8), 1);
    CHECK(json_object_get(json_object_get(ps[0], "info"), "profile") == NULL);
    drop(ps, 1);

    /* the first turn: the phase starts, the two talks so far are heard */
    b.len = 0;
    CHECK_INT(aw_nlp_srv_send(&c, AW_REQ_TALK, &info, &set, &b, &f), 0);
    CHECK_INT(split(&b, ps, 8), 3);
    CHECK_STR(req(ps[0]), "TALK_PHASE_START");
    CHECK_INT(json_integer_value(json_object_get(json_object_get(ps[0], "info"), "remain_count")), 3);
    CHECK_STR(req(ps[1]), "TALK_BROADCAST");
    CHECK_STR(req(ps[2]), "TALK_BROADCAST");
    json_t *nt = json_object_get(ps[2], "new_talk");
    CHECK_STR(json_string_value(json_object_get(nt, "agent")), "Kenji");
    CHECK_INT(json_integer_value(json_object_get(nt, "idx")), 1);
    CHECK(json_is_integer(json_object_get(nt, "time")));
    drop(ps, 3);
    CHECK(!aw_nlp_srv_ready(&c));
    CHECK_INT(aw_nlp_srv_feed(&c, "first\n", 6, &f), 1);
    CHECK_INT(aw_nlp_srv_reply(&c, AW_REQ_TALK, &r, &f), 0);
    CHECK(r.len == 5 && !memcmp(r.text, "first", 5));
    /* ahead of its turns: two talks wait, a blank one is nothing */
    CHECK_INT(aw_nlp_srv_feed(&c, "second", 6, &f), 0);
    CHECK_INT(aw_nlp_srv_feed(&c, " \t\n", 3, &f), 0);
    CHECK_INT(aw_nlp_srv_feed(&c, "Over", 4, &f), 0);

    /* the next turn: its own talk comes back; the answer is there */
    info.ntalks = 3;
    b.len = 0;
    CHECK_INT(aw_nlp_srv_send(&c, AW_REQ_TALK, &info, &set, &b, &f), 0);
    CHECK_INT(split(&b, ps, 8), 1);
    CHECK_STR(req(ps[0]), "TALK_BROADCAST");
    CHECK_STR(json_string_value(json_object_get(json_object_get(ps[0], "new_talk"), "text")), "first");
    drop(ps, 1);
    CHECK(aw_nlp_srv_ready(&c));
    CHECK_INT(aw_nlp_srv_reply(&c, AW_REQ_TALK, &r, &f), 0);
    CHECK(r.len == 6 && !memcmp(r.text, "second", 6));
    b.len = 0;
    CHECK_INT(aw_nlp_srv_send(&c, AW_REQ_TALK, &info, &set, &b, &f), 0);
    CHECK_INT(b.len, 0); /* nothing new to hear */
    CHECK(aw_nlp_srv_ready(&c));
    CHECK_INT(aw_nlp_srv_reply(&c, AW_REQ_TALK, &r, &f), 0);
    CHECK(r.len == 4 && !memcmp(r.text, "Over", 4));
    /* after Over its turns are Over, whatever it sends */
    CHECK_INT(aw_nlp_srv_feed(&c, "one more", 8, &f), 0);
    b.len = 0;
    CHECK_INT(aw_nlp_srv_send(&c, AW_REQ_TALK, &info, &set, &b, &f), 0);
    CHECK(aw_nlp_srv_ready(&c));
    CHECK_INT(aw_nlp_srv_reply(&c, AW_REQ_TALK, &r, &f), 0);
    CHECK(r.len == 4 && !memcmp(r.text, "Over", 4));

    /* the vote ends the phase; what waited ("one more") is dropped */
    talks[2] = (aw_talk){1, 2, 1, 4, "bye", 3, NULL};
    b.len = 0;
    CHECK_INT(aw_nlp_srv_send(&c, AW_REQ_VOTE, &info, &set, &b, &f), 0);
    CHECK_INT(split(&b, ps, 8), 2);
    CHECK_STR(req(ps[0]), "TALK_PHASE_END");
    CHECK_STR(req(ps[1]), "VOTE");
    drop(ps, 2);
    CHECK(!aw_nlp_srv_ready(&c));
    /* a talk of the phase that comes late is not the vote */
    CHECK_INT(aw_nlp_srv_feed(&c, "late talk", 9, &f), 0);
    CHECK_INT(aw_nlp_srv_feed(&c, "Kenji", 5, &f), 1);
    CHECK_INT(aw_nlp_srv_reply(&c, AW_REQ_VOTE, &r, &f), 0);
    CHECK_INT(r.target, 3);
    CHECK_INT(aw_nlp_srv_feed(&c, "later still", 11, &f), 0);
    /* a new day: an unasked message is a fault again */
    b.len = 0;
    info.day = 2;
    CHECK_INT(aw_nlp_srv_send(&c, AW_REQ_DAILY_INITIALIZE, &info, &set, &b, &f), 0);
    CHECK_INT(aw_nlp_srv_feed(&c, "stray", 5, &f), -1);
    CHECK_INT(f.kind, AW_FAULT_REPLY);

    /* turn by turn (talk_duration 0): one TALK message, as before */
    set.talk_duration = 0;
    aw_nlp_srv_reset(&c, "01ARZ3NDEKTSV4RRFFQ69G5FAV");
    b.len = 0;
    CHECK_INT(aw_nlp_srv_send(&c, AW_REQ_TALK, &info, &set, &b, &f), 0);
    CHECK_INT(split(&b, ps, 8), 1);
    CHECK_STR(req(ps[0]), "TALK");
    CHECK(json_object_get(json_array_get(json_object_get(ps[0], "talk_history"), 0), "idx") != NULL);
    CHECK(json_object_get(json_array_get(json_object_get(ps[0], "talk_history"), 0), "time") == NULL);
    drop(ps, 1);

    aw_buf_free(&b);
    aw_nlp_srv_free(&c);
    return test_done();
}
