/* profile: where an agent's Lua runs, sampled by the sandbox's count hook
 * (aw_sandbox_limits.profile, sb_profile.c; `aiwolf play --profile`): VM
 * instructions per Lua function, in host memory only. It counts only the
 * instructions of Lua functions: time in C functions (the libraries, the
 * host's `info`) is not in it. No Lua types here: the CLI reads profiles. */
#ifndef AW_PROFILE_H
#define AW_PROFILE_H

#include <stdint.h>

typedef struct aw_profile aw_profile;
typedef void (*aw_profile_fn)(void *ud, const char *where, const char *name, uint64_t instructions);

aw_profile *aw_profile_new(void);
void aw_profile_free(aw_profile *p);
/* Adds count instructions to the function defined at where ("file:line");
 * name (may be NULL) is kept if the function has none yet. At most 4096
 * functions are told apart; the rest count together. */
void aw_profile_add(aw_profile *p, const char *where, const char *name, uint64_t count);
void aw_profile_merge(aw_profile *into, const aw_profile *from);
/* The library's instructions (lua/aiwolf/...) once more, charged to the
 * line of the agent's code that called into it ("file:line"; callee: the
 * library function it called, "name (file:line)" or "file:line"): the same 4096 limit, not
 * in aw_profile_total (the library's functions are counted there). */
void aw_profile_add_caller(aw_profile *p, const char *line, const char *callee, uint64_t count);
void aw_profile_each_caller(const aw_profile *p, aw_profile_fn fn, void *ud);
uint64_t aw_profile_callers_total(const aw_profile *p);
uint64_t aw_profile_total(const aw_profile *p);
/* Calls fn for each function, in no particular order. */
void aw_profile_each(const aw_profile *p, aw_profile_fn fn, void *ud);

#endif
