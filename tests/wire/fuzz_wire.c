/* fuzz_wire: libFuzzer target for the wire module (built only with
 * -DAIWOLF_FUZZ=ON and clang). Every input, taken as a packet line, must
 * decode or fail cleanly; what decodes must encode, and encoding what was
 * decoded must decode again to a packet that encodes to the same bytes. A
 * client fed the packet, then a delta, must not fail on well-formed input.
 * The same bytes as replies (target, role, text) and through the line
 * reader, cut at every newline. Uses wire. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *line = (const char *)data;
    aw_error err;
    aw_wire_packet p;
    if (aw_wire_decode(line, size, &p, &err) == 0) {
        aw_buf a, b;
        aw_buf_init(&a);
        aw_buf_init(&b);
        if (aw_wire_encode_packet(&p, &a, &err) < 0)
            abort();
        aw_wire_packet q;
        if (aw_wire_decode(a.data, a.len, &q, &err) < 0)
            abort();
        if (aw_wire_encode_packet(&q, &b, &err) < 0 || a.len != b.len || memcmp(a.data, b.data, a.len) != 0)
            abort();
        aw_wire_packet_free(&q);
        aw_wire_client c;
        aw_wire_client_init(&c);
        int applied = aw_wire_client_apply(&c, &p, &err);
        if (p.has_info && applied < 0)
            abort();
        aw_wire_client_free(&c);
        aw_buf_free(&a);
        aw_buf_free(&b);
    }
    aw_wire_packet_free(&p);

    int target;
    aw_role role;
    const char *text;
    size_t tl;
    (void)aw_wire_reply_target(line, size, &target, &err);
    (void)aw_wire_reply_role(line, size, &role, &err);
    aw_wire_reply_text(line, size, &text, &tl);

    aw_wire_reader r;
    aw_wire_reader_init(&r, 64);
    for (size_t off = 0; off < size; off += 7) {
        aw_wire_reader_feed(&r, data + off, size - off < 7 ? size - off : 7);
        const char *l;
        size_t n;
        int rc;
        while ((rc = aw_wire_reader_next(&r, &l, &n)) == 1)
            if (n > 64 || memchr(l, '\n', n))
                abort();
        if (rc < 0)
            break;
    }
    aw_wire_reader_free(&r);
    return 0;
}
