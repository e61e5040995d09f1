/* fuzz_nlp: libFuzzer target for the NLP division's untrusted text (built
 * only with -DAIWOLF_FUZZ=ON and clang). The first two bytes pick the
 * limits, the names (English or Japanese) and the speaker; the rest is a
 * talk. The length rule must keep a prefix-shaped text no longer than the
 * talk, and cutting what it kept must give it back unchanged. The same
 * bytes as an agent's answer to each request kind (nlp_server.c): the text
 * kept has no line break, a target is an agent of the game or a fault.
 * Uses nlprules, nlp_server. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nlp_server.h"
#include "nlprules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    static aw_settings en, ja;
    static bool ready;
    if (!ready) {
        aw_error err;
        if (aw_settings_preset(&en, "nlp5-en", 5, &err) < 0 || aw_settings_preset(&ja, "nlp5", 5, &err) < 0)
            abort();
        ready = true;
    }
    aw_settings s = data[0] & 1 ? ja : en;
    s.talk_length = (data[0] >> 1) & 7;
    s.mention_length = (data[0] >> 4) & 7;
    int n = 5, speaker = data[1] % (n + 1);
    const char *text = (const char *)data + 2;
    size_t len = size - 2;

    aw_buf a, b;
    aw_buf_init(&a);
    aw_buf_init(&b);
    bool cut = aw_nlp_cut(&s, n, speaker, text, len, &a);
    if (a.len > len || (!cut && (a.len != len || memcmp(a.data ? a.data : "", text, len) != 0)))
        abort();
    if (aw_nlp_cut(&s, n, speaker, a.data ? a.data : "", a.len, &b) || b.len != a.len ||
        memcmp(a.data ? a.data : "", b.data ? b.data : "", a.len) != 0)
        abort();
    aw_buf_free(&a);
    aw_buf_free(&b);

    static const int kinds[] = {AW_WIRE_REQ_NAME, AW_REQ_TALK, AW_REQ_WHISPER, AW_REQ_VOTE,
                                AW_REQ_DIVINE,    AW_REQ_GUARD, AW_REQ_ATTACK};
    int kind = kinds[data[1] % (sizeof kinds / sizeof *kinds)];
    aw_nlp_srv c;
    aw_nlp_srv_init(&c);
    c.set = &s;
    c.n = n;
    c.awaiting = kind;
    aw_seat_fault f = {AW_FAULT_NONE, ""};
    if (aw_nlp_srv_feed(&c, text, len, &f) != 1)
        abort();
    aw_seat_reply r;
    int rc = aw_nlp_srv_reply(&c, kind, &r, &f);
    if (rc == 0 && r.text && (memchr(r.text, '\n', r.len) || memchr(r.text, '\r', r.len)))
        abort();
    if (rc == 0 && r.target != AW_NO_AGENT && (r.target < 1 || r.target > n))
        abort();
    if (rc < 0 && (f.kind != AW_FAULT_REPLY || memchr(f.msg, '\x1b', sizeof f.msg)))
        abort();
    aw_nlp_srv_free(&c);
    return 0;
}
