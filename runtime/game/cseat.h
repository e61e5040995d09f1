/* cseat: trivial players written in C — legal random play with no Lua — for
 * measuring the engine's own cost and for engine tests. Uses seat, rng. */
#ifndef AW_CSEAT_H
#define AW_CSEAT_H

#include <stdint.h>

#include "seat.h"

/* A player that votes, divines, guards and attacks a random legal target and
 * talks a random short sentence, Skip or Over. Owned by the caller
 * (seat->ops->free). */
aw_seat *aw_cseat_random(uint64_t seed);

/* An erratic player, to reach the rules that careful players never trigger:
 * about a third of its answers are wrong in some way (no answer, itself, a
 * dead or unknown agent, a fellow werewolf, invalid or empty text, control
 * bytes, a megabyte of text, too many Skips), and it prefers a few favourite
 * targets so that ties and revotes happen. */
aw_seat *aw_cseat_chaos(uint64_t seed);

#endif
