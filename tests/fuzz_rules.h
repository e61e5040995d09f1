/* fuzz_rules.h: the rules the log fuzz targets try each input under
 * (tests/logcheck/fuzz_logcheck.c, tests/replay/fuzz_replay.c): the
 * presets aiwolf, seed2015 and regulation at 5 players, the first with a
 * whisper before each attack revote when the input's first byte is odd. */
#ifndef TESTS_FUZZ_RULES_H
#define TESTS_FUZZ_RULES_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "settings.h"

#define FUZZ_NRULES 3

/* Fills *s with rule set i (0 .. FUZZ_NRULES-1) for the input data[0..size);
 * aborts if a preset cannot be made. */
static inline void fuzz_rules(int i, const uint8_t *data, size_t size, aw_settings *s)
{
    static const char *const presets[FUZZ_NRULES] = {"aiwolf", "seed2015", "regulation"};
    aw_error err;
    if (aw_settings_preset(s, presets[i], 5, &err) != 0)
        abort();
    if (i == 0 && size > 0 && (data[0] & 1))
        (void)aw_settings_set(s, "whisper_before_revote=true", &err);
}

#endif
