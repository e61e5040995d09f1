/* nlprules: what the NLP division's rules (aiwolfdial's aiwolf-nlp-server)
 * add to a game: the characters' names the agents know each other by
 * ("Minato", "ミナト"), and the length rule that cuts a free-text talk:
 * at most talk_length characters before its first "@Name" mention of
 * another agent, at most mention_length after it (spaces not counted, as
 * the official server's default count_spaces=false). Pure functions; the
 * engine applies the cut to every talk and whisper (settings.h:
 * talk_length, mention_length, character_names), the NLP codec names the
 * agents. The length rule and the rendering of protocol sentences into
 * natural language are the ones connect --nlp's client uses too. Uses
 * settings, protocol and util.
 *
 * Ownership: names are static strings. */
#ifndef AW_NLPRULES_H
#define AW_NLPRULES_H

#include <stdbool.h>
#include <stddef.h>

#include "settings.h"
#include "util.h"

/* The name agent a (1..AW_MAX_PLAYERS) goes by under the settings'
 * character_names: the official server's profiles in their order (agent 1
 * is the first profile), or NULL when the settings name no characters. */
const char *aw_nlp_character(const aw_settings *s, int agent);

/* The profile text the NLP agents' INITIALIZE carries for agent a's
 * character (info.profile: who the character is, for an agent to play
 * it): this project's own short descriptions of the first 13 characters
 * (every seat of the nlp presets), in the language of character_names;
 * NULL past them or with no character names. */
const char *aw_nlp_profile(const aw_settings *s, int agent);

/* The agent whose character name is name[0..len) in a game of n players
 * under s, or 0. "Agent[NN]" is accepted too. */
int aw_nlp_agent_of(const aw_settings *s, int n, const char *name, size_t len);

/* The length rule as the official server counts (its util.CountLength):
 * the characters of s (UTF-8) — or the words, when count_in_word — not
 * counting white space (Go's unicode.IsSpace: ASCII space, tab, line
 * breaks, U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F,
 * U+205F, U+3000) unless count_spaces. A byte that is not UTF-8 counts as
 * one character. */
int aw_nlp_count_length(const char *s, size_t len, bool count_in_word, bool count_spaces);

/* How many bytes of s the server's util.TrimLength keeps at max: all of s
 * when its length (as above) is at most max, else the prefix that ends
 * just after the max-th counted character (white space after it goes with
 * the rest: "abc def" at 3 is "abc"); with count_in_word, just after the
 * max-th word. Never inside a UTF-8 character. max < 0: no limit. */
size_t aw_nlp_trim_length(const char *s, size_t len, int max, bool count_in_word, bool count_spaces);

/* One length rule, both sides' (serve --nlp's engine, connect --nlp's
 * client): what a talk may hold around its first "@Name" mention of an
 * agent other than the speaker (the earliest in the text; at one place,
 * the first agent by number). */
typedef struct aw_nlp_length {
    bool mentions;     /* look for a mention at all */
    int before, after; /* characters before the mention and after it (the
                        * whole text when there is none); -1: no limit */
    int per_talk;      /* before + after together (the mention not counted);
                        * when before alone is past it, the mention and what
                        * follows go; -1: no limit */
    bool in_word, count_spaces;
} aw_nlp_length;

/* Appends text[0..len) cut to rule r to out, names[1..n] (NULL entries: no
 * such name) the agents' names for mentions; returns true when something
 * was cut. The mention itself is kept as it is. Cutting a cut text again
 * gives it back unchanged. */
bool aw_nlp_fit(const char *text, size_t len, int speaker, const char *const *names, int n, const aw_nlp_length *r,
                aw_buf *out);

/* Applies the length rule of s to talk text[0..len) of agent `speaker` in
 * a game of n players (aw_nlp_fit with the characters' names: at most
 * talk_length characters before the first mention, mention_length after
 * it, 0 meaning no limit): appends what is kept to out and returns true
 * when something was cut (out then differs from the text). With no limits
 * set (talk_length and mention_length 0) out is the text. */
bool aw_nlp_cut(const aw_settings *s, int n, int speaker, const char *text, size_t len, aw_buf *out);

/* Renders talk text for NLP agents: a protocol sentence (COMINGOUT
 * Agent[03] SEER) described in lang ("en" or "ja", aw_protocol_describe)
 * with Agent[NN] replaced by names[NN] (1..n; NULL entries stay
 * Agent[NN]); Skip, Over and any other text as they are. Then made one
 * line of valid UTF-8: control bytes become spaces, invalid bytes go.
 * Appends to out (no length rule applied); returns true when text was a
 * protocol sentence (and so was rendered). */
bool aw_nlp_render(const char *text, size_t len, int speaker, const char *const *names, int n, const char *lang,
                   aw_buf *out);

/* Appends s[0..len) as one line of valid UTF-8: control bytes become
 * spaces, invalid bytes go. */
void aw_nlp_one_line(const char *s, size_t len, aw_buf *out);

/* The language NLP agents of a game under s talk in: "ja" under Japanese
 * character names, else "en". */
const char *aw_nlp_lang(const aw_settings *s);

#endif
