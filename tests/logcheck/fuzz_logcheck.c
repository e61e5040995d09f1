/* fuzz_logcheck: libFuzzer target for the game-log checker (built only with
 * -DAIWOLF_FUZZ=ON and clang). Any input, under each preset, must give one of
 * the three verdicts; a log that is not legal names a line and a reason, a
 * legal one names its players and winner; and checking twice gives the same
 * report. Uses logcheck and settings. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "logcheck.h"
#include "fuzz_rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    for (int i = 0; i < FUZZ_NRULES; i++) {
        aw_settings s;
        aw_error err;
        fuzz_rules(i, data, size, &s);
        aw_logcheck_report a, b;
        int v = aw_logcheck(text, size, &s, NULL, &a, &err);
        if (v < AW_LOG_LEGAL || v > AW_LOG_INCOMPLETE || v != (int)a.verdict)
            abort();
        if (v != AW_LOG_LEGAL && (a.line < 1 || !a.reason[0]))
            abort();
        if (v == AW_LOG_LEGAL && (a.players < 1 || a.winner == AW_TEAM_NONE))
            abort();
        if (aw_logcheck(text, size, &s, NULL, &b, &err) != v || memcmp(&a, &b, sizeof a) != 0)
            abort();
    }
    return 0;
}
