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

#endif
