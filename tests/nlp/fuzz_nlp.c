/* fuzz_nlp: libFuzzer target for the NLP division's packets (built only
 * with -DAIWOLF_FUZZ=ON and clang). Every input, taken as one message from a
 * server, must decode or fail cleanly; what decodes must encode, and
 * encoding what was decoded must decode again and encode to the same bytes.
 * An agent (nlpagent.c, a C seat inside) that has seen a game's INITIALIZE
 * takes the input and answers it: its answer is valid UTF-8 with no control
 * byte. The same bytes as talk text through the length rule: a cut is a
 * prefix that ends between characters. Uses nlp, nlpagent. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nlp.h"
#include "nlpagent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *INIT =
    "{\"request\":\"INITIALIZE\",\"info\":{\"game_id\":\"g\",\"day\":0,\"agent\":\"Minato\",\"profile\":\"p\","
    "\"status_map\":{\"Daisuke\":\"ALIVE\",\"Kenji\":\"ALIVE\",\"Minato\":\"ALIVE\",\"Ryuji\":\"ALIVE\","
    "\"Takumi\":\"ALIVE\"},\"role_map\":{\"Minato\":\"SEER\"}},\"setting\":{\"agent_count\":5,"
    "\"role_num_map\":{\"POSSESSED\":1,\"SEER\":1,\"VILLAGER\":2,\"WEREWOLF\":1},\"talk\":{\"max_count\":"
    "{\"per_agent\":4,\"per_day\":20},\"max_length\":{\"count_in_word\":false,\"count_spaces\":false,"
    "\"mention_length\":20,\"base_length\":20,\"per_talk\":30},\"max_skip\":0}}}";

static int turn;

static const char *f_begin(aw_seat *s, int agent, uint64_t seed, aw_seat_fault *f)
{
    (void)s, (void)agent, (void)seed, (void)f;
    return "fuzz";
}

static int f_request(aw_seat *s, aw_req_kind kind, const aw_info *info, const aw_settings *set, aw_seat_reply *r,
                     aw_seat_fault *f)
{
    (void)s, (void)info, (void)set, (void)f;
    static const char *texts[] = {"COMINGOUT Agent[03] SEER", "@Kenji \x1b[2J\xff hello world hello world hello", "Skip",
                                  "REQUEST ANY (VOTE Agent[02])"};
    turn++;
    r->text = texts[turn % 4];
    r->len = strlen(r->text);
    r->target = turn % 7;
    (void)kind;
    return 0;
}

static void f_free(aw_seat *s)
{
    (void)s;
}

static const aw_seat_ops f_ops = {.begin = f_begin, .request = f_request, .free = f_free};

static void check_line(const aw_buf *b)
{
    for (size_t i = 0; i < b->len;) {
        size_t n = aw_utf8_char_len(b->data + i, b->len - i);
        if (n == 0 || (n == 1 && ((unsigned char)b->data[i] < 0x20 || b->data[i] == 0x7f)))
            abort();
        i += n;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *msg = (const char *)data;
    aw_error err;
    aw_nlp_packet p;
    if (aw_nlp_decode(msg, size, &p, &err) == 0) {
        aw_buf a, b;
        aw_buf_init(&a);
        aw_buf_init(&b);
        aw_nlp_encode(&p, &a);
        aw_nlp_packet q;
        if (aw_nlp_decode(a.data, a.len, &q, &err) < 0)
            abort();
        aw_nlp_encode(&q, &b);
        if (a.len != b.len || memcmp(a.data, b.data, a.len) != 0)
            abort();
        aw_nlp_packet_free(&q);
        aw_buf_free(&a);
        aw_buf_free(&b);
    }
    aw_nlp_packet_free(&p);

    aw_seat seat = {&f_ops};
    aw_nlp_agent ag;
    aw_nlp_agent_init(&ag, &seat);
    aw_buf out;
    aw_buf_init(&out);
    bool has;
    aw_seat_fault f;
    if (aw_nlp_agent_take(&ag, INIT, strlen(INIT), &err) != AW_NLP_INITIALIZE)
        abort();
    aw_nlp_agent_answer(&ag, &out, &has, &f);
    if (aw_nlp_agent_take(&ag, msg, size, &err) >= 0) {
        for (int i = 0; i < 4; i++) {
            aw_buf_clear(&out);
            aw_nlp_agent_answer(&ag, &out, &has, &f);
            check_line(&out);
        }
    }
    aw_buf_free(&out);
    aw_nlp_agent_free(&ag);

    for (int max = 0; max < 8; max++) {
        size_t k = aw_nlp_trim_length(msg, size, max, max & 1, max & 2);
        if (k > size || aw_nlp_count_length(msg, k, max & 1, max & 2) > max)
            abort();
    }
    return 0;
}
