/* lualint: checks an agent file before any game plays it (`aiwolf lint`),
 * in the real sandbox:
 *   - it compiles (syntax errors with file:line) and runs its top level
 *     (errors at load, a result that is not a table), as a game would;
 *   - a scan of the compiled code (the whole file, every function, not
 *     only what runs at load) finds assignments to globals, reads of names
 *     that are not globals of the sandbox (typos, or io/dofile/... that the
 *     sandbox removes) and fields of the sandbox's libraries that do not
 *     exist there (os.exit, string.dump);
 *   - the table it returns: methods whose name is close to one the game
 *     calls but is not it (`tlak`, `day_start`, `dayFinish`), method names
 *     bound to something other than a function, and which of the methods
 *     the game calls are not defined (a note, not a finding).
 * The scan reads Lua 5.4's bytecode format (lua_dump); a format it does not
 * know is reported as a note and the scan skipped.
 *
 * Uses sandbox, luamods, luaseat (its options: prepare), util. */
#ifndef AW_LUALINT_H
#define AW_LUALINT_H

#include "luaseat.h"
#include "util.h"

/* Lints the agent file path. Appends one line per finding to findings
 * ("PATH:LINE: message\n", or "PATH: message\n" where no line applies) and
 * one per note to notes ("PATH: note: ...\n"). opts gives the sandbox's
 * preparation (the protocol core) and memory; budget_ms 0 means 1000 ms.
 * Returns the number of findings, or -1 with err filled when the file
 * cannot be read or no sandbox can be made. */
int aw_lualint(const char *path, const aw_luaseat_opts *opts, aw_buf *findings, aw_buf *notes, aw_error *err);

/* Why a file's top level is not an agent, one message in a game and in
 * lint: "PATH: the file returns nothing: ..." when it returned no value (type
 * "nil"), else "PATH: the file must return a table of methods, not a TYPE". */
void aw_lualint_return_msg(char *buf, size_t n, const char *path, const char *type);

/* The methods the game calls on an agent (NULL-terminated): getName,
 * initialize, update, dayStart, talk, whisper, vote, divine, guard, attack,
 * finish. */
extern const char *const aw_agent_methods[];

/* Appends a luacheck standard describing exactly the sandbox's globals (every
 * global, and each library table's fields) as the Lua text
 *   stds.aiwolf_sandbox = { read_globals = { ... } }
 * Returns 0, or -1 with err filled. */
int aw_lualint_luacheck_std(aw_buf *out, aw_error *err);

#endif
