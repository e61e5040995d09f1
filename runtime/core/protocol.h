/* protocol: the AIWolf protocol 3.6 sentence language in C — a parser into a
 * typed tree, a printer to the canonical text the official Java library
 * writes, the validator the game engine applies to every talk and whisper,
 * subject resolution (spec §4.1), ANY expansion (spec §5.4) and game-level
 * checks (agents that exist, talk references that exist).
 *
 * Two grammars are accepted, chosen by aw_validation:
 *   AW_VALIDATE_STRICT  exactly what the official Content.validate of
 *                       AIWolfCommon 0.6.x accepts, oddities included (see
 *                       docs/protocol.md); where the official library throws,
 *                       the text is invalid here.
 *   AW_VALIDATE_LENIENT strict plus the seed specification's spellings:
 *                       Agent1 for Agent[01], OVER and SKIP, and keywords in
 *                       any letter case.
 *   AW_VALIDATE_OFF     any text without control bytes (validation only;
 *                       aw_protocol_parse treats it as lenient).
 *
 * Input is untrusted: any byte string (NULs, invalid UTF-8, megabyte lines)
 * gives a tree or an error, never a crash. Operators nest at most
 * AW_PROTOCOL_MAX_DEPTH deep, which bounds recursion; the work is at most
 * O(length × depth).
 *
 * Uses util (errors, buffers) and settings (aw_role, aw_species, aw_validation).
 */
#ifndef AW_PROTOCOL_H
#define AW_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>

#include "settings.h"
#include "util.h"

/* Deepest nesting of operators accepted ("NOT (NOT (VOTE Agent[01]))" has
 * depth 3). The official library has no bound but dies of stack overflow. */
#define AW_PROTOCOL_MAX_DEPTH 64

/* Agent values in a tree: 1..N an agent, AW_ANY the word ANY (the official
 * library treats Agent[00] as ANY too), AW_UNSPEC an omitted subject. */
#define AW_ANY 0
#define AW_UNSPEC (-1)

/* ANY in a role or species slot. */
#define AW_ROLE_ANY ((aw_role)-2)
#define AW_SPECIES_ANY ((aw_species)-1)

/* The 13 sentence types, the two control words and the 8 operators. */
typedef enum aw_verb {
    AW_V_ESTIMATE = 0,
    AW_V_COMINGOUT,
    AW_V_DIVINATION,
    AW_V_GUARD,
    AW_V_VOTE,
    AW_V_ATTACK,
    AW_V_DIVINED,
    AW_V_IDENTIFIED,
    AW_V_GUARDED,
    AW_V_VOTED,
    AW_V_ATTACKED,
    AW_V_AGREE,
    AW_V_DISAGREE,
    AW_V_OVER,
    AW_V_SKIP,
    AW_V_REQUEST,
    AW_V_INQUIRE,
    AW_V_BECAUSE,
    AW_V_DAY,
    AW_V_NOT,
    AW_V_AND,
    AW_V_OR,
    AW_V_XOR,
    AW_V_COUNT
} aw_verb;

typedef enum aw_talk_type { AW_TALK = 0, AW_WHISPER = 1 } aw_talk_type;

/* What a verb carries (a bit set), so code can walk any tree generically. */
enum {
    AW_HAS_TARGET = 1,   /* target: sentences with an agent, REQUEST, INQUIRE */
    AW_HAS_ROLE = 2,     /* ESTIMATE, COMINGOUT */
    AW_HAS_SPECIES = 4,  /* DIVINED, IDENTIFIED */
    AW_HAS_TALK = 8,     /* AGREE, DISAGREE */
    AW_HAS_DAY = 16,     /* DAY */
    AW_HAS_ARGS = 32     /* every operator */
};

/* One node of a sentence tree. Fields a verb does not carry are 0 / NULL.
 *
 * subject is as it must be written in the canonical text: AW_UNSPEC when it
 * is omitted or equals the subject the context implies (so that parse, print
 * and parse again give the same tree), otherwise an agent or AW_ANY. After
 * aw_protocol_resolve, `who` holds the resolved subject (spec §4.1). */
typedef struct aw_sentence {
    aw_verb verb;
    int subject;
    int who;               /* resolved subject; AW_UNSPEC until aw_protocol_resolve */
    int target;            /* agent or AW_ANY */
    aw_role role;          /* a role or AW_ROLE_ANY */
    aw_species species;    /* HUMAN, WEREWOLF or AW_SPECIES_ANY */
    aw_talk_type talk_type;
    int talk_day, talk_id; /* the talk referred to by AGREE/DISAGREE */
    int day;               /* DAY operator */
    size_t nargs;          /* operands of an operator */
    struct aw_sentence **args;
} aw_sentence;

/* Names: "VOTE", "Over", "REQUEST"… (as written on the wire) and the inverse
 * (exact spelling; returns -1 when unknown). */
