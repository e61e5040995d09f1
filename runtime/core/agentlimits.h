/* agentlimits: what an agent may spend and reach, as one value that a command
 * fills from its options (cli/options.h's limits group) and that goes down
 * whole: in aw_agent_opts to aw_agent_new (agent.h), which hands it on
 * unchanged to the in-process Lua seat (aw_luaseat_opts.limits) and to the
 * child seat around one (aw_childseat_opts.limits), and in a contest's
 * configuration (contestcfg.h) to its workers and reports. Each layer reads
 * the fields it acts on and says which.
 *
 * Uses nothing. No ownership: read_dir is borrowed. */
#ifndef AW_AGENTLIMITS_H
#define AW_AGENTLIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Zero everywhere is the defaults. */
typedef struct aw_limits {
    int budget_ms;        /* per call (ms); 0: the defaults (luaseat.h and childseat.h say which) */
    size_t memory_bytes;  /* the agent's memory cap; 0: 64 MiB */
    uint64_t work_budget; /* work units per call (docs/sandbox.md); 0: time only */
    bool isolate;         /* play in a confined child process (childseat.h) rather than in this one */
    const char *read_dir; /* isolated: the folder the agent may read (its modules; Landlock); NULL: the
                             folder of its file. In process the agent's modules come from its file's
                             folder (luaseat.h) and this is not used. */
} aw_limits;

/* The memory cap in whole MiB, as people and contest.cfg give it: read
 * (rounded down) and set (mib <= 0: 0, the default). */
static inline int aw_limits_memory_mib(const aw_limits *l)
{
    return (int)(l->memory_bytes >> 20);
}
static inline void aw_limits_set_memory_mib(aw_limits *l, long mib)
{
    l->memory_bytes = mib > 0 ? (size_t)mib << 20 : 0;
}

#endif
