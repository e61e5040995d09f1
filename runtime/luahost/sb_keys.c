/* sb_keys: the registry keys the parts of the sandbox share. Part of the
 * sandbox (sandbox.h is the contract; sandbox_internal.h what the parts
 * share). */
#include "sandbox_internal.h"

/* Registry keys (their addresses are unique). */
const char sb_key_timeout_msg = 0; /* prebuilt string raised on time-out */
const char sb_key_preload = 0;     /* host-registered loaders, agent-invisible */
const char sb_key_template = 0;    /* the globals sb_setup made: copied for each game, never run against */
const char sb_key_regkeys = 0;     /* the registry's non-integer keys once the sandbox was made */
const char sb_key_chunks = 0;      /* main chunks loaded before: run again in later games */
const char sb_key_shared = 0;      /* shared instances of stateless modules: copied for each game */