const char *aw_verb_name(aw_verb v);
int aw_verb_parse(const char *name);
unsigned aw_verb_flags(aw_verb v); /* AW_HAS_* bits */
/* Operands an operator takes: *min..*max (max 0 = unbounded). */
void aw_verb_arity(aw_verb v, size_t *min, size_t *max);

/* Validates one utterance. Returns 0 if text[0..len) is valid under mode,
 * otherwise -AW_EINVAL with a message that starts with the byte offset
 * ("at byte 5: expected ..."); err->col also holds the offset (1-based, 0 if
 * none). */
int aw_protocol_validate(const char *text, size_t len, aw_validation mode, aw_error *err);

/* Parses one utterance into a new tree owned by the caller (free with
 * aw_sentence_free). Returns NULL with err filled when invalid. Operands the
 * official library ignores (a second operand of NOT, a third of BECAUSE) are
 * checked and dropped. */
aw_sentence *aw_protocol_parse(const char *text, size_t len, aw_validation mode, aw_error *err);

/* Frees a tree and all its operands. NULL is fine. */
void aw_sentence_free(aw_sentence *s);

/* New nodes (owned by the caller). aw_sentence_new gives a node of verb v
 * with an omitted subject and nothing else set; aw_sentence_add takes
 * ownership of arg and appends it to s's operands. aw_sentence_copy deep-copies. */
aw_sentence *aw_sentence_new(aw_verb v);
void aw_sentence_add(aw_sentence *s, aw_sentence *arg);
aw_sentence *aw_sentence_copy(const aw_sentence *s);

/* Structural equality of two trees (subject, fields the verb carries,
 * operands; `who` is ignored). */
bool aw_sentence_equal(const aw_sentence *a, const aw_sentence *b);

/* Rewrites subjects into canonical form: a nested subject equal to the one
 * the context implies becomes AW_UNSPEC. aw_protocol_parse already does this;
 * use it on trees built by hand before comparing them. */
void aw_sentence_normalize(aw_sentence *s);

/* Appends the canonical (official) text of s to out. Subjects equal to the
 * implied one are omitted, agents print as Agent[03], the control words as
 * Over and Skip. Parsing the text again gives the same tree (after
 * aw_sentence_normalize), except for an AND/OR without operands, which the
 * official library accepts and prints as "AND " but does not read back.
 * Recursion follows the tree: trees built by hand should stay within
 * AW_PROTOCOL_MAX_DEPTH like parsed ones. */
void aw_protocol_print(const aw_sentence *s, aw_buf *out);
/* The same into a new NUL-terminated string owned by the caller (free()). */
char *aw_protocol_to_string(const aw_sentence *s);

/* Seed-spec spelling (Agent3, OVER, SKIP) instead of the official one. */
void aw_protocol_print_seed(const aw_sentence *s, aw_buf *out);

/* Fills `who` in every node (spec §4.1): an omitted subject at the top is the
 * speaker; inside REQUEST/INQUIRE it is the operator's target; elsewhere the
 * parent's resolved subject. */
void aw_protocol_resolve(aw_sentence *s, int speaker);

/* ANY expansion (spec §5.4): returns a new tree (owned by the caller) in which
 * every node that has ANY in its subject, target, role or species is replaced
 * by the OR of its concrete substitutions (agents from alive[0..nalive),
 * the six roles of the spec, HUMAN/WEREWOLF). A node with a single
 * substitution is not wrapped in OR. Fails with -AW_EINVAL when the result
 * would exceed max_nodes nodes (0 = 100000). */
aw_sentence *aw_protocol_expand_any(const aw_sentence *s, const int *alive, size_t nalive,
                                    size_t max_nodes, aw_error *err);

/* What a game knows for game-level validation. */
typedef struct aw_protocol_game {
    int players;               /* agents are 1..players */
    int today;                 /* the current day */
    const int *talks_per_day;  /* [0..today]: talks so far on each day (NULL = none) */
    const int *whispers_per_day; /* [0..today]: whispers so far (NULL = none) */
} aw_protocol_game;

/* Game-level checks on a parsed tree: every agent within 1..players, DAY and
 * talk references not in the future, referenced talks/whispers that exist.
 * 0 or -AW_EINVAL with a message. */
int aw_protocol_check_game(const aw_sentence *s, const aw_protocol_game *g, aw_error *err);

/* One-line description in English ("en") or Japanese ("ja") of what the
 * sentence says, appended to out, e.g. "Agent[01] says Agent[03] is a
 * werewolf (divined)". speaker may be AW_UNSPEC. */
void aw_protocol_describe(const aw_sentence *s, int speaker, const char *lang, aw_buf *out);

/* Names of roles and species as the protocol writes them ("ANY" for ANY). */
const char *aw_protocol_role_name(aw_role r);
const char *aw_protocol_species_name(aw_species s);

#endif
