/* fuzz_replay: libFuzzer target for the log replay (built only with
 * -DAIWOLF_FUZZ=ON and clang). Any input, under each preset, must give one of
 * the three verdicts with a consistent report (a line and a reason where it
 * is not reproduced), and replaying twice gives the same report. Uses
 * logreplay and settings. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "logreplay.h"
#include "fuzz_rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    for (int i = 0; i < FUZZ_NRULES; i++) {
        aw_settings s;
        aw_error err;
        fuzz_rules(i, data, size, &s);
        aw_replay_report a, b;
        int v = aw_replay(text, size, &s, NULL, &a, &err);
        if (v < AW_REPLAY_REPRODUCED || v > AW_REPLAY_UNUSABLE || v != (int)a.verdict)
            abort();
        if (v == AW_REPLAY_UNUSABLE && (a.error_line < 1 || !a.error[0]))
            abort();
        if (v == AW_REPLAY_DIFFERS && a.diff_line < 1 && !a.problem[0])
            abort();
        if (v == AW_REPLAY_REPRODUCED && (a.ours_lines != a.lines || a.diff_line || a.problem[0]))
            abort();
        if (aw_replay(text, size, &s, NULL, &b, &err) != v || memcmp(&a, &b, sizeof a) != 0)
            abort();
    }
    return 0;
}
