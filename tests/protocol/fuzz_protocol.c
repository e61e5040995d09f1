/* fuzz_protocol: libFuzzer target for the protocol parser (built only with
 * -DAIWOLF_FUZZ=ON and clang). Any input must give a tree or an error in
 * every mode; the invariants checked are those of the deterministic loop in
 * test_protocol_unit.c: strict-valid implies lenient-valid, and a valid
 * text's canonical form parses back to the same tree (the official empty
 * AND/OR, printed "AND ", excepted). Uses protocol. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    aw_error err;
    (void)aw_protocol_validate(text, size, AW_VALIDATE_OFF, &err);
    aw_sentence *lenient = aw_protocol_parse(text, size, AW_VALIDATE_LENIENT, &err);
    aw_sentence *strict = aw_protocol_parse(text, size, AW_VALIDATE_STRICT, &err);
    if (strict && !lenient)
        abort();
    aw_sentence *trees[2] = {strict, lenient};
    for (int i = 0; i < 2; i++) {
        aw_sentence *s = trees[i];
        if (!s)
            continue;
        char *t = aw_protocol_to_string(s);
        size_t tl = strlen(t);
        if (tl && t[tl - 1] != ' ' && !strstr(t, " )")) {
            aw_sentence *p = aw_protocol_parse(t, tl, AW_VALIDATE_STRICT, &err);
            if (!p || !aw_sentence_equal(s, p))
                abort();
            aw_sentence_free(p);
        }
        aw_buf b;
        aw_buf_init(&b);
        aw_protocol_describe(s, 1, i ? "ja" : "en", &b);
        aw_buf_free(&b);
        free(t);
    }
    aw_sentence_free(strict);
    aw_sentence_free(lenient);
    return 0;
}
