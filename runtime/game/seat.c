/* seat: names of the seat interface's values (see seat.h). Uses nothing
 * else, so that the driver (game.c) and the log writer (gamelog.c) both
 * depend on it and not on each other. */
#include "seat.h"

const char *aw_seat_fault_name(aw_seat_fault_kind k)
{
    switch (k) {
    case AW_SEAT_OK:
        return "ok";
    case AW_SEAT_ERROR:
        return "error";
    case AW_SEAT_TIMEOUT:
        return "timeout";
    case AW_SEAT_MEMORY:
        return "memory";
    case AW_SEAT_REPLY:
        return "reply";
    case AW_SEAT_LOST:
        return "lost";
    }
    return "?";
}
